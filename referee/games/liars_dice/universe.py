"""Every action Liar's Dice can take: its action universe (:mod:`referee.gamekit.universe`)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from referee.gamekit.dice import FACES
from referee.games.liars_dice.engine import MAX_TOTAL, MIN_TOTAL, Bid, Challenge, SumBid


def action_universe(rules: Any, num_seats: int) -> list[Hashable]:
    bids: list[Hashable] = [
        Bid(quantity, face)
        for quantity in range(1, rules.dice_per_player * num_seats + 1)
        for face in FACES
    ]
    sums: list[Hashable] = [SumBid(total) for total in range(MIN_TOTAL, MAX_TOTAL + 1)]
    return [Challenge(), *bids, *sums]
