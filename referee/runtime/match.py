"""Run one match: seats, the decision loop, faults, and the record.

Every seat is held by its own task for the whole match (process, connection and
stream live and die inside it), the decision loop runs in the parent task, and
whatever a bot does wrong becomes a named fault against its seat: the loop
stops, the faulting seat forfeits (placed last; the others keep their standing
at that moment) and every process is reaped before :func:`run_match` returns.
"""

# long module: one match's seats, decision loop, faults and record share the seat tasks'
# state; the driver, messages and faults it uses are modules of their own

from __future__ import annotations

import functools
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

import trio
from google.protobuf import json_format

from arena.v1 import bot_pb2
from referee.core import messages
from referee.core.catalogue import get_codec, get_game
from referee.core.chance import ChanceKeyError, ChanceStream, check_key, key_from_seed, new_secret
from referee.core.digests import state_digester
from referee.core.driver import Decision, MatchDriver
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.faults import (
    BadProbabilities,
    BotFault,
    BotStartupError,
    BotTimeout,
    HostUnavailable,
    IllegalAction,
    ProtocolViolation,
)
from referee.core.mixed import (
    MAX_ENTRIES,
    BadProbabilitiesError,
    Distribution,
    MixedAnswer,
    checked,
    commit,
    draw,
    mixed_key,
    new_salt,
)
from referee.core.protocol import MIXED_PROTOCOL, NONCE_PROTOCOL, PROTOCOL_VERSION, seat_protocol
from referee.gamekit.base import (
    CHANCE,
    Game,
    GameError,
    IllegalActionError,
    MalformedActionError,
    Outcome,
    forfeit,
)
from referee.records.record import (
    FORMAT_VERSION,
    MatchRecord,
    RecordedEvent,
    RecordedFault,
    SeatInfo,
)
from referee.runtime.channel import Early, SeatStream
from referee.runtime.launcher import FreshLauncher, Launcher, Lease
from referee.runtime.process import BotSpec
from referee.runtime.public_text import NOT_DESCRIBED, action_quotable
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig
from referee.wire import Codec

log = logging.getLogger("arena.referee")


