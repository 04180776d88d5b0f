"""What the replay viewer shows of a Cockroach Poker table, computed by the engine.

Registered as the game's ``ViewerSpec.hidden`` (every hidden card, as ``step.hidden``,
drawn in the view of every seat at once only), ``ViewerSpec.facts`` (every number the
table shows, as ``step.facts[seat]``) and ``ViewerSpec.public`` (the table as a
spectator may see it); ``viewer.js`` in this folder draws them. Kinds are written by
name (``SPIDER``), counts per kind in kind order, as the observations' ``hand`` and
``face_up``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from referee.gamekit.cards import kind_counts
from referee.games.cockroach_poker.engine import (
    LOSING_COUNT,
    NO_CARDS,
    Observation,
    State,
    turned_up,
)


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


def board_facts(observation: Observation) -> dict[str, Any]:
    """Every number the table shows: per seat the cards in hand, the face-up cards per
    kind, the face-down cards, the cards in front (the score: fewer is better) and the
    kinds one card away from putting it out (face up; indexes into ``face_up``); the
    seat's own hand per kind and its size; the cards set aside."""
    seats = [
        {
            "hand_size": view.hand_size,
            "face_up": list(view.face_up),
            "face_down": view.face_down,
            "in_front": sum(view.face_up) + view.face_down,
            "danger": [
                kind for kind, count in enumerate(view.face_up) if count >= LOSING_COUNT - 1
            ],
        }
        for view in observation.seats
    ]
    return {
        "seats": seats,
        "hand": list(observation.hand),
        "hand_size": sum(observation.hand),
        "set_aside": observation.set_aside,
        "losing_count": LOSING_COUNT,
    }


def public_view(observation: Observation) -> Observation:
    """The table as someone at no seat sees it: no hand, no card in flight, a passed
    card only once turned face up (its passer's own knowledge removed), told as seat
    0's observation so that it is the same whichever seat it came from."""
    rules = observation.rules
    pending = observation.pending
    return dataclasses.replace(
        observation,
        seat=0,
        hand=NO_CARDS,
        pending=None if pending is None else dataclasses.replace(pending, card=None),
        history=tuple(
            view if turned_up(rules, view.believed) else dataclasses.replace(view, card=None)
            for view in observation.history
        ),
    )
