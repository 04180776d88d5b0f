"""Liar's Poker's luck baseline (:mod:`referee.gamekit.luck_baseline`): a fitted table,
in ``baseline.json`` beside this module, over (penalty points to the limit, mine and
theirs capped at 3, I hold the cards, a fresh deal or a draw, the cards' best category,
whether they contain the last announcement: 1 / 0, −1 when there is none), the mean
final score of the key's seat; a missing key falls back to the mean of its first three
features. The expectation is sampled: the caller's sampler draws the shuffles.

Refitted by ``python -m bench.luck --fit`` (``--fit-tables`` and ``--fit-coefficients``
refit one part).
"""

from __future__ import annotations

import math
from typing import Any

from referee.gamekit import poker_hands
from referee.gamekit.base import ChanceOutcome, ChanceRequest
from referee.gamekit.cards import POKER_DECK
from referee.gamekit.luck_baseline import Key, Sampler, TableBaseline
from referee.games.liars_poker import engine as liars_poker


class LiarsPokerBaseline(TableBaseline):
    game = "liars_poker"
    data = f"{__package__}:baseline.json"

    def _hand(self, state: Any, outcome: ChanceOutcome) -> tuple[int, int]:
        """The five cards' best category, and whether they contain the last claim."""
        if state.phase == "deal":
            hand = tuple(POKER_DECK[i] for i in outcome[: liars_poker.HAND_SIZE])
        else:
            drawn = tuple(state.stock[i] for i in outcome[: len(state.discards)])
            hand = state.hand + drawn
        last = state.claims[-1].announcement if state.claims else None
        contains = -1 if last is None else int(poker_hands.contains(hand, last))
        return int(poker_hands.category_of(hand)), contains

    def _prefix(self, state: Any, seat: int) -> Key:
        limit = state.rules.penalty_limit
        return (
            min(limit - state.penalties[seat], 3),
            min(limit - state.penalties[1 - seat], 3),
            int(state.holder == seat),
            int(state.phase == "deal"),
        )

    def key(self, state: Any, outcome: ChanceOutcome, seat: int) -> Key | None:
        if state.num_seats != 2:
            return None
        return (*self._prefix(state, seat), *self._hand(state, outcome))

    def pair(
        self, state: Any, outcome: ChanceOutcome, request: ChanceRequest, sample: Sampler
    ) -> tuple[float, float]:
        hands = [self._hand(state, o) for o in sample(request)]
        actual = self._hand(state, outcome)
        out = []
        for seat in (0, 1):
            prefix = self._prefix(state, seat)
            expected = math.fsum(self.lookup((*prefix, *h)) for h in hands) / len(hands)
            out.append(self.lookup((*prefix, *actual)) - expected)
        return out[0], out[1]


BASELINE = LiarsPokerBaseline()
"""The game's baseline (its registration's ``baseline``)."""
