"""Luck in a played match: AIVAT's chance-node corrections under a baseline per game.

A match's outcome mixes skill and luck. For each chance event ``c`` drawn in state ``s``
the *correction* for seat ``p`` is

    f_p(s, c) − E_{c' ~ chance}[ f_p(s, c') ]

where ``f_p(s, c)`` is a baseline's value for seat ``p`` of the state after ``c`` (a
number near seat ``p``'s expected score from there). Summed over a match's chance
events this is how much the dice and cards favoured ``p`` by the baseline's measure;
the luck-adjusted score is the score minus that sum (Burch, Schmid, Moravčík, Morrill,
Bowling: AIVAT, AAAI 2018). Whatever the baseline, each correction has mean zero under
the true chance distribution, so the adjusted score has the same mean as the raw one; a
good baseline removes most of the luck's variance.

A seat that answered a turn with a mixed move (:mod:`referee.core.mixed`: the referee
drew the action from the stated probabilities ``π``) adds AIVAT's *action* term

    f_p(s·a) − Σ_{a'} π(a') f_p(s·a')

for the action ``a`` drawn: mean zero too, since ``a`` was drawn from ``π``. It removes
the noise of the seat's own coin flips, which chance terms alone cannot (a referee that
sees only the actions taken cannot tell a lucky draw from a good move). It needs a
baseline that values the state after any action
(:meth:`~referee.gamekit.luck_baseline.Baseline.after_action`); with the exact value of
the game under both seats' policies (:mod:`referee.analysis.policy_values`) every
match's adjusted score is that value exactly.

The luck is that sum times a coefficient ``b`` fitted per game by least squares
(:meth:`Baseline.coefficient`): any fixed ``b`` keeps the mean, and a fitted one stops a
weak baseline from adding noise.

The expectation is exact where the outcomes can be enumerated cheaply (dice: every
sorted roll with its multinomial weight) and a seeded sample otherwise (card
shuffles: :data:`SAMPLES` draws from a stream keyed by the caller's ``salt`` and the
event's position, independent of the outcome actually drawn, so the estimate stays
unbiased).

Each game brings its own baseline (:func:`baseline_for`): its registration's
``baseline`` names it (:class:`referee.gamekit.entry.GameEntry`); the built-in games'
are ``referee/games/<game>/baseline.py``, each with its fitted data in
``baseline.json`` beside it (refitted with ``python -m bench.luck --fit``; the base
classes and the data's format: :mod:`referee.gamekit.luck_baseline`;
``docs/ratings.md``, luck-adjusted results, has each game's). A game without one, as
``cockroach_poker``, gets a constant baseline: no correction.

Two-seat matches only (the pair score is what is adjusted); other seat counts and
unknown games get no correction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from referee.core.catalogue import get_entry, get_game, load
from referee.core.events import ChanceEvent, Event
from referee.gamekit.base import (
    ChanceOutcome,
    ChanceRequest,
    Game,
    GameError,
    RulesError,
    draw_chance,
)
from referee.gamekit.fast_chance import FastChance
from referee.gamekit.luck_baseline import Baseline, ConstantBaseline, Sampler

__all__ = [
    "SAMPLES",
    "Baseline",
    "ConstantBaseline",
    "LuckError",
    "Sampler",
    "action_corrections",
    "baseline_for",
    "chance_corrections",
    "coefficient_for",
    "luck",
]

SAMPLES: Final = 16
"""Outcomes drawn per chance event where the expectation is sampled (card shuffles)."""


class LuckError(ValueError):
    """A match the corrections cannot be computed for (the message says why)."""


def baseline_for(game: str) -> Baseline:
    """The game's baseline: the one its registration names (``GameEntry.baseline``,
    loaded on first use), else a constant one (also for an unknown game)."""
    try:
        reference = get_entry(game).baseline
    except RulesError:
        return ConstantBaseline()
    if reference is None:
        return ConstantBaseline()
    found = load(reference)
    if not isinstance(found, Baseline):
        raise LuckError(f"{game}: its baseline {reference} is not a Baseline: {found!r}")
    return found


# ---------------------------------------------------------------------------
# A match's luck


def _sampler(salt: bytes, index: int) -> Sampler:
    def sample(request: ChanceRequest) -> list[ChanceOutcome]:
        rng = FastChance(b"bluff-arena/luck:" + salt + b":" + str(index).encode())
        return [draw_chance(request, rng) for _ in range(SAMPLES)]

    return sample


def chance_corrections(
    game_name: str,
    rules: Any,
    num_seats: int,
    events: Sequence[Event],
    *,
    salt: bytes = b"",
    baseline: Baseline | None = None,
) -> list[tuple[float, float]]:
    """Per chance event of a two-seat match, both seats' corrections
    ``f_p(s, c) − E[f_p(s, c')]`` (an empty list for other seat counts).

    ``rules`` are the parsed rules; ``salt`` keys the samples of sampled expectations
    (use something fixed per match that does not depend on its chance, such as its
    id or the deal's seed). Raises :class:`LuckError` when the events do not replay.
    """
    return _corrections(game_name, rules, num_seats, events, salt, baseline)[0]


def action_corrections(
    game_name: str,
    rules: Any,
    num_seats: int,
    events: Sequence[Event],
    *,
    salt: bytes = b"",
    baseline: Baseline | None = None,
) -> list[tuple[float, float]]:
    """Per action drawn from a mixed move (an :class:`ActionEvent` with its ``policy``),
    both seats' action corrections ``f_p(s·a) − Σ_a' π(a') f_p(s·a')`` (AIVAT's action
    terms); none when the baseline values no actions
    (:meth:`~referee.gamekit.luck_baseline.Baseline.after_action`) or the seat answered
    with one action."""
    return _corrections(game_name, rules, num_seats, events, salt, baseline)[1]


Rows = list[tuple[float, float]]


def _corrections(
    game_name: str,
    rules: Any,
    num_seats: int,
    events: Sequence[Event],
    salt: bytes,
    baseline: Baseline | None,
) -> tuple[Rows, Rows]:
    """One walk of the match: its chance rows and its action rows."""
    if num_seats != 2:
        return [], []
    game: Game[Any, Any, Any, Any] = get_game(game_name)
    chosen = baseline if baseline is not None else baseline_for(game_name)
    constant = isinstance(chosen, ConstantBaseline)
    state = game.new_game(rules, num_seats)
    chance: Rows = []
    actions: Rows = []
    try:
        for index, event in enumerate(events):
            if isinstance(event, ChanceEvent):
                request = game.chance_request(state)
                if constant:
                    chance.append((0.0, 0.0))
                else:
                    chance.append(chosen.pair(state, event.outcome, request, _sampler(salt, index)))
                state = game.apply_chance(state, event.outcome)
                continue
            policy = event.policy
            if policy is not None and not constant:
                row = chosen.action_pair(
                    state,
                    event.seat,
                    event.action,
                    tuple(zip(policy.actions, policy.probabilities, strict=True)),
                )
                if row is not None:
                    actions.append(row)
            state = game.apply_action(state, event.seat, event.action)
    except GameError as error:  # the engine's own error names what is wrong
        raise LuckError(f"{game_name}: event {index + 1} does not replay: {error}") from error
    return chance, actions


def coefficient_for(game: str) -> float:
    """The game's fitted coefficient ``b`` of the luck term (1 when none is fitted): its
    baseline's (:meth:`Baseline.coefficient`)."""
    return baseline_for(game).coefficient()


def luck(
    game_name: str,
    rules: Any,
    num_seats: int,
    events: Sequence[Event],
    *,
    salt: bytes = b"",
    baseline: Baseline | None = None,
    coefficient: float | None = None,
) -> tuple[float, float]:
    """Both seats' total luck in a two-seat match: ``b`` times the sum of their chance
    and action corrections; ``(0, 0)`` for other seat counts. The luck-adjusted score of seat
    ``p`` is its score minus ``luck(...)[p]``.

    ``b`` is ``coefficient`` when given, else 1 with a caller's own ``baseline``, else
    the game's fitted coefficient (:func:`coefficient_for`)."""
    if coefficient is not None:
        b = coefficient
    else:
        b = 1.0 if baseline is not None else coefficient_for(game_name)
    if not math.isfinite(b):
        raise LuckError(f"{game_name}: the luck coefficient must be finite, got {b}")
    chance, actions = _corrections(game_name, rules, num_seats, events, salt, baseline)
    rows = chance + actions
    return b * math.fsum(a for a, _ in rows), b * math.fsum(c for _, c in rows)
