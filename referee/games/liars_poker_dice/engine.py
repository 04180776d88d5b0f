"""Liar's Poker Dice: two players bluff about a hidden throw of five poker dice.

Rules in short (full text: ``docs/rules/liars_poker_dice.md``):

* Exactly two seats, five six-sided dice, ``chips`` chips each (default 3).
* Roll-off: seat 0 then seat 1 roll all five dice in the open; the higher total
  opens the first round; equal totals roll again.
* A round: the opener rolls all five dice hidden (only the holder of the dice sees
  them) and declares a poker-dice hand (:mod:`referee.gamekit.poker_dice`), true or
  not. The other seat then *challenges* or *accepts*:

  - challenge: the dice are revealed. The declaration is true when the dice's best
    hand ranks at least as high. If it was true the challenger pays one chip into
    the pot, otherwise the declarer does. The round ends.
  - accept: the dice pass to the accepting seat, who now sees them (the previous
    holder no longer does), re-rolls any of them (at least ``min_reroll``, default
    0; the *count* is public, which dice and their values are not) and then must
    declare a strictly higher hand. Roles swap and the other seat responds.

  After a declaration of the top hand (five 6s) the only legal answer is a
  challenge.
* The loser of a challenge opens the next round with a fresh roll of all five
  dice. The game ends as soon as a seat has no chips; the other seat wins.
* Outcome scores: chips left.

Chance nodes: each roll-off throw is ``DiceRoll(5)``; each round's opening throw
is ``DiceRoll(5)``; a re-roll of ``k > 0`` dice is ``DiceRoll(k)``, drawn after the
:class:`Reroll` action that picked the dice (values fill the picked positions in
increasing order).

Actions:

===============  ====================  =========================================
action           phase                 legal when
===============  ====================  =========================================
``Declare(h)``   DECLARE (holder)      ``h`` is a valid hand strictly higher than
                                       the round's last declaration (any hand to
                                       open a round)
``Challenge()``  RESPOND (non-holder)  always
``Accept()``     RESPOND (non-holder)  the last declaration is not the top hand
``Reroll(ps)``   REROLL (holder)       ``ps`` distinct positions 0..4, increasing,
                                       ``len(ps) >= min_reroll``
===============  ====================  =========================================
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Final

from referee.gamekit.base import (
    CHANCE,
    ChanceError,
    ChanceRequest,
    DiceRoll,
    Game,
    GameError,
    IllegalActionError,
    MalformedActionError,
    Outcome,
    RuleOption,
    RulesError,
    appended,
    check_chance,
    places_from_keys,
)
from referee.gamekit.fast import evolver, maker
from referee.gamekit.poker_dice import (
    NUM_DICE,
    TOP_HAND,
    Hand,
    describe_hand,
    hands_above,
    is_true,
    is_valid_hand,
    rank,
)

# ---------------------------------------------------------------------------
# Rules


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule options of Liar's Poker Dice."""

    chips: int = 3
    """Chips each seat starts with; a seat with none left loses."""
    min_reroll: int = 0
    """Fewest dice a seat must re-roll after accepting (0..5)."""


OPTIONS: Final = (
    RuleOption(
        "chips",
        3,
        "Chips each player starts with; a challenge costs its loser one chip and the "
        "game ends when a player has none left.",
        minimum=1,
        maximum=1000,
    ),
    RuleOption(
        "min_reroll",
        0,
        "Fewest dice a player must re-roll after accepting a declaration (0 = may keep all).",
        minimum=0,
        maximum=NUM_DICE,
    ),
)

# ---------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Declare:
    """Declare ``hand``: the dice I hold show at least this hand."""

    hand: Hand
    """The declared hand: strictly higher than the round's last declaration."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """Call the last declaration a lie: reveal the dice."""


@dataclass(frozen=True, slots=True)
class Accept:
    """Believe the last declaration and take the dice."""


@dataclass(frozen=True, slots=True)
class Reroll:
    """Re-roll the dice at ``positions`` (distinct, 0..4, increasing; may be empty)."""

    positions: tuple[int, ...]
    """Dice positions to re-roll (0..4), increasing; at least `min_reroll`."""


Action = Declare | Challenge | Accept | Reroll

# ---------------------------------------------------------------------------
# Public history


class Phase(Enum):
    """What the game waits for."""

    ROLL_OFF = "roll_off"
    """Chance: the next roll-off throw (seat 0, then seat 1, repeated on a tie)."""
    ROLL = "roll"
    """Chance: the opener's fresh five dice."""
    DECLARE = "declare"
    """The holder declares a hand."""
    RESPOND = "respond"
    """The other seat challenges or accepts."""
    REROLL = "reroll"
    """The seat that accepted picks the dice to re-roll."""
    REROLL_ROLL = "reroll_roll"
    """Chance: the re-rolled dice."""
    GAME_OVER = "game_over"
    """A seat has no chips left."""


