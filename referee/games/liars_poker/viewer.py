"""What the replay viewer's omniscient view shows of a Liar's Poker state.

Registered as the game's ``ViewerSpec.hidden``; the page carries it as ``step.hidden``
and ``viewer.js`` in this folder draws it in the view of every seat at once only.
Cards are written as the kit draws them: ``{"rank": 14, "suit": "HEARTS"}`` (rank 0 a
joker).
"""

from __future__ import annotations

from typing import Any

from referee.gamekit.cards import Card
from referee.games.liars_poker.engine import State


def _card(card: Card) -> dict[str, Any]:
    return {"rank": card.rank, "suit": card.suit.name}


def hidden_holdings(state: State) -> dict[str, Any]:
    """The five cards, by seat (``hands``: the holder's, empty for every other seat and
    between deals) and the cards the holder is exchanging (``discards``, while the
    stock is shuffled)."""
    return {
        "hands": [
            [_card(card) for card in state.hand] if seat == state.holder else []
            for seat in range(state.num_seats)
        ],
        "discards": [_card(card) for card in state.discards],
    }
