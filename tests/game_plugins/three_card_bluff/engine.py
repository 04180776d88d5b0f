"""Three-Card Bluff: the toy plugin game that proves a game is one registration away.

Two seats; the referee deals one card of rank 1, 2 or 3 to each seat and one face
down to the table, each from its own three-card deck (a roll of three 3-sided dice).
Seat 0 claims a rank ("my card is a 2"); seat 1 believes or calls. Believed: the
claimed rank plays against seat 1's card, higher wins (a tie goes to seat 1), and no
card is shown. Called: both seats' cards are shown, and seat 0 wins exactly when the
claim was true. The face-down card is never shown. The winner scores 1, the loser 0.

Standard library and ``referee.gamekit.base`` only, like every engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from referee.gamekit.base import (
    CHANCE,
    ChanceError,
    ChanceRequest,
    DiceRoll,
    Game,
    IllegalActionError,
    MalformedActionError,
    Outcome,
    RuleOption,
    check_chance,
)

RANKS = (1, 2, 3)
"""The three cards."""


@dataclass(frozen=True, slots=True)
class Rules:
    """No options: the game has one variant."""


@dataclass(frozen=True, slots=True)
class Claim:
    """Seat 0: "my card is ``rank``"."""

    rank: int


@dataclass(frozen=True, slots=True)
class Believe:
    """Seat 1 accepts the claim."""


@dataclass(frozen=True, slots=True)
class Call:
    """Seat 1 calls the claim a lie."""


Action = Claim | Believe | Call


@dataclass(frozen=True, slots=True)
class State:
    cards: tuple[int, ...] = ()
    """Seat 0's card, seat 1's card, the face-down card; empty before the deal."""
    claim: int | None = None
    response: str | None = None
    """``"believe"`` or ``"call"`` once seat 1 answered."""


@dataclass(frozen=True, slots=True)
class Observation:
    seat: int
    num_seats: int
    to_act: int | None
    card: int | None
    """The observer's own card; ``None`` before the deal."""
    claim: int | None
    response: str | None
    shown: tuple[int, ...]
    """Both seats' cards once seat 1 called; empty otherwise."""


class ThreeCardBluff(Game[Rules, State, Action, Observation]):
    name: ClassVar[str] = "three_card_bluff"
    title: ClassVar[str] = "Three-Card Bluff"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    options: ClassVar[tuple[RuleOption, ...]] = ()
    rules_type: ClassVar[type[Rules]] = Rules
    action_types: ClassVar[tuple[type, ...]] = (Claim, Believe, Call)
    challenge_action: ClassVar[Call] = Call()
    """The action that calls the last claim (the claim judge of analytics)."""

    def new_game(self, rules: Rules, num_seats: int) -> State:
        self.check_seats(rules, num_seats)
        return State()

    def to_act(self, state: State) -> int | None:
        if not state.cards:
            return CHANCE  # the deal
        if state.claim is None:
            return 0
        if state.response is None:
            return 1
        return None

    def chance_request(self, state: State) -> ChanceRequest:
        if state.cards:
            raise ChanceError("three_card_bluff: no chance is due")
        return DiceRoll(count=3, sides=len(RANKS))

    def apply_chance(self, state: State, outcome: Sequence[int]) -> State:
        return replace(state, cards=check_chance(self.chance_request(state), outcome))

    def observe(self, state: State, seat: int) -> Observation:
        over = self.to_act(state) is None
        return Observation(
            seat=seat,
            num_seats=2,
            to_act=None if over or not state.cards else self.to_act(state),
            card=state.cards[seat] if state.cards else None,
            claim=state.claim,
            response=state.response,
            shown=state.cards[:2] if state.response == "call" else (),
        )

    def check_action(self, observation: Observation, action: object) -> None:
        if not isinstance(action, self.action_types):
            raise MalformedActionError(f"{action!r} is not a three_card_bluff action")
        if isinstance(action, Claim) and (
            not isinstance(action.rank, int) or action.rank not in RANKS
        ):
            raise MalformedActionError(f"claim of rank {action.rank!r}: ranks are 1, 2 and 3")
        if observation.to_act != observation.seat:
            raise IllegalActionError(f"seat {observation.seat}: it is not its turn")
        expected = Claim if observation.seat == 0 else (Believe, Call)
        if not isinstance(action, expected):
            raise IllegalActionError(f"seat {observation.seat} cannot play {action!r} now")

    def legal_actions(self, observation: Observation) -> Sequence[Action]:
        if observation.to_act != observation.seat:
            return []
        if observation.seat == 0:
            return [Claim(rank) for rank in RANKS]
        return [Believe(), Call()]

    def transition(self, state: State, seat: int, action: Action) -> State:
        if isinstance(action, Claim):
            return replace(state, claim=action.rank)
        return replace(state, response="believe" if isinstance(action, Believe) else "call")

    def standings(self, state: State) -> Outcome:
        if self.to_act(state) is not None:
            return Outcome(places=(1, 1), scores=(0.0, 0.0))
        assert state.claim is not None
        if state.response == "call":
            claimer_wins = state.cards[0] == state.claim
        else:
            claimer_wins = state.claim > state.cards[1]
        return Outcome(
            places=(1, 2) if claimer_wins else (2, 1),
            scores=(1.0, 0.0) if claimer_wins else (0.0, 1.0),
        )

    def perturb_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        if not state.cards:
            return state  # nothing dealt yet
        cards = list(state.cards)
        cards[2] = rng.choice(RANKS)  # the face-down card is never shown
        if state.response != "call":  # the other seat's card, until a call shows it
            cards[1 - seat] = rng.choice(RANKS)
        return replace(state, cards=tuple(cards))

    def describe_action(
        self, action: Action, viewer: int | None = None, actor: int | None = None
    ) -> str:
        """Every action is public: the same text for every viewer."""
        if isinstance(action, Claim):
            return f"claim {action.rank}"
        return "believe" if isinstance(action, Believe) else "call"

    def describe_chance(
        self, state: State, outcome: Sequence[int], viewer: int | None = None
    ) -> str:
        """The deal; a seat reads only its own card."""
        cards = list(outcome)
        if viewer is None:
            return f"deal: seat 0 gets {cards[0]}, seat 1 gets {cards[1]}, {cards[2]} face down"
        return f"deal: seat {viewer} gets {cards[viewer]}"

    def claim_truth(self, before: State, action: object) -> bool | None:
        """Whether ``action`` is a true claim in ``before``; None if it is not a claim."""
        if not isinstance(action, Claim):
            return None
        return before.cards[0] == action.rank


THREE_CARD_BLUFF = ThreeCardBluff()


def action_universe(rules: Rules, num_seats: int) -> list[Action]:
    """Every action the game can take (its registration's RL action universe)."""
    return [Believe(), Call(), *(Claim(rank) for rank in RANKS)]
