"""Liar's Dice (Pirate's Dice): bid on the dice hidden under everyone's cups.

Rules in short (``docs/rules/liars_dice.md`` has them in full):

* 2..10 seats, ``dice_per_player`` six-sided dice each (default 5).
* **Who starts** (``roll_off``, default on): every contender rolls 2 dice, in one
  chance event of ``2 * len(contenders)`` dice assigned in seat order; the highest
  sum opens round 1; the seats tied for highest roll again among themselves. With
  ``roll_off=false`` seat 0 opens round 1.
* **A round**: one chance event rolls every die on the table (``DiceRoll(total)``),
  given to the seats still in, in seat order. Each seat sees only its own dice.
  The opener bids, then play goes clockwise (seat + 1, skipping seats that are
  out): each seat raises the last bid or challenges it.
* **A bid** ``Bid(quantity, face)`` claims that at least ``quantity`` dice on the
  whole table count for ``face``. Quantities run from 1 to the number of dice on
  the table (a larger quantity is illegal: it can never be true).
* **Raise rule** (``raise_rule``), for a bid ``q x f`` after ``q0 x f0``:

  ========================== ================================================
  ``same-face-or-same-quantity`` ``f == f0 and q > q0`` or ``q == q0 and f > f0``
  ``quantity-or-face``         ``q > q0`` (any face) or ``f > f0`` (any quantity)
  ``reset-face``               ``q > q0`` (any face) or ``q == q0 and f > f0``
  ========================== ================================================

  In every rule a bid already made in the round may not be made again (this only
  bites under ``quantity-or-face``, where bids could otherwise cycle).
* **Wild face** (``wild_face``: none, 1 or 6): a die showing the wild face counts
  for every other face. A bid on the wild face counts only real dice of that face.
* **Wild opening** (``wild_opening``: cancel or keep, default cancel): with
  ``cancel``, a round whose opening bid names the wild face has no wilds for the
  rest of that round; with ``keep`` wilds stay (OpenSpiel's ``liars_dice``).
* **Challenge**: every die is revealed. If fewer dice count than the bid claimed,
  the bidder loses a die; otherwise the challenger does. The loser opens the next
  round; if that was their last die, the next seat clockwise that still has dice
  opens. A seat without dice is out.
* **Sum endgame** (``sum_endgame``, default on): a round that starts with exactly
  two seats left, each with one die, is a sum round: bids are ``SumBid(total)``
  (2..12) on the sum of both dice; a higher total is a raise; a total bid is true
  when the actual sum is at least the total. Wilds play no part in a sum round.
* **End**: the last seat with dice wins. Places are the reverse order of
  elimination; the score of a seat is its dice left. With ``one_round`` the game
  ends after the first challenge: the loser places last, every other seat shares
  first place.

Actions:

=================== ============================================= ============
action              meaning                                       when
=================== ============================================= ============
``Bid(q, f)``       at least ``q`` dice count for face ``f``      normal round
``SumBid(t)``       the two dice sum to at least ``t`` (2..12)    sum round
``Challenge()``     call the last bid a lie; reveal every die     a bid exists
=================== ============================================= ============
"""

# long module: one game's whole rules (roll-offs, three raise rules, wilds and their
# opening, the sum endgame, one-round play) with the texts each seat reads; what other games
# share is in referee.gamekit

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Final, Literal

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
from referee.gamekit.dice import FACES, SIDES, count_matching
from referee.gamekit.fast import evolver, maker
from referee.gamekit.notation import (
    NotAMove,
    face_plural,
    number_ranges,
    number_word,
    parse_count,
    words,
)

MAX_SEATS: Final = 10
MAX_DICE_PER_PLAYER: Final = 10
MIN_TOTAL: Final = 2
"""Smallest total of a sum bid (two dice)."""
MAX_TOTAL: Final = 2 * SIDES
"""Largest total of a sum bid (two dice)."""
ROLL_OFF_DICE: Final = 2
"""Dice each contender rolls in the starting roll-off."""

RAISE_RULES: Final = ("same-face-or-same-quantity", "quantity-or-face", "reset-face")
WILD_FACES: Final = ("none", "1", "6")
WILD_OPENINGS: Final = ("cancel", "keep")
"""Values of ``wild_opening``: what an opening bid on the wild face does to wilds."""

Phase = Literal["roll-off", "roll", "bid", "over"]
"""``roll-off``: the starting roll-off is due (chance); ``roll``: the round's dice are
due (chance); ``bid``: a seat must bid or challenge; ``over``: the game has ended."""


