"""Every action Three-Card Bluff can take (the RL action universe of its registration)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from tests.game_plugins.three_card_bluff.engine import RANKS, Believe, Call, Claim


def actions(rules: Any, num_seats: int) -> list[Hashable]:
    return [Believe(), Call(), *(Claim(rank) for rank in RANKS)]
