"""What the replay viewer shows of a Liar's Dice table, computed by the engine.

Registered as the game's ``ViewerSpec.hidden`` (the omniscient view's cups, as
``step.hidden``), ``ViewerSpec.facts`` (every number the table shows and which faces
count, as ``step.facts[seat]``) and ``ViewerSpec.public`` (the table as a spectator
may see it); ``viewer.js`` in this folder draws them and computes nothing itself.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from referee.games.liars_dice.engine import (
    AnyBid,
    Bid,
    Observation,
    State,
    SumBid,
    viewer_facts,
)


def hidden_holdings(state: State) -> dict[str, Any]:
    """Every seat's cup, by seat (``dice``; empty before a round is rolled and for a
    seat that is out): what no other seat sees until a challenge."""
    return {"dice": [list(hand) for hand in state.hands]}


def _bid(bid: AnyBid | None) -> dict[str, int] | None:
    if isinstance(bid, Bid):
        return {"quantity": bid.quantity, "face": bid.face}
    if isinstance(bid, SumBid):
        return {"total": bid.total}
    return None


def board_facts(observation: Observation) -> dict[str, Any]:
    """Which faces count (:func:`~referee.games.liars_dice.engine.viewer_facts`) and
    every number the table shows: dice per seat and on the table, the round, the
    bid to beat and the last challenge's count and loser."""
    facts = viewer_facts(observation)
    reveal = None
    if observation.history:
        last = observation.history[-1]
        reveal = {
            "round": last.round_number,
            "actual": last.actual,
            "loser": last.loser,
            "bid": _bid(last.bids[-1].bid) if last.bids else None,
        }
    facts.update(
        {
            "dice_counts": list(observation.dice_counts),
            "total_dice": observation.total_dice,
            "round": observation.round_number,
            "bid": _bid(observation.last_bid),
            "reveal": reveal,
        }
    )
    return facts


def public_view(observation: Observation) -> Observation:
    """The table as someone at no seat sees it: no cup (counts only), told as seat 0's
    observation so that it is the same whichever seat it came from."""
    return dataclasses.replace(observation, seat=0, own_dice=())