# ---------------------------------------------------------------------------
# Rules


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule options of one match (field names are the option names)."""

    dice_per_player: int = 5
    """Dice each seat starts with."""
    raise_rule: str = "same-face-or-same-quantity"
    """What counts as a raise: one of :data:`RAISE_RULES`."""
    wild_face: str = "none"
    """The wild face: ``"none"``, ``"1"`` or ``"6"``."""
    wild_opening: str = "cancel"
    """``"cancel"``: an opening bid on the wild face cancels wilds for the round;
    ``"keep"``: wilds stay (one of :data:`WILD_OPENINGS`)."""
    sum_endgame: bool = True
    """Two seats with one die each bid on the total of both dice."""
    one_round: bool = False
    """The game ends after the first challenge."""
    roll_off: bool = True
    """A roll-off of 2 dice per seat picks the first opener (else seat 0 opens)."""
    spelled_defaults: frozenset[str] = field(default=frozenset(), compare=False)
    """Options given at their default although omitted there (``wild_opening``):
    see :meth:`__repr__`. Not a rule: rules that differ only here are equal."""

    def __repr__(self) -> str:
        # Records of formats 3 and 4 store digests of the engine state's repr, which holds
        # the rules (format 5 digests a canonical form, which leaves defaults out).
        # wild_opening came after records existed: at its default it is left out,
        # so a record made before it digests as it always did, unless the record's
        # rules spell it out (records made while the repr always listed it).
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if f.name != "spelled_defaults"
            and not (
                f.name == "wild_opening"
                and self.wild_opening == "cancel"
                and "wild_opening" not in self.spelled_defaults
            )
        ]
        return f"Rules({', '.join(shown)})"

    @property
    def wild(self) -> int | None:
        """The wild face as a number, or ``None``."""
        return None if self.wild_face == "none" else int(self.wild_face)


# ---------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Bid:
    """At least ``quantity`` dice on the table count for ``face`` (1..6)."""

    quantity: int
    """How many dice (at least) the bid claims."""
    face: int
    """The face claimed, 1..6."""


@dataclass(frozen=True, slots=True)
class SumBid:
    """Sum round only: the two dice on the table sum to at least ``total`` (2..12)."""

    total: int
    """The claimed minimum sum of both dice, 2..12."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """Call the last bid a lie: every die is revealed."""


Action = Bid | SumBid | Challenge
AnyBid = Bid | SumBid


# ---------------------------------------------------------------------------
# Public records


@dataclass(frozen=True, slots=True)
class PlacedBid:
    """A bid made by ``seat`` in a round."""

    seat: int
    """The seat that made the bid."""
    bid: AnyBid
    """What it bid."""


@dataclass(frozen=True, slots=True)
class RollOffRoll:
    """One contender's two dice in a roll-off (public)."""

    seat: int
    """The contender."""
    dice: tuple[int, ...]
    """Its roll-off dice; the highest total opens (ties roll again)."""


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round, as revealed to everyone by the challenge."""

    round_number: int
    """1-based."""
    opener: int
    """The seat that opened the round."""
    wilds_active: bool
    """Whether wild dice counted in this round."""
    sum_round: bool
    """Whether it was a sum round (two seats with one die each)."""
    bids: tuple[PlacedBid, ...]
    """Every bid of the round, in order; the last one was challenged."""
    challenger: int
    """The seat that challenged the last bid."""
    dice: tuple[tuple[int, ...], ...]
    """Every seat's revealed dice, by seat (empty for seats that were out)."""
    actual: int
    """Dice that counted for the challenged bid, or the actual sum in a sum round."""
    bid_true: bool
    """Whether the challenged bid was true (then the challenger lost)."""
    loser: int
    """The seat that lost a die (bidder if the bid was false, else challenger)."""
    eliminated: bool
    """Whether the loser lost their last die."""


# ---------------------------------------------------------------------------
# State and observation


@dataclass(frozen=True, slots=True)
class State:
    """The full (omniscient) state of a match."""

    rules: Rules
    num_seats: int
    phase: Phase
    dice_counts: tuple[int, ...]
    contenders: tuple[int, ...]
    """Seats in the roll-off that is due (phase ``roll-off`` only)."""
    roll_offs: tuple[tuple[RollOffRoll, ...], ...]
    """Every roll-off so far (the first with every seat, then the tied ones)."""
    round_number: int
    """The current round, 1-based; 0 before the first round."""
    opener: int | None
    """The seat that opens (or opened) the current round; ``None`` during the roll-off."""
    wilds_active: bool
    """Whether wild dice count in the current round (so far)."""
    sum_round: bool
    hands: tuple[tuple[int, ...], ...]
    """Every seat's dice this round, by seat; all empty until the round is rolled."""
    bids: tuple[PlacedBid, ...]
    to_move: int | None
    """The seat to act in phase ``bid``; otherwise ``None``."""
    history: tuple[RoundResult, ...]
    eliminated: tuple[int, ...]
    """Seats that are out, in the order they went out."""


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat knows: its own dice plus everything public."""

    seat: int
    """The observer's seat (0-based)."""
    num_seats: int
    """Seats in the match."""
    rules: Rules
    """The match's rule options."""
    phase: Phase
    """`roll-off`, `roll` (the referee rolls), `bid` or `over`."""
    to_act: int | None
    """The seat that must act now, ``None`` when the referee rolls or the game is over."""
    dice_counts: tuple[int, ...]
    """Dice each seat holds now, by seat."""
    own_dice: tuple[int, ...]
    """The observer's dice this round, in the order rolled; empty until rolled."""
    roll_offs: tuple[tuple[RollOffRoll, ...], ...]
    """Every roll-off so far (the first with every seat, then tied ones)."""
    round_number: int
    """The current round, 1-based; 0 before the first round."""
    opener: int | None
    """The seat that opens (or opened) this round; `None` in the roll-off."""
    wilds_active: bool
    """Whether wild dice count in this round (so far)."""
    sum_round: bool
    """This round bids on the sum of two dice (`SumBid`), not on faces."""
    bids: tuple[PlacedBid, ...]
    """The bids of the current round, in order."""
    history: tuple[RoundResult, ...]
    """Every finished round (its last entry is the last reveal)."""
    eliminated: tuple[int, ...]
    """Seats that are out, in the order they went out."""

    @property
    def total_dice(self) -> int:
        """Dice on the table."""
        return sum(self.dice_counts)

    @property
    def last_bid(self) -> AnyBid | None:
        """The bid to raise or challenge, if any."""
        return self.bids[-1].bid if self.bids else None


_new_state: Final = maker(State)
_evolve: Final = evolver(State)
_new_observation: Final = maker(Observation)
_new_placed: Final = maker(PlacedBid)
_new_outcome: Final = maker(Outcome)

