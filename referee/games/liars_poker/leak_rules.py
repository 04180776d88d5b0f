"""What the rules of Liar's Poker let each seat see (docs/games/liars_poker.md), in the
terms of :mod:`referee.gamekit.leaks`; the leak suite checks the engine against them."""

from __future__ import annotations

from typing import Any

from referee.gamekit.leaks import HIDDEN, chance_size

# The first five cards of a deal go to the starter, the rest is stock; an exchange
# draws the first cards of the reshuffled stock; how many cards were exchanged is
# public, which is not; the holder sees the hand until it passes on; a challenge
# shows it to everyone.


def owners(state: Any, request: Any) -> tuple[int | str, ...]:
    size = chance_size(request)
    if state.phase == "deal":
        mine, owner = 5, state.starter
    else:
        mine, owner = len(state.discards), state.holder
    return tuple(owner if j < mine else HIDDEN for j in range(size))


def public(action: Any) -> Any:
    if type(action).__name__ == "Exchange":
        return ("exchange", len(action.discards))
    return action


def knowledge(state: Any, seat: int) -> Any:
    sees = seat == state.holder and state.phase in ("announce", "respond", "exchange", "draw")
    return (state.results, state.hand if sees else None)


LEAK_RULES = (owners, knowledge, public)
