"""Liar's Poker Dice's luck baseline (:mod:`referee.gamekit.luck_baseline`): a fitted
table, in ``baseline.json`` beside this module, over (my chips, their chips, I hold the
dice, the dice's poker category, whether they beat the last declaration: 1 / 0, −1 when
there is none), the mean final score of the key's seat; a missing key falls back to the
mean of its first three features. The expectation is exact: every roll of the dice not
kept, with its multinomial weight.

Refitted by ``python -m bench.luck --fit`` (``--fit-tables`` and ``--fit-coefficients``
refit one part).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

from referee.gamekit import poker_dice
from referee.gamekit.base import ChanceOutcome, ChanceRequest
from referee.gamekit.luck_baseline import (
    Key,
    Sampler,
    TableBaseline,
    kept_dice,
    rerolled,
    sorted_rolls,
)
from referee.games.liars_poker_dice import engine as liars_poker_dice


class LiarsPokerDiceBaseline(TableBaseline):
    game = "liars_poker_dice"
    data = f"{__package__}:baseline.json"

    def _key(self, state: Any, dice: Sequence[int], seat: int) -> Key:
        hand = poker_dice.evaluate(dice)
        last = liars_poker_dice.last_declaration(state.steps)
        beats = -1 if last is None else int(poker_dice.rank(hand) > poker_dice.rank(last))
        return (
            state.chips[seat],
            state.chips[1 - seat],
            int(state.holder == seat),
            int(hand.category),
            beats,
        )

    def key(self, state: Any, outcome: ChanceOutcome, seat: int) -> Key | None:
        if state.phase is liars_poker_dice.Phase.ROLL_OFF:
            return None
        return self._key(state, rerolled(state.dice, state.pending, outcome), seat)

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        if state.phase is liars_poker_dice.Phase.ROLL_OFF:
            return 0.5
        last = liars_poker_dice.last_declaration(state.steps)
        prefix = (state.chips[seat], state.chips[1 - seat], int(state.holder == seat))
        return math.fsum(
            p * self.lookup((*prefix, category, beats))
            for (category, beats), p in _poker_dice_distribution(
                kept_dice(state.dice, state.pending), -1 if last is None else poker_dice.rank(last)
            )
        )


@cache
def _poker_dice_distribution(
    kept: tuple[int, ...], last_rank: int
) -> tuple[tuple[tuple[int, int], float], ...]:
    """P(category, beats the last declaration) of the dice after rolling all but ``kept``."""
    out: dict[tuple[int, int], float] = {}
    for roll, p in sorted_rolls(poker_dice.NUM_DICE - len(kept)):
        hand = poker_dice.evaluate(kept + roll)
        beats = -1 if last_rank < 0 else int(poker_dice.rank(hand) > last_rank)
        cell = (int(hand.category), beats)
        out[cell] = out.get(cell, 0.0) + p
    return tuple(sorted(out.items()))


BASELINE = LiarsPokerDiceBaseline()
"""The game's baseline (its registration's ``baseline``)."""
