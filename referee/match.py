"""Run one match: seats, the decision loop, faults, and the record.

Every seat is held by its own task for the whole match (process, connection and
stream live and die inside it), the decision loop runs in the parent task, and
whatever a bot does wrong becomes a named fault against its seat: the loop
stops, the faulting seat forfeits (placed last; the others keep their standing
at that moment) and every process is reaped before :func:`run_match` returns.
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import trio
from google.protobuf import json_format

from arena.v1 import bot_pb2
from referee import messages
from referee.chance import ChanceKeyError, ChanceStream, chance_stream, check_key
from referee.channel import Early, SeatStream
from referee.core.catalogue import get_codec, get_game
from referee.driver import MatchDriver
from referee.faults import (
    BotFault,
    BotStartupError,
    BotTimeout,
    HostUnavailable,
    IllegalAction,
    ProtocolViolation,
)
from referee.games.base import (
    CHANCE,
    Game,
    GameError,
    IllegalActionError,
    MalformedActionError,
    Outcome,
    forfeit,
)
from referee.launcher import FreshLauncher, Launcher, Lease
from referee.process import BotSpec
from referee.record import (
    MatchRecord,
    RecordedEvent,
    RecordedFault,
    SeatInfo,
    state_digester,
)
from referee.sandbox import DEFAULT_SANDBOX, SandboxConfig
from referee.wire import Codec


@dataclass(frozen=True, slots=True)
class Limits:
    """Time budgets of a match, in seconds."""

    decision_s: float = 2.0
    """Time a seat has per decision (sent to the bot as ``time_limit_ms``)."""
    grace_s: float = 0.25
    """Transport margin the referee allows on top of ``decision_s``."""
    startup_s: float = 15.0
    """Time a bot has to start, answer Health and confirm MatchStart."""
    finish_s: float = 1.0
    """Time a bot has to close its stream after MatchEnd."""

    def __post_init__(self) -> None:
        for name in ("decision_s", "startup_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        if self.grace_s < 0 or self.finish_s < 0:
            raise ValueError("grace_s and finish_s must not be negative")


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """What to play: game, rule options (text), where chance comes from, one bot per seat.

    Chance: ``chance_key`` (a league's deal key) if given, else ``seed`` (a
    reproducible, guessable run: the record keeps the seed), else a fresh secret
    drawn when the match starts. The key never reaches a bot or the record.
    """

    game: str
    bots: tuple[BotSpec, ...]
    seed: int | None = None
    rules: Mapping[str, str] = field(default_factory=dict)
    match_id: str = ""
    deal_group: str = ""
    """Duplicate group of the deal ("" = none): a warm pool never gives one process
    two matches of the same group, so no bot remembers a deal it is dealt again."""
    chance_key: bytes | None = field(default=None, repr=False)
    bot_match_id: str = ""
    """What the seats are sent as ``MatchStart.match_id``. Empty (every league,
    check and command-line match): an opaque token
    (:func:`referee.messages.new_match_token`), so no bot learns its context from
    it; ``match_id`` stays the referee's own. Only benchmarks whose own bot must
    know the match set it."""

    def __post_init__(self) -> None:
        if self.chance_key is not None:
            check_key(self.chance_key)
        if self.seed is not None and self.chance_key is not None:
            raise ChanceKeyError(f"give a seed or a chance key, not both (seed {self.seed!r})")

    def chance(self) -> ChanceStream:
        """The match's chance stream (a fresh secret one when neither key nor seed is set)."""
        return chance_stream(seed=self.seed, key=self.chance_key)


@dataclass
class _Seat:
    index: int
    bot: BotSpec
    ready: trio.Event = field(default_factory=trio.Event)
    stream: SeatStream | None = None
    lease: Lease | None = None
    fault: BotFault | None = None
    host_error: str = ""
    """The host could not start this seat's bot: the match is aborted, nobody blamed."""
    start_sent: bool = False
    deltas: bool = False
    """The seat asked for observation deltas in its Ready."""
    protocol: int = 0
    """The protocol version the seat speaks (0 until its bot answered Health)."""


class SeatOffence(Exception):
    """A fault of ``seat`` noticed while the referee was busy with another seat."""

    def __init__(self, seat: int, fault: BotFault) -> None:
        super().__init__(f"seat {seat}: {fault.message}")
        self.seat = seat
        self.fault = fault


class EngineFailure(Exception):
    """The game engine raised on an action it should have accepted or refused: a
    referee bug, not a bot fault. The match is recorded as ``aborted``."""


