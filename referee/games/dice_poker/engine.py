"""Dice Poker: a Yahtzee-style scorecard game with five dice.

Rules in short (full text: ``docs/rules/dice_poker.md``):

* 1..8 seats, five six-sided dice, a public 15-line scorecard per seat; 15 rounds,
  in each round every seat takes one turn in seat order.
* A turn: roll all five dice, then up to two re-rolls of any 1..5 of them (three
  rolls at most); the player may stop after any roll. Then the player writes the
  dice into exactly one empty line of their card (0 if they do not fit).
* Upper lines (Aces..Sixes): the sum of the dice showing that face. Upper bonus:
  35 when the upper lines total 63 or more (``upper_bonus_inclusive=true``, the
  default) or more than 63 (``false``).
* Lower lines: Pair, Two Pair (two pairs of different faces), Three of a Kind,
  Four of a Kind and Chance score the sum of all dice; Full House (three of one
  face and two of another) 25; Small Straight (four faces in a row) 30; Large
  Straight (five in a row) 40; Poker (five equal) 50. Five equal dice also count
  as a pair, three and four of a kind, but not as two pair or full house.
* Extra Poker and joker: when Poker already holds 50 and the turn ends with five
  equal dice, the player earns a 100 bonus and the dice are a joker: they must go
  into the upper line of their face if it is empty; else into any empty lower line
  (Full House and the straights then score their full value, the sum lines the sum
  of the dice); if no lower line is empty, 0 into any empty upper line. If Poker
  holds 0, five equal dice are an ordinary throw.
* After every seat's 15th turn the highest total wins; ties share the place.
  Outcome scores: total points.

Everything is public: every seat sees all dice and all scorecards.

Chance nodes: a turn's first roll is ``DiceRoll(5)``; a re-roll of ``k`` dice is
``DiceRoll(k)``, drawn after the :class:`Reroll` action that picked them (values
fill the picked positions in increasing order).

Actions (only the seat whose turn it is, after a roll):

==================  =============================================================
action              legal when
==================  =============================================================
``Reroll(ps)``      fewer than 3 rolls made this turn; ``ps`` 1..5 distinct
                    positions 0..4 in increasing order
``Score(line)``     ``line`` is empty on the player's card and allowed by the
                    joker rule (see :func:`score_options`)
==================  =============================================================
"""

# long module: one game's whole rules (scorecard, jokers, turns) with the texts each seat
# reads and the notation a person types

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum
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
    check_chance,
    places_from_keys,
)
from referee.gamekit.fast import evolver, maker
from referee.gamekit.notation import NotAMove, dice_positions, lettered_dice, letters, words

NUM_DICE: Final = 5
MAX_ROLLS: Final = 3
NUM_TURNS: Final = 15
UPPER_BONUS: Final = 35
UPPER_BONUS_THRESHOLD: Final = 63
EXTRA_POKER_BONUS: Final = 100
POKER_POINTS: Final = 50
FULL_HOUSE_POINTS: Final = 25
SMALL_STRAIGHT_POINTS: Final = 30
LARGE_STRAIGHT_POINTS: Final = 40


class Line(IntEnum):
    """The 15 scorecard lines, in card order."""

    ACES = 1
    TWOS = 2
    THREES = 3
    FOURS = 4
    FIVES = 5
    SIXES = 6
    PAIR = 7
    TWO_PAIR = 8
    THREE_OF_A_KIND = 9
    FOUR_OF_A_KIND = 10
    FULL_HOUSE = 11
    SMALL_STRAIGHT = 12
    LARGE_STRAIGHT = 13
    POKER = 14
    CHANCE = 15

    @property
    def is_upper(self) -> bool:
        return self <= Line.SIXES


UPPER_LINES: Final = tuple(line for line in Line if line.is_upper)
LOWER_LINES: Final = tuple(line for line in Line if not line.is_upper)
_LINES: Final = tuple(Line)
"""Every line, in card order (a scorecard's ``lines`` index)."""