_ALL_BIDS: Final[list[Action]] = [
    Bid(quantity, face)
    for quantity in range(1, MAX_SEATS * MAX_DICE_PER_PLAYER + 1)
    for face in FACES
]
"""Every face bid in the order :meth:`LiarsDice.legal_actions` lists them (quantity,
then face): ``Bid(q, f)`` is at ``(q - 1) * SIDES + f - 1``, so the bids of a table of
``n`` dice are the first ``n * SIDES`` and the legal ones are slices of it. A list
(slicing it makes the fresh list ``legal_actions`` returns); never changed."""
_SUM_BIDS: Final[list[Action]] = [SumBid(total) for total in range(MIN_TOTAL, MAX_TOTAL + 1)]
"""Every sum bid, lowest first (a list, never changed)."""
_CHALLENGE: Final = Challenge()
_VALIDATED: dict[int, Rules] = {}
"""Rules already validated, by ``id`` (the value kept, so the id is never reused)."""


# ---------------------------------------------------------------------------
# Pure rule helpers


def check_well_formed(action: object) -> Action:
    """Return ``action`` if it is an action of this game; raise :class:`MalformedActionError`."""
    if isinstance(action, Bid):
        if not _is_int(action.quantity) or action.quantity < 1:
            raise MalformedActionError(f"{action!r}: quantity must be a whole number >= 1")
        if not _is_int(action.face) or action.face not in FACES:
            raise MalformedActionError(f"{action!r}: face must be within 1..{SIDES}")
        return action
    if isinstance(action, SumBid):
        if not _is_int(action.total) or not MIN_TOTAL <= action.total <= MAX_TOTAL:
            raise MalformedActionError(f"{action!r}: total must be within {MIN_TOTAL}..{MAX_TOTAL}")
        return action
    if isinstance(action, Challenge):
        return action
    raise MalformedActionError(f"{action!r} is not a liars_dice action")


def is_raise(rule: str, previous: Bid, bid: Bid) -> bool:
    """Whether ``bid`` raises ``previous`` under ``rule`` (repetition is checked apart)."""
    q0, f0, q, f = previous.quantity, previous.face, bid.quantity, bid.face
    if rule == "same-face-or-same-quantity":
        return (f == f0 and q > q0) or (q == q0 and f > f0)
    if rule == "quantity-or-face":
        return q > q0 or f > f0
    if rule == "reset-face":
        return q > q0 or (q == q0 and f > f0)
    raise RulesError(f"unknown raise_rule {rule!r}")


def _index(bid: Bid) -> int:
    """Where ``bid`` is in :data:`_ALL_BIDS`."""
    return (bid.quantity - 1) * SIDES + bid.face - 1


def _raises(rule: str, last: Bid, total: int) -> list[Action]:
    """The bids of a ``total``-dice table that raise ``last`` under ``rule``, by quantity
    then face (bids made earlier in the round not removed)."""
    end = SIDES * total
    at = _index(last)
    if rule == "reset-face":  # every later bid in that order
        return _ALL_BIDS[at + 1 : end]
    if rule == "same-face-or-same-quantity":  # the rest of its row, then its column
        row = _ALL_BIDS[at + 1 : min(last.quantity * SIDES, end)]
        return row + _ALL_BIDS[at + SIDES : end : SIDES]
    if rule == "quantity-or-face":  # higher faces of the rows up to it, then all rows above
        raised: list[Action] = []
        for quantity in range(1, min(last.quantity, total) + 1):
            raised += _ALL_BIDS[(quantity - 1) * SIDES + last.face : quantity * SIDES]
        raised += _ALL_BIDS[last.quantity * SIDES : end]
        return raised
    raise RulesError(f"unknown raise_rule {rule!r}")


def _plainly_legal(observation: Observation, action: object) -> bool:
    """True for the common legal actions (a challenge, a face bid that raises under a
    strict raise rule), checked in a few comparisons; False means "check in full",
    not "illegal". The caller has checked that the observing seat is to act."""
    bids = observation.bids
    if type(action) is Challenge:
        return bool(bids)
    if type(action) is not Bid or observation.sum_round:
        return False
    quantity, face = action.quantity, action.face
    if not (
        type(quantity) is int
        and type(face) is int
        and 1 <= face <= SIDES
        and 1 <= quantity <= sum(observation.dice_counts)
    ):
        return False
    if not bids:
        return True
    last = bids[-1].bid
    rule = observation.rules.raise_rule
    return type(last) is Bid and rule != "quantity-or-face" and is_raise(rule, last, action)


def counts_for(
    bid: AnyBid, hands: Sequence[Sequence[int]], wilds_active: bool, wild: int | None
) -> int:
    """Dice that count for a face bid, or the sum of all dice for a sum bid."""
    dice = [die for hand in hands for die in hand]
    if isinstance(bid, SumBid):
        return sum(dice)
    return count_matching(dice, bid.face, wild if wilds_active else None)


def bid_is_true(bid: AnyBid, actual: int) -> bool:
    """A face bid is true when at least ``quantity`` dice count; a sum bid when the sum >= total."""
    if isinstance(bid, SumBid):
        return actual >= bid.total
    return actual >= bid.quantity


def next_active(dice_counts: Sequence[int], seat: int) -> int:
    """The next seat clockwise after ``seat`` that still has dice."""
    n = len(dice_counts)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if dice_counts[candidate] > 0:
            return candidate
    raise GameError("no seat has dice left")


def wilds_after(state: State, bid: AnyBid) -> bool:
    """Whether wilds count in the round once ``bid`` is placed in ``state``.

    An opening bid on the wild face cancels them under ``wild_opening=cancel``;
    a challenge counts with the wilds as they then stand.
    """
    rules = state.rules
    if (
        not state.bids
        and isinstance(bid, Bid)
        and bid.face == rules.wild
        and rules.wild_opening == "cancel"
    ):
        return False
    return state.wilds_active


