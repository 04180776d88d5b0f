"""The vocabulary of a game's leak rules (``<game>/leak_rules.py``).

A game's ``LEAK_RULES = (owners, knowledge[, public])`` say, from the rules and not
from the engine, what each seat may see; the leak suite (tests/games/test_leak_generic.py)
checks the engine's observations and event texts against them:

* ``owners(state, request)``: the owner of each component of a chance draw: a seat,
  :data:`PUBLIC` (every seat sees it) or :data:`HIDDEN` (no seat does, when drawn);
* ``knowledge(state, seat)``: what the rules have shown ``seat`` beyond its own draws
  and actions (public reveals, hands it holds), compared between histories;
* ``public(action)``: what every seat learns of an action (default: all of it).
"""

from __future__ import annotations

from typing import Final

from referee.gamekit.base import ChanceRequest, DiceRoll

PUBLIC: Final = "public"
HIDDEN: Final = "hidden"


def chance_size(request: ChanceRequest) -> int:
    """How many components a chance draw has (dice rolled, items shuffled)."""
    return request.count if isinstance(request, DiceRoll) else request.size