LINE_NAMES: Final[Mapping[Line, str]] = {
    Line.ACES: "Aces",
    Line.TWOS: "Twos",
    Line.THREES: "Threes",
    Line.FOURS: "Fours",
    Line.FIVES: "Fives",
    Line.SIXES: "Sixes",
    Line.PAIR: "Pair",
    Line.TWO_PAIR: "Two Pair",
    Line.THREE_OF_A_KIND: "Three of a Kind",
    Line.FOUR_OF_A_KIND: "Four of a Kind",
    Line.FULL_HOUSE: "Full House",
    Line.SMALL_STRAIGHT: "Small Straight",
    Line.LARGE_STRAIGHT: "Large Straight",
    Line.POKER: "Poker",
    Line.CHANCE: "Chance",
}

# ---------------------------------------------------------------------------
# Rules


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule options of Dice Poker."""

    upper_bonus_inclusive: bool = True
    """The 35-point upper bonus needs 63 or more (``True``) or more than 63."""


OPTIONS: Final = (
    RuleOption(
        "upper_bonus_inclusive",
        True,
        "The 35-point upper bonus is earned at an upper total of 63 or more (true) "
        "or only above 63 (false, the literal reading of the original text).",
    ),
)

# ---------------------------------------------------------------------------
# Scorecards and scoring


@dataclass(frozen=True, slots=True)
class Scorecard:
    """One seat's card: points per line (``None`` = empty) and extra-Poker bonuses."""

    lines: tuple[int | None, ...] = (None,) * len(Line)
    """Indexed by ``line - 1``."""
    extra_pokers: int = 0
    """How many 100-point extra-Poker bonuses were earned."""

    def get(self, line: Line) -> int | None:
        return self.lines[line - 1]

    def is_open(self, line: Line) -> bool:
        return self.lines[line - 1] is None

    @property
    def open_lines(self) -> tuple[Line, ...]:
        """The lines not written yet, in line order."""
        return tuple(
            [line for line, points in zip(_LINES, self.lines, strict=False) if points is None]
        )

    @property
    def upper_total(self) -> int:
        """Points in the six upper lines (aces to sixes), before the bonus."""
        return sum(self.lines[line - 1] or 0 for line in UPPER_LINES)

    def upper_bonus(self, inclusive: bool) -> int:
        total = self.upper_total
        earned = total >= UPPER_BONUS_THRESHOLD if inclusive else total > UPPER_BONUS_THRESHOLD
        return UPPER_BONUS if earned else 0

    def total(self, inclusive: bool) -> int:
        """Lines plus the upper bonus plus the extra-Poker bonuses."""
        return (
            sum(points or 0 for points in self.lines)
            + self.upper_bonus(inclusive)
            + EXTRA_POKER_BONUS * self.extra_pokers
        )

    def filled(self, line: Line, points: int) -> Scorecard:
        lines = list(self.lines)
        lines[line - 1] = points
        return _new_scorecard(tuple(lines), self.extra_pokers)


def _is_run(faces: set[int], length: int) -> bool:
    return any(
        all(face in faces for face in range(start, start + length))
        for start in range(1, 8 - length)
    )


def line_points(line: Line, dice: Sequence[int], *, joker: bool = False) -> int:
    """Points ``dice`` score in ``line``; ``joker`` applies the joker values."""
    counts = Counter(dice)
    total = sum(dice)
    most = max(counts.values(), default=0)
    if line.is_upper:
        return int(line) * counts[int(line)]
    if line == Line.PAIR:
        return total if most >= 2 else 0
    if line == Line.TWO_PAIR:
        pairs = sum(1 for n in counts.values() if n >= 2)
        return total if pairs >= 2 or joker else 0
    if line == Line.THREE_OF_A_KIND:
        return total if most >= 3 else 0
    if line == Line.FOUR_OF_A_KIND:
        return total if most >= 4 else 0
    if line == Line.FULL_HOUSE:
        shape = sorted(counts.values())
        return FULL_HOUSE_POINTS if shape == [2, 3] or joker else 0
    if line == Line.SMALL_STRAIGHT:
        return SMALL_STRAIGHT_POINTS if joker or _is_run(set(dice), 4) else 0
    if line == Line.LARGE_STRAIGHT:
        return LARGE_STRAIGHT_POINTS if joker or _is_run(set(dice), 5) else 0
    if line == Line.POKER:
        return POKER_POINTS if most == NUM_DICE else 0
    return total  # Chance


