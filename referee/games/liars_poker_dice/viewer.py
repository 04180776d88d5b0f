"""What the replay viewer shows of a Liar's Poker Dice table, computed by the engine.

Registered as the game's ``ViewerSpec.hidden`` (the omniscient view's dice, as
``step.hidden``, drawn in the view of every seat at once only), ``ViewerSpec.facts``
(every number the table shows, as ``step.facts[seat]``) and ``ViewerSpec.public``
(the table as a spectator may see it); ``viewer.js`` in this folder draws them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from referee.gamekit.poker_dice import NUM_DICE, Hand
from referee.games.liars_poker_dice.engine import Observation, State


def hidden_holdings(state: State) -> dict[str, Any]:
    """The dice under the cup, by seat (``dice``: the holder's, empty for the other
    seat and before a round's roll) and the positions being re-rolled
    (``reroll_positions``)."""
    return {
        "dice": [
            list(state.dice) if seat == state.holder else [] for seat in range(len(state.chips))
        ],
        "reroll_positions": list(state.pending),
    }


def _hand(hand: Hand | None) -> dict[str, Any] | None:
    if hand is None:
        return None
    return {"category": hand.category.name, "faces": list(hand.faces)}


def board_facts(observation: Observation) -> dict[str, Any]:
    """Every number the table shows: chips per seat, the pot, the round, the dice under
    the cup, the declaration to beat and the last challenge's loser."""
    last = observation.rounds[-1] if observation.rounds else None
    return {
        "chips": list(observation.chips),
        "pot": observation.pot,
        "round": len(observation.rounds) + 1,
        "cup_dice": NUM_DICE if observation.holder is not None else 0,
        "declaration": _hand(observation.last_declaration),
        "reveal": None if last is None else {"round": len(observation.rounds), "loser": last.loser},
    }


def public_view(observation: Observation) -> Observation:
    """The table as someone at no seat sees it: no die under the cup and no re-rolled
    position, told as seat 0's observation so that it is the same whichever seat it
    came from."""
    return dataclasses.replace(observation, seat=0, dice=(), reroll_positions=())
