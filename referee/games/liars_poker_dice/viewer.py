"""What the replay viewer's omniscient view shows of a Liar's Poker Dice state.

Registered as the game's ``ViewerSpec.hidden``; the page carries it as ``step.hidden``
and ``viewer.js`` in this folder draws it in the view of every seat at once only.
"""

from __future__ import annotations

from typing import Any

from referee.games.liars_poker_dice.engine import State


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
