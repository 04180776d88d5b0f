"""Kuhn Poker: the smallest poker that needs bluffing.

Two seats each ante one chip. The referee deals each seat one card of a three-card
deck (1 = jack, 2 = queen, 3 = king); the third card stays face down. Seat 0 checks or
bets one chip. After a check, seat 1 checks (showdown for the antes) or bets; after a
bet, the other seat folds (losing its ante) or calls (showdown for two chips each).
At a showdown both cards are shown and the higher card wins the pot. The score is a
seat's chips won or lost.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Literal

from referee.gamekit.base import (
    CHANCE,
    ChanceError,
    ChanceRequest,
    Game,
    IllegalActionError,
    MalformedActionError,
    Outcome,
    RuleOption,
    Shuffle,
    check_chance,
)

CARDS = (1, 2, 3)
Move = Literal["check", "bet", "fold", "call"]


@dataclass(frozen=True, slots=True)
class Rules:
    """No options: the game has one variant."""


@dataclass(frozen=True, slots=True)
class Check:
    """Pass without betting."""


@dataclass(frozen=True, slots=True)
class Bet:
    """Put one more chip in."""


@dataclass(frozen=True, slots=True)
class Fold:
    """Give up the pot after a bet."""


@dataclass(frozen=True, slots=True)
class Call:
    """Match the bet: showdown."""


Action = Check | Bet | Fold | Call
_MOVES: dict[type, Move] = {Check: "check", Bet: "bet", Fold: "fold", Call: "call"}


@dataclass(frozen=True, slots=True)
class State:
    cards: tuple[int, ...] = ()
    """Seat 0's card, seat 1's card, the face-down card; empty before the deal."""
    moves: tuple[Move, ...] = ()


@dataclass(frozen=True, slots=True)
class Observation:
    seat: int
    """The observer's seat."""
    num_seats: int
    """Always 2."""
    to_act: int | None
    """The seat to act; ``None`` at the deal and at the end."""
    card: int | None
    """The observer's card; ``None`` before the deal."""
    moves: tuple[Move, ...]
    """Every move so far, seat 0's first."""
    shown: tuple[int, ...]
    """Both seats' cards after a showdown; empty otherwise."""


def _over(moves: tuple[Move, ...]) -> bool:
    return moves in (("check", "check"),) or (bool(moves) and moves[-1] in ("fold", "call"))


class KuhnPoker(Game[Rules, State, Action, Observation]):
    name: ClassVar[str] = "kuhn_poker"
    title: ClassVar[str] = "Kuhn Poker"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    options: ClassVar[tuple[RuleOption, ...]] = ()
    rules_type: ClassVar[type[Rules]] = Rules
    action_types: ClassVar[tuple[type, ...]] = (Check, Bet, Fold, Call)
    challenge_action: ClassVar[Call] = Call()

    def new_game(self, rules: Rules, num_seats: int) -> State:
        self.check_seats(rules, num_seats)
        return State()

    def to_act(self, state: State) -> int | None:
        if not state.cards:
            return CHANCE
        if _over(state.moves):
            return None
        return len(state.moves) % 2

    def chance_request(self, state: State) -> ChanceRequest:
        if state.cards:
            raise ChanceError("kuhn_poker: no chance is due")
        return Shuffle(size=len(CARDS))

    def apply_chance(self, state: State, outcome: Sequence[int]) -> State:
        order = check_chance(self.chance_request(state), outcome)
        return replace(state, cards=tuple(CARDS[i] for i in order))

    def observe(self, state: State, seat: int) -> Observation:
        showdown = _over(state.moves) and state.moves[-1] != "fold"
        return Observation(
            seat=seat,
            num_seats=2,
            to_act=self.to_act(state) if state.cards else None,
            card=state.cards[seat] if state.cards else None,
            moves=state.moves,
            shown=state.cards[:2] if showdown else (),
        )

    def legal_actions(self, observation: Observation) -> Sequence[Action]:
        if observation.to_act != observation.seat:
            return []
        if observation.moves and observation.moves[-1] == "bet":
            return [Fold(), Call()]
        return [Check(), Bet()]

    def check_action(self, observation: Observation, action: object) -> None:
        if not isinstance(action, self.action_types):
            raise MalformedActionError(f"{action!r} is not a kuhn_poker action")
        if observation.to_act != observation.seat:
            raise IllegalActionError(f"seat {observation.seat}: it is not its turn")
        if action not in self.legal_actions(observation):
            raise IllegalActionError(f"seat {observation.seat} cannot {_MOVES[type(action)]} now")

    def transition(self, state: State, seat: int, action: Action) -> State:
        return replace(state, moves=(*state.moves, _MOVES[type(action)]))

    def standings(self, state: State) -> Outcome:
        if self.to_act(state) is not None:
            return Outcome(places=(1, 1), scores=(0.0, 0.0))
        moves = state.moves
        if moves[-1] == "fold":
            winner, stake = len(moves) % 2, 1  # the seat after the folder
        else:
            winner = 0 if state.cards[0] > state.cards[1] else 1
            stake = 2 if "bet" in moves else 1
        scores = (float(stake), -float(stake)) if winner == 0 else (-float(stake), float(stake))
        return Outcome(places=(1, 2) if winner == 0 else (2, 1), scores=scores)

    def perturb_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        if not state.cards or self.observe(state, seat).shown:
            return state
        mine = state.cards[seat]
        others = [card for card in CARDS if card != mine]
        rng.shuffle(others)
        cards = [0, 0, 0]
        cards[seat], cards[1 - seat], cards[2] = mine, others[0], others[1]
        return replace(state, cards=tuple(cards))

    def describe_action(
        self, action: Action, viewer: int | None = None, actor: int | None = None
    ) -> str:
        return _MOVES[type(action)]

    def describe_chance(
        self, state: State, outcome: Sequence[int], viewer: int | None = None
    ) -> str:
        cards = [CARDS[i] for i in outcome]
        if viewer is None:
            return f"deal: seat 0 gets {cards[0]}, seat 1 gets {cards[1]}, {cards[2]} face down"
        return f"deal: seat {viewer} gets {cards[viewer]}"

    def claim_truth(self, before: State, action: object) -> bool | None:
        """A bet claims the stronger hand: true when the bettor's card beats the other's."""
        if not isinstance(action, Bet) or not before.cards:
            return None
        seat = len(before.moves) % 2
        return before.cards[seat] > before.cards[1 - seat]


KUHN_POKER = KuhnPoker()


def action_universe(rules: Rules, num_seats: int) -> list[Action]:
    """Every action the game can take (its registration's RL action universe)."""
    return [Check(), Bet(), Fold(), Call()]