@dataclass(frozen=True, slots=True)
class Limits:
    """Time budgets of a match, in seconds."""

    decision_s: float = 2.0
    """Time a seat has per decision (sent to the bot as ``time_limit_ms``)."""
    seat_decision_s: Mapping[int, float] = field(default_factory=dict)
    """Seats with a time per decision of their own instead of ``decision_s`` (a
    human seat's generous but bounded clock, :mod:`league.execution.human_play`)."""
    grace_s: float = 0.25
    """Transport margin the referee allows on top of ``decision_s``."""
    startup_s: float = 15.0
    """Time a bot has to start, answer Health and confirm MatchStart."""
    finish_s: float = 1.0
    """Time a bot has to close its stream after MatchEnd."""
    min_protocol: int = 1
    """The lowest protocol version a seat may speak: a bot whose Health announces
    less faults at start-up (a server ladder requires 3, whose answers echo the
    request's nonce, so a blind pre-answer cannot land)."""

    def __post_init__(self) -> None:
        for name in ("decision_s", "startup_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        for seat, seconds in self.seat_decision_s.items():
            if seconds <= 0:
                raise ValueError(f"seat {seat}'s decision time must be positive, got {seconds!r}")
        if self.grace_s < 0 or self.finish_s < 0:
            raise ValueError("grace_s and finish_s must not be negative")
        if not 1 <= self.min_protocol <= PROTOCOL_VERSION:
            raise ValueError(
                f"min_protocol must be 1..{PROTOCOL_VERSION}, got {self.min_protocol!r}"
            )

    def decision_for(self, seat: int) -> float:
        """Seconds ``seat`` has per decision."""
        return self.seat_decision_s.get(seat, self.decision_s)


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
    last_of_deal: bool = True
    """No other match of ``deal_group`` is left to play after this one: a warm pool
    parks the processes of the group's earlier matches until this one ends."""
    single_use: bool = False
    """Every bot process of this match plays it and no other: the launcher stops it
    when the match ends (:attr:`referee.runtime.launcher.Lease.retire`). Checks and rolling
    ladders set it, so a process's match count and age never tell one from the
    other. A warm pool hands such a match a fresh process only if every match it
    serves sets it (then it never holds an idle one)."""
    bot_match_id: str = ""
    """What the seats are sent as ``MatchStart.match_id``. Empty (every league,
    check and command-line match): an opaque token
    (:func:`referee.core.messages.new_match_token`), so no bot learns its context from
    it; ``match_id`` stays the referee's own. Only benchmarks whose own bot must
    know the match set it."""

    def __post_init__(self) -> None:
        if self.chance_key is not None:
            check_key(self.chance_key)
        if self.seed is not None and self.chance_key is not None:
            raise ChanceKeyError(f"give a seed or a chance key, not both (seed {self.seed!r})")

    def chance(self, key: bytes | None = None) -> ChanceStream:
        """The match's chance stream: from ``key`` (the match's :meth:`key`, drawn
        once per match by :func:`run_match`, which also derives the mixed draws'
        key from it), by default a fresh :meth:`key` (a secret one when neither
        key nor seed is set). A spec whose chance is its own may ignore ``key``
        (``arena exploit``'s probe plans the dice)."""
        return ChanceStream(self.key() if key is None else key)

    def key(self) -> bytes:
        """The match's chance key: ``chance_key``, else the key of ``seed``, else a fresh
        secret (a new one at each call)."""
        if self.chance_key is not None:
            return self.chance_key
        if self.seed is not None:
            return key_from_seed(self.seed)
        return new_secret()

    def draw_mixed(
        self, seat: int, view: Any, distribution: Distribution, key: bytes, turn: int
    ) -> Any:
        """The action a checked mixed move of ``seat`` at its observation ``view``
        plays: the referee's keyed draw (:func:`referee.core.mixed.draw` under the
        match's mixed key). Like :meth:`chance`, a spec whose randomness is its own
        may choose instead (``arena exploit``'s probe, which also chooses the dice;
        it must return an action of ``distribution``, never one without weight)."""
        return draw(distribution, key, turn)


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
    :mod:`referee.runtime.channel`), even while another seat is being asked."""

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
    on_event: Callable[[Event], None] | None = None,
    mixed: dict[int, list[MixedAnswer]] | None = None,
) -> MatchRecord:
    """Play ``spec`` to the end and return its record. Raises only for bad specs
    (unknown game, bad rules, wrong seat count): never because of a bot.

    ``logs``, if given, receives what each seat's process wrote during the match
    (capped; for the bot's author, never part of the public record), a bot that
    never became ready included (what it wrote before it failed). ``on_event``
    is called with each engine event as it is applied (a live spectator's feed,
    :mod:`league.server.human_games`: it sees omniscient events and must show only
    their public text). ``mixed``, if given, receives each seat's mixed moves (the
    probabilities it stated and the salt of each public commitment): like ``logs``,
    for the seat's author only."""
    table = _Table(spec, limits or Limits(), launcher or FreshLauncher(), observer, logs)
    table.on_event = on_event
    table.mixed_answers = mixed if mixed is not None else {}
    return await table.run()


