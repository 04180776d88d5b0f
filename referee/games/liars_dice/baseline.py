"""Liar's Dice's luck baseline (:mod:`referee.gamekit.luck_baseline`): P(I win the match)
after a roll, from the fitted data in ``baseline.json`` beside this module.

P(I win the match) = r·W(a, b − 1, 0) + (1 − r)·W(a − 1, b, 1), with ``r`` the fitted
share of rounds won (the data's ``round_wins`` table) given (my dice ``a``, their dice
``b``, I open, my dice and theirs counting for my best face, their dice and mine counting
for theirs), a hand's best face being its most numerous (wilds added; the highest on a
tie), in a sum round the two dice instead; and ``W`` the round's mean share chained
exactly through the dice counts (:func:`match_win`). Without fitted round shares the
value is the data's ``values`` table over the same key (the mean final score).

Refitted by ``python -m bench.luck --fit`` (``--fit-tables``, ``--fit-rounds`` and
``--fit-coefficients`` refit one part).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

from referee.gamekit.base import ChanceOutcome, ChanceRequest
from referee.gamekit.luck_baseline import FittedTable, Key, Sampler, TableBaseline, sorted_rolls


def _dice_strength(hand: Sequence[int], wild: int | None, sum_round: bool) -> int:
    """A Liar's Dice hand's strength: its largest count of one face (wilds added to
    every other face), or its die in a sum round; 0 for no dice."""
    if not hand:
        return 0
    if sum_round:
        return sum(hand)
    wilds = hand.count(wild) if wild is not None else 0
    return max(hand.count(face) + (wilds if face != wild else 0) for face in range(1, 7))


class LiarsDiceBaseline(TableBaseline):
    """The mean final score per key (the data's ``values`` table)."""

    game = "liars_dice"
    data = f"{__package__}:baseline.json"

    def table(self, key: Key) -> float:
        """The value of a key (the fitted table's)."""
        return self.lookup(key)

    def value(self, state: Any, outcome: ChanceOutcome, seat: int) -> float:
        key = self.key(state, outcome, seat)
        return 0.5 if key is None else self.table(key)

    def _context(self, state: Any, seat: int) -> tuple[int, int, int, int | None, bool]:
        other = 1 - seat
        wild = state.rules.wild if state.wilds_active else None
        return (
            state.dice_counts[seat],
            state.dice_counts[other],
            int(state.opener == seat),
            wild,
            state.sum_round,
        )

    def key(self, state: Any, outcome: ChanceOutcome, seat: int) -> Key | None:
        if state.phase != "roll":
            return None  # a roll-off: the opener's luck is left uncorrected
        mine, theirs, opens, wild, sum_round = self._context(state, seat)
        first = outcome[: state.dice_counts[0]]
        second = outcome[state.dice_counts[0] :]
        hands = (first, second) if seat == 0 else (second, first)
        return (mine, theirs, opens, *_hand_pair(hands[0], hands[1], wild, sum_round))

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        if state.phase != "roll":
            return 0.5
        mine, theirs, opens, wild, sum_round = self._context(state, seat)
        return math.fsum(
            p * self.table((mine, theirs, opens, *cell))
            for cell, p in _hand_pair_distribution(mine, theirs, wild, sum_round)
        )


@cache
def match_win(rounds: FittedTable, mine: int, theirs: int, opens: int) -> float:
    """P(I win the match) at the start of a round with ``mine`` and ``theirs`` dice: the
    round's fitted mean win share ``R`` (the parent shares of ``rounds``) chained exactly
    through the dice counts (the round's loser loses a die and opens the next round)::

        W(a, b, o) = R(a, b, o)·W(a, b − 1, 0) + (1 − R(a, b, o))·W(a − 1, b, 1)
    """
    if theirs <= 0:
        return 1.0
    if mine <= 0:
        return 0.0
    share = rounds.parents.get((mine, theirs, opens), 0.5)
    return share * match_win(rounds, mine, theirs - 1, 0) + (1 - share) * match_win(
        rounds, mine - 1, theirs, 1
    )


class LiarsDiceRoundBaseline(LiarsDiceBaseline):
    """Liar's Dice's value after a roll as P(win the match): the round's fitted win
    probability given both hands' features (the data's ``round_wins`` table: the share,
    else its parent's, else ½), chained through the dice counts by :func:`match_win`;
    the plain table's value when no round shares are fitted."""

    def table(self, key: Key) -> float:
        rounds = self.fitted().tables.get("round_wins")
        if rounds is None or not rounds.cells:
            return super().table(key)
        mine, theirs = key[0], key[1]
        won = rounds.get(key)
        return won * match_win(rounds, mine, theirs - 1, 0) + (1 - won) * match_win(
            rounds, mine - 1, theirs, 1
        )


@cache
def _face_counts(hand: tuple[int, ...], wild: int | None) -> tuple[tuple[int, ...], int]:
    """Per face 1..6 the dice that count for it (wilds added to the other faces), and
    the hand's best face (most dice, the highest face on a tie). Remembered: a
    distribution meets each hand once per hand of the other seat (252 × 252 pairs)."""
    wilds = hand.count(wild) if wild is not None else 0
    counts = tuple(hand.count(face) + (wilds if face != wild else 0) for face in range(1, 7))
    best = max(range(1, 7), key=lambda face: (counts[face - 1], face))
    return counts, best


def _hand_pair(
    mine: Sequence[int], theirs: Sequence[int], wild: int | None, sum_round: bool
) -> tuple[int, ...]:
    """The features of a roll for the seat holding ``mine``: in a sum round both dice;
    otherwise how many of my dice count for my best face and how many of theirs, then
    how many of their dice count for their best face and how many of mine (what each
    seat sees of its best face, and what the table truly holds of it)."""
    if sum_round:
        return _dice_strength(mine, wild, True), _dice_strength(theirs, wild, True)
    if not mine or not theirs:
        return _dice_strength(mine, wild, False), _dice_strength(theirs, wild, False)
    my_counts, my_best = _face_counts(tuple(mine), wild)
    their_counts, their_best = _face_counts(tuple(theirs), wild)
    return (
        my_counts[my_best - 1],
        their_counts[my_best - 1],
        their_counts[their_best - 1],
        my_counts[their_best - 1],
    )


@cache
def _hand_pair_distribution(
    mine: int, theirs: int, wild: int | None, sum_round: bool
) -> tuple[tuple[tuple[int, ...], float], ...]:
    """P(features) of :func:`_hand_pair` over both seats' fresh rolls (every sorted hand
    of each seat with its weight: both hands are independent)."""
    out: dict[tuple[int, ...], float] = {}
    for first, p in sorted_rolls(mine):
        for second, q in sorted_rolls(theirs):
            cell = _hand_pair(first, second, wild, sum_round)
            out[cell] = out.get(cell, 0.0) + p * q
    return tuple(sorted(out.items()))


BASELINE = LiarsDiceRoundBaseline()
"""The game's baseline (its registration's ``baseline``)."""
