"""The match record: everything needed to audit and replay one match.

A record is plain data and serialises to JSON (``to_json`` / ``from_json``; the
format is described in ``docs/record-format.md``): a header (game, rules, seed of
a reproducible match or null, seats and bots, time limit), every chance outcome
and action in order with its timing and digests of what the acting seat saw and
of the state after it, every fault, and the outcome. Actions are stored in the
protobuf JSON mapping of ``arena.v1.Action``, so the file can be read without this
code.

A hash chain runs through it: ``header_hash`` covers the header, each event's
``hash`` covers the previous hash and the event, and ``outcome_hash`` covers the
last event hash and the outcome. :func:`chain_problems` finds the first link
that does not match.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal

from referee.core.catalogue import get_codec, get_game
from referee.core.digests import sha256_hex
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.faults import FaultKind
from referee.gamekit.base import Outcome

FORMAT_VERSION = 6
"""Version 2: ``seed`` may be null (the match drew its chance from a secret key).
Version 3: state digests by :class:`referee.core.digests.StateDigester`
(incremental), and a seat may have taken observation deltas (``SeatInfo.deltas``;
its ``obs`` digests are of the messages as sent).
Version 4: the protocol each seat spoke (``SeatInfo.protocol``), the opaque match id
the seats were sent (``bot_match_id``) and the nonce of every TurnRequest
(``nonces``, protocol 3).
Version 5: state digests write values in canonical form
(:func:`referee.core.digests.canonical`), not as their ``repr``.
Version 6: an action drawn from a seat's mixed move (protocol 4) carries ``mixed``,
the commitment to the probabilities (:func:`referee.core.mixed.commit`)."""
READABLE_FORMATS = (1, 2, 3, 4, 5, 6)
"""Format 1 records (always a seed, drawn with the old ``random.Random`` stream) still load."""


class RecordError(Exception):
    """A record that cannot be read: bad JSON, wrong format version, bad fields."""


def canonical_json(data: Any) -> bytes:
    """The bytes that are hashed: sorted keys, no spaces, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


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
    start_sent: bool = True
    """The referee sent this seat MatchStart (its bot started and answered Health)."""
    ready: bool = True
    """The seat confirmed MatchStart (so it was sent turns and MatchEnd)."""
    deltas: bool = False
    """The seat asked for observation deltas in its Ready (protocol 2, format 3)."""
    protocol: int = 0
    """The protocol version the seat spoke: the lower of what its Health announced
    and the referee's (format 4); 0 when unknown (an older record, or a bot that
    never answered Health)."""

    def to_dict(self) -> dict[str, Any]:
        """As stored; ``deltas`` and ``protocol`` only when set, so older headers
        hash as they did."""
        data = asdict(self)
        if not self.deltas:
            del data["deltas"]
        if not self.protocol:
            del data["protocol"]
        return data


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
    turn: int | None = None
    """The TurnRequest number this action answered."""
    obs: str | None = None
    """Digest of the observation the acting seat was sent for this decision."""
    mixed: str | None = None
    """The seat answered with a mixed move and the referee drew ``action`` from it: the
    commitment to its probabilities (64 hex digits; the probabilities themselves are
    its author's alone). Format 6."""
    state: str = ""
    """Digest of the engine state after this event."""
    hash: str = ""
    """Chain hash: sha256(previous hash + canonical JSON of this event without it)."""

    def body(self) -> dict[str, Any]:
        """The event as stored, without its chain hash (values shared, not copied:
        sealing a record builds this for every event, and ``asdict`` deep-copies)."""
        values = ((name, getattr(self, name)) for name in _EVENT_BODY)
        return {
            name: list(value) if type(value) is tuple else value
            for name, value in values
            if value is not None
        }