class _Table:
    """One match being played: what its seat tasks and its decision loop share.

    Each seat's task (:meth:`hold_seat`) leases the seat's bot, opens its stream and
    holds it until the decision loop (:meth:`play`, in the parent task) is done.
    """

    def __init__(
        self,
        spec: MatchSpec,
        limits: Limits,
        launcher: Launcher,
        observer: MessageLog | None,
        logs: dict[int, bytes] | None,
    ) -> None:
        self.spec = spec
        self.limits = limits
        self.launcher = launcher
        self.observer = observer
        self.logs = logs
        self.game = get_game(spec.game)
        self.rules = self.game.parse_rules(dict(spec.rules))
        self.game.check_seats(self.rules, len(spec.bots))
        self.codec = get_codec(spec.game)
        self.quotable = action_quotable(self.codec)
        """A fault message may describe this game's actions (they carry no text)."""
        self.match_id = spec.match_id or uuid.uuid4().hex[:12]
        self.bot_match_id = spec.bot_match_id or messages.new_match_token(
            match_id=self.match_id, seed=spec.seed, key=spec.chance_key
        )
        self.raw_rules = self.game.format_rules(self.rules)
        self.seats = [_Seat(i, bot) for i, bot in enumerate(spec.bots)]
        self.start_message = {
            seat.index: messages.match_start(
                match_id=self.bot_match_id,
                game=spec.game,
                rules=self.raw_rules,
                seat=seat.index,
                num_seats=len(self.seats),
            )
            for seat in self.seats
        }
        self.started_at = datetime.now(UTC).isoformat(timespec="milliseconds")
        self.clock_start = time.perf_counter()
        self.done = trio.Event()
        """Set when the decision loop is over: the seat tasks then close their streams."""
        self.watch = EarlyWatch()
        self.on_event: Callable[[Event], None] | None = None
        self.mixed_answers: dict[int, list[MixedAnswer]] = {}
        """Each seat's mixed moves, for its author (never in the record)."""
        self.mixed_key = b""
        """Where the mixed draws come from (:func:`referee.core.mixed.mixed_key`)."""

    async def run(self) -> MatchRecord:
        """Start a task per seat, play once every seat is ready or failed, seal the record."""
        record: MatchRecord | None = None
        async with trio.open_nursery() as nursery:
            for seat in self.seats:
                nursery.start_soon(self.hold_seat, seat)
            try:
                for seat in self.seats:
                    await seat.ready.wait()
                record = await self.play()
            finally:
                self.done.set()
        assert record is not None
        duration_ms = _since(self.clock_start)
        return replace(record, started_at=self.started_at, duration_ms=duration_ms).sealed()

    # -- the seats ---------------------------------------------------------------

    async def hold_seat(self, seat: _Seat) -> None:
        """Lease the seat's bot and hold it until the match ends; whatever goes wrong
        is the seat's fault, unless the host could not start the bot."""
        try:
            async with self.launcher.lease(
                seat.bot,
                self.limits.startup_s,
                group=self.spec.deal_group,
                last_of_deal=self.spec.last_of_deal,
            ) as lease:
                seat.lease = lease
                if self.spec.single_use:
                    lease.retire = True
                try:
                    await self.open_seat(seat, lease)
                except Exception:
                    lease.faulty = True
                    raise
                finally:
                    if self.logs is not None:
                        self.logs[seat.index] = lease.log()
        except BotFault as fault:
            if seat.fault is None:
                seat.fault = fault
            if self.logs is not None and fault.output and seat.index not in self.logs:
                self.logs[seat.index] = fault.output  # a failed start's output: its author's
        except HostUnavailable as error:
            seat.host_error = str(error)
        except Exception as error:  # e.g. an address gRPC cannot parse: still this seat's
            # Its text may hold anything (the record is public): the operator's log has it.
            log.warning(
                "seat %d (%s): could not reach the bot: %r", seat.index, seat.bot.name, error
            )
            if seat.fault is None:
                seat.fault = BotStartupError(f"could not reach the bot ({type(error).__name__})")
        finally:
            seat.ready.set()

    async def open_seat(self, seat: _Seat, lease: Lease) -> None:
        """Open the stream, confirm MatchStart, then hold it until the match ends."""
        health = lease.connection.health
        seat.protocol = seat_protocol(health.protocol_version if health else 0)
        if seat.protocol < self.limits.min_protocol:
            lease.faulty = True  # it is not fit for this match: do not reuse it
            raise BotStartupError(
                f"the bot announced protocol {health.protocol_version if health else 0}"
                f" (speaks {seat.protocol}); this match requires protocol"
                f" {self.limits.min_protocol} or later: update the bot's SDK"
            )
        stream = lease.connection.open_stream(on_early=self.watch.callback(seat.index))
        try:
            ready = await self._start(seat, stream)
            seat.deltas = ready.observation_deltas
            seat.stream = stream
            seat.ready.set()
            await self.done.wait()
            if not await stream.finish(self.limits.finish_s):
                lease.faulty = True  # it did not close its side: do not reuse it
        finally:
            stream.cancel()

    async def _start(self, seat: _Seat, stream: SeatStream) -> bot_pb2.Ready:
        """Send the seat MatchStart; its Ready, or :class:`BotStartupError`."""
        message = self.start_message[seat.index]
        if self.observer:
            self.observer.on_send(seat.index, message)
        stream.send(message)
        seat.start_sent = True
        with trio.move_on_after(self.limits.startup_s) as scope:
            try:
                reply = await stream.receive()
            except BotFault as fault:  # closed, broke or garbled before Ready
                raise BotStartupError(f"no Ready: {fault.message}") from None
        if scope.cancelled_caught:
            raise BotStartupError(f"no Ready within {self.limits.startup_s:g} s of MatchStart")
        if reply.WhichOneof("kind") != "ready":
            raise BotStartupError(
                f"answered MatchStart with {reply.WhichOneof('kind') or 'nothing'} instead of Ready"
            )
        return reply.ready

    # -- the decision loop -----------------------------------------------------------

    async def play(self) -> MatchRecord:
        """The decision loop. Returns the record; every bot failure becomes a fault.

        An engine error on a well-formed action ends the match as ``aborted``: no
        fault, the error text in ``meta["error"]``.
        """
        key = self.spec.key()
        rng = self.spec.chance(key)
        self.mixed_key = mixed_key(key)
        driver = MatchDriver(
            self.game,
            self.rules,
            len(self.seats),
            codec=self.codec,
            deltas=[seat.deltas for seat in self.seats],
            digest=state_digester(FORMAT_VERSION),
        )
        events: list[RecordedEvent] = []
        faults: list[RecordedFault] = []
        nonces: list[str] = []
        # A host that could not start a seat's bot blames no bot, not even the others.
        aborted = "; ".join(seat.host_error for seat in self.seats if seat.host_error)
        for seat in self.seats:
            if seat.fault is not None and not aborted:
                faults.append(_fault_entry(seat, seat.fault, 0))
        while not faults and not aborted and (actor := driver.to_act()) is not None:
            if actor == CHANCE:
                drawn = driver.draw(rng)
                digest = driver.apply_chance(drawn)
                if self.on_event is not None:
                    self.on_event(ChanceEvent(drawn))
                events.append(
                    RecordedEvent(
                        seat=None, outcome=drawn, at_ms=_since(self.clock_start), state=digest
                    )
                )
                continue
            seat = self.seats[actor]
            decision = driver.decision()
            nonce = messages.new_nonce() if seat.protocol >= NONCE_PROTOCOL else ""
            nonces.append(nonce)
            try:
                events.append(await self._turn(driver, decision, nonce))
            except (BotFault, SeatOffence) as error:
                faults.append(self._blame(seat, error, len(events)))
                break
            except EngineFailure as error:
                aborted = str(error)
                break
        return self._record(driver, events, faults, nonces, aborted)

    @property
    def time_limit_ms(self) -> int:
        """The per-decision time limit sent to the bots."""
        return int(self.limits.decision_s * 1000)

    async def _turn(self, driver: MatchDriver, decision: Decision, nonce: str) -> RecordedEvent:
        """Ask the seat to act, apply its answer, and return the event to record."""
        assert decision.message is not None
        seat = self.seats[decision.seat]
        request = messages.turn_request(
            turn=decision.turn,
            observation=decision.message,
            time_limit_ms=int(self.limits.decision_for(decision.seat) * 1000),
            nonce=nonce,
        )
        answer, elapsed = await _ask(seat, request, self.limits, self.observer, self.watch)
        commitment: str | None = None
        if answer.mixed:
            action, commitment = self._draw(seat, decision, answer)
            action_message = self.codec.encode_action(action)
        else:
            action_message = answer.action
            action = _decode(self.codec, action_message, quotable=self.quotable)
        digest = self._act(driver, decision, action)
        if self.on_event is not None:
            self.on_event(ActionEvent(decision.seat, action))
        return RecordedEvent(
            seat=decision.seat,
            action=action_json(action_message.SerializeToString(deterministic=True)),
            elapsed_ms=round(elapsed * 1000, 3),
            at_ms=_since(self.clock_start),
            turn=decision.turn,
            obs=decision.digest,
            state=digest,
            mixed=commitment,
        )

    def _draw(
        self, seat: _Seat, decision: Decision, answer: bot_pb2.TurnResponse
    ) -> tuple[Any, str]:
        """The action drawn from a mixed move and the public commitment to it; the
        probabilities and the commitment's salt are kept for the seat's author."""
        turn = decision.turn
        if seat.protocol < MIXED_PROTOCOL:
            raise ProtocolViolation(
                f"answered turn {turn} with a mixed move, but spoke protocol {seat.protocol}"
                f" (mixed moves need protocol {MIXED_PROTOCOL})"
            )
        if answer.HasField("action"):
            raise ProtocolViolation(f"answered turn {turn} with both an action and a mixed move")
        if len(answer.mixed) > MAX_ENTRIES:
            raise BadProbabilities(
                f"bad mixed move on turn {turn}: more than {MAX_ENTRIES} entries"
            )
        entries = [
            (_decode(self.codec, entry.action, quotable=self.quotable), entry.probability)
            for entry in answer.mixed
        ]
        try:
            distribution = checked(entries, self.game.legal_actions(decision.view))
        except BadProbabilitiesError as error:
            raise BadProbabilities(f"bad mixed move on turn {turn}: {error}") from None
        salt = new_salt()
        self.mixed_answers.setdefault(seat.index, []).append(MixedAnswer(turn, salt, distribution))
        drawn = self.spec.draw_mixed(seat.index, decision.view, distribution, self.mixed_key, turn)
        if drawn not in distribution.actions:  # a spec's own draw must keep to the weights
            raise EngineFailure(f"turn {turn}: the draw chose an action without weight")
        return drawn, commit(salt, distribution)

    def _act(self, driver: MatchDriver, decision: Decision, action: Any) -> str:
        """Apply a decoded action; the engine's refusal becomes the seat's fault, and
        any other engine error an :class:`EngineFailure`. The action and the engine's
        words about it are quoted only where the game's actions carry no text
        (:attr:`quotable`): fault messages and ``meta["error"]`` are public."""
        try:
            # The seat's own view decides legality (as in the SDK helpers).
            return driver.act(decision, action)
        except IllegalActionError as error:
            what = f"{self.game.describe_action(action)}: {error}" if self.quotable else ""
            raise IllegalAction(f"illegal action {what or f'({NOT_DESCRIBED})'}") from None
        except MalformedActionError as error:
            raise ProtocolViolation(
                f"malformed action: {error if self.quotable else NOT_DESCRIBED}"
            ) from None
        except GameError as error:
            what = (
                f"{action!r} rejected: {error}" if self.quotable else f"rejected ({NOT_DESCRIBED})"
            )
            raise IllegalAction(f"action {what}") from None
        except Exception as error:  # the engine's bug, not the bot's fault
            what = (
                f" {action!r} (turn {decision.turn}): {error!r}"
                if self.quotable
                else f" (turn {decision.turn}): {type(error).__name__}"
            )
            raise EngineFailure(
                f"the {self.spec.game} engine failed on seat {decision.seat}'s action{what}"
            ) from error

    def _blame(self, asked: _Seat, error: BotFault | SeatOffence, at_event: int) -> RecordedFault:
        """Record the fault against its seat (the asked seat, or the one that spoke
        out of turn) and never reuse that seat's process."""
        culprit, fault = (
            (self.seats[error.seat], error.fault)
            if isinstance(error, SeatOffence)
            else (asked, error)
        )
        culprit.fault = fault
        if culprit.lease is not None:
            culprit.lease.faulty = True
        return _fault_entry(culprit, fault, at_event)

    def _record(
        self,
        driver: MatchDriver,
        events: list[RecordedEvent],
        faults: list[RecordedFault],
        nonces: list[str],
        aborted: str,
    ) -> MatchRecord:
        """End the match (MatchEnd to every seat still there) and build its record."""
        reason, outcome = _ending(self.game, driver.state, faults, aborted)
        _announce_end(driver, self.seats, reason, outcome, self.observer)
        return MatchRecord(
            match_id=self.match_id,
            game=self.spec.game,
            rules=self.raw_rules,
            num_seats=len(self.seats),
            seed=self.spec.seed,
            seats=tuple(_seat_info(s) for s in self.seats),
            events=tuple(events),
            faults=tuple(faults),
            time_limit_ms=self.time_limit_ms,
            protocol_version=PROTOCOL_VERSION,
            bot_match_id=self.bot_match_id,
            nonces=tuple(nonces) if any(nonces) else (),
            reason=reason,
            places=outcome.places,
            scores=outcome.scores,
            meta=_meta(self.seats, aborted),
        )