_POINTS: dict[tuple[int, ...], tuple[int, ...]] = {}
"""Points of a throw in every line (no joker), by throw in roll order and sorted: at
most 6**5 of them."""


def _points_by_line(dice: tuple[int, ...]) -> tuple[int, ...]:
    found = _POINTS.get(dice)
    if found is None:  # points depend on the multiset of faces: 252 throws of 5 dice
        ordered = tuple(sorted(dice))
        found = _POINTS.get(ordered)
        if found is None:
            found = tuple(line_points(line, dice) for line in _LINES)
        if len(_POINTS) < 9000:
            _POINTS[ordered] = _POINTS[dice] = found
    return found


def is_joker(card: Scorecard, dice: Sequence[int]) -> bool:
    """Five equal dice while Poker already holds 50: extra-Poker bonus and joker."""
    return len(dice) == NUM_DICE and len(set(dice)) == 1 and card.get(Line.POKER) == POKER_POINTS


def score_options(card: Scorecard, dice: Sequence[int]) -> dict[Line, int]:
    """Every line the dice may be written into now, with the points (bonus excluded)."""
    if not is_joker(card, dice):
        if type(dice) is tuple:
            points = _points_by_line(dice)
            return {line: points[line - 1] for line in card.open_lines}
        return {line: line_points(line, dice) for line in card.open_lines}
    upper = Line(dice[0])
    if card.is_open(upper):
        return {upper: line_points(upper, dice)}
    lower = [line for line in LOWER_LINES if card.is_open(line)]
    if lower:
        return {line: line_points(line, dice, joker=True) for line in lower}
    return {line: 0 for line in UPPER_LINES if card.is_open(line)}


# ---------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Reroll:
    """Re-roll the dice at ``positions`` (1..5 distinct positions 0..4, increasing)."""

    positions: tuple[int, ...]
    """Dice positions to re-roll (0..4): one to five, distinct, increasing."""


@dataclass(frozen=True, slots=True)
class Score:
    """Write the dice into ``line`` and end the turn."""

    line: Line
    """The open scorecard line to write the dice's points into."""


Action = Reroll | Score

# ---------------------------------------------------------------------------
# State and observation


class Phase(Enum):
    """What the game waits for."""

    ROLL = "roll"
    """Chance: the turn's first roll, or a re-roll."""
    CHOOSE = "choose"
    """The current seat re-rolls or scores."""
    GAME_OVER = "game_over"


@dataclass(frozen=True, slots=True)
class State:
    """The full state of a match (all of it public)."""

    rules: Rules
    phase: Phase
    cards: tuple[Scorecard, ...]
    current: int | None = 0
    """The seat whose turn it is (``None`` at the end)."""
    turn: int = 1
    """The round number, 1..15."""
    dice: tuple[int, ...] = ()
    rolls: int = 0
    """Rolls made this turn."""
    pending: tuple[int, ...] = ()
    """Positions being re-rolled during a re-roll's chance node."""


