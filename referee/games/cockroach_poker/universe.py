"""Every action Cockroach Poker can take: its action universe (:mod:`referee.gamekit.universe`)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from referee.gamekit.cards import KINDS
from referee.games.cockroach_poker.engine import Announce, Believe, Disbelieve


def action_universe(rules: Any, num_seats: int) -> list[Hashable]:
    return [
        Believe(),
        Disbelieve(),
        *(Announce(card, claim) for card in KINDS for claim in KINDS),
    ]
