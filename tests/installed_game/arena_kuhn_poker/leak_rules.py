"""What the rules let each seat see, for the leak suite: written from the rules in
``engine.py``'s docstring. The deal's first card is seat 0's, the second seat 1's,
the third face down; every move is public; a showdown shows both seats' cards."""

from __future__ import annotations

from typing import Any


def owners(state: Any, request: Any) -> tuple[int | str, ...]:
    return (0, 1, "hidden")


def knowledge(state: Any, seat: int) -> Any:
    over = state.moves == ("check", "check") or (state.moves and state.moves[-1] == "call")
    return state.cards[:2] if over else None


LEAK_RULES = (owners, knowledge)
