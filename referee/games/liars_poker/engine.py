"""Liar's Poker with cards: five cards travel round the table under ever higher claims.

Rules in short (``docs/rules/liars_poker.md`` has them in full):

* 2..8 seats; a 52-card deck plus two jokers, which are wild (see
  :mod:`referee.gamekit.poker_hands` for announcements, their order and when five
  cards *contain* one).
* **A deal** starts with one chance event ``Shuffle(54)`` (deck order
  :data:`~referee.gamekit.cards.POKER_DECK`): the first five cards go to the deal's
  *starter*, the other 49 form the stock. The starter looks and announces.
* The next seat clockwise **accepts** or **challenges** the last announcement.
  Accepting is impossible after the highest announcement (five aces): then the
  next seat must challenge.

  - **Accept**: it takes the five cards, looks, and **exchanges** 0..4 of them:
    the stock is shuffled (chance event ``Shuffle(49)``; skipped when nothing is
    exchanged), it draws as many cards from the top, and its discards go back
    into the stock. Then it must announce strictly higher than the last
    announcement. How many cards were exchanged is public; which cards is not.
  - **Challenge**: the five cards are shown. If they contain the announcement the
    challenger is penalised, otherwise the announcer is. The deal ends.
* **Next deal**: the penalised seat starts it; the dealer (which plays no part
  beyond its name) moves one seat clockwise, skipping the penalised seat. In the
  first deal seat ``n - 1`` deals and seat 0 starts.
* **End** (``penalty_limit``, default 10): a seat reaching the limit ends the
  game; places by fewest penalty points, which are the scores.
* **Chips** (``chips_variant``, default off): everyone starts with
  ``starting_chips`` (default 50). A caught liar pays 1 chip to every other seat;
  a truthful announcer receives 1 chip from the challenger. A seat that owes more
  than it holds pays what it has (one chip at a time to its creditors clockwise
  from its left) and the game ends. Places by most chips, which are the scores;
  the penalty limit does not apply.

Actions:

==================== =========================================== ================
action               meaning                                     when
==================== =========================================== ================
``Announce(a)``      claim the five cards contain ``a``          phase ``announce``
``Accept()``         take the cards, to exchange and announce    phase ``respond``
``Challenge()``      call the last announcement a lie            phase ``respond``
``Exchange(cards)``  discard ``cards`` (0..4 of the hand), draw  phase ``exchange``
                     as many from the freshly shuffled stock
==================== =========================================== ================

``legal_actions`` lists every legal action: in phase ``announce`` that is every
announcement above the last one (8,596 of them before the first), so a uniformly
random player climbs quickly and a deal ends after a few announcements.

A seat observes the five cards while it holds them (from taking them until the
next seat accepts or challenges), every announcement, acceptance, exchange count
and challenge, the cards shown at each challenge, and everybody's penalty points
and chips. It never sees another seat's cards before a challenge or the stock.
"""

# long module: one game's whole rules (deals, announcements, exchanges and draws,
# challenges, penalties, the chips variant) with the texts each seat reads; poker hands are
# in referee.gamekit

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import random
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
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
    Shuffle,
    appended,
    check_chance,
    places_from_keys,
)
from referee.gamekit.cards import (
    POKER_DECK,
    Card,
    format_cards,
    is_submultiset,
    parse_card,
    remove_cards,
)
from referee.gamekit.fast import evolver, maker
from referee.gamekit.notation import NotAMove, words
from referee.gamekit.poker_hands import (
    HIGHEST,
    Announcement,
    Category,
    all_announcements,
    announcement_error,
    best_announcement,
    contains,
    describe_announcement,
)

HAND_SIZE: Final = 5
MAX_EXCHANGE: Final = 4
DEFAULT_PENALTY_LIMIT: Final = 10
DEFAULT_STARTING_CHIPS: Final = 50

Phase = Literal["deal", "announce", "respond", "exchange", "draw", "over"]


@dataclass(frozen=True, slots=True)
class Rules:
    """Liar's Poker rule options (field names are the option names)."""

    penalty_limit: int = DEFAULT_PENALTY_LIMIT
    """Penalty points that end the game (ignored in the chips variant)."""
    chips_variant: bool = False
    """Play for chips instead of penalty points."""
    starting_chips: int = DEFAULT_STARTING_CHIPS
    """Chips each seat starts with in the chips variant."""


