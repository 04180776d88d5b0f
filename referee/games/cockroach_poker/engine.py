"""Cockroach Poker (the simplified rules): pass a critter face down and lie about it.

Rules in short (``docs/rules/cockroach_poker.md`` has them in full):

* 64 cards, 8 of each of 8 kinds (:class:`~referee.gamekit.cards.Kind`). One chance
  event ``Shuffle(64)`` orders the deck (kind order, see
  :data:`~referee.gamekit.cards.COCKROACH_DECK`); card ``j`` of the shuffled deck goes
  to seat ``j % n`` while every seat can still get one more; the remaining
  ``64 % n`` cards are set aside unseen for the whole game.
* 2..``max_players`` seats (default 6, at most 64 so that everyone gets a card).
* Seat 0 announces first. **Announcing**: pick a card from the hand, pass it face
  down to the *target* — the next seat clockwise that is still in the game, even
  if its hand is empty — and claim a kind (true or not).
* The target **believes** (takes the card face down, unseen by everyone, itself
  included) or **disbelieves** (the card is turned face up: a true claim puts it
  face up in front of the target, a false one in front of the announcer).
* **Call rule** (option ``call_rule``, default ``simplified``: the rule above).
  Under ``call_rule=published`` (the published game's rule) the target *calls*
  the claim true or false, the card is always turned face up, and the call
  decides: a right call sends the card face up in front of the announcer, a
  wrong one in front of the target. The actions stay the same: ``Believe`` is the
  call "true", ``Disbelieve`` the call "false" (so the wire protocol and every
  bot's action vocabulary are unchanged); a passed card is then public once
  answered, and no card ever lies face down. Why: under the simplified rule a
  true claim always ends in front of the target, which makes two seats a forced
  win for seat 0 (``docs/rules/cockroach_poker.md``); under the published rule a
  true claim can come back, so two seats are strategic again.
* The target announces next; if it is out or its hand is empty, the next seat
  clockwise that is in the game and holds cards does.
* Four cards of one kind in front of a seat (face up or face down) put it out at
  once; its hand and its cards leave the game.
* **End**: one seat left, or no seat in the game holds a card. Places: seats
  still in by fewest cards in front (ties share), then the eliminated in reverse
  order of elimination. The score of a seat is its number of cards in front
  (lower is better; for an eliminated seat, the count when it went out).

Actions:

====================== ========================================== ==================
action                 meaning                                    when
====================== ========================================== ==================
``Announce(card, c)``  pass a ``card`` of the hand, claiming ``c`` phase ``announce``
``Believe()``          take the passed card face down, unseen     phase ``respond``
                       (``published``: call the claim true)
``Disbelieve()``       turn the passed card face up               phase ``respond``
                       (``published``: call the claim false)
====================== ========================================== ==================

A seat observes its own hand, every seat's hand size, face-up cards and number
of face-down cards, who is out, every claim and answer, every card turned face
up (under ``call_rule=published``: every answered card), and the true kind of each
card it passed itself. Never the kind of a face-down card it did not pass (not even
in front of itself), other hands, or the set-aside cards.
"""

# long module: one game's whole rules (the deal for any table, passes and peeks, both call
# rules, elimination) with the texts each seat reads

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Final, Literal

from referee.gamekit.base import (
    CHANCE,
    ChanceError,
    ChanceRequest,
    Game,
    IllegalActionError,
    MalformedActionError,
    Outcome,
    RuleOption,
    RulesError,
    Shuffle,
    appended,
    check_chance,
    places_from_keys,
)
from referee.gamekit.cards import CARDS_PER_KIND, COCKROACH_DECK, KINDS, Kind, kind_counts
from referee.gamekit.fast import evolver, maker
from referee.gamekit.notation import NotAMove, number_word, words

DECK_SIZE: Final = len(COCKROACH_DECK)
LOSING_COUNT: Final = 4
"""Cards of one kind in front of a seat that put it out."""
DEFAULT_MAX_PLAYERS: Final = 6
CALL_RULES: Final = ("simplified", "published")
"""Values of ``call_rule``: who takes an answered card (see the module docstring)."""

Phase = Literal["deal", "announce", "respond", "over"]
Counts = tuple[int, ...]
"""Cards per kind, indexed by :class:`Kind` value (always 8 entries)."""
NO_CARDS: Final[Counts] = (0,) * len(KINDS)


