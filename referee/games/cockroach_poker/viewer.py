"""What the replay viewer's omniscient view shows of a Cockroach Poker state.

Registered as the game's ``ViewerSpec.hidden``; the page carries it as ``step.hidden``
and ``viewer.js`` in this folder draws it in the view of every seat at once only.
Kinds are written by name (``SPIDER``), counts per kind in kind order, as the
observations' ``hand`` and ``face_up``.
"""

from __future__ import annotations

from typing import Any

from referee.gamekit.cards import kind_counts
from referee.games.cockroach_poker.engine import State


def hidden_holdings(state: State) -> dict[str, Any]:
    """Every card some seat does not see: each seat's hand (``hands``, counts per kind;
    empty before the deal), the face-down cards in front of each seat (``face_down``,
    counts per kind), the cards set aside unseen (``set_aside``), the card in flight
    (``pending``: its kind, or None) and the card of every pass so far (``passes``)."""
    return {
        "hands": [list(hand) for hand in state.hands],
        "face_down": [list(kind_counts(card.kind for card in pile)) for pile in state.face_down],
        "set_aside": list(kind_counts(state.set_aside)),
        "pending": None if state.pending is None else state.pending.card.name,
        "passes": [result.card.name for result in state.history],
    }
