"""What the rules let each seat see, for the leak suite (tests/games/test_leak_generic.py).

Written from the rules in ``engine.py``'s docstring, not from the engine's code:
the deal's first card is seat 0's, the second seat 1's, the third face down (never
shown); every action is public; a call shows both seats' cards.
"""

from __future__ import annotations

from typing import Any

HIDDEN = "hidden"


def owners(state: Any, request: Any) -> tuple[int | str, ...]:
    return (0, 1, HIDDEN)


def knowledge(state: Any, seat: int) -> Any:
    return state.cards[:2] if state.response == "call" else None


LEAK_RULES = (owners, knowledge)
"""``(owners, knowledge)``: the leak suite's ``Spec`` for this game (public actions)."""