@dataclass(frozen=True, slots=True)
class Rules:
    """Cockroach Poker rule options (field names are the option names)."""

    max_players: int = DEFAULT_MAX_PLAYERS
    """Most seats allowed at the table (2..64)."""
    call_rule: str = "simplified"
    """``"simplified"``: believe (face down) or disbelieve (the claim decides);
    ``"published"``: call true or false (the call decides). One of :data:`CALL_RULES`."""

    def __repr__(self) -> str:
        # Records of formats 3 and 4 store digests of the engine state's repr, which holds
        # the rules (format 5 digests a canonical form, which leaves defaults out):
        # leaving out a default call_rule keeps every state of a record made before
        # the option existed (and every default match) digesting as it always did.
        extra = "" if self.call_rule == "simplified" else f", call_rule={self.call_rule!r}"
        return f"Rules(max_players={self.max_players!r}{extra})"

    @property
    def published_call(self) -> bool:
        """Whether the call decides who takes the card (``call_rule=published``)."""
        return self.call_rule == "published"


OPTIONS: Final = (
    RuleOption(
        "max_players",
        DEFAULT_MAX_PLAYERS,
        "Most seats allowed at the table (2..64; 64 cards, so every seat gets at least"
        " one card). The printed game is for 2..6.",
        minimum=2,
        maximum=DECK_SIZE,
    ),
    RuleOption(
        "call_rule",
        "simplified",
        "Who takes an answered card. simplified: the target believes (takes it face"
        " down) or disbelieves (turned up, a true claim goes to the target, a false one"
        " to the passer); two seats are then a forced win for seat 0. published (the"
        " printed game): the target calls the claim true (Believe) or false"
        " (Disbelieve), the card is turned up and goes to the passer if the call is"
        " right, to the target if it is wrong.",
        choices=CALL_RULES,
        omitted_at_default=True,  # records made before the option stay canonical
    ),
)


# ---------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Announce:
    """Pass one ``card`` (a kind held in the hand) face down, claiming ``claim``."""

    card: Kind
    """The kind of the card passed: one the announcer holds."""
    claim: Kind
    """The kind claimed (true or not)."""


@dataclass(frozen=True, slots=True)
class Believe:
    """Take the passed card face down without looking at it (under
    ``call_rule=published``: call the claim true; a right call sends it to the passer)."""


@dataclass(frozen=True, slots=True)
class Disbelieve:
    """Turn the passed card face up: the claim decides who takes it (under
    ``call_rule=published``: call the claim false; a right call sends it to the passer)."""


Action = Announce | Believe | Disbelieve
ACTION_TYPES: Final = (Announce, Believe, Disbelieve)
_ANNOUNCES: Final = {card: tuple(Announce(card, claim) for claim in KINDS) for card in KINDS}
"""Every announcement of a card, by card, claims in kind order."""
_RESPONSES: Final[tuple[Believe | Disbelieve, ...]] = (Believe(), Disbelieve())


# ---------------------------------------------------------------------------
# State


@dataclass(frozen=True, slots=True)
class FaceDown:
    """A face-down card in front of a seat (its kind is hidden from every seat)."""

    kind: Kind
    passer: int
    """The seat that passed it (the only seat that knows its kind)."""


@dataclass(frozen=True, slots=True)
class Pending:
    """A card on its way: passed by ``announcer`` to ``target`` with a claim."""

    announcer: int
    target: int
    card: Kind
    claim: Kind


@dataclass(frozen=True, slots=True)
class PassResult:
    """One finished pass, as the referee saw it."""

    announcer: int
    target: int
    card: Kind
    claim: Kind
    believed: bool
    taker: int
    """The seat that took the card (see :func:`taker_of`)."""
    eliminated: bool
    """Whether taking it put the taker out."""


@dataclass(frozen=True, slots=True)
class State:
    rules: Rules
    num_seats: int
    dealt: bool = False
    hands: tuple[Counts, ...] = ()
    face_up: tuple[Counts, ...] = ()
    face_down: tuple[tuple[FaceDown, ...], ...] = ()
    set_aside: tuple[Kind, ...] = ()
    announcer: int | None = None
    """The seat to announce (phase ``announce``)."""
    pending: Pending | None = None
    eliminated: tuple[int, ...] = ()
    """Seats out of the game, in order of elimination."""
    history: tuple[PassResult, ...] = ()


_evolve: Final = evolver(State)


# ---------------------------------------------------------------------------
# Observation


@dataclass(frozen=True, slots=True)
class SeatView:
    """What everyone sees of one seat."""

    hand_size: int
    """Cards in the seat's hand."""
    face_up: Counts
    """Face-up cards in front of the seat, per kind (indexed by `Kind`)."""
    face_down: int
    """Face-down (believed, unseen) cards in front of the seat."""
    eliminated: bool
    """Whether the seat is out (four of a kind in front of it)."""

    @property
    def in_front(self) -> int:
        """Cards in front of the seat, face up and face down."""
        return sum(self.face_up) + self.face_down