@dataclass(frozen=True, slots=True)
class Observation:
    """What a seat knows: the whole (public) state."""

    seat: int
    """The observer's seat (0-based)."""
    num_seats: int
    """Seats in the match (1 plays solo)."""
    upper_bonus_inclusive: bool
    """Rule option ``upper_bonus_inclusive``."""
    phase: Phase
    """What the game waits for (`Phase`)."""
    current: int | None
    """The seat whose turn it is (``None`` at the end)."""
    turn: int
    """The round number, 1..15."""
    dice: tuple[int, ...]
    """The five dice in position order (empty before the turn's first roll)."""
    rolls: int
    """Rolls made this turn."""
    reroll_positions: tuple[int, ...]
    """Positions being re-rolled while the re-roll is drawn."""
    cards: tuple[Scorecard, ...]
    """Every seat's scorecard."""

    @property
    def my_card(self) -> Scorecard:
        """The observer's own scorecard."""
        return self.cards[self.seat]

    @property
    def my_turn(self) -> bool:
        """Whether the observer must re-roll or score now."""
        return self.phase is Phase.CHOOSE and self.current == self.seat

    def totals(self) -> tuple[int, ...]:
        return tuple(card.total(self.upper_bonus_inclusive) for card in self.cards)


# ---------------------------------------------------------------------------
# The engine


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


ALL_REROLLS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(p for p in range(NUM_DICE) if mask >> p & 1)
    for mask in sorted(range(1, 1 << NUM_DICE), key=lambda m: (bin(m).count("1"), m))
)
"""Every non-empty set of positions, fewest first."""
_REROLLS: Final = tuple(Reroll(positions) for positions in ALL_REROLLS)
_SCORES: Final = {line: Score(line) for line in Line}
_new_scorecard: Final = maker(Scorecard)
_new_observation: Final = maker(Observation)
_evolve: Final = evolver(State)