def counting_faces(bid: AnyBid | None, wilds_active: bool, wild: int | None) -> tuple[int, ...]:
    """The die faces that count for ``bid`` (by :func:`counts_for`, the challenge's own
    count): its face, and the wild face while wilds count; none for a sum bid.

    The replay viewer marks dice with it, so the page never restates the wild rule.
    """
    if not isinstance(bid, Bid):
        return ()
    return tuple(face for face in FACES if counts_for(bid, ((face,),), wilds_active, wild))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _describe_bid(bid: AnyBid) -> str:
    if isinstance(bid, SumBid):
        return f"bid total {bid.total}"
    return f"bid {bid.quantity} x {bid.face}s"


# ---------------------------------------------------------------------------
# The engine


class LiarsDice(Game[Rules, State, Action, Observation]):
    """Liar's Dice; see the module docstring for the rules."""

    name: ClassVar[str] = "liars_dice"
    title: ClassVar[str] = "Liar's Dice"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = MAX_SEATS
    options: ClassVar[tuple[RuleOption, ...]] = (
        RuleOption(
            "dice_per_player",
            5,
            "Dice each player starts with.",
            minimum=1,
            maximum=MAX_DICE_PER_PLAYER,
        ),
        RuleOption(
            "raise_rule",
            "same-face-or-same-quantity",
            "What raises a bid q0 x f0: same-face-or-same-quantity (more of the same face, or"
            " the same quantity of a higher face); quantity-or-face (a higher quantity of any"
            " face, or a higher face with any quantity); reset-face (a higher quantity of any"
            " face, or the same quantity of a higher face). A bid already made in the round"
            " may never be repeated.",
            choices=RAISE_RULES,
        ),
        RuleOption(
            "wild_face",
            "none",
            "A face that counts as every other face (none, 1 or 6). An opening bid on the"
            " wild face cancels wilds for that round unless wild_opening=keep; a bid on the"
            " wild face counts only real dice of that face.",
            choices=WILD_FACES,
        ),
        RuleOption(
            "wild_opening",
            "cancel",
            "What an opening bid on the wild face does: cancel (no wilds for the rest of"
            " that round, the traditional rule) or keep (wilds still count, as in"
            " OpenSpiel's liars_dice). No effect when wild_face=none.",
            choices=WILD_OPENINGS,
            omitted_at_default=True,
        ),
        RuleOption(
            "sum_endgame",
            True,
            "When exactly two players remain with one die each, bids name the total of"
            " both dice (2..12); a higher total raises; true when the sum is at least the bid.",
        ),
        RuleOption(
            "one_round",
            False,
            "End the game after the first challenge: its loser places last, every other"
            " player shares first place.",
        ),
        RuleOption(
            "roll_off",
            True,
            "Pick the first opener by a roll-off (2 dice each, highest sum starts, tied"
            " highest re-roll); when false, seat 0 opens the first round.",
        ),
    )
    rules_type: ClassVar[type[Rules]] = Rules
    action_types: ClassVar[tuple[type[object], ...]] = (Bid, SumBid, Challenge)

    # -- rules ---------------------------------------------------------------

    def validate_rules(self, rules: Rules) -> None:
        if not _is_int(rules.dice_per_player) or not (
            1 <= rules.dice_per_player <= MAX_DICE_PER_PLAYER
        ):
            raise RulesError(
                f"dice_per_player={rules.dice_per_player!r}: must be 1..{MAX_DICE_PER_PLAYER}"
            )
        if rules.raise_rule not in RAISE_RULES:
            raise RulesError(f"raise_rule={rules.raise_rule!r}: expected one of {RAISE_RULES}")
        if rules.wild_face not in WILD_FACES:
            raise RulesError(f"wild_face={rules.wild_face!r}: expected one of {WILD_FACES}")
        if rules.wild_opening not in WILD_OPENINGS:
            raise RulesError(
                f"wild_opening={rules.wild_opening!r}: expected one of {WILD_OPENINGS}"
            )
        for flag in ("sum_endgame", "one_round", "roll_off"):
            if not isinstance(getattr(rules, flag), bool):
                raise RulesError(f"{flag}={getattr(rules, flag)!r}: expected true or false")

    # -- the state machine ---------------------------------------------------

    def new_game(self, rules: Rules, num_seats: int) -> State:
        if _VALIDATED.get(id(rules)) is not rules:
            self.validate_rules(rules)
            if len(_VALIDATED) >= 64:
                _VALIDATED.clear()
            _VALIDATED[id(rules)] = rules
        self.check_seats(rules, num_seats)
        state = _new_state(
            rules,
            num_seats,
            "roll-off",
            (rules.dice_per_player,) * num_seats,
            tuple(range(num_seats)),
            (),
            0,
            None,
            False,
            False,
            ((),) * num_seats,
            (),
            None,
            (),
            (),
        )
        if not rules.roll_off:
            return self._start_round(state, 0)
        return state

    def to_act(self, state: State) -> int | None:
        if state.phase in ("roll-off", "roll"):
            return CHANCE
        if state.phase == "bid":
            return state.to_move
        return None

    def chance_request(self, state: State) -> ChanceRequest:
        if state.phase == "roll-off":
            return DiceRoll(ROLL_OFF_DICE * len(state.contenders))
        if state.phase == "roll":
            return DiceRoll(sum(state.dice_counts))
        raise ChanceError(f"no chance outcome is due in phase {state.phase!r}")

    def apply_chance(self, state: State, outcome: Sequence[int]) -> State:
        values = check_chance(self.chance_request(state), outcome)
        if state.phase == "roll-off":
            rolls = tuple(
                RollOffRoll(seat, values[ROLL_OFF_DICE * i : ROLL_OFF_DICE * (i + 1)])
                for i, seat in enumerate(state.contenders)
            )
            best = max(sum(roll.dice) for roll in rolls)
            tied = tuple(roll.seat for roll in rolls if sum(roll.dice) == best)
            state = _evolve(state, roll_offs=(*state.roll_offs, rolls), contenders=tied)
            if len(tied) > 1:
                return state
            return self._start_round(_evolve(state, contenders=()), tied[0])
        hands: list[tuple[int, ...]] = []
        position = 0
        for count in state.dice_counts:
            hands.append(values[position : position + count])
            position += count
        assert state.opener is not None
        return _evolve(state, phase="bid", hands=tuple(hands), to_move=state.opener)

    def _start_round(self, state: State, opener: int) -> State:
        active = [count for count in state.dice_counts if count > 0]
        sum_round = state.rules.sum_endgame and active == [1, 1]
        return _evolve(
            state,
            phase="roll",
            round_number=state.round_number + 1,
            opener=opener,
            wilds_active=state.rules.wild is not None and not sum_round,
            sum_round=sum_round,
            hands=((),) * state.num_seats,
            bids=(),
            to_move=None,
        )

    def observe(self, state: State, seat: int) -> Observation:
        if not 0 <= seat < state.num_seats:
            raise GameError(f"seat {seat} is not in this {state.num_seats}-seat match")
        return _new_observation(
            seat,
            state.num_seats,
            state.rules,
            state.phase,
            state.to_move if state.phase == "bid" else None,
            state.dice_counts,
            state.hands[seat],
            state.roll_offs,
            state.round_number,
            state.opener,
            state.wilds_active,
            state.sum_round,
            state.bids,
            state.history,
            state.eliminated,
        )

    def check_action(self, observation: Observation, action: object) -> None:
        if observation.to_act == observation.seat and _plainly_legal(observation, action):
            return
        checked = check_well_formed(action)
        if observation.to_act != observation.seat:
            raise IllegalActionError(
                f"{checked!r}: seat {observation.seat} acted but it is not its turn"
                f" (to act: {observation.to_act})"
            )
        last = observation.last_bid
        if isinstance(checked, Challenge):
            if last is None:
                raise IllegalActionError(f"{checked!r}: there is no bid to challenge yet")
            return
        if isinstance(checked, SumBid):
            if not observation.sum_round:
                raise IllegalActionError(f"{checked!r}: total bids are only allowed in a sum round")
            if isinstance(last, SumBid) and checked.total <= last.total:
                raise IllegalActionError(
                    f"{checked!r} does not raise the last bid {last!r} (need a higher total)"
                )
            return
        if observation.sum_round:
            raise IllegalActionError(f"{checked!r}: this is a sum round, bid a total (SumBid)")
        total = observation.total_dice
        if checked.quantity > total:
            raise IllegalActionError(f"{checked!r}: quantity above the {total} dice on the table")
        rule = observation.rules.raise_rule
        if rule != "quantity-or-face" and isinstance(last, Bid) and is_raise(rule, last, checked):
            # Under the other two rules a raise is a step up a strict order, so a bid
            # made earlier in the round (below the last one) is never a raise of it.
            return
        if any(placed.bid == checked for placed in observation.bids):
            raise IllegalActionError(f"{checked!r} was already bid this round")
        if isinstance(last, Bid) and not is_raise(observation.rules.raise_rule, last, checked):
            raise IllegalActionError(
                f"{checked!r} does not raise the last bid {last!r}"
                f" under raise_rule={observation.rules.raise_rule}"
            )

    def legal_actions(self, observation: Observation) -> Sequence[Action]:
        # Every bid, by quantity then face, that is not made yet this round and raises
        # the last bid; then Challenge if there is a bid. Served as slices of the
        # precomputed bids (_ALL_BIDS), in that very order.
        if observation.to_act != observation.seat:
            return []
        bids = observation.bids
        last = bids[-1].bid if bids else None
        actions: list[Action]
        if observation.sum_round:
            low = last.total + 1 if isinstance(last, SumBid) else MIN_TOTAL
            actions = _SUM_BIDS[low - MIN_TOTAL :]
        elif isinstance(last, Bid):
            actions = _raises(observation.rules.raise_rule, last, sum(observation.dice_counts))
            if observation.rules.raise_rule == "quantity-or-face" and len(bids) > 1:
                made = {placed.bid for placed in bids}
                actions = [bid for bid in actions if bid not in made]
        else:
            actions = _ALL_BIDS[: SIDES * sum(observation.dice_counts)]
            if bids:  # a sum bid in a face round: no engine state has one
                made = {placed.bid for placed in bids}
                actions = [bid for bid in actions if bid not in made]
        if last is not None:
            actions.append(_CHALLENGE)
        return actions

    def legal_count(self, observation: Observation) -> int:
        """``len(legal_actions(observation))``, mostly without building the list."""
        if observation.to_act != observation.seat or observation.sum_round:
            return len(self.legal_actions(observation))
        bids = observation.bids
        if not bids:
            return SIDES * sum(observation.dice_counts)
        last = bids[-1].bid
        rule = observation.rules.raise_rule
        if rule == "quantity-or-face" or not isinstance(last, Bid):
            return len(self.legal_actions(observation))
        total = sum(observation.dice_counts)
        if rule == "reset-face":
            return max(0, SIDES * total - _index(last) - 1) + 1
        row = SIDES - last.face if last.quantity <= total else 0
        return row + max(0, total - last.quantity) + 1

    def transition(self, state: State, seat: int, action: Action) -> State:
        if isinstance(action, Challenge):
            return self._challenge(state, seat)
        return _evolve(
            state,
            bids=(*state.bids, _new_placed(seat, action)),
            wilds_active=wilds_after(state, action),
            to_move=next_active(state.dice_counts, seat),
        )

    def _challenge(self, state: State, challenger: int) -> State:
        placed = state.bids[-1]
        actual = counts_for(placed.bid, state.hands, state.wilds_active, state.rules.wild)
        true = bid_is_true(placed.bid, actual)
        loser = challenger if true else placed.seat
        counts = list(state.dice_counts)
        counts[loser] -= 1
        out = counts[loser] == 0
        assert state.opener is not None
        result = RoundResult(
            round_number=state.round_number,
            opener=state.opener,
            wilds_active=state.wilds_active,
            sum_round=state.sum_round,
            bids=state.bids,
            challenger=challenger,
            dice=state.hands,
            actual=actual,
            bid_true=true,
            loser=loser,
            eliminated=out,
        )
        state = _evolve(
            state,
            dice_counts=tuple(counts),
            history=(*state.history, result),
            eliminated=(*state.eliminated, loser) if out else state.eliminated,
            hands=((),) * state.num_seats,
            bids=(),
            to_move=None,
        )
        if state.rules.one_round or sum(1 for count in counts if count > 0) <= 1:
            return _evolve(state, phase="over")
        opener = next_active(counts, loser) if out else loser
        return self._start_round(state, opener)

    def standings(self, state: State) -> Outcome:
        order = {seat: index for index, seat in enumerate(state.eliminated)}
        counts = state.dice_counts
        keys = [
            (0, order[seat], 0) if seat in order else (1, 0, counts[seat])
            for seat in range(state.num_seats)
        ]
        return _new_outcome(places_from_keys(keys), tuple(map(float, counts)))

    def perturb_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        hands = tuple(
            hand if other == seat else tuple(rng.randint(1, SIDES) for _ in hand)
            for other, hand in enumerate(state.hands)
        )
        return _evolve(state, hands=hands)

    # -- claims -------------------------------------------------------------

    challenge_action: ClassVar[object | None] = Challenge()

    def claim_truth(self, before: State, action: Action) -> bool | None:
        if not isinstance(action, Bid | SumBid):
            return None
        wilds = wilds_after(before, action)
        return bid_is_true(action, counts_for(action, before.hands, wilds, before.rules.wild))

    # -- text ---------------------------------------------------------------

    def describe_action(
        self, action: Action, viewer: int | None = None, actor: int | None = None
    ) -> str:
        # Bids and challenges are public: every seat reads the same text.
        if isinstance(action, Challenge):
            return "challenge"
        return _describe_bid(action)

    def describe_chance(
        self, state: State, outcome: Sequence[int], viewer: int | None = None
    ) -> str | None:
        # The roll-off is thrown in the open; a round's roll shows each seat its
        # own cup and only how many dice the others rolled.
        values = tuple(outcome)
        if state.phase == "roll-off":
            parts = [
                f"seat {seat} rolls {values[2 * i]}+{values[2 * i + 1]}"
                for i, seat in enumerate(state.contenders)
                if 2 * i + 1 < len(values)
            ]
            return "roll-off: " + ", ".join(parts)
        parts = []
        position = 0
        for seat, count in enumerate(state.dice_counts):
            if count:
                hand = values[position : position + count]
                if viewer is None or viewer == seat:
                    parts.append(f"seat {seat} {' '.join(map(str, hand))}")
                else:
                    parts.append(f"seat {seat} ({count} {'die' if count == 1 else 'dice'})")
                position += count
        return f"round {state.round_number} roll: " + "; ".join(parts)

    def describe_outcome(self, before: Any, after: Any, seat: int) -> str | None:
        """What an action of ``seat`` settled, read from the record of finished rounds
        that states and observations both carry (see :meth:`Game.describe_outcome`)."""
        result = appended(before, after, "history")
        if result is None:
            return None
        challenged = result.bids[-1]
        shown = ", ".join(
            f"seat {s} [{' '.join(map(str, dice))}]" for s, dice in enumerate(result.dice) if dice
        )
        counted = f"sum {result.actual}" if result.sum_round else f"{result.actual} counted"
        left = after.dice_counts[result.loser]
        lost = (
            "loses its last die and is out" if result.eliminated else f"loses a die ({left} left)"
        )
        return (
            f"seat {result.challenger} challenged seat {challenged.seat}'s"
            f" {self.describe_action(challenged.bid)}: dice shown {shown}: {counted}, the bid was"
            f" {'true' if result.bid_true else 'false'}: seat {result.loser} {lost}"
        )

    # -- what a person reads and types (see Game.parse_move) -------------------------

    def write_move(self, action: Action, observation: Observation) -> str:
        if isinstance(action, Challenge):
            return "c"
        if isinstance(action, SumBid):
            return f"total {action.total}"
        return f"{action.quantity} {action.face}s"

    def parse_move(self, text: str, observation: Observation) -> Action:
        action = read_move(text, observation)
        return self.legal_move(
            observation, action, lambda: f"{_bid_words(action)}: {_refusal(observation, action)}"
        )

    def move_summary(self, observation: Observation) -> str:
        return moves_in_short(self.legal_actions(observation), observation.sum_round)

    def rules_summary(self, rules: Rules, num_seats: int) -> tuple[str, ...]:
        return rules_in_short(rules, num_seats)

    def holding(self, observation: Observation) -> tuple[str, ...]:
        return holding_lines(observation)

    def announce_action(self, action: Action, actor: int, viewer: int | None) -> str:
        who = "you" if actor == viewer else f"seat {actor}"
        if isinstance(action, Challenge):
            return f"{who} {'call' if who == 'you' else 'calls'}"
        return f"{who} {'bid' if who == 'you' else 'bids'} {_bid_words(action)}"

    def announce_news(
        self, before: Observation | None, after: Observation, viewer: int
    ) -> tuple[str, ...]:
        return news_between(self, before, after, viewer)