class EarlyWatch:
    """Notices a message any seat sends before it was asked for (see
    :mod:`referee.channel`), even while another seat is being asked."""

    def __init__(self) -> None:
        self.offence: SeatOffence | None = None
        self._listening: trio.CancelScope | None = None

    def callback(self, seat: int) -> Callable[[Early], None]:
        def on_early(early: Early) -> None:
            if self.offence is None:
                self.offence = SeatOffence(seat, early.fault())
            if self._listening is not None:
                self._listening.cancel()

        return on_early

    def check(self) -> None:
        if self.offence is not None:
            raise self.offence

    @contextmanager
    def listening(self) -> Iterator[None]:
        """While waiting for an answer: an early message elsewhere stops the wait."""
        with trio.CancelScope() as scope:
            self._listening = scope
            try:
                yield
            finally:
                self._listening = None


class MessageLog:
    """Every message the referee sent to each seat, as wire bytes (tests, replays)."""

    def __init__(self) -> None:
        self.sent: dict[int, list[bytes]] = {}

    def on_send(self, seat: int, message: bot_pb2.PlayRequest) -> None:
        self.sent.setdefault(seat, []).append(message.SerializeToString(deterministic=True))


async def run_match(
    spec: MatchSpec,
    limits: Limits | None = None,
    *,
    launcher: Launcher | None = None,
    observer: MessageLog | None = None,
    logs: dict[int, bytes] | None = None,
) -> MatchRecord:
    """Play ``spec`` to the end and return its record. Raises only for bad specs
    (unknown game, bad rules, wrong seat count): never because of a bot.

    ``logs``, if given, receives what each seat's process wrote during the match
    (capped; for the bot's author, never part of the public record)."""
    limits = limits or Limits()
    launcher = launcher or FreshLauncher()
    game = get_game(spec.game)
    rules = game.parse_rules(dict(spec.rules))
    game.check_seats(rules, len(spec.bots))
    codec = get_codec(spec.game)
    match_id = spec.match_id or uuid.uuid4().hex[:12]
    bot_match_id = spec.bot_match_id or messages.new_match_token(
        match_id=match_id, seed=spec.seed, key=spec.chance_key
    )
    raw_rules = game.format_rules(rules)
    seats = [_Seat(i, bot) for i, bot in enumerate(spec.bots)]
    start_message = {
        seat.index: messages.match_start(
            match_id=bot_match_id,
            game=spec.game,
            rules=raw_rules,
            seat=seat.index,
            num_seats=len(seats),
        )
        for seat in seats
    }
    started_at = datetime.now(UTC).isoformat(timespec="milliseconds")
    clock_start = time.perf_counter()
    done = trio.Event()
    watch = EarlyWatch()

    async def hold_seat(seat: _Seat) -> None:
        try:
            async with launcher.lease(seat.bot, limits.startup_s, group=spec.deal_group) as lease:
                seat.lease = lease
                try:
                    await open_seat(seat, lease)
                except Exception:
                    lease.faulty = True
                    raise
                finally:
                    if logs is not None:
                        logs[seat.index] = lease.log()
        except BotFault as fault:
            if seat.fault is None:
                seat.fault = fault
        except HostUnavailable as error:
            seat.host_error = str(error)
        except Exception as error:  # e.g. an address gRPC cannot parse: still this seat's
            if seat.fault is None:
                seat.fault = BotStartupError(f"could not reach the bot: {error!r}")
        finally:
            seat.ready.set()

    async def open_seat(seat: _Seat, lease: Lease) -> None:
        """Open the stream, confirm MatchStart, then hold it until the match ends."""
        health = lease.connection.health
        seat.protocol = messages.seat_protocol(health.protocol_version if health else 0)
        stream = lease.connection.open_stream(on_early=watch.callback(seat.index))
        try:
            message = start_message[seat.index]
            if observer:
                observer.on_send(seat.index, message)
            stream.send(message)
            seat.start_sent = True
            with trio.move_on_after(limits.startup_s) as scope:
                try:
                    reply = await stream.receive()
                except BotFault as fault:  # closed, broke or garbled before Ready
                    raise BotStartupError(f"no Ready: {fault.message}") from None
            if scope.cancelled_caught:
                raise BotStartupError(f"no Ready within {limits.startup_s:g} s of MatchStart")
            if reply.WhichOneof("kind") != "ready":
                raise BotStartupError(
                    f"answered MatchStart with {reply.WhichOneof('kind') or 'nothing'}"
                    " instead of Ready"
                )
            seat.deltas = reply.ready.observation_deltas
            seat.stream = stream
            seat.ready.set()
            await done.wait()
            if not await stream.finish(limits.finish_s):
                lease.faulty = True  # it did not close its side: do not reuse it
        finally:
            stream.cancel()

    record: MatchRecord | None = None
    async with trio.open_nursery() as nursery:
        for seat in seats:
            nursery.start_soon(hold_seat, seat)
        try:
            for seat in seats:
                await seat.ready.wait()
            record = await _play(
                game,
                codec,
                rules,
                raw_rules,
                spec,
                match_id,
                bot_match_id,
                seats,
                limits,
                observer,
                clock_start,
                watch,
            )
        finally:
            done.set()
    assert record is not None
    return replace(record, started_at=started_at, duration_ms=_since(clock_start)).sealed()


