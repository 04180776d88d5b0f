"""What the rules of Liar's Poker Dice let each seat see (docs/games/liars_poker_dice.md), in the
terms of :mod:`referee.gamekit.leaks`; the leak suite checks the engine against them."""

from __future__ import annotations

from typing import Any

from referee.gamekit.leaks import PUBLIC, chance_size

# The holder's throw and re-rolls are the holder's; the count of re-rolled dice is
# public, which dice is not; the dice are seen by whoever holds them.


def owners(state: Any, request: Any) -> tuple[int | str, ...]:
    if state.phase.value == "roll_off":
        return (PUBLIC,) * chance_size(request)
    return (state.holder,) * chance_size(request)


def public(action: Any) -> Any:
    if type(action).__name__ == "Reroll":
        return ("reroll", len(action.positions))
    return action


def knowledge(state: Any, seat: int) -> Any:
    holds = state.holder == seat
    return (state.rounds, state.dice if holds else None, state.pending if holds else None)


LEAK_RULES = (owners, knowledge, public)
