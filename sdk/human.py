"""A human in a seat: a bot whose decisions come from a person.

:class:`HumanSeat` is an ordinary :class:`~sdk.bot.Bot` served over gRPC like any
other, so the referee treats the person exactly as it treats a bot: it sends the
seat only that seat's observation, validates every move with the engine, times the
seat (a generous clock, :attr:`referee.runtime.match.Limits.seat_decision_s`) and
records the match. What the person sees is built here from that observation alone:

* :func:`observation_lines`: every field of the observation, one per line;
* the legal actions, from :func:`sdk.legality.legal_actions` (the referee's own
  code), described by the engine's ``describe_action`` for this seat;
* the news since the seat last looked, from the engine's ``describe_outcome``.

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
from sdk.bot import Bot, MatchInfo, MatchResult
from sdk.legality import game_of, legal_actions

HIDDEN_FIELDS = frozenset({"seat", "num_seats", "rules"})
"""Observation fields every view leaves out (said once at the top instead)."""
PAST_FIELDS = frozenset({"history", "results", "rounds"})
"""Fields holding every finished round: a view shows how many and the last one."""


class HumanLeft(Exception):
    """The person stopped answering (end of input, closed page): the seat forfeits."""

    quiet = True
    """No traceback on stderr (:func:`sdk.serve._told`): nothing went wrong in code."""


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
    observation: Any = dataclasses.field(default=None, compare=False, repr=False)
    """The observation itself (a page draws it with the game's replay renderer)."""
    previous: Any = dataclasses.field(default=None, compare=False, repr=False)
    """The observation of the seat's previous view (None for the first)."""

    def to_json(self) -> dict[str, Any]:
        """The text parts, JSON-ready (not the observations: a server encodes those
        with the game's codec to draw them)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in ("observation", "previous")
        }


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
    """``"you placed 1 of 2 (completed)"``, with a fault named."""
    mine = next((r for r in result.results if r.seat == seat), None)
    if mine is None:
        return f"match {result.reason}"
    fault = f", fault: {mine.fault}" if mine.fault else ""
    return f"you placed {mine.place} of {len(result.results)} ({result.reason}{fault})"


class HumanSeat(Bot[Any, Any]):
    """A seat played by a person through an :class:`Asker` (see the module doc).

    Make one with :func:`human_seat_factory`, which sets the game."""

    name = "human"

    def __init__(self, asker: Asker) -> None:
        super().__init__()
        self.asker = asker
        self.previous: Any = None
        self.decisions = 0

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        self.previous = None
        self.decisions = 0

    def _view(self, observation: Any, **extra: Any) -> SeatView:
        assert self.match is not None
        before = self.previous
        return SeatView(
            game=self.match.game,
            seat=self.match.seat,
            num_seats=self.match.num_seats,
            lines=observation_lines(observation),
            news=self._news(observation),
            decision=self.decisions,
            observation=observation,
            previous=before,
            **extra,
        )

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
        view = self._view(observation, choices=labels)
        while True:
            picked = self.asker.ask(view)
            if 0 <= picked < len(actions):
                return actions[picked]

    def end(self, result: MatchResult) -> None:
        assert self.match is not None
        self.asker.tell(
            self._view(result.observation, over=True, result=result_text(result, self.match.seat))
        )


def human_seat_factory(game: str, asker: Asker) -> Callable[[], HumanSeat]:
    """What :func:`sdk.serve.serve` needs to serve a person in a ``game`` seat."""
    get_game(game)  # an unknown game fails here, not in the referee
    seat_class = type(f"HumanSeat[{game}]", (HumanSeat,), {"game": game})
    return lambda: seat_class(asker)