async def _play(
    game: Game[Any, Any, Any, Any],
    codec: Codec[Any, Any],
    rules: Any,
    raw_rules: dict[str, str],
    spec: MatchSpec,
    match_id: str,
    bot_match_id: str,
    seats: Sequence[_Seat],
    limits: Limits,
    observer: MessageLog | None,
    clock_start: float,
    watch: EarlyWatch,
) -> MatchRecord:
    """The decision loop. Returns the record; every bot failure becomes a fault.

    An engine error on a well-formed action ends the match as ``aborted``: no
    fault, the error text in ``meta["error"]``.
    """
    rng = spec.chance()
    driver = MatchDriver(
        game,
        rules,
        len(seats),
        codec=codec,
        deltas=[seat.deltas for seat in seats],
        digest=state_digester(),
    )
    events: list[RecordedEvent] = []
    faults: list[RecordedFault] = []
    nonces: list[str] = []
    # A host that could not start a seat's bot blames no bot, not even the others.
    aborted = "; ".join(seat.host_error for seat in seats if seat.host_error)
    for seat in seats:
        if seat.fault is not None and not aborted:
            faults.append(_fault_entry(seat, seat.fault, 0))
    time_limit_ms = int(limits.decision_s * 1000)
    while not faults and not aborted and (actor := driver.to_act()) is not None:
        if actor == CHANCE:
            drawn = driver.draw(rng)
            digest = driver.apply_chance(drawn)
            events.append(
                RecordedEvent(seat=None, outcome=drawn, at_ms=_since(clock_start), state=digest)
            )
            continue
        seat = seats[actor]
        decision = driver.decision()
        assert decision.message is not None
        turn = decision.turn
        nonce = messages.new_nonce() if seat.protocol >= messages.NONCE_PROTOCOL else ""
        nonces.append(nonce)
        request = messages.turn_request(
            turn=turn, observation=decision.message, time_limit_ms=time_limit_ms, nonce=nonce
        )
        try:
            action_message, elapsed = await _ask(seat, request, limits, observer, watch)
            action = _decode(codec, action_message)
            try:
                # The seat's own view decides legality (as in the SDK helpers).
                digest = driver.act(decision, action)
            except IllegalActionError as error:
                raise IllegalAction(
                    f"illegal action {game.describe_action(action)}: {error}"
                ) from None
            except MalformedActionError as error:
                raise ProtocolViolation(f"malformed action: {error}") from None
            except GameError as error:
                raise IllegalAction(f"action {action!r} rejected: {error}") from None
            except Exception as error:  # the engine's bug, not the bot's fault
                raise EngineFailure(
                    f"the {spec.game} engine failed on seat {actor}'s action"
                    f" {action!r} (turn {turn}): {error!r}"
                ) from error
        except (BotFault, SeatOffence) as error:
            culprit, fault = (
                (seats[error.seat], error.fault)
                if isinstance(error, SeatOffence)
                else (seat, error)
            )
            culprit.fault = fault
            if culprit.lease is not None:
                culprit.lease.faulty = True
            faults.append(_fault_entry(culprit, fault, len(events)))
            break
        except EngineFailure as error:
            aborted = str(error)
            break
        events.append(
            RecordedEvent(
                seat=actor,
                action=action_json(action_message.SerializeToString(deterministic=True)),
                elapsed_ms=round(elapsed * 1000, 3),
                at_ms=_since(clock_start),
                turn=turn,
                obs=decision.digest,
                state=digest,
            )
        )

    state = driver.state
    if faults:
        reason = "forfeit"
        outcome = forfeit(game.standings(state), {f.seat for f in faults})
    elif aborted:
        reason = "aborted"
        outcome = game.standings(state)  # informative only: an aborted match rates nobody
    else:
        reason = "completed"
        outcome = game.outcome(state)
    _announce_end(driver, seats, reason, outcome, observer)
    return MatchRecord(
        match_id=match_id,
        game=spec.game,
        rules=raw_rules,
        num_seats=len(seats),
        seed=spec.seed,
        seats=tuple(
            SeatInfo(
                seat=s.index,
                bot=s.bot.name,
                version=s.bot.version,
                command=s.bot.command,
                address=s.bot.address,
                start_sent=s.start_sent,
                ready=s.stream is not None,
                deltas=s.deltas,
                protocol=s.protocol,
            )
            for s in seats
        ),
        events=tuple(events),
        faults=tuple(faults),
        time_limit_ms=time_limit_ms,
        protocol_version=messages.PROTOCOL_VERSION,
        bot_match_id=bot_match_id,
        nonces=tuple(nonces) if any(nonces) else (),
        reason=reason,  # type: ignore[arg-type]
        places=outcome.places,
        scores=outcome.scores,
        meta={"error": aborted} if aborted else {},
    )


