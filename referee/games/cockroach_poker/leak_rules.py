"""What the rules of Cockroach Poker let each seat see (docs/games/cockroach_poker.md), in the
terms of :mod:`referee.gamekit.leaks`; the leak suite checks the engine against them."""

from __future__ import annotations

from typing import Any

from referee.gamekit.leaks import HIDDEN, chance_size

# Card j of the deal goes to seat j % n (the rest is set aside); a pass shows its
# claim, not its card; a disbelieved card is shown to everyone, and under
# call_rule=published every answered card (it is always turned up).


def owners(state: Any, request: Any) -> tuple[int | str, ...]:
    n, size = state.num_seats, chance_size(request)
    dealt = (size // n) * n
    return tuple(j % n if j < dealt else HIDDEN for j in range(size))


def public(action: Any) -> Any:
    if type(action).__name__ == "Announce":
        return ("announce", action.claim)
    return action


def knowledge(state: Any, seat: int) -> Any:
    passes = tuple(
        (r.announcer, r.target, r.claim, r.believed, r.taker, r.eliminated)
        + (() if r.believed and state.rules.call_rule == "simplified" else (r.card,))
        for r in state.history
    )
    return (passes, state.eliminated, state.hands[seat] if state.dealt else None)


LEAK_RULES = (owners, knowledge, public)
