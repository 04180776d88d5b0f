"""What every game's action universe (``<game>/universe.py``) shares.

A game's registration names its ``action_universe(rules, num_seats)``: every action
key the game can ever take, which :mod:`sdk.pettingzoo_env` numbers into a fixed
``Discrete`` space per (game, rules, seats). A key is the action itself, except for
actions that name cards by value (Liar's Poker exchanges): those are
``(EXCHANGE, positions)``, positions in the hand.
"""

from __future__ import annotations

import itertools
from typing import Final

EXCHANGE: Final = "exchange"
"""The first element of an exchange's key: ``(EXCHANGE, positions)``."""

POSITION_SUBSETS: Final = tuple(
    subset for size in range(6) for subset in itertools.combinations(range(5), size)
)
"""Every set of positions in a five-die or five-card hand (32 of them)."""
