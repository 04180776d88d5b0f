"""A human in a seat: a bot whose decisions come from a person.

:class:`HumanSeat` is an ordinary :class:`~sdk.bot.Bot` served over gRPC like any
other, so the referee treats the person exactly as it treats a bot: it sends the
seat only that seat's observation, validates every move with the engine, times the
seat (a generous clock, :attr:`referee.runtime.match.Limits.seat_decision_s`) and
records the match. What the person sees is built here from that observation alone:

* :func:`observation_lines`: every field of the observation, one per line;
* the legal actions, from :func:`sdk.legality.legal_actions` (the referee's own
  code), described by the engine's ``describe_action`` for this seat;
* the news since the seat last looked, from the engine's ``describe_outcome``;
* in the game's own notation (:meth:`referee.gamekit.base.Game.parse_move` and its
  neighbours, which each engine writes): the rules in force, the seat's holding
  (its hidden dice or cards and where the game stands), the other seats' moves since
  the seat last looked announced in words, and the legal moves in a line or two.
  A person types a move as the game writes it; the engine reads it.

A person who resigns (``q``) or leaves (end of input) raises :class:`Resigned`: the
match records the seat's fault as ``resigned``, never a fault of a bot's kind
(:class:`Departure` tells the referee's side of the seat,
:func:`league.execution.human_play.play_human_game`).

Where the person is (a terminal, a web page) is an :class:`Asker`:
:mod:`league.cli.play` asks at a prompt, :mod:`league.server.human_games` asks
through the browser.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from referee.core.catalogue import get_game
from referee.gamekit.base import NotAMove
from sdk.bot import Bot, MatchInfo, MatchResult
from sdk.legality import game_of, legal_actions

HIDDEN_FIELDS = frozenset({"seat", "num_seats", "rules"})
"""Observation fields every view leaves out (said once at the top instead)."""
PAST_FIELDS = frozenset({"history", "results", "rounds"})
"""Fields holding every finished round: a view shows how many and the last one."""


class HumanLeft(Exception):
    """The person stopped answering (the match ended while they were asked, a closed
    page): the seat forfeits."""

    quiet = True
    """No traceback on stderr (:func:`sdk.serve._told`): nothing went wrong in code."""


class Resigned(HumanLeft):
    """The person resigned (``q``) or left the table (end of input): recorded as
    ``resigned`` (:class:`referee.core.faults.FaultKind`), not as a fault of a bot's
    kind. An :class:`Asker` raises it; its message is the referee's own words."""


@dataclass
class Departure:
    """Whether the person in a seat resigned, and how: set by the seat before its
    stream ends, read by the referee's side of that seat to record ``resigned``."""

    resigned: bool = False
    words: str = ""