async def _ask(
    seat: _Seat,
    request: bot_pb2.PlayRequest,
    limits: Limits,
    observer: MessageLog | None,
    watch: EarlyWatch,
) -> tuple[bot_pb2.Action, float]:
    """Send one TurnRequest and wait for its answer under the seat's deadline.

    Raises :class:`SeatOffence` if any seat (this one included) sent a message
    it was not asked for, before or while this seat is asked, and
    :class:`ProtocolViolation` for an answer to another turn or, from a seat of
    protocol 3, one that does not carry the request's nonce.
    """
    assert seat.stream is not None
    turn, nonce = request.turn.turn, request.turn.nonce
    if observer:
        observer.on_send(seat.index, request)
    started = trio.current_time()
    seat.stream.send(request)
    watch.check()  # after sending, so replays know the seat to act was always asked
    budget = limits.decision_s + limits.grace_s
    with trio.move_on_after(budget) as scope, watch.listening():
        try:
            reply = await seat.stream.receive()
        except BotFault as fault:
            if seat.lease is not None and seat.lease.has_exited():
                fault.message = f"{fault.message} (process {seat.lease.describe_exit()})"
                fault.args = (fault.message,)
            raise
    watch.check()
    if scope.cancelled_caught:
        seat.stream.cancel()
        raise BotTimeout(
            f"no answer to turn {turn} within {limits.decision_s:g} s (+{limits.grace_s:g} s grace)"
        )
    elapsed = trio.current_time() - started
    kind = reply.WhichOneof("kind")
    if kind != "turn":
        raise ProtocolViolation(
            f"expected an answer to turn {turn}, got {kind or 'an empty message'}"
        )
    if reply.turn.turn != turn:
        raise ProtocolViolation(f"answered turn {reply.turn.turn} while turn {turn} was asked")
    if nonce and reply.turn.nonce != nonce:
        raise ProtocolViolation(
            f"answered turn {turn} with nonce {reply.turn.nonce[:40]!r}, but its TurnRequest"
            f" carried nonce {nonce!r} (protocol {seat.protocol}: an answer must echo the"
            " nonce of the request it answers)"
        )
    return reply.turn.action, elapsed


def _decode(codec: Codec[Any, Any], message: bot_pb2.Action) -> Any:
    try:
        return codec.decode_action(message)
    except MalformedActionError as error:
        raise ProtocolViolation(f"malformed action: {error}") from None
    except (GameError, ValueError, TypeError, KeyError, IndexError) as error:
        raise ProtocolViolation(f"undecodable action {message!r}: {error!r}") from None


@functools.lru_cache(maxsize=4096)
def action_json(data: bytes) -> dict[str, Any]:
    """An action's protobuf JSON form for the record, from its wire bytes.

    Matches repeat the same few hundred actions (bids, challenges), and the JSON
    mapping costs ~25 µs against ~1 µs to serialise: cached by bytes. The dict is
    shared between records and must not be changed (records copy it when they
    serialise)."""
    message = bot_pb2.Action.FromString(data)
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def _since(clock_start: float) -> float:
    return round((time.perf_counter() - clock_start) * 1000, 3)


def _fault_entry(seat: _Seat, fault: BotFault, at_event: int) -> RecordedFault:
    return RecordedFault(seat=seat.index, kind=fault.kind, message=fault.message, at_event=at_event)


def _announce_end(
    driver: MatchDriver,
    seats: Sequence[_Seat],
    reason: str,
    outcome: Outcome,
    observer: MessageLog | None,
) -> None:
    """Send MatchEnd to every seat that confirmed MatchStart (best effort)."""
    faults = {s.index: s.fault.kind for s in seats if s.fault is not None}
    for seat in seats:
        if seat.stream is None:
            continue
        message = messages.match_end(
            reason=reason,
            outcome=outcome,
            faults=faults,
            observation=driver.final_observation(seat.index),
        )
        if observer:
            observer.on_send(seat.index, message)
        seat.stream.send(message)


def play_match(
    spec: MatchSpec, limits: Limits | None = None, *, sandbox: SandboxConfig = DEFAULT_SANDBOX
) -> MatchRecord:
    """Blocking wrapper: run one match in a fresh trio run, bots in ``sandbox``."""

    async def main() -> MatchRecord:
        return await run_match(spec, limits, launcher=FreshLauncher(sandbox=sandbox))

    return trio.run(main)