@dataclass(frozen=True, slots=True)
class PendingView:
    """The card in transit, as the observer knows it."""

    announcer: int
    """The seat that passed the card."""
    target: int
    """The seat that must believe or disbelieve the claim."""
    claim: Kind
    """The kind the announcer claimed."""
    card: Kind | None
    """Its true kind: only for the announcer, ``None`` for everyone else."""


@dataclass(frozen=True, slots=True)
class PassView:
    """One finished pass, as the observer knows it."""

    announcer: int
    """The seat that passed the card."""
    target: int
    """The seat that answered the claim."""
    claim: Kind
    """The kind the announcer claimed."""
    believed: bool
    """Whether the target believed (took the card unseen); under
    ``call_rule=published``: whether it called the claim true."""
    taker: int
    """The seat the card ended in front of."""
    eliminated: bool
    """Whether the card put the taker out."""
    card: Kind | None
    """The true kind when known: turned face up (always, under ``call_rule=published``),
    or passed by the observer."""


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything one seat may know."""

    rules: Rules
    """The match's rule options."""
    seat: int
    """The observer's seat (0-based)."""
    num_seats: int
    """Seats in the match."""
    phase: Phase
    """`deal` (the referee shuffles), `announce`, `respond` or `over`."""
    to_act: int | None
    """The seat that must act now; `None` at the deal and at the end."""
    hand: Counts
    """The observer's own hand, cards per kind."""
    seats: tuple[SeatView, ...]
    """What everyone sees of each seat, by seat."""
    set_aside: int
    """How many cards were set aside unseen at the deal."""
    pending: PendingView | None
    """The card being passed, while its target has not answered."""
    history: tuple[PassView, ...]
    """Every finished pass, oldest first."""
    eliminated: tuple[int, ...]
    """Seats out of the game, in order of elimination."""

    @property
    def my_turn(self) -> bool:
        """Whether the observer must act now."""
        return self.to_act == self.seat


_new_observation: Final = maker(Observation)
_new_seat_view: Final = maker(SeatView)
_new_pass_view: Final = maker(PassView)
_PASS_VIEWS: dict[tuple[int, bool], tuple[tuple[PassResult, ...], tuple[PassView, ...]]] = {}
"""Per (seat, published call rule): the last history viewed and its views. A match's
history grows by appending, so the next observation views only the new passes."""


def _pass_views(rules: Rules, history: tuple[PassResult, ...], seat: int) -> tuple[PassView, ...]:
    """Every pass of ``history`` as ``seat`` knows it (the true card when it was turned
    up or when ``seat`` passed it)."""
    key = (seat, rules.published_call)
    held = _PASS_VIEWS.get(key)
    if held is not None:
        seen, views = held
        if seen is history:
            return views
        done = len(seen)
        if not (done <= len(history) and history[:done] == seen):
            done, views = 0, ()
    else:
        done, views = 0, ()
    views = views + tuple(
        [
            _new_pass_view(
                r.announcer,
                r.target,
                r.claim,
                r.believed,
                r.taker,
                r.eliminated,
                r.card if turned_up(rules, r.believed) or r.announcer == seat else None,
            )
            for r in history[done:]
        ]
    )
    _PASS_VIEWS[key] = (history, views)
    return views


# ---------------------------------------------------------------------------
# Helpers


def _add(counts: Counts, kind: Kind, delta: int) -> Counts:
    values = list(counts)
    values[kind] += delta
    return tuple(values)


def _set(items: tuple[Counts, ...], seat: int, value: Counts) -> tuple[Counts, ...]:
    return (*items[:seat], value, *items[seat + 1 :])


def front_counts(state: State, seat: int) -> Counts:
    """Cards of each kind in front of ``seat``, face up and face down (omniscient)."""
    counts = list(state.face_up[seat])
    for card in state.face_down[seat]:
        counts[card.kind] += 1
    return tuple(counts)


def next_in_game(state: State, seat: int) -> int:
    """The next seat clockwise after ``seat`` that is still in the game."""
    for step in range(1, state.num_seats + 1):
        candidate = (seat + step) % state.num_seats
        if candidate not in state.eliminated:
            return candidate
    raise AssertionError("no seat left in the game")


def _next_announcer(state: State, start: int) -> int | None:
    """``start`` or the next seat clockwise from it that is in and holds cards."""
    if state.num_seats - len(state.eliminated) < 2:
        return None
    for step in range(state.num_seats):
        candidate = (start + step) % state.num_seats
        if candidate not in state.eliminated and sum(state.hands[candidate]) > 0:
            return candidate
    return None


