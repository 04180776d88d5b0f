"""What the replay viewer shows of a Liar's Poker table, computed by the engine.

Registered as the game's ``ViewerSpec.hidden`` (the five cards and the discards, as
``step.hidden``, drawn in the view of every seat at once only), ``ViewerSpec.facts``
(every number the table shows, as ``step.facts[seat]``) and ``ViewerSpec.public``
(the table as a spectator may see it); ``viewer.js`` in this folder draws them. Cards are written
as the kit draws them: ``{"rank": 14, "suit": "HEARTS"}`` (rank 0 a joker).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from referee.gamekit.cards import Card
from referee.gamekit.poker_hands import Announcement
from referee.games.liars_poker.engine import HAND_SIZE, Observation, State


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


def _announcement(announcement: Announcement | None) -> dict[str, Any] | None:
    if announcement is None:
        return None
    return {"category": announcement.category.name, "ranks": list(announcement.ranks)}


_LIVE = ("announce", "respond", "exchange", "draw")
"""Phases in which a seat holds the five cards."""


def board_facts(observation: Observation) -> dict[str, Any]:
    """Every number the table shows: penalties (and chips) per seat, the penalty limit,
    the deal, the stock, the cards the holder has, the announcement to beat and the
    last challenge's penalised seat."""
    rules = observation.rules
    last = observation.results[-1] if observation.results else None
    return {
        "penalties": list(observation.penalties),
        "chips": list(observation.chips) if rules.chips_variant else None,
        "penalty_limit": None if rules.chips_variant else rules.penalty_limit,
        "deal": observation.deal,
        "stock": observation.stock_size,
        "held": HAND_SIZE if observation.phase in _LIVE else 0,
        "announcement": _announcement(observation.last),
        "exchanged": observation.exchanged,
        "reveal": None if last is None else {"deal": last.deal, "penalised": last.penalised},
    }


def public_view(observation: Observation) -> Observation:
    """The table as someone at no seat sees it: nobody's cards, told as seat 0's
    observation so that it is the same whichever seat it came from."""
    return dataclasses.replace(observation, seat=0, hand=None)
