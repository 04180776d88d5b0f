"""What the rules of Liar's Dice let each seat see (docs/games/liars_dice.md), in the
terms of :mod:`referee.gamekit.leaks`; the leak suite checks the engine against them."""

from __future__ import annotations

from typing import Any

from referee.gamekit.leaks import PUBLIC, chance_size

# Round dice go to the seats still in, in seat order; roll-offs are public.


def owners(state: Any, request: Any) -> tuple[int | str, ...]:
    if state.phase == "roll-off":
        return (PUBLIC,) * chance_size(request)
    return tuple(seat for seat, count in enumerate(state.dice_counts) for _ in range(count))


def knowledge(state: Any, seat: int) -> Any:
    return state.history  # a challenge shows every die of the round to everyone


LEAK_RULES = (owners, knowledge)
