"""The match record: everything needed to audit and replay one match.

A record is plain data and serialises to JSON (``to_json`` / ``from_json``):
header (game, rules, seed, seats and bots), every chance outcome and action in
order with the time the seat took, every fault, and the outcome. Actions are
stored in the protobuf JSON mapping of ``arena.v1.Action``, so the file can be
read without this code.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from referee.faults import FaultKind
from referee.games import get_game
from referee.games.base import Outcome
from referee.games.events import ActionEvent, ChanceEvent, Event
from referee.wire import get_codec

FORMAT_VERSION = 1


class RecordError(Exception):
    """A record that cannot be read: bad JSON, wrong format version, bad fields."""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sat where."""

    seat: int
    bot: str
    """The bot's name."""
    version: str = ""
    """Content hash or user label of the bot's build."""
    command: tuple[str, ...] = ()
    """How the referee started it (empty for a bot reached by address)."""
    address: str = ""
    """Where it was reached, for a bot that was already running."""


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """One chance outcome (``seat`` is None) or one seat's action."""

    seat: int | None
    outcome: tuple[int, ...] | None = None
    action: dict[str, Any] | None = None
    """The action in protobuf JSON form (``arena.v1.Action``)."""
    elapsed_ms: float | None = None
    """How long the seat took to answer, measured by the referee."""
    at_ms: float | None = None
    """When the event was applied, in ms since the match started."""


@dataclass(frozen=True, slots=True)
class RecordedFault:
    seat: int
    kind: FaultKind
    message: str
    at_event: int
    """Number of events applied when the fault happened."""


@dataclass(frozen=True, slots=True)
class MatchRecord:
    match_id: str
    game: str
    rules: dict[str, str]
    """Every rule option, canonical text, defaults included."""
    num_seats: int
    seed: int
    seats: tuple[SeatInfo, ...]
    events: tuple[RecordedEvent, ...]
    faults: tuple[RecordedFault, ...]
    reason: Literal["completed", "forfeit", "aborted"]
    places: tuple[int, ...]
    scores: tuple[float, ...]
    started_at: str = ""
    """UTC start time, ISO 8601."""
    duration_ms: float = 0.0
    format: int = FORMAT_VERSION
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def outcome(self) -> Outcome:
        return Outcome(self.places, self.scores)

    def fault_of(self, seat: int) -> RecordedFault | None:
        return next((f for f in self.faults if f.seat == seat), None)

    def engine_events(self) -> list[Event]:
        """The events as engine values (actions decoded with the game's codec)."""
        codec = get_codec(self.game)
        events: list[Event] = []
        for event in self.events:
            if event.seat is None:
                events.append(ChanceEvent(tuple(event.outcome or ())))
            else:
                events.append(ActionEvent(event.seat, codec.action_from_json(event.action or {})))
        return events

    # -- JSON -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["faults"] = [{**asdict(f), "kind": f.kind.value} for f in self.faults]
        data["events"] = [
            {k: v for k, v in asdict(e).items() if v is not None} for e in self.events
        ]
        return data

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRecord:
        try:
            if data.get("format") != FORMAT_VERSION:
                raise RecordError(
                    f"record format {data.get('format')!r} is not supported"
                    f" (this version reads {FORMAT_VERSION})"
                )
            get_game(data["game"])
            return cls(
                match_id=str(data["match_id"]),
                game=str(data["game"]),
                rules={str(k): str(v) for k, v in data["rules"].items()},
                num_seats=int(data["num_seats"]),
                seed=int(data["seed"]),
                seats=tuple(
                    SeatInfo(
                        seat=int(s["seat"]),
                        bot=str(s["bot"]),
                        version=str(s.get("version", "")),
                        command=tuple(str(c) for c in s.get("command", ())),
                        address=str(s.get("address", "")),
                    )
                    for s in data["seats"]
                ),
                events=tuple(
                    RecordedEvent(
                        seat=None if e.get("seat") is None else int(e["seat"]),
                        outcome=None if e.get("outcome") is None else tuple(e["outcome"]),
                        action=e.get("action"),
                        elapsed_ms=e.get("elapsed_ms"),
                        at_ms=e.get("at_ms"),
                    )
                    for e in data["events"]
                ),
                faults=tuple(
                    RecordedFault(
                        seat=int(f["seat"]),
                        kind=FaultKind(f["kind"]),
                        message=str(f["message"]),
                        at_event=int(f["at_event"]),
                    )
                    for f in data["faults"]
                ),
                reason=data["reason"],
                places=tuple(int(p) for p in data["places"]),
                scores=tuple(float(s) for s in data["scores"]),
                started_at=str(data.get("started_at", "")),
                duration_ms=float(data.get("duration_ms", 0.0)),
                meta=dict(data.get("meta", {})),
            )
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise RecordError(f"not a valid match record: {error!r}") from None

    @classmethod
    def from_json(cls, text: str) -> MatchRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"match record is not JSON: {error}") from None
        if not isinstance(data, dict):
            raise RecordError("match record must be a JSON object")
        return cls.from_dict(data)