LIARS_DICE: Final = LiarsDice()
"""The registered engine instance."""


def viewer_facts(observation: Observation) -> dict[str, Any]:
    """What the replay viewer marks, computed here so the page never restates the
    wild rule: the faces whose dice count, by the engine's own count
    (:func:`counting_faces`): for the bid to beat (marks
    the seat's own dice) and for the last challenged bid (marks the revealed dice;
    ``None`` after a sum bid)."""
    wild = observation.rules.wild
    facts: dict[str, Any] = {
        "bid_counts": list(counting_faces(observation.last_bid, observation.wilds_active, wild)),
        "reveal_counts": None,
    }
    if observation.history:
        last = observation.history[-1]
        challenged = last.bids[-1].bid if last.bids else None
        if isinstance(challenged, Bid):
            facts["reveal_counts"] = list(counting_faces(challenged, last.wilds_active, wild))
    return facts


# ---------------------------------------------------------------------------
# The notation a person reads and types (arena play, the browser game)

_FACE_WORDS: Final = {
    "one": 1, "ones": 1, "ace": 1, "aces": 1, "two": 2, "twos": 2, "deuce": 2, "deuces": 2,
    "three": 3, "threes": 3, "four": 4, "fours": 4, "five": 5, "fives": 5, "six": 6, "sixes": 6,
}  # fmt: skip
_CHALLENGE_WORDS: Final = frozenset({"c", "call", "challenge", "liar", "doubt", "dudo"})
EXPECTED: Final = "a bid as QUANTITY FACE (3 4, 3 4s, 3 x 4, three 4s) or c to call"
EXPECTED_SUM: Final = "a total as total N (or just N, 2..12) or c to call"