OPTIONS: Final = (
    RuleOption(
        "penalty_limit",
        DEFAULT_PENALTY_LIMIT,
        "The game ends when a seat has this many penalty points (the rules name 10, 20"
        " and 30). Ignored in the chips variant.",
        minimum=1,
    ),
    RuleOption(
        "chips_variant",
        False,
        "Play for chips: a caught liar pays 1 chip to every other seat, a truthful"
        " announcer receives 1 chip from the challenger; the game ends when a seat"
        " cannot pay in full, places by chips.",
    ),
    RuleOption(
        "starting_chips",
        DEFAULT_STARTING_CHIPS,
        "Chips each seat starts with in the chips variant.",
        minimum=1,
    ),
)


# ---------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Announce:
    """Claim that the five cards contain ``announcement``."""

    announcement: Announcement
    """The claimed hand: strictly higher than the deal's last announcement."""


@dataclass(frozen=True, slots=True)
class Accept:
    """Take the five cards (then exchange and announce higher)."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """Call the last announcement a lie: the cards are shown."""


@dataclass(frozen=True, slots=True)
class Exchange:
    """Discard ``discards`` (0..4 cards of the hand) and draw as many."""

    discards: tuple[Card, ...] = ()
    """The cards of the hand to discard (0..4); as many are drawn."""


Action = Announce | Accept | Challenge | Exchange
ACTION_TYPES: Final = (Announce, Accept, Challenge, Exchange)


# ---------------------------------------------------------------------------
# Public records


@dataclass(frozen=True, slots=True)
class Claim:
    """One announcement of the current deal."""

    seat: int
    """The announcer."""
    exchanged: int | None
    """Cards the announcer exchanged first; ``None`` for the deal's starter."""
    announcement: Announcement
    """What it announced."""


@dataclass(frozen=True, slots=True, weakref_slot=True)
class DealResult:
    """How a finished deal went (everything in it is public)."""

    deal: int
    """The deal's number, from 1."""
    dealer: int
    """The deal's dealer (plays no part beyond its name)."""
    starter: int
    """The seat that took the first five cards and announced first."""
    claims: tuple[Claim, ...]
    """Every announcement of the deal, in order."""
    challenger: int
    """The seat that challenged."""
    announcer: int
    """The seat whose announcement was challenged."""
    cards: tuple[Card, ...]
    """The five cards shown at the challenge."""
    truthful: bool
    """Whether the cards contained the last announcement."""
    penalised: int
    """The seat that got the penalty point (or paid, with chips)."""


_SHARED_RESULTS: weakref.WeakValueDictionary[DealResult, DealResult] = weakref.WeakValueDictionary()
"""One live instance per distinct deal result. A chips game can run for thousands
of deals and every state carries all results; sharing the instances lets a replay
compare equal states by identity instead of field by field (same answer, fast)."""


# ---------------------------------------------------------------------------
# State and observation


@dataclass(frozen=True, slots=True)
class State:
    rules: Rules
    num_seats: int
    phase: Phase
    dealer: int
    starter: int
    deal: int
    holder: int
    """Who holds the five cards (the starter, the last announcer or the accepter)."""
    hand: tuple[Card, ...]
    stock: tuple[Card, ...]
    discards: tuple[Card, ...]
    """Cards being exchanged, waiting for the stock shuffle (phase ``draw``)."""
    exchanged: int | None
    """Cards the holder exchanged this turn (``None``: the starter, no exchange)."""
    claims: tuple[Claim, ...]
    penalties: tuple[int, ...]
    chips: tuple[int, ...]
    results: tuple[DealResult, ...]

    @property
    def last(self) -> Claim | None:
        return self.claims[-1] if self.claims else None


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
    """What the game waits for (chance, or the seat `to_act`)."""
    to_act: int | None
    """The seat that must act now; `None` when the referee shuffles or at the end."""
    deal: int
    """Number of the current deal, from 1."""
    dealer: int
    """The current deal's dealer (plays no part beyond its name)."""
    starter: int
    """The seat that took the first five cards of this deal."""
    holder: int
    """The seat holding the five cards (the starter, an announcer or accepter)."""
    hand: tuple[Card, ...] | None
    """The cards, while this seat holds them; otherwise ``None``."""
    exchanged: int | None
    """Cards the holder exchanged on this turn (``None`` for the starter)."""
    stock_size: int
    """Cards in the stock."""
    claims: tuple[Claim, ...]
    """The announcements of the current deal, in order."""
    penalties: tuple[int, ...]
    """Penalty points per seat (the scores; fewer is better)."""
    chips: tuple[int, ...]
    """Chips per seat in the chips variant (else zeros)."""
    results: tuple[DealResult, ...]
    """Every finished deal, oldest first."""

    @property
    def my_turn(self) -> bool:
        """Whether the observer must act now."""
        return self.to_act == self.seat

    @property
    def last(self) -> Announcement | None:
        """The announcement to beat, if any."""
        return self.claims[-1].announcement if self.claims else None