class DicePoker(Game[Rules, State, Action, Observation]):
    """The Dice Poker engine (see the module docstring)."""

    name: ClassVar[str] = "dice_poker"
    title: ClassVar[str] = "Dice Poker"
    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 8
    options: ClassVar[tuple[RuleOption, ...]] = OPTIONS
    rules_type: ClassVar[type[Rules]] = Rules
    action_types: ClassVar[tuple[type, ...]] = (Reroll, Score)
    hidden_information: ClassVar[bool] = False

    def new_game(self, rules: Rules, num_seats: int) -> State:
        self.check_seats(rules, num_seats)
        return State(rules=rules, phase=Phase.ROLL, cards=(Scorecard(),) * num_seats)

    def to_act(self, state: State) -> int | None:
        if state.phase is Phase.ROLL:
            return CHANCE
        if state.phase is Phase.CHOOSE:
            return state.current
        return None

    def chance_request(self, state: State) -> ChanceRequest:
        if state.phase is not Phase.ROLL:
            raise ChanceError(f"no chance outcome is due in phase {state.phase.value}")
        return DiceRoll(len(state.pending) if state.pending else NUM_DICE)

    def apply_chance(self, state: State, outcome: Sequence[int]) -> State:
        values = check_chance(self.chance_request(state), outcome)
        if not state.pending:
            dice = values
        else:
            new = list(state.dice)
            for position, value in zip(state.pending, values, strict=True):
                new[position] = value
            dice = tuple(new)
        return _evolve(state, dice=dice, pending=(), rolls=state.rolls + 1, phase=Phase.CHOOSE)

    def transition(self, state: State, seat: int, action: Action) -> State:
        if isinstance(action, Reroll):
            return _evolve(state, pending=action.positions, phase=Phase.ROLL)
        card = state.cards[seat]
        points = score_options(card, state.dice)[action.line]
        new_card = card.filled(action.line, points)
        if is_joker(card, state.dice):
            new_card = _new_scorecard(new_card.lines, new_card.extra_pokers + 1)
        cards = (*state.cards[:seat], new_card, *state.cards[seat + 1 :])
        last_seat = seat == len(state.cards) - 1
        if last_seat and state.turn == NUM_TURNS:
            return _evolve(
                state, cards=cards, phase=Phase.GAME_OVER, current=None, dice=(), rolls=0
            )
        return _evolve(
            state,
            cards=cards,
            phase=Phase.ROLL,
            current=0 if last_seat else seat + 1,
            turn=state.turn + 1 if last_seat else state.turn,
            dice=(),
            rolls=0,
        )

    def observe(self, state: State, seat: int) -> Observation:
        if not 0 <= seat < len(state.cards):
            raise GameError(f"{self.name}: no seat {seat!r}")
        return _new_observation(
            seat,
            len(state.cards),
            state.rules.upper_bonus_inclusive,
            state.phase,
            state.current,
            state.turn,
            state.dice,
            state.rolls,
            state.pending,
            state.cards,
        )

    def perturb_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        """Nothing in Dice Poker is hidden: the state is returned unchanged."""
        return state

    def check_action(self, observation: Observation, action: object) -> None:
        if not isinstance(action, Reroll | Score):
            raise MalformedActionError(f"{action!r} is not a {self.name} action")
        if isinstance(action, Reroll):
            if not _check_positions(action.positions):
                raise MalformedActionError(f"{action!r}: a re-roll needs at least one die")
        elif not isinstance(action.line, Line):
            raise MalformedActionError(f"{action!r}: not a scorecard line")
        described = self.describe_action(action)
        if not observation.my_turn:
            raise IllegalActionError(f"{described}: it is not seat {observation.seat}'s turn")
        if isinstance(action, Reroll):
            if observation.rolls >= MAX_ROLLS:
                raise IllegalActionError(f"{described}: all {MAX_ROLLS} rolls are used")
            return
        card = observation.my_card
        if not card.is_open(action.line):
            raise IllegalActionError(f"{described}: the line is already filled")
        if action.line not in score_options(card, observation.dice):
            raise IllegalActionError(
                f"{described}: the joker must go into "
                + ", ".join(LINE_NAMES[line] for line in score_options(card, observation.dice))
            )

    def legal_actions(self, observation: Observation) -> Sequence[Action]:
        if not observation.my_turn:
            return ()
        scores: list[Action] = [
            _SCORES[line] for line in score_options(observation.my_card, observation.dice)
        ]
        if observation.rolls >= MAX_ROLLS:
            return tuple(scores)
        return (*_REROLLS, *scores)

    def standings(self, state: State) -> Outcome:
        totals = [card.total(state.rules.upper_bonus_inclusive) for card in state.cards]
        return Outcome(places=places_from_keys(totals), scores=tuple(float(t) for t in totals))

    # Everything in Dice Poker is public: every seat reads the omniscient text.

    def describe_action(
        self, action: Action, viewer: int | None = None, actor: int | None = None
    ) -> str:
        if isinstance(action, Reroll):
            return "re-roll positions " + ",".join(str(p) for p in action.positions)
        if isinstance(action, Score):
            name = LINE_NAMES.get(action.line, repr(action.line))
            return f"score {name}"
        return repr(action)

    def describe_chance(
        self, state: State, outcome: Sequence[int], viewer: int | None = None
    ) -> str:
        values = " ".join(str(v) for v in outcome)
        if state.pending:
            return f"seat {state.current} re-rolls {len(state.pending)} dice: {values}"
        return f"seat {state.current} rolls {values} (round {state.turn})"

    def view_text(self, name: str, value: Any) -> str | None:
        # A scorecard's lines by name: "aces 3, twos -, ..." ("-": still open).
        if name == "lines" and isinstance(value, tuple):
            return ", ".join(
                f"{line.name.lower().replace('_', ' ')} {'-' if points is None else points}"
                for line, points in zip(_LINES, value, strict=False)
            )
        return None

    def describe_outcome(self, before: Any, after: Any, seat: int) -> str | None:
        """What an action of ``seat`` settled, read from the record of finished rounds
        that states and observations both carry (see :meth:`Game.describe_outcome`)."""
        if before.cards[seat] == after.cards[seat]:
            return None
        inclusive = after.rules.upper_bonus_inclusive if hasattr(after, "rules") else None
        if inclusive is None:
            inclusive = after.upper_bonus_inclusive
        total, old = (x.cards[seat].total(inclusive) for x in (after, before))
        return f"seat {seat} scores {total - old} (total {total})"

    # -- what a person reads and types (see Game.parse_move) -------------------------

    def write_move(self, action: Action, observation: Observation) -> str:
        if isinstance(action, Reroll):
            return "reroll " + letters(action.positions)
        return "score " + LINE_NAMES[action.line].lower()

    def parse_move(self, text: str, observation: Observation) -> Action:
        action = read_move(text, observation)
        return self.legal_move(observation, action, lambda: _refusal(observation, action))

    def move_summary(self, observation: Observation) -> str:
        if not observation.my_turn:
            return "nothing (it is not your turn)"
        options = score_options(observation.my_card, observation.dice)
        scores = " · ".join(
            f"{LINE_NAMES[line].lower()} {points}" for line, points in options.items()
        )
        left = MAX_ROLLS - observation.rolls
        if not left:
            return f"score one line (all rolls used): {scores}"
        rolls = "1 roll" if left == 1 else f"{left} rolls"
        return (
            f"reroll some dice ({rolls} left): r 3 5 (by value), r a c (by letter), r all,"
            f" or k 6 6 (keep those, re-roll the rest); or score one line: {scores}"
        )

    def rules_summary(self, rules: Rules, num_seats: int) -> tuple[str, ...]:
        bonus = "63 or more" if rules.upper_bonus_inclusive else "more than 63"
        return (
            f"{num_seats} players, 15 rounds. A turn: roll five dice, re-roll any of them up"
            " to twice, then write them into one empty line of your card (0 if they do not"
            " fit).",
            f"Aces..sixes score their face's dice; 35 bonus when they total {bonus}. Pair,"
            " two pair, three and four of a kind, chance: the sum of the dice; full house"
            " 25, small straight 30, large straight 40, poker (five alike) 50.",
            "Another poker after a 50 in poker scores 100 more and is a joker. The highest"
            " total wins.",
        )

    def holding(self, observation: Observation) -> tuple[str, ...]:
        return _holding_lines(observation)

    def announce_action(self, action: Action, actor: int, viewer: int | None) -> str:
        who = "you" if actor == viewer else f"seat {actor}"
        verb = "s" if who != "you" else ""
        if isinstance(action, Reroll):
            count = len(action.positions)
            return f"{who} re-roll{verb} {count} {'die' if count == 1 else 'dice'}"
        return f"{who} score{verb} in {LINE_NAMES[action.line].lower()}"

    def announce_news(
        self, before: Observation | None, after: Observation, viewer: int
    ) -> tuple[str, ...]:
        if before is None:
            return ()
        lines = []
        n = len(after.cards)
        for seat in [(viewer + k) % n for k in range(1, n + 1)]:
            old, new = before.cards[seat], after.cards[seat]
            for line, (was, now) in zip(
                _LINES, zip(old.lines, new.lines, strict=True), strict=True
            ):
                if was is None and now is not None:
                    who = "you" if seat == viewer else f"seat {seat}"
                    extra = (
                        " and an extra poker (100)" if new.extra_pokers > old.extra_pokers else ""
                    )
                    total = new.total(after.upper_bonus_inclusive)
                    lines.append(
                        f"{who} {'score' if who == 'you' else 'scores'} {now} in"
                        f" {LINE_NAMES[line].lower()}{extra} (total {total})"
                    )
        return tuple(lines)


