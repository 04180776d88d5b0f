"""Every action Liar's Poker Dice can take: its action universe (referee.gamekit.universe)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from referee.gamekit.poker_dice import ALL_HANDS
from referee.gamekit.universe import POSITION_SUBSETS
from referee.games.liars_poker_dice.engine import Accept, Challenge, Declare, Reroll


def action_universe(rules: Any, num_seats: int) -> list[Hashable]:
    return [
        Challenge(),
        Accept(),
        *(Declare(hand) for hand in ALL_HANDS),
        *(Reroll(positions) for positions in POSITION_SUBSETS),
    ]
