"""Every action Liar's Poker can take: its action universe (:mod:`referee.gamekit.universe`).

An exchange is keyed by the positions it discards, ``(EXCHANGE, positions)``, not by
the cards, so the universe stays at 8,596 announcements + 34 other actions.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from referee.gamekit.poker_hands import all_announcements
from referee.gamekit.universe import EXCHANGE, POSITION_SUBSETS
from referee.games.liars_poker.engine import Accept, Announce, Challenge


def action_universe(rules: Any, num_seats: int) -> list[Hashable]:
    return [
        Challenge(),
        Accept(),
        *((EXCHANGE, positions) for positions in POSITION_SUBSETS),
        *(Announce(announcement) for announcement in all_announcements()),
    ]