# ---------------------------------------------------------------------------
# Helpers


def check_well_formed(action: object) -> Action:
    """Return ``action`` if it is a Liar's Poker action; raise MalformedActionError."""
    if not isinstance(action, ACTION_TYPES):
        raise MalformedActionError(f"{action!r} is not a liars_poker action")
    if isinstance(action, Announce):
        error = announcement_error(action.announcement)
        if error is not None:
            raise MalformedActionError(f"{action!r}: {error}")
    if isinstance(action, Exchange):
        discards = action.discards
        if not isinstance(discards, tuple) or not all(
            isinstance(card, Card) and card.is_valid() for card in discards
        ):
            raise MalformedActionError(f"{action!r}: discards must be a tuple of cards")
        if len(discards) > MAX_EXCHANGE:
            raise MalformedActionError(f"{action!r}: at most {MAX_EXCHANGE} cards may be exchanged")
    return action


def exchanges(hand: Sequence[Card]) -> tuple[Exchange, ...]:
    """Every distinct exchange of 0..4 cards from ``hand`` (discards sorted)."""
    ordered = sorted(hand, key=_CARD_ORDER)  # the cards' own order: rank, then suit
    combos: Iterable[tuple[Card, ...]] = itertools.chain.from_iterable(
        itertools.combinations(ordered, count)
        for count in range(min(MAX_EXCHANGE, len(ordered)) + 1)
    )
    keys = [_CARD_ORDER(card) for card in ordered]
    if any(a == b for a, b in itertools.pairwise(keys)):
        combos = dict.fromkeys(combos)  # equal cards (two jokers): each combination once
    return tuple(map(_new_exchange, combos))


_CARD_ORDER: Final = operator.attrgetter("rank", "suit")
"""What ``Card``'s ordering compares."""


@functools.cache
def _announce_actions() -> tuple[Announce, ...]:
    # Built once, in order, on first use (not at import): legal_actions slices it.
    return tuple(Announce(a) for a in all_announcements())


@functools.cache
def _positions() -> dict[int, int]:
    """Position in :func:`all_announcements` of each announcement and of each action of
    :func:`_announce_actions`, by ``id`` (the cached tuples keep them alive, so no
    other object can have their id)."""
    return {
        id(item): at
        for items in (all_announcements(), _announce_actions())
        for at, item in enumerate(items)
    }


def _above(last: Announcement | None) -> int:
    """Where the announcements strictly above ``last`` start in :func:`all_announcements`."""
    if last is None:
        return 0
    at = _positions().get(id(last))
    if at is None or all_announcements()[at] is not last:  # not one of the table's own
        return bisect.bisect_right(all_announcements(), last)
    return at + 1


def announce_actions(last: Announcement | None) -> tuple[Announce, ...]:
    """``Announce`` for every announcement strictly above ``last``."""
    if last is None:
        return _announce_actions()
    return _announce_actions()[_above(last) :]


_evolve: Final = evolver(State)
_new_observation: Final = maker(Observation)
_new_exchange: Final = maker(Exchange)
_CHALLENGE_ONLY: Final[tuple[Action, ...]] = (Challenge(),)
_ACCEPT_OR_CHALLENGE: Final[tuple[Action, ...]] = (Accept(), Challenge())


# ---------------------------------------------------------------------------
# The engine