DICE_POKER: Final = DicePoker()


# ---------------------------------------------------------------------------
# The notation a person reads and types (arena play, the browser game)

_LINE_WORDS: Final[dict[str, Line]] = {
    **{name.lower(): line for line, name in LINE_NAMES.items()},
    **{str(int(line)): line for line in UPPER_LINES},
    **{f"{int(line)}s": line for line in UPPER_LINES},
    "ones": Line.ACES, "1p": Line.PAIR, "one pair": Line.PAIR, "2p": Line.TWO_PAIR,
    "3k": Line.THREE_OF_A_KIND, "trips": Line.THREE_OF_A_KIND, "three": Line.THREE_OF_A_KIND,
    "4k": Line.FOUR_OF_A_KIND, "quads": Line.FOUR_OF_A_KIND, "four": Line.FOUR_OF_A_KIND,
    "fh": Line.FULL_HOUSE, "full": Line.FULL_HOUSE, "ss": Line.SMALL_STRAIGHT,
    "small": Line.SMALL_STRAIGHT, "ls": Line.LARGE_STRAIGHT, "large": Line.LARGE_STRAIGHT,
    "yahtzee": Line.POKER, "five of a kind": Line.POKER, "ch": Line.CHANCE,
}  # fmt: skip
"""A line by its name (``full house``), its face (``3``, ``3s``) or a short form (``fh``)."""
EXPECTED: Final = (
    "r VALUES or r LETTERS to re-roll those dice (r 3 5, r a c, r all), k VALUES to keep"
    " them and re-roll the rest (k 6 6), or a line to score (full house, fh, 3s, chance)"
)


