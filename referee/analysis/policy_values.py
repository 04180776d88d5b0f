"""The exact expected score of every state when two known policies play a small game.

For a two-seat game whose tree can be walked (Liar's Dice with one die each), the
value of a state for seat ``p`` under policies ``π_0``, ``π_1`` is ``p``'s expected
pair score from there (1 for the better place, ½ for a tie, 0 otherwise): at the end
the score, at a chance node the mean over the outcomes, at a decision of seat ``q`` the
mean over ``π_q``'s probabilities. :class:`PolicyValues` computes it on demand and
remembers every state it met.

Used as a luck baseline (:class:`PolicyBaseline`), it makes AIVAT exact: each chance and
action correction is then ``V(after) − V(before)``, the corrections of a match sum to
``V(end) − V(start)``, and every match's luck-adjusted score is the game's value
``V(start)`` for those two policies, whatever was drawn.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from referee.analysis.luck import Baseline, Sampler
from referee.gamekit.base import CHANCE, ChanceOutcome, ChanceRequest, DiceRoll, Game

StatePolicy = Callable[[Any], Mapping[Any, float]]
"""A seat's policy: its observation in, each legal action's probability out."""

MAX_STATES: Final = 2_000_000
"""The most states remembered before :class:`PolicyValues` gives up (a game too big)."""


class PolicyValueError(ValueError):
    """The game cannot be walked here (its chance is not dice, or it is too big)."""


class PolicyValues:
    """Seat 0's exact expected pair score at any state under ``policies`` (seat 1's is
    one minus it)."""

    def __init__(self, game: Game[Any, Any, Any, Any], policies: Sequence[StatePolicy]) -> None:
        if len(policies) != 2:
            raise PolicyValueError(f"two policies needed, got {len(policies)}")
        self.game = game
        self.policies = tuple(policies)
        self._memo: dict[Any, float] = {}

    def __call__(self, state: Any) -> float:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20_000))
        try:
            return self._value(state)
        finally:
            sys.setrecursionlimit(limit)

    def _value(self, state: Any) -> float:
        found = self._memo.get(state)
        if found is not None:
            return found
        if len(self._memo) >= MAX_STATES:
            raise PolicyValueError(f"{self.game.name}: more than {MAX_STATES} states")
        game = self.game
        actor = game.to_act(state)
        if actor is None:
            places = game.outcome(state).places
            value = 1.0 if places[0] < places[1] else 0.0 if places[0] > places[1] else 0.5
        elif actor == CHANCE:
            outcomes = chance_outcomes(game.chance_request(state))
            value = sum(p * self._value(game.apply_chance(state, o)) for o, p in outcomes)
        else:
            stated = self.policies[actor](game.observe(state, actor))
            value = sum(
                p * self._value(game.transition(state, actor, action))
                for action, p in stated.items()
                if p > 0.0
            )
        self._memo[state] = value
        return value


def chance_outcomes(request: ChanceRequest) -> list[tuple[ChanceOutcome, float]]:
    """Every outcome of a dice roll with its probability (ordered rolls)."""
    if not isinstance(request, DiceRoll):
        raise PolicyValueError(f"chance event {request!r} is not a dice roll")
    rolls = list(itertools.product(range(1, request.sides + 1), repeat=request.count))
    return [(roll, 1.0 / len(rolls)) for roll in rolls]


class PolicyBaseline(Baseline):
    """The exact values of :class:`PolicyValues` as a luck baseline: chance terms over
    every outcome, action terms under the stated probabilities."""

    def __init__(self, values: PolicyValues) -> None:
        self.values = values
        self.game = values.game.name

    def _for(self, seat: int, value: float) -> float:
        return value if seat == 0 else 1.0 - value

    def value(self, state: Any, outcome: ChanceOutcome, seat: int) -> float:
        return self._for(seat, self.values(self.values.game.apply_chance(state, outcome)))

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        game = self.values.game
        return self._for(
            seat,
            sum(p * self.values(game.apply_chance(state, o)) for o, p in chance_outcomes(request)),
        )

    def after_action(self, state: Any, actor: int, action: Any, seat: int) -> float | None:
        return self._for(seat, self.values(self.values.game.transition(state, actor, action)))