class LiarsPoker(Game[Rules, State, Action, Observation]):
    """Liar's Poker with a 54-card deck (jokers wild)."""

    name: ClassVar[str] = "liars_poker"
    title: ClassVar[str] = "Liar's Poker"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 8
    options: ClassVar[tuple[RuleOption, ...]] = OPTIONS
    rules_type: ClassVar[type[Rules]] = Rules
    action_types: ClassVar[tuple[type, ...]] = ACTION_TYPES

    def new_game(self, rules: Rules, num_seats: int) -> State:
        self.check_seats(rules, num_seats)
        return State(
            rules=rules,
            num_seats=num_seats,
            phase="deal",
            dealer=num_seats - 1,
            starter=0,
            deal=1,
            holder=0,
            hand=(),
            stock=(),
            discards=(),
            exchanged=None,
            claims=(),
            penalties=(0,) * num_seats,
            chips=(rules.starting_chips if rules.chips_variant else 0,) * num_seats,
            results=(),
        )

    def responder(self, state: State) -> int:
        return (state.holder + 1) % state.num_seats

    def to_act(self, state: State) -> int | None:
        if state.phase in ("deal", "draw"):
            return CHANCE
        if state.phase == "over":
            return None
        if state.phase == "respond":
            return self.responder(state)
        return state.holder

    def chance_request(self, state: State) -> ChanceRequest:
        if state.phase == "deal":
            return Shuffle(len(POKER_DECK))
        if state.phase == "draw":
            return Shuffle(len(state.stock))
        raise ChanceError(f"{self.name}: no chance event is due (phase {state.phase})")

    def apply_chance(self, state: State, outcome: Sequence[int]) -> State:
        order = check_chance(self.chance_request(state), outcome)
        if state.phase == "deal":
            deck = tuple(map(POKER_DECK.__getitem__, order))
            return _evolve(
                state,
                phase="announce",
                holder=state.starter,
                hand=deck[:HAND_SIZE],
                stock=deck[HAND_SIZE:],
                exchanged=None,
                claims=(),
            )
        shuffled = tuple(map(state.stock.__getitem__, order))
        count = len(state.discards)
        return _evolve(
            state,
            phase="announce",
            hand=state.hand + shuffled[:count],
            stock=shuffled[count:] + state.discards,
            discards=(),
            exchanged=count,
        )

    # -- observation ---------------------------------------------------------

    def observe(self, state: State, seat: int) -> Observation:
        sees = seat == state.holder and state.phase in ("announce", "respond", "exchange", "draw")
        return _new_observation(
            state.rules,
            seat,
            state.num_seats,
            state.phase,
            None if state.phase in ("deal", "draw", "over") else self.to_act(state),
            state.deal,
            state.dealer,
            state.starter,
            state.holder,
            state.hand if sees else None,
            state.exchanged,
            len(state.stock) + len(state.discards),
            state.claims,
            state.penalties,
            state.chips,
            state.results,
        )

    # -- legality --------------------------------------------------------------

    def check_action(self, observation: Observation, action: object) -> None:
        if (
            type(action) is Announce
            and observation.phase == "announce"
            and observation.my_turn
            and _announce_actions()[_positions().get(id(action), 0)] is action
            and _positions()[id(action)] >= _above(observation.last)
        ):
            return  # one of the engine's own announcements (well formed), above the last
        action = check_well_formed(action)
        if not observation.my_turn:
            raise IllegalActionError(
                f"{action!r}: it is not seat {observation.seat}'s turn"
                f" (to act: {observation.to_act})"
            )
        phase = observation.phase
        if phase == "announce":
            if not isinstance(action, Announce):
                raise IllegalActionError(f"{action!r}: seat {observation.seat} must announce")
            last = observation.last
            if last is not None and action.announcement <= last:
                raise IllegalActionError(
                    f"{action!r}: must announce higher than {describe_announcement(last)}"
                )
        elif phase == "respond":
            if not isinstance(action, Accept | Challenge):
                raise IllegalActionError(
                    f"{action!r}: seat {observation.seat} must accept or challenge"
                )
            if isinstance(action, Accept) and observation.last == HIGHEST:
                raise IllegalActionError(
                    f"{action!r}: nothing beats {describe_announcement(HIGHEST)}; challenge"
                )
        elif phase == "exchange":
            if not isinstance(action, Exchange):
                raise IllegalActionError(f"{action!r}: seat {observation.seat} must exchange")
            hand = observation.hand or ()
            if not is_submultiset(action.discards, hand):
                raise IllegalActionError(
                    f"{action!r}: discards are not in the hand {format_cards(hand)}"
                )
        else:  # pragma: no cover - my_turn is False in the other phases
            raise IllegalActionError(f"{action!r}: nobody acts in phase {phase}")

    def legal_actions(self, observation: Observation) -> Sequence[Action]:
        if not observation.my_turn:
            return ()
        if observation.phase == "announce":
            return announce_actions(observation.last)
        if observation.phase == "respond":
            if observation.last == HIGHEST:
                return _CHALLENGE_ONLY
            return _ACCEPT_OR_CHALLENGE
        return exchanges(observation.hand or ())

    # -- transitions -----------------------------------------------------------

    def transition(self, state: State, seat: int, action: Action) -> State:
        if isinstance(action, Announce):
            claim = Claim(seat, state.exchanged, action.announcement)
            return _evolve(state, phase="respond", claims=(*state.claims, claim))
        if isinstance(action, Accept):
            return _evolve(state, phase="exchange", holder=seat, exchanged=None)
        if isinstance(action, Exchange):
            if not action.discards:
                return _evolve(state, phase="announce", exchanged=0)
            return _evolve(
                state,
                phase="draw",
                hand=remove_cards(state.hand, action.discards),
                discards=action.discards,
            )
        return self._challenge(state, seat)

    def _challenge(self, state: State, challenger: int) -> State:
        last = state.last
        assert last is not None
        announcer = last.seat
        truthful = contains(state.hand, last.announcement)
        penalised = challenger if truthful else announcer
        n = state.num_seats
        penalties = tuple(p + (1 if s == penalised else 0) for s, p in enumerate(state.penalties))
        chips = state.chips
        over = False
        if state.rules.chips_variant:
            creditors = [announcer] if truthful else [(penalised + k) % n for k in range(1, n)]
            chips, over = _pay(chips, penalised, creditors)
        else:
            over = penalties[penalised] >= state.rules.penalty_limit
        result = DealResult(
            deal=state.deal,
            dealer=state.dealer,
            starter=state.starter,
            claims=state.claims,
            challenger=challenger,
            announcer=announcer,
            cards=state.hand,
            truthful=truthful,
            penalised=penalised,
        )
        result = _SHARED_RESULTS.setdefault(result, result)
        dealer = (state.dealer + 1) % n
        if dealer == penalised:
            dealer = (dealer + 1) % n
        return _evolve(
            state,
            phase="over" if over else "deal",
            dealer=state.dealer if over else dealer,
            starter=state.starter if over else penalised,
            deal=state.deal if over else state.deal + 1,
            holder=penalised,
            hand=(),
            stock=(),
            discards=(),
            exchanged=None,
            claims=(),
            penalties=penalties,
            chips=chips,
            results=(*state.results, result),
        )

    # -- results ---------------------------------------------------------------

    def standings(self, state: State) -> Outcome:
        if state.rules.chips_variant:
            return Outcome(
                places=places_from_keys(state.chips),
                scores=tuple(float(c) for c in state.chips),
            )
        return Outcome(
            places=places_from_keys([-p for p in state.penalties]),
            scores=tuple(float(p) for p in state.penalties),
        )

    # -- hidden information ------------------------------------------------------

    def perturb_hidden(self, state: State, seat: int, rng: random.Random) -> State:
        if state.phase in ("deal", "over"):
            return state
        if seat == state.holder:
            stock = list(state.stock)
            rng.shuffle(stock)
            return _evolve(state, stock=tuple(stock))
        pool = [*state.hand, *state.discards, *state.stock]
        rng.shuffle(pool)
        hand_size, discard_count = len(state.hand), len(state.discards)
        return _evolve(
            state,
            hand=tuple(pool[:hand_size]),
            discards=tuple(pool[hand_size : hand_size + discard_count]),
            stock=tuple(pool[hand_size + discard_count :]),
        )

    # -- text ------------------------------------------------------------------

    def describe_action(
        self, action: Action, viewer: int | None = None, actor: int | None = None
    ) -> str:
        if isinstance(action, Announce):
            return f"announce {describe_announcement(action.announcement)}"
        if isinstance(action, Exchange):
            if not action.discards:
                return "exchange nothing"
            if viewer is not None and viewer != actor:
                # How many cards were exchanged is public; which is not.
                return f"exchange {len(action.discards)}"
            return f"exchange {len(action.discards)} ({format_cards(action.discards)})"
        return "accept" if isinstance(action, Accept) else "challenge"

    def describe_chance(
        self, state: State, outcome: Sequence[int], viewer: int | None = None
    ) -> str | None:
        # The cards dealt or drawn are seen by the seat that takes them alone.
        order = check_chance(self.chance_request(state), outcome)
        if state.phase == "deal":
            if viewer is not None and viewer != state.starter:
                return f"deal {HAND_SIZE} cards to seat {state.starter}"
            deck = [POKER_DECK[i] for i in order]
            return f"deal {format_cards(deck[:HAND_SIZE])} to seat {state.starter}"
        if viewer is not None and viewer != state.holder:
            count = len(state.discards)
            return f"shuffle the stock; seat {state.holder} draws {count} card{'s' * (count != 1)}"
        drawn = [state.stock[i] for i in order[: len(state.discards)]]
        return f"shuffle the stock; seat {state.holder} draws {format_cards(drawn)}"

    # -- claims ------------------------------------------------------------------

    challenge_action: ClassVar[object | None] = Challenge()

    def claim_truth(self, before: State, action: Action) -> bool | None:
        if not isinstance(action, Announce):
            return None
        return contains(before.hand, action.announcement)

    def describe_outcome(self, before: Any, after: Any, seat: int) -> str | None:
        """What an action of ``seat`` settled, read from the record of finished rounds
        that states and observations both carry (see :meth:`Game.describe_outcome`)."""
        result = appended(before, after, "results")
        if result is None:
            return None
        claim = result.claims[-1].announcement if result.claims else "?"
        cards = " ".join(map(str, result.cards))
        penalised = result.penalised
        standing = f"penalties {' '.join(map(str, after.penalties))}"
        if after.rules.chips_variant:
            standing += f", chips {' '.join(map(str, after.chips))}"
        return (
            f"seat {result.challenger} challenged seat {result.announcer}'s {claim}: cards shown"
            f" [{cards}]: the announcement was {'true' if result.truthful else 'false'}:"
            f" seat {penalised} is penalised ({standing})"
        )

    # -- what a person reads and types (see Game.parse_move) -------------------------

    def write_move(self, action: Action, observation: Observation) -> str:
        if isinstance(action, Announce):
            return describe_announcement(action.announcement)
        if isinstance(action, Exchange):
            return "exchange " + (format_cards(action.discards) or "nothing")
        return "accept" if isinstance(action, Accept) else "challenge"

    def parse_move(self, text: str, observation: Observation) -> Action:
        read = read_move(text, observation)
        action = self.legal_move(observation, read, lambda: _refusal(observation, read))
        if isinstance(action, Exchange):  # the engine's own order of the discards
            wanted = sorted(action.discards, key=_CARD_ORDER)
            return next(e for e in exchanges(observation.hand or ()) if list(e.discards) == wanted)
        return action

    def move_summary(self, observation: Observation) -> str:
        return _moves_in_short(observation)

    def rules_summary(self, rules: Rules, num_seats: int) -> tuple[str, ...]:
        if rules.chips_variant:
            stake = (
                f"Everyone starts with {rules.starting_chips} chips: a caught liar pays 1 to"
                " every other player, a wrong challenger 1 to the announcer; the game ends"
                " when someone cannot pay."
            )
        else:
            stake = f"Whoever was wrong takes a penalty point; {rules.penalty_limit} ends the game."
        return (
            f"{num_seats} players; 52 cards and two wild jokers. Whoever holds the five cards"
            " announces a poker hand they supposedly contain.",
            "The next player challenges (c: the cards are shown) or accepts (a): takes the"
            " cards, exchanges 0-4 of them and must announce higher.",
            stake,
        )

    def holding(self, observation: Observation) -> tuple[str, ...]:
        return _holding_lines(observation)

    def announce_action(self, action: Action, actor: int, viewer: int | None) -> str:
        who = "you" if actor == viewer else f"seat {actor}"
        s = "" if who == "you" else "s"
        if isinstance(action, Announce):
            return f"{who} announce{s} {describe_announcement(action.announcement)}"
        if isinstance(action, Exchange):
            count = len(action.discards)
            shown = f" ({format_cards(action.discards)})" if actor == viewer and count else ""
            return f"{who} exchange{'' if who == 'you' else 's'} {count}{shown}"
        return f"{who} {'accept' if isinstance(action, Accept) else 'challenge'}{s}"

    def announce_news(
        self, before: Observation | None, after: Observation, viewer: int
    ) -> tuple[str, ...]:
        return _news_between(before, after, viewer)