def _face(word: str) -> int | None:
    word = word.removesuffix("'s").removesuffix("s") if word[:1].isdigit() else word
    if word.isdigit():
        return int(word) if int(word) in FACES else None
    return _FACE_WORDS.get(word)


def read_move(text: str, observation: Observation) -> Action:
    """The action ``text`` writes (legal or not); :class:`NotAMove` if it writes none.

    ``c`` (``call``, ``challenge``, ``liar``) calls; a bid is a quantity and a face
    (``3 4``, ``3 4s``, ``3x4``, ``3 x 4s``, ``three 4s``, ``three fours``, ``bid 3
    4s``); in a sum round a total is ``total 7``, ``sum 7`` or ``7``."""
    tokens = [t for t in words(text.replace("×", " x ")) if t not in ("bid", "of", "x")]
    tokens = [part for t in tokens for part in _split_x(t)]
    if len(tokens) == 1 and tokens[0] in _CHALLENGE_WORDS:
        return Challenge()
    if observation.sum_round:
        if tokens[:1] in (["total"], ["sum"], ["t"]):
            tokens = tokens[1:]
        total = parse_count(tokens[0]) if len(tokens) == 1 else None
        if total is None or not MIN_TOTAL <= total <= MAX_TOTAL:
            raise NotAMove(f"{text.strip()!r} is not a move: this round bids {EXPECTED_SUM}")
        return SumBid(total)
    if len(tokens) == 2:
        quantity, face = parse_count(tokens[0]), _face(tokens[1])
        if quantity is not None and quantity >= 1 and face is not None:
            return Bid(quantity, face)
    raise NotAMove(f"{text.strip()!r} is not a move: type {EXPECTED}")


