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

# long module: one game's whole rules (roll-offs, declarations, accepts and re-rolls,
# challenges, chips) with the texts each seat reads and the notation a person types

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
from referee.gamekit.notation import (
    NotAMove,
    dice_positions,
    lettered_dice,
    letters,
    number_word,
    parse_count,
    words,
)
from referee.gamekit.poker_dice import (
    NUM_DICE,
    TOP_HAND,
    Category,
    Hand,
    describe_hand,
    evaluate,
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

    # -- what a person reads and types (see Game.parse_move) -------------------------

    def write_move(self, action: Action, observation: Observation) -> str:
        if isinstance(action, Declare):
            return describe_hand(action.hand)
        if isinstance(action, Reroll):
            return "reroll " + (letters(action.positions) or "nothing")
        return "challenge" if isinstance(action, Challenge) else "accept"

    def parse_move(self, text: str, observation: Observation) -> Action:
        action = read_move(text, observation)
        return self.legal_move(observation, action, lambda: _refusal(observation, action))

    def move_summary(self, observation: Observation) -> str:
        return _moves_in_short(observation)

    def rules_summary(self, rules: Rules, num_seats: int) -> tuple[str, ...]:
        least = (
            f"at least {number_word(rules.min_reroll)} of them"
            if rules.min_reroll
            else "any of them (or none)"
        )
        return (
            f"2 players, {rules.chips} chips each. The holder rolls five dice hidden and"
            " declares a poker hand they show (true or not).",
            "The other challenges (c: the dice are shown; whoever was wrong pays a chip) or"
            f" accepts (a): takes the dice, re-rolls {least} and must declare higher.",
            "Hands, low to high: high card 6, pair, two pair, three, low straight, high"
            " straight, full house, four, five. No chips left and you lose.",
        )

    def holding(self, observation: Observation) -> tuple[str, ...]:
        return _holding_lines(observation)

    def announce_action(self, action: Action, actor: int, viewer: int | None) -> str:
        who = "you" if actor == viewer else f"seat {actor}"
        s = "" if who == "you" else "s"
        if isinstance(action, Declare):
            return f"{who} declare{s} {describe_hand(action.hand)}"
        if isinstance(action, Reroll):
            count = len(action.positions)
            return f"{who} re-roll{s} {number_word(count)} {'die' if count == 1 else 'dice'}"
        return f"{who} {'challenge' if isinstance(action, Challenge) else 'accept'}{s}"

    def announce_news(
        self, before: Observation | None, after: Observation, viewer: int
    ) -> tuple[str, ...]:
        return _news_between(before, after, viewer)


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


# ---------------------------------------------------------------------------
# The notation a person reads and types (arena play, the browser game)

_FACE_WORDS: Final = {
    "one": 1, "ones": 1, "two": 2, "twos": 2, "three": 3, "threes": 3, "four": 4,
    "fours": 4, "five": 5, "fives": 5, "six": 6, "sixes": 6,
}  # fmt: skip
_BY_COUNT: Final = {
    2: Category.ONE_PAIR, 3: Category.THREE_OF_A_KIND, 4: Category.FOUR_OF_A_KIND,
    5: Category.FIVE_OF_A_KIND,
}  # fmt: skip
_HAND_WORDS: Final[tuple[tuple[tuple[str, ...], Category], ...]] = (
    (("high", "card"), Category.HIGH_CARD), (("hc",), Category.HIGH_CARD),
    (("one", "pair"), Category.ONE_PAIR), (("pair",), Category.ONE_PAIR),
    (("p",), Category.ONE_PAIR), (("two", "pair"), Category.TWO_PAIR),
    (("2p",), Category.TWO_PAIR), (("three", "of", "a", "kind"), Category.THREE_OF_A_KIND),
    (("three",), Category.THREE_OF_A_KIND), (("trips",), Category.THREE_OF_A_KIND),
    (("3k",), Category.THREE_OF_A_KIND), (("low", "straight"), Category.LOW_STRAIGHT),
    (("small", "straight"), Category.LOW_STRAIGHT), (("ls",), Category.LOW_STRAIGHT),
    (("high", "straight"), Category.HIGH_STRAIGHT), (("large", "straight"), Category.HIGH_STRAIGHT),
    (("hs",), Category.HIGH_STRAIGHT), (("full", "house"), Category.FULL_HOUSE),
    (("full",), Category.FULL_HOUSE), (("fh",), Category.FULL_HOUSE),
    (("four", "of", "a", "kind"), Category.FOUR_OF_A_KIND), (("four",), Category.FOUR_OF_A_KIND),
    (("quads",), Category.FOUR_OF_A_KIND), (("4k",), Category.FOUR_OF_A_KIND),
    (("five", "of", "a", "kind"), Category.FIVE_OF_A_KIND), (("five",), Category.FIVE_OF_A_KIND),
    (("5k",), Category.FIVE_OF_A_KIND),
)  # fmt: skip
"""Category words, the longer first where one begins another."""
_FACES_NAMED: Final = {
    Category.HIGH_CARD: 1, Category.ONE_PAIR: 1, Category.TWO_PAIR: 2,
    Category.THREE_OF_A_KIND: 1, Category.LOW_STRAIGHT: 0, Category.HIGH_STRAIGHT: 0,
    Category.FULL_HOUSE: 2, Category.FOUR_OF_A_KIND: 1, Category.FIVE_OF_A_KIND: 1,
}  # fmt: skip
EXPECTED_HAND: Final = (
    "a hand: pair 3 (or 2 3s), two pair 5 3, three 4 (or 3 4s), low straight (ls), high"
    " straight (hs), full house 4 2 (fh 4 2), four 3 (4 3s), five 6 (5 6s), high card 6"
)
EXPECTED_REROLL: Final = (
    "the dice to re-roll: r 3 5 (by value), r a c (by letter), r all, r nothing, or k 6 6"
    " (keep those, re-roll the rest)"
)


def _face(word: str) -> int | None:
    word = word.removesuffix("'s")
    if word[:1].isdigit():
        word = word.removesuffix("s")
        return int(word) if word in ("1", "2", "3", "4", "5", "6") else None
    return _FACE_WORDS.get(word)


def read_hand(tokens: list[str]) -> Hand | None:
    """The hand ``tokens`` write, or None; :class:`NotAMove` for one no dice show."""
    count = parse_count(tokens[0]) if len(tokens) == 2 else None
    if count in _BY_COUNT and tokens[1] and _face(tokens[1]) is not None:
        category, faces_words = _BY_COUNT[count], tokens[1:]  # "3 4s": three 4s
    else:
        found = next(
            ((len(named), category) for named, category in _HAND_WORDS
             if tuple(tokens[: len(named)]) == named),
            None,
        )  # fmt: skip
        if found is None:
            return None
        category, faces_words = found[1], tokens[found[0] :]
    faces = [_face(w) for w in faces_words if w not in ("of", "and", "over", "a", "to")]
    if any(f is None for f in faces):
        return None
    named = tuple(f for f in faces if f is not None)
    if category is Category.HIGH_CARD and not named:
        named = (6,)
    if category is Category.TWO_PAIR:
        named = tuple(sorted(named, reverse=True))
    hand = Hand(category, named)
    if len(named) != _FACES_NAMED[category] or not is_valid_hand(hand):
        raise NotAMove(
            f"{' '.join(tokens)!r} is not a hand five dice can show: type {EXPECTED_HAND}"
        )
    return hand


def read_move(text: str, observation: Observation) -> Action:
    """The action ``text`` writes (legal or not); :class:`NotAMove` if it writes none."""
    tokens = words(text)
    if not tokens:
        raise NotAMove(f"type {_moves_in_short(observation)}")
    if tokens in (["c"], ["challenge"], ["call"], ["liar"]):
        return Challenge()
    if tokens in (["a"], ["accept"], ["take"]):
        return Accept()
    head, rest = tokens[0], tokens[1:]
    if head in ("r", "reroll", "re-roll", "roll", "k", "keep"):
        keep = head in ("k", "keep")
        if rest in (["nothing"], ["none"], ["0"], []) and not keep:
            return Reroll(())
        if rest == ["all"]:
            return Reroll(() if keep else tuple(range(NUM_DICE)))
        positions = dice_positions(rest, observation.dice or (0,) * NUM_DICE, keep=keep)
        if positions is None:
            raise NotAMove(f"{text.strip()!r} is not a re-roll: type {EXPECTED_REROLL}")
        return Reroll(positions)
    if head == "declare":
        tokens = rest
    hand = read_hand(tokens) if tokens else None
    if hand is None:
        raise NotAMove(f"{text.strip()!r} is not a move: {_moves_in_short(observation)}")
    return Declare(hand)


def _refusal(observation: Observation, action: Action) -> str:
    if observation.actor != observation.seat:
        return "it is not your turn"
    phase = observation.phase
    last = observation.last_declaration
    if isinstance(action, Declare) and phase is Phase.DECLARE and last is not None:
        return f"it is not higher than {describe_hand(last)}"
    if isinstance(action, Reroll) and phase is Phase.REROLL:
        return f"re-roll at least {number_word(observation.min_reroll)} dice"
    if isinstance(action, Accept) and phase is Phase.RESPOND:
        return f"{describe_hand(TOP_HAND)} is the top hand: challenge it"
    return {Phase.DECLARE: "declare a hand now", Phase.RESPOND: "challenge or accept now"}.get(
        phase, "re-roll now"
    )


def _moves_in_short(observation: Observation) -> str:
    if observation.actor != observation.seat:
        return "nothing (it is not your turn)"
    last = observation.last_declaration
    if observation.phase is Phase.RESPOND:
        whose = f" seat {1 - observation.seat}'s {describe_hand(last)}" if last else ""
        if last == TOP_HAND:
            return f"c to challenge{whose} (nothing beats it)"
        return f"c to challenge{whose} or a to accept (take the dice, re-roll, declare higher)"
    if observation.phase is Phase.REROLL:
        least = f" (at least {observation.min_reroll})" if observation.min_reroll else ""
        return f"choose {EXPECTED_REROLL}{least}"
    above = hands_above(last)[:3]
    start = "declare any hand" if last is None else f"declare higher than {describe_hand(last)}"
    return f"{start} (next up: {', '.join(map(describe_hand, above))}, ...): {EXPECTED_HAND}"


def _holding_lines(observation: Observation) -> tuple[str, ...]:
    me = observation.seat
    if observation.dice:
        shown = describe_hand(evaluate(observation.dice))
        lines = [f"your dice: {lettered_dice(observation.dice)} (they show {shown})"]
    elif observation.holder is not None and observation.holder != me:
        lines = [f"seat {observation.holder} holds the dice"]
    else:
        lines = ["your dice: -"]
    last = observation.last_declaration
    if last is not None:
        declarer = next(s.seat for s in reversed(observation.steps) if s.kind is StepKind.DECLARE)
        whose = "your" if declarer == me else f"seat {declarer}'s"
        lines.append(f"to beat: {whose} {describe_hand(last)}")
    chips = ", ".join(
        f"{'you' if s == me else f'seat {s}'} {c}" for s, c in enumerate(observation.chips)
    )
    lines.append(f"chips: {chips} · pot {observation.pot}")
    return tuple(lines)


def _step_words(step: Step, viewer: int) -> str:
    who = "you" if step.seat == viewer else f"seat {step.seat}"
    s = "" if who == "you" else "s"
    if step.kind is StepKind.DECLARE and step.hand is not None:
        return f"{who} declare{s} {describe_hand(step.hand)}"
    if step.kind is StepKind.REROLL:
        return f"{who} re-roll{s} {number_word(step.count)} {'die' if step.count == 1 else 'dice'}"
    return f"{who} {step.kind.value}{s}"


def _news_between(before: Observation | None, after: Observation, viewer: int) -> tuple[str, ...]:
    lines: list[str] = []
    if before is None and len(after.roll_off) >= 2:
        throws = after.roll_off
        for first, second in zip(throws[::2], throws[1::2], strict=False):
            mine, theirs = (first, second) if viewer == 0 else (second, first)
            lines.append(f"roll-off: you {sum(mine)}, seat {1 - viewer} {sum(theirs)}")
    seen = len(before.steps) if before is not None else 0
    finished = after.rounds[len(before.rounds) :] if before is not None else after.rounds
    for index, record in enumerate(finished):
        skip = seen if index == 0 else 0
        lines.extend(
            _step_words(step, viewer) for step in record.steps[skip:-1] if step.seat != viewer
        )
        challenge = record.steps[-1]
        caller = "you" if challenge.seat == viewer else f"seat {challenge.seat}"
        declared = last_declaration(record.steps)
        whose = "your" if challenge.seat != viewer else f"seat {1 - viewer}'s"
        loser = "you" if record.loser == viewer else f"seat {record.loser}"
        lines.append(
            f"{caller} challenge{'' if caller == 'you' else 's'} {whose}"
            f" {describe_hand(declared) if declared else 'hand'}: the dice"
            f" {' '.join(map(str, record.dice))} show {describe_hand(evaluate(record.dice))};"
            f" {loser} pay{'' if loser == 'you' else 's'} a chip"
        )
    skip = seen if not finished else 0
    lines.extend(_step_words(step, viewer) for step in after.steps[skip:] if step.seat != viewer)
    return tuple(lines)
