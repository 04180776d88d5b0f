"""Every action Dice Poker can take: its action universe (:mod:`referee.gamekit.universe`)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from referee.gamekit.universe import POSITION_SUBSETS
from referee.games.dice_poker.engine import Line, Reroll, Score


def action_universe(rules: Any, num_seats: int) -> list[Hashable]:
    return [
        *(Reroll(positions) for positions in POSITION_SUBSETS),
        *(Score(line) for line in Line),
    ]
