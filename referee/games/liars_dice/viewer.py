"""What the replay viewer's omniscient view shows of a Liar's Dice state.

Registered as the game's ``ViewerSpec.hidden``; the page carries it as ``step.hidden``
and ``viewer.js`` in this folder draws it in the view of every seat at once only.
"""

from __future__ import annotations

from typing import Any

from referee.games.liars_dice.engine import State


def hidden_holdings(state: State) -> dict[str, Any]:
    """Every seat's cup, by seat (``dice``; empty before a round is rolled and for a
    seat that is out): what no other seat sees until a challenge."""
    return {"dice": [list(hand) for hand in state.hands]}