def taker_of(rules: Rules, pending: Pending, believed: bool) -> int:
    """The seat that takes the passed card after the target's answer.

    ``simplified``: a believed card goes to the target (face down); a disbelieved
    one is turned up and goes to the target if the claim is true, else to the
    announcer. ``published``: ``believed`` is the call "true"; the card goes to the
    announcer if the call is right, else to the target.
    """
    true_claim = pending.card == pending.claim
    if rules.published_call:
        return pending.announcer if believed == true_claim else pending.target
    if believed or true_claim:
        return pending.target
    return pending.announcer


def turned_up(rules: Rules, believed: bool) -> bool:
    """Whether an answered card lies face up (then every seat knows its kind).

    Always under ``call_rule=published``; under ``simplified`` unless believed.
    """
    return rules.published_call or not believed


def _as_kind(value: object, what: str, action: object) -> Kind:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(KINDS):
        raise MalformedActionError(f"{action!r}: {what} must be a Kind, got {value!r}")
    return Kind(value)


def check_well_formed(action: object) -> Action:
    """Return ``action`` if it is a Cockroach Poker action; raise MalformedActionError."""
    if not isinstance(action, ACTION_TYPES):
        raise MalformedActionError(f"{action!r} is not a cockroach_poker action")
    if isinstance(action, Announce):
        _as_kind(action.card, "card", action)
        _as_kind(action.claim, "claim", action)
    return action


# ---------------------------------------------------------------------------
# The engine