def _pay(chips: tuple[int, ...], payer: int, creditors: list[int]) -> tuple[tuple[int, ...], bool]:
    """Pay one chip to each creditor in order; return new chips and whether it fell short."""
    values = list(chips)
    for creditor in creditors:
        if values[payer] == 0:
            return tuple(values), True
        values[payer] -= 1
        values[creditor] += 1
    return tuple(values), False


LIARS_POKER: Final = LiarsPoker()


# ---------------------------------------------------------------------------
# The notation a person reads and types (arena play, the browser game)

_CATEGORY_WORDS: Final[tuple[tuple[tuple[str, ...], Category], ...]] = (
    (("straight", "flush"), Category.STRAIGHT_FLUSH), (("sf",), Category.STRAIGHT_FLUSH),
    (("high", "card"), Category.HIGH_CARD), (("high",), Category.HIGH_CARD),
    (("hc",), Category.HIGH_CARD), (("two", "pair"), Category.TWO_PAIR),
    (("2p",), Category.TWO_PAIR), (("tp",), Category.TWO_PAIR), (("pair",), Category.PAIR),
    (("p",), Category.PAIR), (("three", "of", "a", "kind"), Category.THREE_OF_A_KIND),
    (("three",), Category.THREE_OF_A_KIND), (("trips",), Category.THREE_OF_A_KIND),
    (("3k",), Category.THREE_OF_A_KIND), (("straight",), Category.STRAIGHT),
    (("st",), Category.STRAIGHT), (("flush",), Category.FLUSH), (("fl",), Category.FLUSH),
    (("full", "house"), Category.FULL_HOUSE), (("full",), Category.FULL_HOUSE),
    (("fh",), Category.FULL_HOUSE), (("four", "of", "a", "kind"), Category.FOUR_OF_A_KIND),
    (("four",), Category.FOUR_OF_A_KIND), (("quads",), Category.FOUR_OF_A_KIND),
    (("4k",), Category.FOUR_OF_A_KIND), (("five", "of", "a", "kind"), Category.FIVE_OF_A_KIND),
    (("five",), Category.FIVE_OF_A_KIND), (("5k",), Category.FIVE_OF_A_KIND),
)  # fmt: skip
"""Category words, longest first where one begins another."""
_RANK_WORDS: Final = {
    **{str(r): r for r in range(2, 11)}, "t": 10, "j": 11, "jack": 11, "q": 12, "queen": 12,
    "k": 13, "king": 13, "a": 14, "ace": 14, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_HAND_FILLERS: Final = frozenset(
    {"of", "and", "to", "over", "with", "an", "the", "kicker", "kickers"}
)
_EXCHANGE_WORDS: Final = frozenset({"x", "exchange", "swap", "discard", "change"})
_NOTHING: Final = frozenset({"nothing", "none", "0", "-", "no"})
EXPECTED_HAND: Final = (
    "a hand as CATEGORY RANKS: high card K 9, pair 9 6 (pair of 9s and 6), two pair Q 4,"
    " three 7, straight to 9, flush K, full house 3 A, four 2 A, straight flush A, five A"
)


def _rank(word: str) -> int | None:
    word = word.removesuffix("'s")
    found = _RANK_WORDS.get(word)
    if found is None and word.endswith("s"):
        found = _RANK_WORDS.get(word[:-1])
    if found is None and word.endswith("es"):
        found = _RANK_WORDS.get(word[:-2])
    return found


def read_announcement(tokens: list[str]) -> Announcement | None:
    """The announcement ``tokens`` write, or None; :class:`NotAMove` for one that is
    not well formed (what is wrong with it said)."""
    found = next(
        ((len(named), category) for named, category in _CATEGORY_WORDS
         if tuple(tokens[: len(named)]) == named),
        None,
    )  # fmt: skip
    if found is None:
        return None
    category, rest = found[1], tokens[found[0] :]
    rest = [w for w in rest if w not in _HAND_FILLERS]  # "a" is an ace, as written
    ranks = [_rank(w) for w in rest]
    if not ranks or any(r is None for r in ranks):
        raise NotAMove(f"{' '.join(tokens)!r} is not a hand: type {EXPECTED_HAND}")
    announcement = Announcement(category, tuple(r for r in ranks if r is not None))
    error = announcement_error(announcement)
    if error is not None:
        raise NotAMove(f"not a hand: {error}; type {EXPECTED_HAND}")
    return announcement


def read_move(text: str, observation: Observation) -> Action:
    """The action ``text`` writes (legal or not); :class:`NotAMove` if it writes none."""
    tokens = words(text)
    if tokens in (["a"], ["accept"], ["take"]) and observation.phase == "respond":
        return Accept()
    if tokens in (["c"], ["challenge"], ["call"], ["liar"]):
        return Challenge()
    if tokens and (tokens[0] in _EXCHANGE_WORDS or observation.phase == "exchange"):
        cards = tokens[1:] if tokens[0] in _EXCHANGE_WORDS else tokens
        if not cards or (len(cards) == 1 and cards[0] in _NOTHING):
            return Exchange(())
        try:
            return Exchange(tuple(parse_card(card) for card in cards))
        except ValueError:
            raise NotAMove(
                f"{text.strip()!r} is not an exchange: name the cards as they are shown"
                " (x 2c 7d, x Jk), or x nothing"
            ) from None
    if tokens[:1] == ["announce"]:
        tokens = tokens[1:]
    announcement = read_announcement(tokens)
    if announcement is None:
        raise NotAMove(f"{text.strip()!r} is not a move: {_moves_in_short(observation)}")
    return Announce(announcement)


def _refusal(observation: Observation, action: Action) -> str:
    if not observation.my_turn:
        return "it is not your turn"
    phase = observation.phase
    if isinstance(action, Announce) and phase == "announce":
        last = observation.last
        return f"it does not beat {describe_announcement(last) if last else 'the last one'}"
    if isinstance(action, Exchange) and phase == "exchange":
        return f"you do not hold those cards (you hold {format_cards(observation.hand or ())})"
    if isinstance(action, Accept) and phase == "respond":
        return f"nothing beats {describe_announcement(HIGHEST)}: challenge"
    return {"announce": "announce a hand now", "respond": "accept or challenge now"}.get(
        phase, "exchange now"
    )


def _moves_in_short(observation: Observation) -> str:
    if not observation.my_turn:
        return "nothing (it is not your turn)"
    if observation.phase == "respond":
        claim = observation.claims[-1] if observation.claims else None
        whose = f" seat {claim.seat}'s {describe_announcement(claim.announcement)}" if claim else ""
        if observation.last == HIGHEST:
            return f"c to challenge{whose} (nothing beats it)"
        return f"a to accept (take the cards, exchange, announce higher) or c to challenge{whose}"
    if observation.phase == "exchange":
        return "exchange 0-4 of your cards: x 2c 7d (the cards to give up), or x nothing"
    above = announce_actions(observation.last)[:3]
    start = (
        "announce any hand"
        if observation.last is None
        else (f"announce higher than {describe_announcement(observation.last)}")
    )
    examples = ", ".join(describe_announcement(a.announcement) for a in above)
    return (
        f"{start} (next up: {examples}, ...); type e.g. pair 9 6, two pair Q 4, three 7,"
        " straight to 9, flush K, fh 3 A, four 2, five A"
    )


def _holding_lines(observation: Observation) -> tuple[str, ...]:
    me = observation.seat
    name = {me: "you"}
    if observation.hand:
        best = describe_announcement(best_announcement(observation.hand))
        held = f"your cards: {format_cards(observation.hand)} (they hold {best})"
    else:
        held = (
            f"seat {observation.holder} holds the cards"
            if observation.holder != me
            else "your cards: -"
        )
    lines = [held]
    if observation.claims:
        claim = observation.claims[-1]
        lines.append(
            f"deal {observation.deal}: to beat"
            f" {'your' if claim.seat == me else f'seat {claim.seat}' + chr(39) + 's'}"
            f" {describe_announcement(claim.announcement)}"
        )
    scores = ", ".join(
        f"{name.get(s, f'seat {s}')} {p}" for s, p in enumerate(observation.penalties)
    )
    if observation.rules.chips_variant:
        chips = ", ".join(
            f"{name.get(s, f'seat {s}')} {c}" for s, c in enumerate(observation.chips)
        )
        lines.append(f"chips: {chips} · penalties: {scores}")
    else:
        lines.append(f"penalties: {scores} ({observation.rules.penalty_limit} ends the game)")
    return tuple(lines)


def _claim_words(claim: Claim, viewer: int) -> str:
    who = "you" if claim.seat == viewer else f"seat {claim.seat}"
    s = "" if who == "you" else "s"
    took = (
        f"{who} accept{s}, exchange{s} {claim.exchanged} and announce{s}"
        if claim.exchanged is not None
        else f"{who} announce{s}"
    )
    return f"{took} {describe_announcement(claim.announcement)}"


def _news_between(before: Observation | None, after: Observation, viewer: int) -> tuple[str, ...]:
    lines: list[str] = []
    deal_before = before.deal if before is not None else 1
    seen = len(before.claims) if before is not None else 0
    finished = after.results[len(before.results) :] if before is not None else after.results
    for result in finished:
        skip = seen if result.deal == deal_before else 0
        lines.extend(_claim_words(c, viewer) for c in result.claims[skip:] if c.seat != viewer)
        who = {viewer: "you"}
        caller = who.get(result.challenger, f"seat {result.challenger}")
        claimed = result.claims[-1].announcement if result.claims else HIGHEST
        whose = "your" if result.announcer == viewer else f"seat {result.announcer}'s"
        penalised = who.get(result.penalised, f"seat {result.penalised}")
        lines.append(
            f"{caller} challenge{'' if caller == 'you' else 's'} {whose}"
            f" {describe_announcement(claimed)}: the cards {format_cards(result.cards)}"
            f" {'hold' if result.truthful else 'do not hold'} it; {penalised}"
            f" {'take' if penalised == 'you' else 'takes'} a penalty"
            f" ({after.penalties[result.penalised]})"
        )
    skip = seen if after.deal == deal_before and not finished else 0
    lines.extend(_claim_words(c, viewer) for c in after.claims[skip:] if c.seat != viewer)
    return tuple(lines)