def read_move(text: str, observation: Observation) -> Action:
    """The action ``text`` writes (legal or not); :class:`NotAMove` if it writes none."""
    tokens = words(text)
    if not tokens:
        raise NotAMove(f"type {EXPECTED}")
    head, rest = tokens[0], tokens[1:]
    dice = observation.dice or (0,) * NUM_DICE
    if head in ("r", "reroll", "re-roll", "roll", "k", "keep"):
        keep = head in ("k", "keep")
        if rest == ["all"]:
            positions: tuple[int, ...] | None = () if keep else tuple(range(NUM_DICE))
        else:
            positions = dice_positions(rest, dice, keep=keep) if rest else None
        if not positions:
            what = "keeping every die re-rolls none" if keep and rest else f"{head} needs dice"
            raise NotAMove(f"{what}: type {EXPECTED}")
        return Reroll(positions)
    if head in ("s", "score", "write"):
        tokens = rest
    line = _LINE_WORDS.get(" ".join(tokens))
    if line is None:
        raise NotAMove(f"{text.strip()!r} is not a move: type {EXPECTED}")
    return Score(line)


def _refusal(observation: Observation, action: Action) -> str:
    if not observation.my_turn:
        return "it is not your turn"
    if isinstance(action, Reroll):
        return f"all {MAX_ROLLS} rolls are used: score a line"
    name = LINE_NAMES[action.line].lower()
    if not observation.my_card.is_open(action.line):
        return f"your {name} line is filled already"
    allowed = ", ".join(
        LINE_NAMES[line].lower() for line in score_options(observation.my_card, observation.dice)
    )
    return f"the joker must go into {allowed}"


def _holding_lines(observation: Observation) -> tuple[str, ...]:
    me = observation.seat
    card = observation.my_card
    lines = []
    if observation.dice:
        lines.append(
            f"your dice: {lettered_dice(observation.dice)}"
            f" (roll {observation.rolls} of {MAX_ROLLS})"
        )
    totals = ", ".join(
        f"{'you' if seat == me else f'seat {seat}'} {total}"
        for seat, total in enumerate(observation.totals())
    )
    lines.append(
        f"round {observation.turn} of {NUM_TURNS} · totals: {totals}"
        f" · your upper lines {card.upper_total} of {UPPER_BONUS_THRESHOLD}"
    )
    filled = [
        f"{LINE_NAMES[line].lower()} {points}"
        for line, points in zip(_LINES, card.lines, strict=True)
        if points is not None
    ]
    lines.append("your card: " + (" · ".join(filled) if filled else "empty"))
    return tuple(lines)