class StepKind(Enum):
    """The kinds of public event in a round."""

    DECLARE = "declare"
    ACCEPT = "accept"
    REROLL = "reroll"
    CHALLENGE = "challenge"


@dataclass(frozen=True, slots=True)
class Step:
    """One public event of a round."""

    seat: int
    """The seat that acted."""
    kind: StepKind
    """Declare, accept, re-roll or challenge."""
    hand: Hand | None = None
    """The declared hand (``DECLARE`` only)."""
    count: int = 0
    """How many dice were re-rolled (``REROLL`` only)."""


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A finished round: its public events and what the challenge revealed."""

    opener: int
    """The seat that rolled the fresh dice."""
    steps: tuple[Step, ...]
    """Every public event, ending with the challenge."""
    dice: tuple[int, ...]
    """The dice revealed by the challenge, in position order."""
    loser: int
    """The seat that paid a chip."""


def last_declaration(steps: Sequence[Step]) -> Hand | None:
    """The latest hand declared in ``steps`` (``None`` before the first one)."""
    for step in reversed(steps):
        if step.kind is StepKind.DECLARE:
            return step.hand
    return None


# ---------------------------------------------------------------------------
# State and observation


@dataclass(frozen=True, slots=True)
class State:
    """The full (omniscient) state of a match."""

    rules: Rules
    phase: Phase
    chips: tuple[int, int]
    pot: int = 0
    roll_off: tuple[tuple[int, ...], ...] = ()
    """Roll-off throws in order: seat 0, seat 1, seat 0, ..."""
    opener: int | None = None
    """The seat that opened (or will open) the current round."""
    holder: int | None = None
    """The seat holding the dice (the opener during ``ROLL``)."""
    dice: tuple[int, ...] = ()
    """The current dice in position order (empty before a round's roll)."""
    pending: tuple[int, ...] = ()
    """Positions being re-rolled during ``REROLL_ROLL``."""
    steps: tuple[Step, ...] = ()
    """Public events of the current round."""
    rounds: tuple[RoundRecord, ...] = ()
    winner: int | None = None


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat knows: everything public, plus the dice while it holds them."""

    seat: int
    """The observing seat."""
    starting_chips: int
    """Rule option ``chips``."""
    min_reroll: int
    """Rule option ``min_reroll``."""
    phase: Phase
    """What the game waits for (`Phase`)."""
    actor: int | None
    """The seat to act (``None`` at chance nodes and at the end)."""
    chips: tuple[int, int]
    """Chips each seat has left, by seat; a seat with none has lost."""
    pot: int
    """Chips paid by challenge losers so far."""
    roll_off: tuple[tuple[int, ...], ...]
    """Every roll-off throw in order: seat 0, seat 1, seat 0, ..."""
    holder: int | None
    """The seat holding the dice (``None`` during the roll-off and at the end)."""
    dice: tuple[int, ...]
    """The dice in position order if this seat holds them, else empty."""
    reroll_positions: tuple[int, ...]
    """The positions being re-rolled, for the holder during ``REROLL_ROLL`` only."""
    steps: tuple[Step, ...]
    """Public events of the current round."""
    rounds: tuple[RoundRecord, ...]
    """Every finished round, with the dice its challenge revealed."""
    winner: int | None
    """The seat that won, once the game is over; else `None`."""

    @property
    def last_declaration(self) -> Hand | None:
        """The hand to beat in this round (``None`` before the first declaration)."""
        return last_declaration(self.steps)

    @property
    def last_reroll_count(self) -> int | None:
        """How many dice the latest re-roll of this round changed.

        After a declaration: the count the declarer re-rolled before making it
        (``None`` for the round's opening declaration, made on a fresh throw).
        """
        seen_declaration = False
        for step in reversed(self.steps):
            if step.kind is StepKind.REROLL:
                return step.count
            if step.kind is StepKind.DECLARE:
                if seen_declaration:
                    return None
                seen_declaration = True
        return None


# ---------------------------------------------------------------------------
# The engine


def _other(seat: int) -> int:
    return 1 - seat


def _check_positions(positions: object) -> tuple[int, ...]:
    if not isinstance(positions, tuple) or any(
        type(p) is not int or not 0 <= p < NUM_DICE for p in positions
    ):
        raise MalformedActionError(f"re-roll positions {positions!r}: expected ints 0..4")
    if list(positions) != sorted(set(positions)):
        raise MalformedActionError(
            f"re-roll positions {positions!r}: must be distinct and increasing"
        )
    return positions


class LiarsPokerDice(Game[Rules, State, Action, Observation]):
    """The Liar's Poker Dice engine (see the module docstring)."""

    name: ClassVar[str] = "liars_poker_dice"
    title: ClassVar[str] = "Liar's Poker Dice"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    options: ClassVar[tuple[RuleOption, ...]] = OPTIONS
    rules_type: ClassVar[type[Rules]] = Rules
    action_types: ClassVar[tuple[type, ...]] = (Declare, Challenge, Accept, Reroll)

    # -- state machine ---------------------------------------------------------

    def validate_rules(self, rules: Rules) -> None:
        if rules.chips < 1:
            raise RulesError(f"rule chips={rules.chips}: must be at least 1")
        if not 0 <= rules.min_reroll <= NUM_DICE:
            raise RulesError(f"rule min_reroll={rules.min_reroll}: must be 0..{NUM_DICE}")

    def new_game(self, rules: Rules, num_seats: int) -> State:
        self.check_seats(rules, num_seats)
        return State(rules=rules, phase=Phase.ROLL_OFF, chips=(rules.chips, rules.chips))

    def to_act(self, state: State) -> int | None:
        if state.phase in (Phase.ROLL_OFF, Phase.ROLL, Phase.REROLL_ROLL):
            return CHANCE
        if state.phase is Phase.GAME_OVER:
            return None
        assert state.holder is not None
        if state.phase is Phase.RESPOND:
            return _other(state.holder)
        return state.holder

    def chance_request(self, state: State) -> ChanceRequest:
        if state.phase in (Phase.ROLL_OFF, Phase.ROLL):
            return DiceRoll(NUM_DICE)
        if state.phase is Phase.REROLL_ROLL:
            return DiceRoll(len(state.pending))
        raise ChanceError(f"no chance outcome is due in phase {state.phase.value}")

    def apply_chance(self, state: State, outcome: Sequence[int]) -> State:
        values = check_chance(self.chance_request(state), outcome)
        if state.phase is Phase.ROLL_OFF:
            roll_off = (*state.roll_off, values)
            if len(roll_off) % 2 == 1:
                return _evolve(state, roll_off=roll_off)
            first, second = sum(roll_off[-2]), sum(roll_off[-1])
            if first == second:
                return _evolve(state, roll_off=roll_off)
            opener = 0 if first > second else 1
            return _evolve(state, roll_off=roll_off, phase=Phase.ROLL, opener=opener, holder=opener)
        if state.phase is Phase.ROLL:
            return _evolve(state, dice=values, phase=Phase.DECLARE)
        dice = list(state.dice)
        for position, value in zip(state.pending, values, strict=True):
            dice[position] = value
        return _evolve(state, dice=tuple(dice), pending=(), phase=Phase.DECLARE)

    def transition(self, state: State, seat: int, action: Action) -> State:
        if isinstance(action, Declare):
            step = Step(seat, StepKind.DECLARE, hand=action.hand)
            return _evolve(state, steps=(*state.steps, step), phase=Phase.RESPOND)
        if isinstance(action, Accept):
            return _evolve(
                state,
                steps=(*state.steps, Step(seat, StepKind.ACCEPT)),
                holder=seat,
                phase=Phase.REROLL,
            )
        if isinstance(action, Reroll):
            steps = (*state.steps, Step(seat, StepKind.REROLL, count=len(action.positions)))
            if action.positions:
                return _evolve(
                    state, steps=steps, pending=action.positions, phase=Phase.REROLL_ROLL
                )
            return _evolve(state, steps=steps, phase=Phase.DECLARE)
        # Challenge
        declared = last_declaration(state.steps)
        assert declared is not None and state.holder is not None and state.opener is not None
        declarer = state.holder
        loser = seat if is_true(declared, state.dice) else declarer
        chips = list(state.chips)
        chips[loser] -= 1
        record = RoundRecord(
            opener=state.opener,
            steps=(*state.steps, Step(seat, StepKind.CHALLENGE)),
            dice=state.dice,
            loser=loser,
        )
        done = chips[loser] == 0
        return _evolve(
            state,
            chips=(chips[0], chips[1]),
            pot=state.pot + 1,
            rounds=(*state.rounds, record),
            steps=(),
            dice=(),
            opener=None if done else loser,
            holder=None if done else loser,
            phase=Phase.GAME_OVER if done else Phase.ROLL,
            winner=_other(loser) if done else None,
        )

    # -- information ----------------------------------------------------------

    def observe(self, state: State, seat: int) -> Observation:
        if seat not in (0, 1):
            raise GameError(f"{self.name}: no seat {seat!r}")
        actor = self.to_act(state)
        holds = state.holder == seat
        return _new_observation(
            seat,
            state.rules.chips,
            state.rules.min_reroll,
            state.phase,
            None if actor is None or actor == CHANCE else actor,
            state.chips,
            state.pot,
            state.roll_off,
            state.holder,
            state.dice if holds else (),
            state.pending if holds else (),
            state.steps,
            state.rounds,
            state.winner,
        )

    def perturb_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        if state.holder is None or state.holder == seat or not state.dice:
            return state
        dice = tuple(rng.randint(1, 6) for _ in range(NUM_DICE))
        pending = (
            tuple(sorted(rng.sample(range(NUM_DICE), len(state.pending)))) if state.pending else ()
        )
        return _evolve(state, dice=dice, pending=pending)

    # -- legality -------------------------------------------------------------

    def check_action(self, observation: Observation, action: object) -> None:
        if not isinstance(action, Declare | Challenge | Accept | Reroll):
            raise MalformedActionError(f"{action!r} is not a {self.name} action")
        if isinstance(action, Declare) and not is_valid_hand(action.hand):
            raise MalformedActionError(f"{action!r}: not a poker-dice hand")
        if isinstance(action, Reroll):
            _check_positions(action.positions)
        if observation.actor != observation.seat:
            raise IllegalActionError(
                f"{self.describe_action(action)}: it is not seat {observation.seat}'s turn"
            )
        phase = observation.phase
        if isinstance(action, Declare):
            if phase is not Phase.DECLARE:
                raise IllegalActionError(
                    f"{self.describe_action(action)}: cannot declare in phase {phase.value}"
                )
            last = observation.last_declaration
            if last is not None and rank(action.hand) <= rank(last):
                raise IllegalActionError(
                    f"{self.describe_action(action)}: must be higher than {describe_hand(last)}"
                )
        elif isinstance(action, Challenge):
            if phase is not Phase.RESPOND:
                raise IllegalActionError(f"challenge: nothing to challenge in phase {phase.value}")
        elif isinstance(action, Accept):
            if phase is not Phase.RESPOND:
                raise IllegalActionError(f"accept: nothing to accept in phase {phase.value}")
            if observation.last_declaration == TOP_HAND:
                raise IllegalActionError(
                    f"accept: {describe_hand(TOP_HAND)} is the top hand, it must be challenged"
                )
        else:
            if phase is not Phase.REROLL:
                raise IllegalActionError(
                    f"{self.describe_action(action)}: cannot re-roll in phase {phase.value}"
                )
            if len(action.positions) < observation.min_reroll:
                raise IllegalActionError(
                    f"{self.describe_action(action)}: must re-roll at least "
                    f"{observation.min_reroll} dice"
                )

    def legal_actions(self, observation: Observation) -> Sequence[Action]:
        if observation.actor != observation.seat:
            return ()
        if observation.phase is Phase.DECLARE:
            return _DECLARES[len(_DECLARES) - len(hands_above(observation.last_declaration)) :]
        if observation.phase is Phase.RESPOND:
            if observation.last_declaration == TOP_HAND:
                return _CHALLENGE_ONLY
            return _CHALLENGE_OR_ACCEPT
        if observation.phase is Phase.REROLL:
            n = observation.min_reroll  # precomputed for 0..5 (every valid rule)
            return _REROLLS.get(n) or tuple(Reroll(p) for p in ALL_POSITION_SETS if len(p) >= n)
        return ()

    # -- results --------------------------------------------------------------

    def standings(self, state: State) -> Outcome:
        return Outcome(
            places=places_from_keys(state.chips),
            scores=(float(state.chips[0]), float(state.chips[1])),
        )

    # -- descriptions -----------------------------------------------------------

    def describe_action(
        self, action: Action, viewer: int | None = None, actor: int | None = None
    ) -> str:
        if isinstance(action, Declare):
            return f"declare {describe_hand(action.hand)}"
        if isinstance(action, Challenge):
            return "challenge"
        if isinstance(action, Accept):
            return "accept"
        if isinstance(action, Reroll):
            if not action.positions:
                return "re-roll nothing"
            if viewer is not None and viewer != actor:
                # Only how many dice are re-rolled is public, not which.
                count = len(action.positions)
                return f"re-roll {count} {'die' if count == 1 else 'dice'}"
            return "re-roll positions " + ",".join(str(p) for p in action.positions)
        return repr(action)

    def describe_chance(
        self, state: State, outcome: Sequence[int], viewer: int | None = None
    ) -> str | None:
        values = " ".join(str(v) for v in outcome)
        if state.phase is Phase.ROLL_OFF:
            return f"seat {len(state.roll_off) % 2} rolls {values} for the start"
        # A round's throw and a re-roll are seen by the holder of the dice alone.
        hidden = viewer is not None and viewer != state.holder
        if state.phase is Phase.ROLL:
            if hidden:
                return f"seat {state.holder} rolls {len(outcome)} hidden dice"
            return f"seat {state.holder} rolls {values}"
        if hidden:
            return f"seat {state.holder} re-rolls {len(state.pending)} dice"
        return f"seat {state.holder} re-rolls {len(state.pending)} dice: {values}"

    # -- claims ---------------------------------------------------------------

    challenge_action: ClassVar[object | None] = Challenge()

    def claim_truth(self, before: State, action: Action) -> bool | None:
        if not isinstance(action, Declare):
            return None
        return is_true(action.hand, before.dice)

    def describe_outcome(self, before: Any, after: Any, seat: int) -> str | None:
        """What an action of ``seat`` settled, read from the record of finished rounds
        that states and observations both carry (see :meth:`Game.describe_outcome`)."""
        result = appended(before, after, "rounds")
        if result is None:
            return None
        challenger = result.steps[-1].seat if result.steps else seat
        held = result.loser == challenger
        verdict = "the declaration held" if held else "the declaration was false"
        chips = " ".join(map(str, after.chips))
        return (
            f"seat {challenger} challenged: dice shown [{' '.join(map(str, result.dice))}]:"
            f" {verdict}: seat {result.loser} pays a chip (chips {chips})"
        )


ALL_POSITION_SETS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(p for p in range(NUM_DICE) if mask >> p & 1)
    for mask in sorted(range(1 << NUM_DICE), key=lambda m: (bin(m).count("1"), m))
)
"""Every set of dice positions, fewest first."""
_new_observation: Final = maker(Observation)
_evolve: Final = evolver(State)
_DECLARES: Final[tuple[Action, ...]] = tuple(Declare(hand) for hand in hands_above(None))
_CHALLENGE_ONLY: Final[tuple[Action, ...]] = (Challenge(),)
_CHALLENGE_OR_ACCEPT: Final[tuple[Action, ...]] = (Challenge(), Accept())
_REROLLS: Final[dict[int, tuple[Action, ...]]] = {
    least: tuple(Reroll(p) for p in ALL_POSITION_SETS if len(p) >= least)
    for least in range(NUM_DICE + 1)
}
"""Declarations of every hand, lowest first; re-rolls by ``min_reroll``, fewest first."""


LIARS_POKER_DICE: Final = LiarsPokerDice()