def _split_x(token: str) -> list[str]:
    """``"3x4s"`` → ``["3", "4s"]``; any other token as it is."""
    quantity, x, face = token.partition("x")
    if x and quantity.isdigit() and face[:1].isdigit():
        return [quantity, face]
    return [token]


def _bid_words(action: Action) -> str:
    """``three 4s``, ``a total of at least 7``, ``c``."""
    if isinstance(action, Bid):
        return f"{number_word(action.quantity)} {face_plural(action.face, action.quantity)}"
    if isinstance(action, SumBid):
        return f"a total of at least {action.total}"
    return "a call"


def _refusal(observation: Observation, action: Action) -> str:
    """Why a well-formed ``action`` is not legal now, in a person's words."""
    last = observation.last_bid
    if isinstance(action, Challenge):
        return "there is no bid to call yet: open the round with a bid"
    if isinstance(action, SumBid) != observation.sum_round:
        return (
            "this round bids on the total of both dice (total N)"
            if observation.sum_round
            else "totals are bid only when two players have one die each"
        )
    if isinstance(action, Bid) and action.quantity > observation.total_dice:
        return f"there are only {observation.total_dice} dice on the table"
    if any(placed.bid == action for placed in observation.bids):
        return "it was bid already this round"
    return f"it does not raise {_bid_words(last) if last is not None else 'the last bid'}"


def moves_in_short(actions: Sequence[Action], sum_round: bool) -> str:
    """The legal moves in one line: ``bid 4-10 x 4s · 3 x 5s/6s · or c to call``."""
    totals = [a.total for a in actions if isinstance(a, SumBid)]
    by_face: dict[int, list[int]] = {}
    for action in actions:
        if isinstance(action, Bid):
            by_face.setdefault(action.face, []).append(action.quantity)
    parts: list[str] = []
    if sum_round and totals:
        parts.append(f"bid a total of {number_ranges(totals)} (total N)")
    groups: dict[str, list[int]] = {}
    for face, quantities in sorted(by_face.items()):
        groups.setdefault(number_ranges(quantities), []).append(face)
    for counted, faces in groups.items():
        named = "any face" if len(faces) == SIDES else "/".join(f"{f}s" for f in faces)
        parts.append(f"{counted} x {named}")
    if by_face:
        parts[-len(groups)] = "bid " + parts[-len(groups)]
    if any(isinstance(a, Challenge) for a in actions):
        parts.append("or c to call" if parts else "c to call")
    return " · ".join(parts) if parts else "nothing (it is not your turn)"


