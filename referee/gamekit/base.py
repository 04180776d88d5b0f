"""The contract every game engine implements, and the value types it speaks in.

An engine is pure: no I/O, no clock, no global random state. A match is fully
described by ``(game, rules, number of seats, events)``: the referee draws every
chance outcome (dice rolls, shuffles) from the match's secret chance stream
(:mod:`referee.core.chance`) and feeds it in with :meth:`Game.apply_chance`, exactly
like a player's action, so re-applying the recorded events replays the match.

States, actions and observations are frozen dataclasses: a transition returns a
new state and never mutates the old one.

Who moves next is :meth:`Game.to_act`: a seat number, :data:`CHANCE` when the
referee must draw a chance outcome (:meth:`Game.chance_request` says what to
draw), or ``None`` when the game is over.

Legality is decided from the acting seat's observation alone
(:meth:`Game.check_action`, :meth:`Game.legal_actions`): everything a seat needs to
know which moves are legal travels with its observation, so the SDK helpers run
the very same code as the referee.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final, Generic, Protocol, TypeVar

from referee.gamekit.errors import ChanceError as ChanceError
from referee.gamekit.errors import GameError as GameError
from referee.gamekit.errors import IllegalActionError as IllegalActionError
from referee.gamekit.errors import MalformedActionError as MalformedActionError
from referee.gamekit.errors import NotAMove as NotAMove
from referee.gamekit.errors import RulesError as RulesError

CHANCE: Final = -1
"""Returned by :meth:`Game.to_act` when the next event is a chance outcome."""


# ---------------------------------------------------------------------------
# Chance


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """Roll ``count`` dice with ``sides`` faces; outcome: ``count`` values in 1..sides."""

    count: int
    sides: int = 6


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Shuffle ``size`` items; outcome: a permutation of ``range(size)``."""

    size: int


ChanceRequest = DiceRoll | Shuffle
ChanceOutcome = tuple[int, ...]


class ChanceSource(Protocol):
    """What :func:`draw_chance` draws from: the referee's secret
    :class:`referee.core.chance.ChanceStream`, or a :class:`random.Random` (tests,
    random playouts)."""

    def randint(self, a: int, b: int, /) -> int: ...

    def shuffle(self, x: MutableSequence[Any], /) -> None: ...


def draw_chance(request: ChanceRequest, rng: ChanceSource) -> ChanceOutcome:
    """Draw one outcome for ``request`` from an explicit generator.

    A roll is ``count`` calls of ``randint(1, sides)``; a shuffle shuffles
    ``list(range(size))`` in place. A source whose class sets ``draws_whole_requests``
    (:class:`~referee.gamekit.fast_chance.FastChance`, for local play and training only) is
    asked for the whole outcome instead: ``roll(count, sides)``, ``permutation(size)``.
    """
    whole = getattr(type(rng), "draws_whole_requests", False)
    if isinstance(request, DiceRoll):
        if whole:
            return rng.roll(request.count, request.sides)  # type: ignore[attr-defined,no-any-return]
        randint, sides = rng.randint, request.sides
        return tuple([randint(1, sides) for _ in range(request.count)])
    if whole:
        return rng.permutation(request.size)  # type: ignore[attr-defined,no-any-return]
    order = list(range(request.size))
    rng.shuffle(order)
    return tuple(order)


_PLAIN_INT: Final = frozenset({int})


def check_chance(request: ChanceRequest, outcome: Sequence[int]) -> ChanceOutcome:
    """Return ``outcome`` as a tuple if it fits ``request``; raise :class:`ChanceError`."""
    values = tuple(outcome)
    if isinstance(request, DiceRoll):
        if (
            len(values) == request.count
            and set(map(type, values)) <= _PLAIN_INT
            and (not values or (min(values) >= 1 and max(values) <= request.sides))
        ):
            return values  # the common case, checked in C; the same verdict as below
        if len(values) != request.count or any(
            not isinstance(v, int) or not 1 <= v <= request.sides for v in values
        ):
            raise ChanceError(f"{values!r} is not a roll of {request.count}d{request.sides}")
    elif sorted(values) != list(range(request.size)):
        raise ChanceError(f"{values!r} is not a permutation of range({request.size})")
    return values