@dataclass(frozen=True, slots=True)
class SeatView:
    """What the person in a seat is shown at one moment."""

    game: str
    seat: int
    num_seats: int
    lines: tuple[str, ...]
    """The seat's observation, one field per line."""
    news: tuple[str, ...] = ()
    """What was settled since the seat's previous view (a challenge, a reveal)."""
    choices: tuple[str, ...] = ()
    """The legal actions, described; the answer is an index into this."""
    decision: int = 0
    """How many decisions this seat was asked for so far, this one included."""
    over: bool = False
    result: str = ""
    """How the match ended, for the seat (when ``over``)."""
    title: str = ""
    """The game's name for people (``Liar's Dice``)."""
    rules: tuple[str, ...] = ()
    """The rules in force, in a few short lines (the engine's ``rules_summary``)."""
    holding: tuple[str, ...] = ()
    """What the seat holds hidden and where the game stands, in a few short lines
    (the engine's ``holding``; the observation's lines for a game without one)."""
    announced: tuple[str, ...] = ()
    """The moves since the seat's previous view and what they settled, in words
    (the engine's ``announce_news``)."""
    summary: str = ""
    """The legal moves in a line or two, in the game's notation (``move_summary``)."""
    written: tuple[str, ...] = ()
    """Each of ``choices`` as a person types it (the engine's ``write_move``): what
    the terminal's numbered list shows."""
    observation: Any = dataclasses.field(default=None, compare=False, repr=False)
    """The observation itself (a page draws it with the game's replay renderer)."""
    previous: Any = dataclasses.field(default=None, compare=False, repr=False)
    """The observation of the seat's previous view (None for the first)."""
    actions: tuple[Any, ...] = dataclasses.field(default=(), compare=False, repr=False)
    """The legal actions, in the order of ``choices`` (an asker that reads a move
    typed in the game's notation, :meth:`parse`, answers with its index)."""

    def to_json(self) -> dict[str, Any]:
        """The text parts, JSON-ready (not the observations: a server encodes those
        with the game's codec to draw them)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in ("observation", "previous", "actions", "written")
        }

    def parse(self, text: str) -> int:
        """The index (into ``choices``) of the move ``text`` writes in the game's own
        notation (:meth:`referee.gamekit.base.Game.parse_move`), or ``#N`` for the
        N-th of ``choices``; :class:`~referee.gamekit.base.NotAMove` (saying what is
        expected) for anything else."""
        written = text.strip()
        if written.startswith("#") and written[1:].strip().isdigit():
            number = int(written[1:])
            if 1 <= number <= len(self.choices):
                return number - 1
            raise NotAMove(f"there is no move #{number}: the list has {len(self.choices)}")
        action = get_game(self.game).parse_move(written, self.observation)
        try:
            return self.actions.index(action)
        except ValueError:  # the engine read a move its own list does not have
            raise NotAMove(f"{written!r} is not one of the legal moves now") from None


class Asker(Protocol):
    def ask(self, view: SeatView) -> int:
        """The index (into ``view.choices``) the person picks; :class:`HumanLeft`
        if they are gone."""

    def tell(self, view: SeatView) -> None:
        """Show the final view (``view.over``)."""

    def close(self) -> None:
        """The match is over (perhaps the seat's clock ran out while asking): a
        pending :meth:`ask` must stop waiting and raise :class:`HumanLeft`."""


FieldText = Callable[[str, Any], "str | None"]
"""A game's own text for a named field (:meth:`referee.gamekit.base.Game.view_text`)."""


def _no_field_text(name: str, value: Any) -> str | None:
    return None


def value_text(value: Any, field_text: FieldText = _no_field_text) -> str:
    """A compact, readable text of an observation value; ``field_text`` gives a
    game's own text for named fields, at any depth."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, enum.Enum):
        label = getattr(value, "label", None)
        return str(label() if callable(label) else label if label is not None else value.value)
    if type(value).__str__ is not object.__str__ and not isinstance(value, int | str):  # type: ignore[comparison-overlap]
        return str(value)  # a type with its own text (a card: "Ah")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = [
            f"{f.name.replace('_', ' ')} {_field(f.name, getattr(value, f.name), field_text)}"
            for f in dataclasses.fields(value)
        ]
        return "(" + ", ".join(parts) + ")"
    if isinstance(value, tuple | list | frozenset | set):
        items = [value_text(item, field_text) for item in value]
        if all(isinstance(item, int | str) and not isinstance(item, bool) for item in value):
            return " ".join(items) if items else "none"
        return "; ".join(items) if items else "none"
    return str(value)


def _field(name: str, value: Any, field_text: FieldText) -> str:
    own = field_text(name, value)
    return own if own is not None else value_text(value, field_text)


def observation_lines(observation: Any) -> tuple[str, ...]:
    """``field: value`` for every field of ``observation`` but the seat, seat count
    and rules (the game's :meth:`~referee.gamekit.base.Game.view_text` where it has
    one)."""
    if not dataclasses.is_dataclass(observation):
        return (value_text(observation),)
    field_text = game_of(observation).view_text
    lines = []
    for f in dataclasses.fields(observation):
        if f.name in HIDDEN_FIELDS:
            continue
        value = getattr(observation, f.name)
        if f.name in PAST_FIELDS and isinstance(value, tuple) and len(value) > 1:
            text = f"{len(value)} so far, the last: {value_text(value[-1], field_text)}"
        else:
            text = _field(f.name, value, field_text)
        lines.append(f"{f.name.replace('_', ' ')}: {text}")
    return tuple(lines)


def result_text(result: MatchResult, seat: int) -> str:
    """``"you placed 1 of 2 (completed)"``, with a fault named (``you resigned``)."""
    mine = next((r for r in result.results if r.seat == seat), None)
    if mine is None:
        return f"match {result.reason}"
    if mine.fault == "resigned":
        return f"you resigned: you placed {mine.place} of {len(result.results)}"
    others = [r for r in result.results if r.seat != seat and r.fault]
    fault = f", fault: {mine.fault}" if mine.fault else ""
    fault += "".join(f", seat {r.seat}: {r.fault}" for r in others)
    return f"you placed {mine.place} of {len(result.results)} ({result.reason}{fault})"


class HumanSeat(Bot[Any, Any]):
    """A seat played by a person through an :class:`Asker` (see the module doc).

    Make one with :func:`human_seat_factory`, which sets the game."""

    name = "human"

    def __init__(self, asker: Asker, departure: Departure | None = None) -> None:
        super().__init__()
        self.asker = asker
        self.departure = departure if departure is not None else Departure()
        self.previous: Any = None
        self.decisions = 0

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        self.previous = None
        self.decisions = 0

    def _view(self, observation: Any, **extra: Any) -> SeatView:
        assert self.match is not None
        before = self.previous
        engine = get_game(self.match.game)
        lines = observation_lines(observation)
        return SeatView(
            game=self.match.game,
            seat=self.match.seat,
            num_seats=self.match.num_seats,
            lines=lines,
            news=self._news(observation),
            decision=self.decisions,
            title=engine.title,
            rules=engine.rules_summary(self.match.rules, self.match.num_seats),
            holding=engine.holding(observation) or lines,
            announced=self._announced(before, observation),
            observation=observation,
            previous=before,
            **extra,
        )

    def _announced(self, before: Any, observation: Any) -> tuple[str, ...]:
        """The engine's words for what happened between the two views."""
        assert self.match is not None
        try:
            return get_game(self.match.game).announce_news(before, observation, self.match.seat)
        except Exception:  # an engine that cannot compare views this far apart says nothing
            return ()

    def _news(self, observation: Any) -> tuple[str, ...]:
        """What the engine says was settled between the previous view and this one
        (read from the two observations only)."""
        assert self.match is not None
        before, self.previous = self.previous, observation
        if before is None:
            return ()
        try:
            text = get_game(self.match.game).describe_outcome(before, observation, self.match.seat)
        except Exception:  # an engine that cannot compare views this far apart says nothing
            return ()
        return (text,) if text else ()

    def act(self, observation: Any) -> Any:
        assert self.match is not None
        actions = legal_actions(observation)
        engine = get_game(self.match.game)
        seat = self.match.seat
        labels = tuple(engine.describe_action(a, viewer=seat, actor=seat) for a in actions)
        self.decisions += 1
        view = self._view(
            observation,
            choices=labels,
            written=tuple(engine.write_move(a, observation) for a in actions),
            actions=tuple(actions),
            summary=engine.move_summary(observation),
        )
        while True:
            try:
                picked = self.asker.ask(view)
            except Resigned as left:  # said before the stream ends, so it is recorded so
                self.departure.resigned, self.departure.words = True, str(left)
                raise
            if 0 <= picked < len(actions):
                return actions[picked]

    def end(self, result: MatchResult) -> None:
        assert self.match is not None
        self.asker.tell(
            self._view(result.observation, over=True, result=result_text(result, self.match.seat))
        )


def human_seat_factory(
    game: str, asker: Asker, departure: Departure | None = None
) -> Callable[[], HumanSeat]:
    """What :func:`sdk.serve.serve` needs to serve a person in a ``game`` seat;
    ``departure`` learns whether the person resigned."""
    get_game(game)  # an unknown game fails here, not in the referee
    seat_class = type(f"HumanSeat[{game}]", (HumanSeat,), {"game": game})
    return lambda: seat_class(asker, departure)