def _meta(seats: Sequence[_Seat], aborted: str) -> dict[str, Any]:
    """The record's ``meta``: the referee's error of an aborted match, and the warm-pool
    slot each seat's process held (:attr:`Lease.slot`) when every seat had one."""
    meta: dict[str, Any] = {"error": aborted} if aborted else {}
    slots = [seat.lease.slot if seat.lease is not None else -1 for seat in seats]
    if slots and min(slots) >= 0:
        meta["pool_slots"] = slots
    return meta


def _ending(
    game: Game[Any, Any, Any, Any], state: Any, faults: Sequence[RecordedFault], aborted: str
) -> tuple[Literal["completed", "forfeit", "aborted"], Outcome]:
    """How the match ended and its outcome: a faulting seat forfeits."""
    if faults:
        return "forfeit", forfeit(game.standings(state), {f.seat for f in faults})
    if aborted:
        return "aborted", game.standings(state)  # informative only: an aborted match rates nobody
    return "completed", game.outcome(state)


def _seat_info(seat: _Seat) -> SeatInfo:
    return SeatInfo(
        seat=seat.index,
        bot=seat.bot.name,
        version=seat.bot.version,
        command=seat.bot.command,
        address=seat.bot.address,
        start_sent=seat.start_sent,
        ready=seat.stream is not None,
        deltas=seat.deltas,
        protocol=seat.protocol,
    )


