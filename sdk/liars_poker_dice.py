"""Liar's Poker Dice for bot authors: the types a bot sees and helpers built on the engine.

    from sdk import Bot, run
    from sdk.liars_poker_dice import Action, Observation, legal_actions

    class MyBot(Bot[Observation, Action]):
        game = "liars_poker_dice"

        def act(self, observation: Observation) -> Action:
            return self.rng.choice(legal_actions(observation))

The legality helpers run exactly the referee's code, so a bot that only plays
actions from :func:`legal_actions` (or checks :func:`is_legal`) never faults.

The observation shows the dice only while the seat holds them. A bot that wants
to reason about the dice it passed on should remember them itself (the SDK keeps
one bot instance per match).

Everything below is the engine's own code (``referee.games.liars_poker_dice.engine`` and
the hand rules of ``referee.gamekit.poker_dice``) or built on it, re-exported so
that a bot imports only the SDK:

* Observation and its parts: ``Observation``, ``Rules``, ``Phase``, ``Step``,
  ``StepKind``, ``RoundRecord``, ``last_declaration(steps)``.
* Actions: ``Action``, ``Declare``, ``Challenge``, ``Accept``, ``Reroll``;
  ``ALL_POSITION_SETS`` (every set of positions a ``Reroll`` may name, fewest first).
* Legality: :func:`legal_actions`, :func:`is_legal`.
* Hands: ``Hand``, ``Category``, ``CATEGORY_NAMES``, ``ALL_HANDS`` (lowest first),
  ``HAND_INDEX``, ``BOTTOM_HAND``, ``TOP_HAND``, ``NUM_DICE``, ``FACES``,
  ``is_valid_hand``, ``evaluate(dice)``, ``rank(hand)``, ``is_true(hand, dice)``,
  ``hands_above``, ``describe_hand``.
* Probabilities: ``roll_outcomes(count)`` (every sorted roll with its chance),
  ``rank_distribution(kept)``, ``probability_at_least(kept, hand)``,
  :func:`probability_above`, :func:`best_reroll`, :func:`claim_probability`.
* Simulation, for solvers and search: the engine ``LIARS_POKER_DICE``, its
  ``State``, and ``GameError`` (what the engine raises).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from referee.gamekit.base import GameError
from referee.gamekit.poker_dice import (
    ALL_HANDS,
    BOTTOM_HAND,
    CATEGORY_NAMES,
    FACES,
    HAND_INDEX,
    NUM_DICE,
    TOP_HAND,
    Category,
    Hand,
    describe_hand,
    evaluate,
    hands_above,
    is_true,
    is_valid_hand,
    probability_at_least,
    rank,
    rank_distribution,
    roll_outcomes,
)
from referee.games.liars_poker_dice.engine import (
    ALL_POSITION_SETS,
    LIARS_POKER_DICE,
    Accept,
    Action,
    Challenge,
    Declare,
    Observation,
    Phase,
    Reroll,
    RoundRecord,
    Rules,
    State,
    Step,
    StepKind,
    last_declaration,
)
from sdk.legality import legality

__all__ = [
    "ALL_HANDS",
    "ALL_POSITION_SETS",
    "BOTTOM_HAND",
    "CATEGORY_NAMES",
    "FACES",
    "HAND_INDEX",
    "LIARS_POKER_DICE",
    "NUM_DICE",
    "TOP_HAND",
    "Accept",
    "Action",
    "Category",
    "Challenge",
    "Declare",
    "GameError",
    "Hand",
    "Observation",
    "Phase",
    "Reroll",
    "RoundRecord",
    "Rules",
    "State",
    "Step",
    "StepKind",
    "best_reroll",
    "claim_probability",
    "describe_hand",
    "evaluate",
    "hands_above",
    "is_legal",
    "is_true",
    "is_valid_hand",
    "last_declaration",
    "legal_actions",
    "probability_above",
    "probability_at_least",
    "rank",
    "rank_distribution",
    "roll_outcomes",
]


legal_actions, is_legal = legality(LIARS_POKER_DICE)
"""``legal_actions(observation)``: every legal action for the observing seat (empty when
it is not its turn); ``is_legal(observation, action)``: whether the referee would
accept ``action`` from it now (:mod:`sdk.legality`)."""


def probability_above(kept: Sequence[int], hand: Hand | None) -> float:
    """P(the dice end strictly above ``hand``) keeping ``kept`` and rolling the rest."""
    if hand is None:
        return 1.0
    return sum(rank_distribution(kept)[rank(hand) + 1 :])


def _kept(dice: Sequence[int], positions: Sequence[int]) -> tuple[int, ...]:
    return tuple(v for i, v in enumerate(dice) if i not in positions)


def best_reroll(dice: Sequence[int], beat: Hand | None, min_reroll: int = 0) -> tuple[int, ...]:
    """The positions to re-roll that maximise P(ending strictly above ``beat``).

    Ties go to fewer re-rolled dice (then to the lowest positions). With no hand
    to beat, maximises the expected rank instead.
    """
    best: tuple[int, ...] = ()
    best_value = -1.0
    for positions in ALL_POSITION_SETS:
        if len(positions) < min_reroll:
            continue
        kept = _kept(dice, positions)
        if beat is None:
            dist = rank_distribution(kept)
            value = sum(r * p for r, p in enumerate(dist))
        else:
            value = probability_above(kept, beat)
        if value > best_value + 1e-12:
            best, best_value = positions, value
    return best


def claim_probability(passed: Sequence[int] | None, rerolled: int | None, hand: Hand) -> float:
    """The chance that a declaration of ``hand`` is true.

    ``passed`` are the dice the declarer received (``None`` if unknown, e.g. for a
    round's opening declaration made on a fresh roll); ``rerolled`` is the public
    count of dice they re-rolled. Assumes the declarer picked the ``rerolled``
    dice that give ``hand`` its best chance, so this is the probability that the
    hand was *reachable*: an upper bound on the truth of a bluff.
    """
    if passed is None or rerolled is None or len(passed) != NUM_DICE:
        return probability_at_least((), hand)
    best = 0.0
    for positions in itertools.combinations(range(NUM_DICE), rerolled):
        best = max(best, probability_at_least(_kept(passed, positions), hand))
    return best
