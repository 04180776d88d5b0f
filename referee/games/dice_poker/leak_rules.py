"""What the rules of Dice Poker let each seat see (docs/games/dice_poker.md), in the
terms of :mod:`referee.gamekit.leaks`; the leak suite checks the engine against them."""

from __future__ import annotations

from typing import Any

from referee.gamekit.leaks import PUBLIC, chance_size

# Everything is public.


def owners(state: Any, request: Any) -> tuple[int | str, ...]:
    return (PUBLIC,) * chance_size(request)


def knowledge(state: Any, seat: int) -> Any:
    return None


LEAK_RULES = (owners, knowledge)