# ---------------------------------------------------------------------------
# Rule options


@dataclass(frozen=True, slots=True)
class RuleOption:
    """One named rule option: its default, its allowed values and what it means.

    ``default`` fixes the type: ``bool``, ``int`` (within ``minimum``..``maximum``)
    or ``str`` (one of ``choices``).
    """

    name: str
    default: bool | int | str
    doc: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    omitted_at_default: bool = False
    """:meth:`Game.format_rules` leaves the option out while it has its default: for
    an option added after records were written, whose rules text (compared by
    ``arena replay --verify``) must stay canonical."""

    def parse(self, raw: str | bool | int) -> bool | int | str:
        """Turn a user-supplied value into a typed one; raise :class:`RulesError`."""
        if isinstance(self.default, bool):
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise RulesError(f"rule {self.name}={raw!r}: expected true or false")
        if isinstance(self.default, int):
            try:
                value = int(str(raw).strip())
            except ValueError:
                raise RulesError(f"rule {self.name}={raw!r}: expected a whole number") from None
            if self.minimum is not None and value < self.minimum:
                raise RulesError(f"rule {self.name}={raw!r}: must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise RulesError(f"rule {self.name}={raw!r}: must be at most {self.maximum}")
            return value
        text = str(raw).strip()
        if text not in self.choices:
            raise RulesError(f"rule {self.name}={raw!r}: expected one of {', '.join(self.choices)}")
        return text

    def format(self, value: bool | int | str) -> str:
        """The canonical text form of a value (what :meth:`parse` reads back)."""
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def describe_values(self) -> str:
        """A short human description of the allowed values."""
        if isinstance(self.default, bool):
            return "true|false"
        if isinstance(self.default, int):
            low = "" if self.minimum is None else str(self.minimum)
            high = "" if self.maximum is None else str(self.maximum)
            return f"integer {low}..{high}"
        return "|".join(self.choices)


# ---------------------------------------------------------------------------
# Outcome


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a match ended for every seat.

    ``places[i]`` is seat i's placement, 1 = best; tied seats share a place and the
    next place skips (1, 1, 3). ``scores[i]`` is the game's own score for seat i
    (dice left, points, chips, penalty points — each game documents its meaning).
    """

    places: tuple[int, ...]
    scores: tuple[float, ...]


def appended(before: Any, after: Any, name: str) -> Any | None:
    """The entry ``after`` added to its record ``name`` (a growing tuple of a state
    or an observation), if any."""
    old: Sequence[Any] = getattr(before, name, ())
    new: Sequence[Any] = getattr(after, name, ())
    return new[-1] if len(new) > len(old) else None


def places_from_keys(keys: Sequence[Any]) -> tuple[int, ...]:
    """Competition ranking: a larger key is better; equal keys share a place."""
    return tuple([1 + sum([other > key for other in keys]) for key in keys])


def forfeit(standings: Outcome, faulted: set[int]) -> Outcome:
    """Place the ``faulted`` seats last; the rest keep their relative standing."""
    keys: list[tuple[int, int]] = [
        (0 if seat in faulted else 1, -place) for seat, place in enumerate(standings.places)
    ]
    return Outcome(places=places_from_keys(keys), scores=standings.scores)


# ---------------------------------------------------------------------------
# The engine contract

RulesT = TypeVar("RulesT")
StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
ObsT = TypeVar("ObsT")


class Game(ABC, Generic[RulesT, StateT, ActionT, ObsT]):
    """One game's rules. Instances are stateless; every method is pure.

    Subclasses set the class attributes and implement the abstract methods. The
    ``rules_type`` is a frozen dataclass whose field names equal the option names.
    """

    name: ClassVar[str]
    """Registry name, e.g. ``"liars_dice"``."""
    title: ClassVar[str]
    """Human name, e.g. ``"Liar's Dice"``."""
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    options: ClassVar[tuple[RuleOption, ...]]
    rules_type: ClassVar[type[Any]]
    action_types: ClassVar[tuple[type[Any], ...]]
    """Every concrete action class; anything else is a malformed action."""
    hidden_information: ClassVar[bool] = True
    """False for games where every seat sees everything (then nothing can leak)."""

    # -- rules -------------------------------------------------------------

    def default_rules(self) -> RulesT:
        return self.parse_rules({})

    def parse_rules(self, raw: Mapping[str, str | bool | int]) -> RulesT:
        """Build validated rules from option text; unknown or bad options raise."""
        known = {option.name: option for option in self.options}
        unknown = sorted(set(raw) - set(known))
        if unknown:
            raise RulesError(
                f"unknown rule option(s) for {self.name}: {', '.join(unknown)}"
                f" (known: {', '.join(known) or 'none'})"
            )
        values: dict[str, object] = {
            name: option.parse(raw[name]) if name in raw else option.default
            for name, option in known.items()
        }
        spelled = frozenset(
            name
            for name, option in known.items()
            if option.omitted_at_default and name in raw and values[name] == option.default
        )
        if spelled and "spelled_defaults" in {f.name for f in fields(self.rules_type)}:
            values["spelled_defaults"] = spelled
        rules: RulesT = self.rules_type(**values)
        self.validate_rules(rules)
        return rules

    def format_rules(self, rules: RulesT) -> dict[str, str]:
        """Every option as canonical text (the inverse of :meth:`parse_rules`), but
        an ``omitted_at_default`` option at its default, unless the rules were parsed
        from text that spelled it out (a rules type may keep that set in a
        ``spelled_defaults`` field, so a record keeps the text it was made with)."""
        by_name = {option.name: option for option in self.options}
        return {
            f.name: by_name[f.name].format(getattr(rules, f.name))
            for f in fields(rules)  # type: ignore[arg-type]
            if f.name in by_name
            and not (
                by_name[f.name].omitted_at_default
                and getattr(rules, f.name) == by_name[f.name].default
                and f.name not in getattr(rules, "spelled_defaults", ())
            )
        }

    def validate_rules(self, rules: RulesT) -> None:
        """Check combinations of options; raise :class:`RulesError`. Default: none."""

    def check_seats(self, rules: RulesT, num_seats: int) -> None:
        """Raise :class:`RulesError` unless ``num_seats`` can play under ``rules``."""
        if not self.min_seats <= num_seats <= self.max_seats:
            raise RulesError(
                f"{self.name} needs {self.min_seats}..{self.max_seats} seats, got {num_seats}"
            )

    # -- the state machine -------------------------------------------------

    @abstractmethod
    def new_game(self, rules: RulesT, num_seats: int) -> StateT:
        """The initial state (usually a chance node). Calls :meth:`check_seats`."""

    @abstractmethod
    def to_act(self, state: StateT) -> int | None:
        """The seat to act, :data:`CHANCE`, or ``None`` when the game is over."""

    @abstractmethod
    def chance_request(self, state: StateT) -> ChanceRequest:
        """What to draw at a chance node; :class:`ChanceError` elsewhere."""

    @abstractmethod
    def apply_chance(self, state: StateT, outcome: Sequence[int]) -> StateT:
        """Feed a chance outcome; :class:`ChanceError` if it does not fit."""

    @abstractmethod
    def observe(self, state: StateT, seat: int) -> ObsT:
        """What ``seat`` knows: its private information plus all public information.

        Valid in every state, terminal included (then it holds what the rules
        reveal at the end).
        """

    @abstractmethod
    def check_action(self, observation: ObsT, action: object) -> None:
        """Raise unless ``action`` is legal for the seat whose observation this is.

        :class:`MalformedActionError` when it is not an action of this game at all,
        :class:`IllegalActionError` when it is one but not allowed now (including
        when it is not this seat's turn).
        """

    @abstractmethod
    def legal_actions(self, observation: ObsT) -> Sequence[ActionT]:
        """Every legal action for the observing seat (empty if it is not its turn)."""

    def legal_count(self, observation: ObsT) -> int:
        """How many legal actions the observing seat has: ``len(legal_actions(...))``, which
        an engine may count without building the list (Liar's Dice does)."""
        return len(self.legal_actions(observation))

    @abstractmethod
    def transition(self, state: StateT, seat: int, action: ActionT) -> StateT:
        """Apply an action already known to be legal. Use :meth:`apply_action`."""

    @abstractmethod
    def standings(self, state: StateT) -> Outcome:
        """The outcome if the game stopped now (final when terminal).

        Used for the final result and, on a forfeit, to place the other seats.
        """

    @abstractmethod
    def perturb_hidden(self, state: StateT, seat: int, rng: random.Random) -> StateT:
        """A state that differs from ``state`` only in what ``seat`` cannot know.

        Used by the leak tests: ``observe(perturb_hidden(s, seat, rng), seat)`` must
        equal ``observe(s, seat)`` byte for byte. Redraw every hidden die or card
        (other seats' hidden dice, the stock order, face-down cards, ...).
        """

    # -- what a seat may read --------------------------------------------------
    #
    # Who may know what is decided here, in the engine, and nowhere else: the
    # replay viewer, the text replays and the analytics ask these methods instead
    # of reading the texts with patterns. ``viewer=None`` is the omniscient text
    # that records and transcripts have always shown; for a seat, a text must
    # never hold what that seat's observation would not let it know (the generic
    # leak test, ``tests/games/test_leak_generic.py``, checks it).

    @abstractmethod
    def describe_action(
        self, action: ActionT, viewer: int | None = None, actor: int | None = None
    ) -> str:
        """A short description of ``actor``'s ``action`` as seat ``viewer`` may read it.

        ``viewer=None`` is the omniscient text (e.g. ``"bid 3 x 4s"``, or Liar's
        Poker's ``"exchange 2 (Ah Jk)"``). For a seat, the private part of another
        seat's action is left out (``"exchange 2"``); the acting seat reads its own
        action in full. ``actor=None`` with a ``viewer`` means the actor is not
        known, so the text is the one any other seat reads.
        """

    def view_text(self, name: str, value: Any) -> str | None:
        """A person's text for the observation field ``name`` holding ``value``
        (:func:`sdk.human.observation_lines`, what ``arena play`` shows), for a field
        whose plain text does not read well (counts per card kind, a scorecard);
        None (the default): the plain text."""
        return None

    def describe_outcome(self, before: Any, after: Any, seat: int) -> str | None:
        """What an action of ``seat`` led to: who challenged, what was revealed, who
        lost a die, a chip or a penalty, who took which card, what a score was worth.
        None when nothing was settled (a bid, a pass, a re-roll); the default says
        nothing, so a game without a record of finished rounds needs no override.

        ``before`` and ``after`` are the states around the action (the omniscient
        view) or one seat's observations of them (that seat's view): the text is
        read only from what both carry, so it never says more than the observations.
        """
        return None

    @abstractmethod
    def describe_chance(
        self, state: StateT, outcome: Sequence[int], viewer: int | None = None
    ) -> str | None:
        """A short description of a chance outcome about to be applied to ``state``.

        ``viewer=None`` is the omniscient text (every die and card); for a seat it
        shows what that seat sees of the outcome (its own dice, the public count of
        the others), or ``None`` when the seat sees nothing of it at all.
        """

    # -- what a person reads and types -------------------------------------------
    #
    # A person in a seat (``arena play``, the browser game: :mod:`sdk.human`) reads
    # these, built from that seat's observations alone, and types moves in the
    # game's own notation. The defaults serve any game from ``describe_action`` and
    # ``describe_outcome``; the built-in games write their own notation.

    def write_move(self, action: ActionT, observation: ObsT) -> str:
        """``action`` as a person types it, for the seat of ``observation``:
        :meth:`parse_move` reads it back to the same action."""
        seat = getattr(observation, "seat", None)
        return self.describe_action(action, viewer=seat, actor=seat)

    def parse_move(self, text: str, observation: ObsT) -> ActionT:
        """The legal action ``text`` writes, for the seat of ``observation`` (whose
        turn it is); :class:`NotAMove`, whose message says what is expected,
        otherwise. The default reads exactly what :meth:`write_move` writes."""
        wanted = text.lower().split()
        for action in self.legal_actions(observation):
            if self.write_move(action, observation).lower().split() == wanted:
                return action
        raise NotAMove(f"{text.strip()!r} is not a move now: {self.move_summary(observation)}")

    def legal_move(self, observation: ObsT, action: ActionT, refusal: Callable[[], str]) -> ActionT:
        """``action`` (read from a person's text by a game's :meth:`parse_move`) if it
        is legal now; else :class:`NotAMove` giving ``refusal()`` (why not, in the
        game's words) and what the seat may do instead."""
        try:
            self.check_action(observation, action)
        except IllegalActionError:
            raise NotAMove(f"{refusal()}. You may {self.move_summary(observation)}") from None
        return action

    def move_summary(self, observation: ObsT) -> str:
        """The legal moves of the seat of ``observation`` in a line or two, never one
        line per move (:meth:`legal_actions` lists them all)."""
        written = [self.write_move(a, observation) for a in self.legal_actions(observation)]
        more = f", ... ({len(written)} moves)" if len(written) > 6 else ""
        return "type " + " or ".join(", ".join(written[:6]).rsplit(", ", 1)) + more

    def rules_summary(self, rules: RulesT, num_seats: int) -> tuple[str, ...]:
        """The rules in force, in a few short lines (a person's first screen)."""
        options = ", ".join(f"{k}={v}" for k, v in self.format_rules(rules).items())
        return (f"{self.title} for {num_seats}" + (f"; {options}" if options else ""),)

    def holding(self, observation: ObsT) -> tuple[str, ...]:
        """What the seat of ``observation`` holds hidden and where the game stands,
        in a few short lines a person's screen always shows; () (the default): the
        screen shows every field of the observation instead."""
        return ()

    def announce_action(self, action: ActionT, actor: int, viewer: int | None) -> str:
        """``actor``'s ``action`` in words as seat ``viewer`` may read it ("seat 1
        bids three 4s", "you bid three 4s"); never more than :meth:`describe_action`
        tells that seat."""
        who = "you" if actor == viewer else f"seat {actor}"
        return f"{who}: {self.describe_action(action, viewer=viewer, actor=actor)}"

    def announce_news(self, before: ObsT | None, after: ObsT, viewer: int) -> tuple[str, ...]:
        """What happened between two observations of seat ``viewer`` (``before``
        None: since the game began), in words, oldest first: the other seats' moves
        and what they settled. Read from the two observations alone, so it never
        says more than they do. The default: what :meth:`describe_outcome` says."""
        if before is None:
            return ()
        text = self.describe_outcome(before, after, viewer)
        return (text,) if text else ()

    # -- claims, for the bluff analytics ----------------------------------------

    challenge_action: ClassVar[object | None] = None
    """The action that calls the last claim a lie (``Challenge()``, Cockroach
    Poker's ``Disbelieve()``); ``None`` for a game without claims."""

    def claim_truth(self, before: StateT, action: ActionT) -> bool | None:
        """Whether ``action``, taken in the full state ``before``, is a true claim.

        ``None`` when the action is not a claim. "True" is what the game's own
        challenge rule would find if the claim were challenged right after it was
        made. Default: a game without claims.
        """
        return None

    # -- conveniences built on the contract ---------------------------------

    def apply_action(self, state: StateT, seat: int, action: object) -> StateT:
        """Validate ``action`` for ``seat`` and apply it; raise on anything wrong."""
        actor = self.to_act(state)
        if actor != seat:
            if not isinstance(action, self.action_types):
                raise MalformedActionError(f"{action!r} is not a {self.name} action")
            raise IllegalActionError(f"seat {seat} acted but it is not its turn (to act: {actor})")
        self.check_action(self.observe(state, seat), action)
        return self.transition(state, seat, action)  # type: ignore[arg-type]

    def is_terminal(self, state: StateT) -> bool:
        return self.to_act(state) is None

    def outcome(self, state: StateT) -> Outcome:
        """The final outcome of a finished game."""
        if not self.is_terminal(state):
            raise GameError(f"{self.name}: the game is not over yet")
        return self.standings(state)