_RAISES: Final = {
    "same-face-or-same-quantity": "a raise is more dice of the same face, or as many of a"
    " higher face",
    "quantity-or-face": "a raise is more dice (any face) or a higher face (any number);"
    " no bid twice in a round",
    "reset-face": "a raise is more dice (any face), or as many of a higher face",
}


def rules_in_short(rules: Rules, num_seats: int) -> tuple[str, ...]:
    """The rules in force in three or four short lines."""
    lines = [
        f"{num_seats} players, {rules.dice_per_player} dice each. Bid how many dice on the"
        " whole table show a face; c calls the last bid: whoever was wrong loses a die.",
        _RAISES.get(rules.raise_rule, rules.raise_rule).capitalize() + ".",
    ]
    wild = rules.wild
    if wild is None:
        extra = "No wild dice."
    elif rules.wild_opening == "cancel":
        extra = (
            f"{wild}s are wild (count for any face), unless a round opens with a bid on {wild}s."
        )
    else:
        extra = f"{wild}s are wild (count for any face), whatever the opening bid."
    if rules.sum_endgame:
        extra += " Two players with one die each bid on the total of both."
    lines.append(extra)
    if rules.one_round:
        lines.append("One round only: the loser of the call places last.")
    else:
        lines.append("The last player with dice wins.")
    return tuple(lines)


def _seat_name(seat: int, viewer: int) -> str:
    return "you" if seat == viewer else f"seat {seat}"


def holding_lines(observation: Observation) -> tuple[str, ...]:
    """Your dice, the dice on the table, the wilds and the bid to beat."""
    me = observation.seat
    mine = " ".join(map(str, observation.own_dice)) or "(not rolled yet)"
    counts = ", ".join(
        f"{_seat_name(s, me)} {'out' if s in observation.eliminated else c}"
        for s, c in enumerate(observation.dice_counts)
    )
    lines = [
        f"your dice: {mine}",
        f"round {observation.round_number}: {observation.total_dice} dice on the table ({counts})",
    ]
    wild = observation.rules.wild
    if observation.sum_round:
        lines.append("sum round: bid on the total of both dice")
    elif wild is not None:
        lines.append(
            f"{wild}s are wild this round"
            if observation.wilds_active
            else f"no wilds this round (it opened on {wild}s)"
        )
    if observation.bids:
        last = observation.bids[-1]
        lines.append(f"to beat: {_seat_name(last.seat, me)} bid {_bid_words(last.bid)}")
    elif observation.phase == "bid":
        opener = observation.opener or 0
        lines.append("no bid yet: you open" if opener == me else f"no bid yet: seat {opener} opens")
    return tuple(lines)


def _reveal_words(
    result: RoundResult, counts: Sequence[int], viewer: int, wild: int | None
) -> tuple[str, str]:
    """What a call showed: the count and who lost, then every seat's dice."""
    placed = result.bids[-1]
    caller, bidder = _seat_name(result.challenger, viewer), _seat_name(placed.seat, viewer)
    whose = "your" if bidder == "you" else f"{bidder}'s"
    bid = placed.bid
    if isinstance(bid, SumBid):
        found = f"the dice sum to {result.actual}"
    else:
        were = "was" if result.actual == 1 else "were"
        many = number_word(result.actual) if result.actual else "no"
        found = f"there {were} {many} {face_plural(bid.face, result.actual)}"
        if result.wilds_active and wild is not None and bid.face != wild:
            found += f" (with the {wild}s)"
    loser = _seat_name(result.loser, viewer)
    left = counts[result.loser]
    if result.eliminated:
        lost = f"{loser} {'lose your' if loser == 'you' else 'loses its'} last die and"
        lost += " are out" if loser == "you" else " is out"
    else:
        lost = f"{loser} {'lose' if loser == 'you' else 'loses'} a die ({left} left)"
    verb = "call" if caller == "you" else "calls"
    shown = " · ".join(
        f"{_seat_name(s, viewer)} {' '.join(map(str, dice))}"
        for s, dice in enumerate(result.dice)
        if dice
    )
    return f"{caller} {verb} {whose} {_bid_words(bid)}: {found}, {lost}", f"  dice: {shown}"


def news_between(
    game: LiarsDice, before: Observation | None, after: Observation, viewer: int
) -> tuple[str, ...]:
    """The other seats' bids and every call since ``before``, in words (see
    :meth:`Game.announce_news`): read from the bids and finished rounds both
    observations carry."""
    lines: list[str] = []
    if before is None and after.roll_offs:
        for rolls in after.roll_offs:
            lines.append(
                "roll-off: "
                + ", ".join(
                    f"{_seat_name(r.seat, viewer)} {'+'.join(map(str, r.dice))}" for r in rolls
                )
            )
    round_before = before.round_number if before is not None else 0
    seen = len(before.bids) if before is not None else 0
    finished = after.history[len(before.history) :] if before is not None else after.history
    for result in finished:
        skip = seen if result.round_number == round_before else 0
        lines.extend(
            game.announce_action(p.bid, p.seat, viewer)
            for p in result.bids[skip:]
            if p.seat != viewer
        )
        lines.extend(_reveal_words(result, after.dice_counts, viewer, after.rules.wild))
    if after.round_number != round_before and after.phase != "over" and after.round_number:
        lines.append(
            f"round {after.round_number}: {_seat_name(after.opener or 0, viewer)}"
            f" {'open' if after.opener == viewer else 'opens'}"
        )
    skip = seen if after.round_number == round_before else 0
    lines.extend(
        game.announce_action(p.bid, p.seat, viewer) for p in after.bids[skip:] if p.seat != viewer
    )
    return tuple(lines)