async def _ask(
    seat: _Seat,
    request: bot_pb2.PlayRequest,
    limits: Limits,
    observer: MessageLog | None,
    watch: EarlyWatch,
) -> tuple[bot_pb2.TurnResponse, float]:
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
    decision_s = limits.decision_for(seat.index)
    budget = decision_s + limits.grace_s
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
            f"no answer to turn {turn} within {decision_s:g} s (+{limits.grace_s:g} s grace)"
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
        sent = "no nonce" if not reply.turn.nonce else "a nonce of its own (not quoted)"
        raise ProtocolViolation(
            f"answered turn {turn} with {sent}, but its TurnRequest carried nonce {nonce!r}"
            f" (protocol {seat.protocol}: an answer must echo the nonce of the request it"
            " answers)"
        )
    return reply.turn, elapsed


def _decode(codec: Codec[Any, Any], message: bot_pb2.Action, *, quotable: bool) -> Any:
    """The engine's action; :class:`ProtocolViolation` if it does not decode. Its
    message quotes the codec's words (which print the action) only when ``quotable``
    (:func:`referee.runtime.public_text.action_quotable`)."""
    try:
        return codec.decode_action(message)
    except MalformedActionError as error:
        raise ProtocolViolation(
            f"malformed action: {error if quotable else NOT_DESCRIBED}"
        ) from None
    except (GameError, ValueError, TypeError, KeyError, IndexError) as error:
        what = (
            f"{message!r}: {error!r}" if quotable else f"({NOT_DESCRIBED}): {type(error).__name__}"
        )
        raise ProtocolViolation(f"undecodable action {what}") from None


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
    spec: MatchSpec,
    limits: Limits | None = None,
    *,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
    logs: dict[int, bytes] | None = None,
) -> MatchRecord:
    """Blocking wrapper: run one match in a fresh trio run, bots in ``sandbox``;
    ``logs`` as :func:`run_match`'s."""

    async def main() -> MatchRecord:
        return await run_match(spec, limits, launcher=FreshLauncher(sandbox=sandbox), logs=logs)

    return trio.run(main)