class CockroachPoker(Game[Rules, State, Action, Observation]):
    """Cockroach Poker, the simplified rules of the brief."""

    name: ClassVar[str] = "cockroach_poker"
    title: ClassVar[str] = "Cockroach Poker"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = DECK_SIZE
    options: ClassVar[tuple[RuleOption, ...]] = OPTIONS
    rules_type: ClassVar[type[Rules]] = Rules
    action_types: ClassVar[tuple[type, ...]] = ACTION_TYPES

    def validate_rules(self, rules: Rules) -> None:
        if rules.call_rule not in CALL_RULES:
            raise RulesError(f"call_rule={rules.call_rule!r}: expected one of {CALL_RULES}")

    def check_seats(self, rules: Rules, num_seats: int) -> None:
        super().check_seats(rules, num_seats)
        if num_seats > rules.max_players:
            raise RulesError(
                f"{self.name} allows 2..{rules.max_players} seats (max_players), got {num_seats}"
            )

    def new_game(self, rules: Rules, num_seats: int) -> State:
        self.check_seats(rules, num_seats)
        return State(rules=rules, num_seats=num_seats)

    def to_act(self, state: State) -> int | None:
        if not state.dealt:
            return CHANCE
        if state.pending is not None:
            return state.pending.target
        return state.announcer

    def chance_request(self, state: State) -> ChanceRequest:
        if state.dealt:
            raise ChanceError(f"{self.name}: no chance event is due")
        return Shuffle(DECK_SIZE)

    def apply_chance(self, state: State, outcome: Sequence[int]) -> State:
        order = check_chance(self.chance_request(state), outcome)
        deck = [COCKROACH_DECK[i] for i in order]
        n = state.num_seats
        dealt = (DECK_SIZE // n) * n
        hands = tuple(kind_counts(deck[seat:dealt:n]) for seat in range(n))
        return _evolve(
            state,
            dealt=True,
            hands=hands,
            face_up=(NO_CARDS,) * n,
            face_down=((),) * n,
            set_aside=tuple(deck[dealt:]),
            announcer=0,
        )

    # -- observation ---------------------------------------------------------

    def phase(self, state: State) -> Phase:
        if not state.dealt:
            return "deal"
        if state.pending is not None:
            return "respond"
        return "over" if state.announcer is None else "announce"

    def observe(self, state: State, seat: int) -> Observation:
        n = state.num_seats
        if not state.dealt:
            seats = tuple(SeatView(0, NO_CARDS, 0, False) for _ in range(n))
            hand = NO_CARDS
        else:
            hands, face_up, face_down, out = (
                state.hands,
                state.face_up,
                state.face_down,
                state.eliminated,
            )
            seats = tuple(
                [
                    _new_seat_view(sum(hands[i]), face_up[i], len(face_down[i]), i in out)
                    for i in range(n)
                ]
            )
            hand = state.hands[seat]
        pending = None
        if state.pending is not None:
            p = state.pending
            pending = PendingView(
                p.announcer, p.target, p.claim, p.card if p.announcer == seat else None
            )
        return _new_observation(
            state.rules,
            seat,
            n,
            self.phase(state),
            self.to_act(state) if state.dealt else None,
            hand,
            seats,
            len(state.set_aside),
            pending,
            _pass_views(state.rules, state.history, seat),
            state.eliminated,
        )

    # -- legality --------------------------------------------------------------

    def check_action(self, observation: Observation, action: object) -> None:
        action = check_well_formed(action)
        if not observation.my_turn:
            raise IllegalActionError(
                f"{action!r}: it is not seat {observation.seat}'s turn"
                f" (to act: {observation.to_act})"
            )
        if observation.phase == "announce":
            if not isinstance(action, Announce):
                raise IllegalActionError(f"{action!r}: seat {observation.seat} must announce")
            if observation.hand[action.card] == 0:
                raise IllegalActionError(
                    f"{action!r}: seat {observation.seat} holds no {Kind(action.card).label}"
                )
        elif isinstance(action, Announce):
            raise IllegalActionError(
                f"{action!r}: seat {observation.seat} must believe or disbelieve"
            )

    def legal_actions(self, observation: Observation) -> Sequence[Action]:
        if not observation.my_turn:
            return ()
        if observation.phase == "respond":
            return _RESPONSES
        hand = observation.hand
        return tuple([action for card in KINDS if hand[card] for action in _ANNOUNCES[card]])

    # -- transitions -----------------------------------------------------------

    def transition(self, state: State, seat: int, action: Action) -> State:
        if isinstance(action, Announce):
            assert state.announcer == seat
            card = Kind(action.card)
            return _evolve(
                state,
                hands=_set(state.hands, seat, _add(state.hands[seat], card, -1)),
                pending=Pending(seat, next_in_game(state, seat), card, Kind(action.claim)),
                announcer=None,
            )
        pending = state.pending
        assert pending is not None and pending.target == seat
        believed = isinstance(action, Believe)
        face_up, face_down = state.face_up, state.face_down
        taker = taker_of(state.rules, pending, believed)
        if believed and not state.rules.published_call:
            taken = (*face_down[taker], FaceDown(pending.card, pending.announcer))
            face_down = (*face_down[:taker], taken, *face_down[taker + 1 :])
        else:
            face_up = _set(face_up, taker, _add(face_up[taker], pending.card, +1))
        state = _evolve(state, face_up=face_up, face_down=face_down, pending=None)
        out = front_counts(state, taker)[pending.card] >= LOSING_COUNT
        record = PassResult(
            announcer=pending.announcer,
            target=pending.target,
            card=pending.card,
            claim=pending.claim,
            believed=believed,
            taker=taker,
            eliminated=out,
        )
        state = _evolve(
            state,
            history=(*state.history, record),
            eliminated=(*state.eliminated, taker) if out else state.eliminated,
        )
        return _evolve(state, announcer=_next_announcer(state, pending.target))

    # -- results ---------------------------------------------------------------

    def cards_in_front(self, state: State, seat: int) -> int:
        if not state.dealt:
            return 0
        return sum(state.face_up[seat]) + len(state.face_down[seat])

    def standings(self, state: State) -> Outcome:
        keys: list[tuple[int, int]] = []
        for seat in range(state.num_seats):
            if seat in state.eliminated:
                keys.append((0, state.eliminated.index(seat)))
            else:
                keys.append((1, -self.cards_in_front(state, seat)))
        return Outcome(
            places=places_from_keys(keys),
            scores=tuple(float(self.cards_in_front(state, s)) for s in range(state.num_seats)),
        )

    # -- hidden information ------------------------------------------------------

    def perturb_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        if not state.dealt:
            return state
        n = state.num_seats
        pending = state.pending
        pending_hidden = pending is not None and pending.announcer != seat
        # Cards the seat cannot see: other hands, face-down cards it did not pass,
        # the set-aside cards and a card in transit it did not pass.
        hand_pool = [k for s in range(n) if s != seat for k in _kinds(state.hands[s])]
        hand_pool += list(state.set_aside)
        down_pool = [
            card.kind for cards in state.face_down for card in cards if card.passer != seat
        ]
        if pending_hidden:
            assert pending is not None
            down_pool.append(pending.card)
        for _ in range(200):
            pool = hand_pool + down_pool
            rng.shuffle(pool)
            candidate = self._refill(state, seat, pool, pending_hidden, refill_down=True)
            if self._consistent(candidate):
                return candidate
        # Redrawing only the cards in hand can never change who holds four of a kind.
        rng.shuffle(hand_pool)
        return self._refill(state, seat, hand_pool + down_pool, False, refill_down=False)

    def _refill(
        self,
        state: State,
        seat: int,
        pool: list[Kind],
        pending_hidden: bool,
        *,
        refill_down: bool,
    ) -> State:
        cards = iter(pool)
        hands = tuple(
            state.hands[s]
            if s == seat
            else kind_counts(next(cards) for _ in range(sum(state.hands[s])))
            for s in range(state.num_seats)
        )
        set_aside = tuple(next(cards) for _ in state.set_aside)
        if not refill_down:
            return _evolve(state, hands=hands, set_aside=set_aside)
        face_down = tuple(
            tuple(
                card if card.passer == seat else FaceDown(next(cards), card.passer) for card in row
            )
            for row in state.face_down
        )
        pending = state.pending
        if pending_hidden and pending is not None:
            pending = replace(pending, card=next(cards))
        return _evolve(
            state, hands=hands, set_aside=set_aside, face_down=face_down, pending=pending
        )

    def _consistent(self, state: State) -> bool:
        """No seat in the game shows four of a kind; every eliminated seat does."""
        for s in range(state.num_seats):
            worst = max(front_counts(state, s))
            if (worst >= LOSING_COUNT) != (s in state.eliminated):
                return False
        return True

    # -- text ------------------------------------------------------------------

    def describe_action(
        self, action: Action, viewer: int | None = None, actor: int | None = None
    ) -> str:
        if isinstance(action, Announce):
            claim = Kind(action.claim).label
            if viewer is not None and viewer == actor:
                # The passer alone knows the card it passed; everyone reads the claim.
                return f"pass a {Kind(action.card).label}: 'it is a {claim}'"
            return f"pass a card: 'it is a {claim}'"
        return "believe" if isinstance(action, Believe) else "disbelieve"

    def describe_chance(
        self, state: State, outcome: Sequence[int], viewer: int | None = None
    ) -> str | None:
        # A seat sees its own hand; other hands and the set-aside cards only by number.
        order = check_chance(self.chance_request(state), outcome)
        n = state.num_seats
        dealt = (DECK_SIZE // n) * n
        deck = [COCKROACH_DECK[i] for i in order]
        shown = range(n) if viewer is None else [s for s in range(n) if s == viewer]
        hands = "; ".join(
            f"seat {s}: " + " ".join(k.label for k in sorted(deck[s:dealt:n])) for s in shown
        )
        if viewer is None:
            aside = " ".join(k.label for k in deck[dealt:]) or "none"
        else:
            aside = f"{DECK_SIZE - dealt} unseen" if dealt < DECK_SIZE else "none"
        return f"deal {DECK_SIZE // n} cards each ({hands}); set aside: {aside}"

    # -- claims ------------------------------------------------------------------

    challenge_action: ClassVar[object | None] = Disbelieve()

    def claim_truth(self, before: State, action: Action) -> bool | None:
        # The engine's own test on disbelief: the card is the kind claimed.
        if not isinstance(action, Announce):
            return None
        return bool(action.card == action.claim)

    def view_text(self, name: str, value: Any) -> str | None:
        # A hand and a face-up pile are counts per kind: name the kinds.
        if name in ("hand", "face_up") and isinstance(value, tuple):
            held = [
                f"{count} {kind.label}" for kind, count in zip(KINDS, value, strict=False) if count
            ]
            return ", ".join(held) if held else "none"
        return None

    def describe_outcome(self, before: Any, after: Any, seat: int) -> str | None:
        """What an action of ``seat`` settled, read from the record of finished rounds
        that states and observations both carry (see :meth:`Game.describe_outcome`)."""
        result = appended(before, after, "history")
        if result is None:
            return None
        # A card that was believed goes face down: only its passer knows what it was.
        if result.card is None:
            judged, card = "", "it is not shown"
        else:
            right = result.believed == (result.card == result.claim)
            judged, card = f" ({'right' if right else 'wrong'})", f"it was a {result.card.label}"
        claim = f"seat {result.announcer}'s 'it is a {result.claim.label}'"
        out = " and is out" if result.eliminated else ""
        if getattr(after.rules, "call_rule", None) == "published":
            # The answer is a call, the card always turned up and the call decides.
            call = "true" if result.believed else "false"
            return (
                f"seat {result.target} called {claim} {call}{judged}: {card};"
                f" seat {result.taker} takes it face up{out}"
            )
        face = "face down" if result.believed else "face up"
        return (
            f"seat {result.target} {'believed' if result.believed else 'disbelieved'}"
            f" {claim}{judged}: {card}; seat {result.taker} takes it {face}{out}"
        )

    # -- what a person reads and types (see Game.parse_move) -------------------------

    def write_move(self, action: Action, observation: Observation) -> str:
        if isinstance(action, Announce):
            return f"{Kind(action.card).label} as {Kind(action.claim).label}"
        published = observation.rules.published_call
        if isinstance(action, Believe):
            return "true" if published else "believe"
        return "false" if published else "disbelieve"

    def parse_move(self, text: str, observation: Observation) -> Action:
        action = read_move(text, observation)

        def refusal() -> str:
            if isinstance(action, Announce) and observation.phase == "announce":
                return f"you hold no {Kind(action.card).label}"
            return "that is not a move now"

        return self.legal_move(observation, action, refusal)

    def move_summary(self, observation: Observation) -> str:
        return _moves_in_short(observation)

    def rules_summary(self, rules: Rules, num_seats: int) -> tuple[str, ...]:
        each, aside = DECK_SIZE // num_seats, DECK_SIZE % num_seats
        answer = (
            "The target calls the claim true or false; the card is turned up and goes to"
            " the passer if the call was right, to the target if it was wrong."
            if rules.published_call
            else "The target believes (takes it face down, unseen) or disbelieves (it is"
            " turned up: a true claim goes to the target, a lie back to the passer)."
        )
        return (
            f"{num_seats} players, {each} cards each"
            + (f" ({aside} set aside unseen)" if aside else "")
            + ". On your turn pass one card face down to the next player and name a"
            " critter, true or not.",
            answer + " The target passes next.",
            f"{number_word(LOSING_COUNT).capitalize()} of one critter in front of you and you"
            " are out; the last player in wins.",
        )

    def holding(self, observation: Observation) -> tuple[str, ...]:
        return _holding_lines(observation)

    def announce_action(self, action: Action, actor: int, viewer: int | None) -> str:
        who = "you" if actor == viewer else f"seat {actor}"
        if isinstance(action, Announce):
            claim = Kind(action.claim).label
            card = Kind(action.card).label if actor == viewer else "card"
            return f"{who} pass{'' if who == 'you' else 'es'} a {card}: 'it is a {claim}'"
        verb = "believe" if isinstance(action, Believe) else "disbelieve"
        return f"{who} {verb}{'' if who == 'you' else 's'}"

    def announce_news(
        self, before: Observation | None, after: Observation, viewer: int
    ) -> tuple[str, ...]:
        done = len(before.history) if before is not None else 0
        lines = [_pass_words(p, viewer, after.rules.published_call) for p in after.history[done:]]
        pending = after.pending
        if pending is not None and pending.announcer != viewer:
            target = "you" if pending.target == viewer else f"seat {pending.target}"
            lines.append(
                f"seat {pending.announcer} passes {target} a card: 'it is a {pending.claim.label}'"
            )
        return tuple(lines)


def _kinds(counts: Counts) -> list[Kind]:
    return [kind for kind in KINDS for _ in range(counts[kind])]


def unseen_counts(observation: Observation) -> Counts:
    """Cards of each kind whose location the observer does not know.

    Every kind has 8 cards; subtract the observer's hand, every face-up card
    and the cards it passed face down itself (and the one it is passing now).
    Under ``call_rule=published`` every answered card is face up, so no pass
    adds to the face-up counts.
    """
    counts = [CARDS_PER_KIND] * len(KINDS)
    for kind in KINDS:
        counts[kind] -= observation.hand[kind]
        for view in observation.seats:
            counts[kind] -= view.face_up[kind]
    for record in observation.history:
        if not turned_up(observation.rules, record.believed) and record.card is not None:
            counts[record.card] -= 1
    pending = observation.pending
    if pending is not None and pending.card is not None:
        counts[pending.card] -= 1
    return tuple(counts)


COCKROACH_POKER: Final = CockroachPoker()


# ---------------------------------------------------------------------------
# The notation a person reads and types (arena play, the browser game)

_BELIEVE: Final = frozenset({"b", "believe", "y", "yes", "take", "t", "true"})
_DISBELIEVE: Final = frozenset(
    {"d", "disbelieve", "n", "no", "c", "call", "doubt", "lie", "liar", "f", "false"}
)
_FILLERS: Final = frozenset({"pass", "a", "an", "as", "it", "is", "its", "say", "claim", "card"})
EXPECTED_PASS: Final = "the card you pass and the critter you claim: bat as fly (or: bat fly)"


def _kind(word: str) -> Kind | None:
    """A critter by its name, plural or unambiguous beginning (``sc`` scorpion, ``f`` fly)."""
    word = {"flies": "fly"}.get(word, word)
    found = [k for k in KINDS if k.label.startswith(word) or f"{k.label}s" == word]
    exact = [k for k in found if k.label == word or f"{k.label}s" == word]
    if exact:
        return exact[0]
    return found[0] if len(found) == 1 else None


def read_move(text: str, observation: Observation) -> Action:
    """The action ``text`` writes (legal or not); :class:`NotAMove` if it writes none.

    While passing: the card and the claim (``bat as fly``, ``bat fly``, ``pass a bat
    say fly``); while answering: ``b``/``believe`` or ``d``/``disbelieve``
    (``t``/``true`` and ``f``/``false`` the calls under ``call_rule=published``)."""
    tokens = words(text)
    if observation.phase == "respond":
        if tokens and " ".join(tokens) in _BELIEVE:
            return Believe()
        if tokens and " ".join(tokens) in _DISBELIEVE:
            return Disbelieve()
        raise NotAMove(f"{text.strip()!r} is not an answer: {_moves_in_short(observation)}")
    kinds = [_kind(t) for t in tokens if t not in _FILLERS]
    if len(kinds) == 2 and kinds[0] is not None and kinds[1] is not None:
        return Announce(kinds[0], kinds[1])
    raise NotAMove(f"{text.strip()!r} is not a move: type {EXPECTED_PASS}")


def _moves_in_short(observation: Observation) -> str:
    if not observation.my_turn:
        return "nothing (it is not your turn)"
    if observation.phase == "respond":
        pending = observation.pending
        passer = f"seat {pending.announcer}" if pending is not None else "the passer"
        if observation.rules.published_call:
            return (
                f"t to call it true or f to call it false (the card is turned up: a right"
                f" call sends it back to {passer}, a wrong one to you)"
            )
        return (
            "b to believe (take it face down, unseen) or d to disbelieve (it is turned up:"
            f" a true claim goes to you, a lie back to {passer})"
        )
    return (
        "pass a card and name a critter: CARD as CLAIM, e.g."
        f" {_first(observation)} as fly (b, sc, sp, ce: short names)"
    )


def _first(observation: Observation) -> str:
    return next((k.label for k in KINDS if observation.hand[k]), "bat")


def _front_words(view: SeatView) -> str:
    up = ", ".join(
        f"{count} {kind.label}" for kind, count in zip(KINDS, view.face_up, strict=True) if count
    )
    parts = ([f"{up} up"] if up else []) + ([f"{view.face_down} down"] if view.face_down else [])
    return " + ".join(parts) if parts else "nothing"


def _holding_lines(observation: Observation) -> tuple[str, ...]:
    me = observation.seat
    held = [
        f"{count} {kind.label}"
        for kind, count in zip(KINDS, observation.hand, strict=True)
        if count
    ]
    lines = [f"your hand ({sum(observation.hand)}): " + (", ".join(held) or "empty")]
    fronts = []
    for seat, view in enumerate(observation.seats):
        who = "you" if seat == me else f"seat {seat}"
        state = "out" if view.eliminated else f"{_front_words(view)}, {view.hand_size} in hand"
        fronts.append(f"{who}: {state}" if seat != me else f"you: {_front_words(view)}")
    lines.append("in front · " + " · ".join(fronts))
    pending = observation.pending
    if pending is not None:
        if pending.target == me:
            lines.append(
                f"seat {pending.announcer} passes you a card: 'it is a {pending.claim.label}'"
            )
        elif pending.announcer == me and pending.card is not None:
            lines.append(
                f"you passed seat {pending.target} a {pending.card.label}:"
                f" 'it is a {pending.claim.label}'"
            )
    return tuple(lines)


def _pass_words(result: PassView, viewer: int, published: bool) -> str:
    """A finished pass in words, as ``viewer`` knows it."""

    def name(seat: int) -> str:
        return "you" if seat == viewer else f"seat {seat}"

    passer, target, taker = name(result.announcer), name(result.target), name(result.taker)
    claim = f"'it is a {result.claim.label}'"
    if published:
        answer = f"call{'' if target == 'you' else 's'} it {'true' if result.believed else 'false'}"
    else:
        answer = ("believe" if result.believed else "disbelieve") + ("" if target == "you" else "s")
    if result.card is None:
        shown = ""
    else:
        true = result.card == result.claim
        shown = f": it was a {result.card.label} ({'true' if true else 'a lie'})"
    face = "face down" if result.believed and not published else "face up"
    takes = "take" if taker == "you" else "takes"
    out = (" and are out" if taker == "you" else " and is out") if result.eliminated else ""
    return f"{passer} → {target} {claim}: {target} {answer}{shown}; {taker} {takes} it {face}{out}"
