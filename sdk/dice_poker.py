"""Dice Poker for bot authors: the types a bot sees and helpers built on the engine.

    from sdk import Bot, run
    from sdk.dice_poker import Action, Observation, legal_actions

    class MyBot(Bot[Observation, Action]):
        game = "dice_poker"

        def act(self, observation: Observation) -> Action:
            return self.rng.choice(legal_actions(observation))

The legality helpers run exactly the referee's code, so a bot that only plays
actions from :func:`legal_actions` (or checks :func:`is_legal`) never faults.

:class:`TurnPlanner` computes, exactly, the expected value of the best way to
play out the rest of a turn for any value of the final dice: with 252 sorted
throws and 462 sets of kept dice, the whole table takes a few milliseconds.

Everything else is the engine's own code (``referee.games.dice_poker.engine``),
re-exported so that a bot imports only the SDK:

* Observation and its parts: ``Observation``, ``Rules``, ``Phase``, ``Scorecard``,
  ``Line`` (the 15 lines), ``LINE_NAMES``, ``UPPER_LINES``, ``LOWER_LINES``.
* Actions: ``Action``, ``Reroll``, ``Score``; ``ALL_REROLLS`` (every set of
  positions a ``Reroll`` may name).
* Legality: :func:`legal_actions`, :func:`is_legal`.
* Scoring: ``line_points(line, dice, joker=...)``, ``score_options(card, dice)``,
  ``is_joker(card, dice)`` and the numbers ``NUM_DICE``, ``MAX_ROLLS``,
  ``NUM_TURNS``, ``UPPER_BONUS``, ``UPPER_BONUS_THRESHOLD``, ``POKER_POINTS``,
  ``EXTRA_POKER_BONUS``, ``FULL_HOUSE_POINTS``, ``SMALL_STRAIGHT_POINTS``,
  ``LARGE_STRAIGHT_POINTS``.
* Planning: ``Throw``, ``ALL_THROWS`` (the 252 sorted throws), ``roll_outcomes(count)``
  (every sorted roll of ``count`` dice with its chance), :class:`TurnPlanner`.
* Simulation, for solvers and search: the engine ``DICE_POKER``, its ``State``,
  and ``GameError`` (what the engine raises).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from referee.gamekit.base import GameError
from referee.gamekit.poker_dice import roll_outcomes
from referee.games.dice_poker.engine import (
    ALL_REROLLS,
    DICE_POKER,
    EXTRA_POKER_BONUS,
    FULL_HOUSE_POINTS,
    LARGE_STRAIGHT_POINTS,
    LINE_NAMES,
    LOWER_LINES,
    MAX_ROLLS,
    NUM_DICE,
    NUM_TURNS,
    POKER_POINTS,
    SMALL_STRAIGHT_POINTS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    UPPER_LINES,
    Action,
    Line,
    Observation,
    Phase,
    Reroll,
    Rules,
    Score,
    Scorecard,
    State,
    is_joker,
    line_points,
    score_options,
)
from sdk.legality import legality

__all__ = [
    "ALL_REROLLS",
    "ALL_THROWS",
    "DICE_POKER",
    "EXTRA_POKER_BONUS",
    "FULL_HOUSE_POINTS",
    "LARGE_STRAIGHT_POINTS",
    "LINE_NAMES",
    "LOWER_LINES",
    "MAX_ROLLS",
    "NUM_DICE",
    "NUM_TURNS",
    "POKER_POINTS",
    "SMALL_STRAIGHT_POINTS",
    "UPPER_BONUS",
    "UPPER_BONUS_THRESHOLD",
    "UPPER_LINES",
    "Action",
    "GameError",
    "Line",
    "Observation",
    "Phase",
    "Reroll",
    "Rules",
    "Score",
    "Scorecard",
    "State",
    "Throw",
    "TurnPlanner",
    "is_joker",
    "is_legal",
    "legal_actions",
    "line_points",
    "roll_outcomes",
    "score_options",
]

Throw = tuple[int, ...]
"""Dice as a sorted tuple (order does not matter for scoring)."""


legal_actions, is_legal = legality(DICE_POKER)
"""``legal_actions(observation)``: every legal action for the observing seat (empty when
it is not its turn); ``is_legal(observation, action)``: whether the referee would
accept ``action`` from it now (:mod:`sdk.legality`)."""


ALL_THROWS: tuple[Throw, ...] = tuple(
    itertools.combinations_with_replacement(range(1, 7), NUM_DICE)
)
"""Every sorted throw of five dice (252)."""


def _sub_throws(throw: Throw) -> set[Throw]:
    """Every proper sub-multiset of ``throw`` (the dice one may keep when re-rolling)."""
    return {
        tuple(sorted(v for i, v in enumerate(throw) if i not in positions))
        for positions in ALL_REROLLS
    }


class TurnPlanner:
    """Exact expected values of the rest of a turn for a given value of final dice.

    ``value(throw)`` scores a final sorted throw (e.g. the best line's points).
    :meth:`expected` gives the value of a throw with ``rolls_left`` re-rolls still
    allowed, assuming optimal keeping from here on; :meth:`best_action` turns it
    into a re-roll or a stop.
    """

    def __init__(self, value: Callable[[Throw], float]) -> None:
        self._value = value
        self._stop: dict[Throw, float] = {}
        self._v: dict[tuple[Throw, int], float] = {}
        self._e: dict[tuple[Throw, int], float] = {}

    def stop_value(self, throw: Throw) -> float:
        """The value of stopping with ``throw`` (sorted)."""
        value = self._stop.get(throw)
        if value is None:
            value = self._stop[throw] = self._value(throw)
        return value

    def keep_value(self, kept: Throw, rolls_left: int) -> float:
        """Expected value after keeping ``kept`` and rolling the others once.

        ``rolls_left`` counts the re-rolls still allowed *after* this one.
        """
        key = (kept, rolls_left)
        value = self._e.get(key)
        if value is None:
            value = sum(
                p * self.expected(tuple(sorted(kept + roll)), rolls_left)
                for roll, p in roll_outcomes(NUM_DICE - len(kept))
            )
            self._e[key] = value
        return value

    def expected(self, throw: Throw, rolls_left: int) -> float:
        """Value of holding ``throw`` (sorted) with ``rolls_left`` re-rolls allowed."""
        if rolls_left <= 0:
            return self.stop_value(throw)
        key = (throw, rolls_left)
        value = self._v.get(key)
        if value is None:
            value = max(
                self.stop_value(throw),
                *(self.keep_value(kept, rolls_left - 1) for kept in _sub_throws(throw)),
            )
            self._v[key] = value
        return value

    def best_reroll(self, dice: Sequence[int], rolls_left: int) -> tuple[tuple[int, ...], float]:
        """The best positions to re-roll now (``()`` = stop) and the expected value."""
        best: tuple[int, ...] = ()
        best_value = self.stop_value(tuple(sorted(dice)))
        if rolls_left <= 0:
            return best, best_value
        for positions in ALL_REROLLS:
            kept = tuple(sorted(v for i, v in enumerate(dice) if i not in positions))
            value = self.keep_value(kept, rolls_left - 1)
            if value > best_value + 1e-9:
                best, best_value = positions, value
        return best, best_value