_EVENT_BODY: tuple[str, ...] = tuple(f.name for f in fields(RecordedEvent) if f.name != "hash")


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
    seed: int | None
    """The seed of a reproducible (guessable) match; None when chance came from a
    secret key, which is never recorded (the drawn outcomes are)."""
    seats: tuple[SeatInfo, ...]
    events: tuple[RecordedEvent, ...]
    faults: tuple[RecordedFault, ...]
    reason: Literal["completed", "forfeit", "aborted"]
    places: tuple[int, ...]
    scores: tuple[float, ...]
    started_at: str = ""
    """UTC start time, ISO 8601."""
    duration_ms: float = 0.0
    time_limit_ms: int = 0
    """The per-decision time limit sent to the bots."""
    protocol_version: int = 1
    bot_match_id: str = ""
    """The opaque id the seats were sent as ``MatchStart.match_id`` (format 4);
    ``match_id`` is the referee's own name for the match (``LEAGUE-POSITION`` in a
    league), never sent to a bot. Empty in older records: they sent ``match_id``."""
    nonces: tuple[str, ...] = ()
    """The nonce of TurnRequest ``turn`` at index ``turn - 1``, one per request sent
    (the last may be the request a fault answered), "" for a seat below protocol
    3; empty when no seat spoke protocol 3 (and in older records)."""
    format: int = FORMAT_VERSION
    meta: dict[str, Any] = field(default_factory=dict)
    header_hash: str = ""
    outcome_hash: str = ""

    @property
    def chance_label(self) -> str:
        """``seed N`` for a reproducible match, ``secret chance`` otherwise."""
        return "secret chance" if self.seed is None else f"seed {self.seed}"

    @property
    def outcome(self) -> Outcome:
        return Outcome(self.places, self.scores)

    @property
    def sent_match_id(self) -> str:
        """The match id the seats were sent in MatchStart."""
        return self.bot_match_id or self.match_id

    def nonce_of(self, turn: int) -> str:
        """The nonce TurnRequest ``turn`` carried ("" if none)."""
        return self.nonces[turn - 1] if 0 < turn <= len(self.nonces) else ""

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

    # -- hash chain ---------------------------------------------------------------

    def header(self) -> dict[str, Any]:
        """The header as stored and hashed; ``bot_match_id`` only when set, so older
        headers hash as they did."""
        optional = {"bot_match_id": self.bot_match_id} if self.bot_match_id else {}
        return {
            **optional,
            "format": self.format,
            "match_id": self.match_id,
            "game": self.game,
            "rules": self.rules,
            "num_seats": self.num_seats,
            "seed": self.seed,
            "seats": [s.to_dict() for s in self.seats],
            "started_at": self.started_at,
            "time_limit_ms": self.time_limit_ms,
            "protocol_version": self.protocol_version,
        }

    def ending(self) -> dict[str, Any]:
        """The outcome as stored and hashed; ``nonces`` only when there are any."""
        optional = {"nonces": list(self.nonces)} if self.nonces else {}
        return {
            **optional,
            "faults": [{**asdict(f), "kind": f.kind.value} for f in self.faults],
            "reason": self.reason,
            "places": list(self.places),
            "scores": list(self.scores),
            "duration_ms": self.duration_ms,
            "meta": self.meta,
        }

    def sealed(self, *, header_hash: str | None = None) -> MatchRecord:
        """This record with every chain hash computed; with ``header_hash``, the chain
        of events and outcome starts from it instead of the header's own hash."""
        if header_hash is None:
            header_hash = sha256_hex(canonical_json(self.header()))
        previous = header_hash
        events = []
        for event in self.events:
            previous = sha256_hex(previous.encode() + canonical_json(event.body()))
            events.append(replace(event, hash=previous))
        outcome_hash = sha256_hex(previous.encode() + canonical_json(self.ending()))
        return replace(
            self, events=tuple(events), header_hash=header_hash, outcome_hash=outcome_hash
        )

    # -- JSON -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.header(),
            **self.ending(),
            "header_hash": self.header_hash,
            "events": [{**e.body(), "hash": e.hash} for e in self.events],
            "outcome_hash": self.outcome_hash,
        }

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRecord:
        try:
            if data.get("format") not in READABLE_FORMATS:
                raise RecordError(
                    f"record format {data.get('format')!r} is not supported"
                    f" (this version reads {', '.join(map(str, READABLE_FORMATS))})"
                )
            seed = data["seed"]
            if seed is None and data["format"] == 1:
                raise RecordError("format 1 record without a seed")
            get_game(data["game"])
            return cls(
                match_id=str(data["match_id"]),
                game=str(data["game"]),
                rules={str(k): str(v) for k, v in data["rules"].items()},
                num_seats=int(data["num_seats"]),
                seed=None if seed is None else int(seed),
                seats=tuple(
                    SeatInfo(
                        seat=int(s["seat"]),
                        bot=str(s["bot"]),
                        version=str(s.get("version", "")),
                        command=tuple(str(c) for c in s.get("command", ())),
                        address=str(s.get("address", "")),
                        start_sent=bool(s.get("start_sent", True)),
                        ready=bool(s.get("ready", True)),
                        deltas=bool(s.get("deltas", False)),
                        protocol=int(s.get("protocol", 0)),
                    )
                    for s in data["seats"]
                ),
                events=tuple(_event_from_dict(e) for e in data["events"]),
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
                time_limit_ms=int(data.get("time_limit_ms", 0)),
                protocol_version=int(data.get("protocol_version", 1)),
                bot_match_id=str(data.get("bot_match_id", "")),
                nonces=tuple(str(n) for n in data.get("nonces", ())),
                format=int(data["format"]),
                meta=dict(data.get("meta", {})),
                header_hash=str(data.get("header_hash", "")),
                outcome_hash=str(data.get("outcome_hash", "")),
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


def _event_from_dict(e: dict[str, Any]) -> RecordedEvent:
    def optional(key: str, kind: type[Any]) -> Any:
        value = e.get(key)
        return None if value is None else kind(value)

    outcome = e.get("outcome")
    return RecordedEvent(
        seat=optional("seat", int),
        outcome=None if outcome is None else tuple(int(v) for v in outcome),
        action=e.get("action"),
        elapsed_ms=optional("elapsed_ms", float),
        at_ms=optional("at_ms", float),
        turn=optional("turn", int),
        obs=optional("obs", str),
        mixed=optional("mixed", str),
        state=str(e.get("state", "")),
        hash=str(e.get("hash", "")),
    )


def chain_problems(record: MatchRecord, *, header: bool = True) -> list[str]:
    """Where the stored hash chain disagrees with the content; empty if intact.

    Problems are listed in record order, so the first one names the first
    altered part (header, event N counted from 1, or outcome). ``header=False``
    leaves the header's own hash unchecked and checks the chain from the stored
    ``header_hash`` on: for a public copy, whose seats' commands the server emptied
    (``league.server.views.public_record``), so its header no longer hashes as sealed.
    """
    expected = record.sealed() if header else record.sealed(header_hash=record.header_hash)
    problems = []
    if expected.header_hash != record.header_hash:
        problems.append("header: hash does not match its content")
    for index, (mine, good) in enumerate(zip(record.events, expected.events, strict=True), 1):
        if mine.hash != good.hash:
            problems.append(
                f"event {index}: hash does not match (the event or one before it was altered)"
            )
            break
    if expected.outcome_hash != record.outcome_hash:
        problems.append("outcome: hash does not match its content")
    return problems


LEGACY_OUTPUT = "; its output ends: "
"""What referees before issue 42 (item 2) appended to a start-up fault's message,
followed by the end of the bot's own output: text the bot chose, in a public record."""
LEGACY_NONCE = re.compile(r"""with nonce (?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"), but""")
"""How they quoted the nonce a bot answered with (its own text, up to 40 characters)."""


def without_bot_output(record: MatchRecord) -> MatchRecord:
    """``record`` with what older referees quoted of a bot's own text in its fault
    messages taken out (:data:`LEGACY_OUTPUT` and all after it, a wrong nonce: see
    :data:`LEGACY_NONCE`), its chain sealed again from its stored header hash (so a
    public copy, whose header the server changed, still checks with
    :func:`chain_problems` ``header=False``). A record written since holds none of it
    and is returned as it is. For stored records of older referees before they are
    served; the details of a gRPC status they quoted are not recognised here."""
    faults = tuple(replace(fault, message=_referee_words(fault.message)) for fault in record.faults)
    if faults == record.faults:
        return record
    return replace(record, faults=faults).sealed(header_hash=record.header_hash)


def _referee_words(message: str) -> str:
    message = message.split(LEGACY_OUTPUT, 1)[0]
    return LEGACY_NONCE.sub("with a nonce of its own (not quoted), but", message)
