"""The referee's gRPC side: a channel to one bot, readiness, and a per-seat stream
bridged into trio.

grpcio has no trio support, so each Play stream gets one reader thread (taken
from trio's thread cache) that iterates the blocking response stream and hands
each message to the trio run with ``TrioToken.run_sync_soon``: the reader never
waits for trio, so it is back in gRPC asking for the next message while trio
wakes up, and an answer costs one cross-thread hop instead of a round trip
(``trio.from_thread.run`` spawned a task per message and blocked the reader
until it had run). Outgoing messages go into a thread-safe queue that gRPC's
own thread drains. Timeouts are trio scopes in the caller; when one fires the
caller cancels the call, which ends the reader's iteration and frees its thread.

Every message from a bot must answer a request (MatchStart or TurnRequest) the
referee has already sent. :meth:`SeatStream.send` marks the stream as awaiting
an answer *before* the request is queued; the reader thread consumes that mark
when a message arrives, so a message that arrives while nothing is awaited (a
second answer, or an answer streamed ahead of its request) is an early message:
the stream reports it to its ``on_early`` callback at once and :meth:`receive`
refuses it with :class:`~referee.core.faults.ProtocolViolation`.

The hand-over queue is unbounded but cannot grow: messages that are not early
are at most the answers asked for, and after the first early message (a fault
already) later ones are dropped; only how the stream ended still follows.
"""

from __future__ import annotations

import math
import os
import queue
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
import outcome
import trio

from arena.v1 import bot_pb2, bot_pb2_grpc
from referee.core.faults import BotCrashed, BotFault, BotStalled, BotStartupError, ProtocolViolation
from referee.runtime.process import BotSpec

MAX_MESSAGE_FROM_BOT = 1 << 20
"""Largest message a bot may send (1 MiB); anything larger breaks its stream."""

CHANNEL_OPTIONS: list[tuple[str, int]] = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_FROM_BOT),
    ("grpc.max_send_message_length", 16 << 20),
    # Detect a frozen peer during a stream: ping every 5 s, give up after 2 s.
    ("grpc.keepalive_time_ms", 5000),
    ("grpc.keepalive_timeout_ms", 2000),
    ("grpc.http2.ping_timeout_ms", 2000),
    ("grpc.keepalive_permit_without_calls", 0),
    ("grpc.http2.max_pings_without_data", 0),
    # A bot that is still starting: retry quickly instead of the 1 s default backoff.
    ("grpc.initial_reconnect_backoff_ms", 20),
    ("grpc.min_reconnect_backoff_ms", 20),
    ("grpc.max_reconnect_backoff_ms", 200),
    # Every connection is private to one bot process.
    ("grpc.use_local_subchannel_pool", 1),
]


@dataclass(frozen=True, slots=True)
class Early:
    """A message that arrived while the referee was not waiting for an answer."""

    message: bot_pb2.PlayResponse
    answered: int
    """Answers the referee had asked for up to then (MatchStart counts as one)."""

    def fault(self) -> ProtocolViolation:
        return ProtocolViolation(
            f"sent {describe_response(self.message)} before the referee asked for it"
            f" (after {self.answered} request(s) answered)"
        )


def describe_response(message: bot_pb2.PlayResponse) -> str:
    """A short description of a bot message for fault texts (kind, turn number)."""
    kind = message.WhichOneof("kind")
    if kind == "turn":
        return f"an answer to turn {message.turn.turn}"
    return f"a {kind} message" if kind else "an empty message"


EarlyCallback = Callable[[Early], None]


@dataclass(frozen=True, slots=True)
class StreamClosed:
    """The bot's response stream ended; ``code`` is None for a clean end."""

    code: grpc.StatusCode | None
    details: str = ""


class BotConnection:
    """A gRPC channel to one bot (a process we started, or a running service).

    ``tls_ca`` (PEM bytes) makes the channel TLS, verifying the bot's certificate
    against that CA; ``token`` is sent as ``authorization: Bearer <token>`` call
    metadata on Health and Play, so the bot's service can refuse other callers.
    """

    def __init__(
        self,
        address: str,
        *,
        token: str = "",
        tls_ca: bytes | None = None,
        locate: Callable[[], str | None] | None = None,
    ) -> None:
        self.address = address
        self.locate = locate
        """For a bot the referee started: finds its socket (None until it exists),
        and the channel is opened only then (:meth:`wait_ready`)."""
        self.tls_ca = tls_ca
        self.metadata: tuple[tuple[str, str], ...] = (
            (("authorization", f"Bearer {token}"),) if token else ()
        )
        self.channel: grpc.Channel | None = None
        self.health: bot_pb2.HealthResponse | None = None
        if locate is None:
            self._open(address)

    def _open(self, address: str) -> None:
        self.address = address
        if self.tls_ca is not None:
            credentials = grpc.ssl_channel_credentials(root_certificates=self.tls_ca)
            self.channel = grpc.secure_channel(address, credentials, options=CHANNEL_OPTIONS)
        else:
            self.channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
        self.stub = bot_pb2_grpc.BotServiceStub(self.channel)

    @classmethod
    def local(cls, locate: Callable[[], str | None]) -> BotConnection:
        """A connection to a bot process the referee started, whose socket
        ``locate`` finds (see :meth:`referee.runtime.process.BotProcess.locate_socket`)."""
        return cls("its socket", locate=locate)

    @classmethod
    def remote(cls, spec: BotSpec) -> BotConnection:
        """A connection to the running service ``spec.address``, with its token and
        TLS CA read now; :class:`BotStartupError` names a missing variable or file."""
        token, tls_ca = remote_credentials(spec)
        return cls(spec.address, token=token, tls_ca=tls_ca)

    async def wait_ready(self, budget: float, *, exited: object = None) -> bot_pb2.HealthResponse:
        """Call Health until it answers, within ``budget`` seconds.

        ``exited`` is a zero-argument callable telling whether the process has
        died (then waiting stops at once). A bot that refuses the referee's
        credentials (UNAUTHENTICATED, PERMISSION_DENIED) fails at once.
        """
        last_error = "no answer"
        with trio.move_on_after(budget):
            while True:
                if callable(exited) and (reason := exited()):
                    raise BotStartupError(f"bot {reason} before it was ready")
                if self.channel is None and self.locate is not None:
                    address = self.locate()
                    if address is None:
                        await trio.sleep(0.01)
                        continue
                    self._open(address)
                try:
                    self.health = await trio.to_thread.run_sync(self._health_call)
                    return self.health
                except grpc.RpcError as error:
                    last_error = rpc_error_words(error)
                    if error.code() in REFUSED:
                        raise BotStartupError(
                            f"bot at {self.address} refused the referee's credentials"
                            f" ({last_error})"
                        ) from None
                await trio.sleep(0.02)
        if last_error.startswith("DEADLINE_EXCEEDED") and self.locate is None:
            # wait_for_ready hides why the connection fails (e.g. a TLS handshake
            # with the wrong certificate): ask once more without it.
            last_error = await trio.to_thread.run_sync(self._why_not_ready) or last_error
        if self.channel is None:
            last_error = "it never created its socket"
        raise BotStartupError(f"bot not ready at {self.address} within {budget:g} s ({last_error})")

    def _health_call(self, wait_for_ready: bool = True) -> bot_pb2.HealthResponse:
        response: bot_pb2.HealthResponse = self.stub.Health(
            bot_pb2.HealthRequest(),
            timeout=0.5,
            wait_for_ready=wait_for_ready,
            metadata=self.metadata,
        )
        return response

    def _why_not_ready(self) -> str:
        try:
            self._health_call(wait_for_ready=False)
        except grpc.RpcError as error:
            return rpc_error_words(error)
        return ""

    def open_stream(self, on_early: EarlyCallback | None = None) -> SeatStream:
        return SeatStream(
            self.stub,
            trio.lowlevel.current_trio_token(),
            metadata=self.metadata,
            on_early=on_early,
        )

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()


def remote_credentials(spec: BotSpec) -> tuple[str, bytes | None]:
    """The token (from ``spec.token_env`` or ``spec.token_file``) and CA bytes
    (``spec.tls_ca``) for a bot reached by address."""
    token = ""
    if spec.token_env:
        token = os.environ.get(spec.token_env, "").strip()
        if not token:
            raise BotStartupError(
                f"{spec.name}: environment variable {spec.token_env!r} (its token) is not set"
            )
    elif spec.token_file:
        token = _read(spec, spec.token_file, "token file").decode("utf-8", "replace").strip()
        if not token:
            raise BotStartupError(f"{spec.name}: token file {spec.token_file!r} is empty")
    if any(ch.isspace() or not ch.isprintable() for ch in token):
        raise BotStartupError(f"{spec.name}: its token contains spaces or control characters")
    tls_ca = _read(spec, spec.tls_ca, "TLS CA file") if spec.tls_ca else None
    return token, tls_ca


def _read(spec: BotSpec, path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise BotStartupError(f"{spec.name}: cannot read its {what} {path!r}: {error}") from None


REFUSED = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
"""Health answers that mean "not you": no point retrying until the budget runs out."""


class SeatStream:
    """One seat's bidirectional Play stream, usable from trio."""

    def __init__(
        self,
        stub: bot_pb2_grpc.BotServiceStub,
        token: trio.lowlevel.TrioToken,
        *,
        metadata: Sequence[tuple[str, str]] = (),
        on_early: EarlyCallback | None = None,
    ) -> None:
        self._token = token
        self._outbox: queue.SimpleQueue[bot_pb2.PlayRequest | None] = queue.SimpleQueue()
        # Unbounded, yet never more than a few items (see the module docstring):
        # the reader must not block on trio, or each answer costs a round trip.
        send, receive = trio.open_memory_channel[bot_pb2.PlayResponse | Early | StreamClosed](
            math.inf
        )
        self._send, self._receive = send, receive
        self._closed: StreamClosed | None = None
        self._cancelled = False
        self._on_early = on_early
        # Answers asked for and not yet received, answers received, and whether an
        # early message was seen; touched by send() (trio thread) and the reader
        # thread, under the lock.
        self._lock = threading.Lock()
        self._awaited = 0
        self._answered = 0
        self._early_seen = False
        self._call = stub.Play(self._requests(), metadata=tuple(metadata))
        trio.lowlevel.start_thread_soon(self._read, _reader_done, name="arena-seat-reader")

    def _requests(self) -> Iterator[bot_pb2.PlayRequest]:
        while (message := self._outbox.get()) is not None:
            yield message

    def _read(self) -> None:
        """Reader thread: forward every response, then how the stream ended."""
        ending: StreamClosed
        try:
            try:
                for response in self._call:
                    item = self._arrived(response)
                    if item is not None:
                        self._token.run_sync_soon(self._deliver, item)
                ending = StreamClosed(None)
            except grpc.RpcError as error:
                ending = StreamClosed(error.code(), error.details() or "")
            self._token.run_sync_soon(self._deliver, ending)
        except trio.RunFinishedError:
            pass  # the referee's trio run is over; nothing left to deliver

    def _arrived(self, response: bot_pb2.PlayResponse) -> bot_pb2.PlayResponse | Early | None:
        """Match an arriving message with a request already sent, or call it early
        (None: a later early message, dropped; the first one is the fault)."""
        with self._lock:
            if self._awaited == 0:
                if self._early_seen:
                    return None
                self._early_seen = True
                return Early(response, self._answered)
            self._awaited -= 1
            self._answered += 1
            return response

    def _deliver(self, item: bot_pb2.PlayResponse | Early | StreamClosed) -> None:
        """In the trio thread: report an early message, then queue the item.

        Runs as a trio system callback, so it must not raise: the channel is
        unbounded and its receiving end is closed only by :meth:`cancel`."""
        if self._cancelled:
            return  # the referee stopped listening
        if isinstance(item, Early) and self._on_early is not None:
            self._on_early(item)
        self._send.send_nowait(item)

    def send(self, message: bot_pb2.PlayRequest) -> None:
        """Queue a message to the bot (never blocks).

        MatchStart and TurnRequest each allow one answer; the allowance is made
        before the message can reach the bot, so a prompt answer is never early.
        """
        if message.WhichOneof("kind") in ("start", "turn"):
            with self._lock:
                self._awaited += 1
        self._outbox.put(message)

    async def receive(self) -> bot_pb2.PlayResponse:
        """The next message from the bot; :class:`BotFault` if the stream ended,
        :class:`ProtocolViolation` if the message arrived before it was asked for."""
        if self._closed is None:
            if self._cancelled:
                raise BotCrashed("the stream was cancelled by the referee")
            item = await self._receive.receive()
            if isinstance(item, bot_pb2.PlayResponse):
                return item
            if isinstance(item, Early):
                raise item.fault()
            self._closed = item
        raise closed_fault(self._closed)

    async def finish(self, timeout: float) -> bool:
        """Half-close, give the bot ``timeout`` s to end its side, then cancel.

        True if the bot ended the stream cleanly in time.
        """
        if self._cancelled:
            return False
        self._outbox.put(None)
        with trio.move_on_after(timeout):
            while self._closed is None:
                item = await self._receive.receive()
                if isinstance(item, StreamClosed):
                    self._closed = item
        self.cancel()
        return self._closed is not None and self._closed.code is None

    def cancel(self) -> None:
        """Abort the call at once and release the reader thread."""
        if self._cancelled:
            return
        self._cancelled = True
        self._outbox.put(None)
        self._call.cancel()
        self._receive.close()


def _reader_done(result: outcome.Outcome[None]) -> None:
    """The reader thread's result: it catches what it expects, so anything else
    is a bug worth a traceback (from a worker thread; the match goes on)."""
    result.unwrap()


BOT_DETAILS = (
    "the bot's own error message, kept out of the record (its author reads it, and an"
    " SDK bot's traceback, in the bot's output)"
)
UNQUOTED = "details not quoted (they may be the bot's own words; its author reads its output)"
GRPC_PHRASES: tuple[tuple[str, str], ...] = (
    ("exception iterating responses", f"Exception iterating responses ({BOT_DETAILS})"),
    ("exception calling application", f"Exception calling application ({BOT_DETAILS})"),
    ("deserializ", "Exception deserializing response"),
    ("larger than max", "Received message larger than max"),
    ("too_many_pings", "GOAWAY too_many_pings"),
    ("keepalive", "keepalive watchdog timeout"),
    ("ping", "ping timeout"),
    ("handshake", "TLS handshake failed"),
    ("connection refused", "Connection refused"),
    ("connection reset", "Connection reset"),
    ("broken pipe", "Broken pipe"),
    ("socket closed", "Socket closed"),
    ("goaway", "GOAWAY received"),
    ("rst_stream", "RST_STREAM received"),
    ("stream removed", "Stream removed"),
    ("failed to connect", "failed to connect"),
    ("deadline exceeded", "Deadline Exceeded"),
    ("cancelled", "Cancelled"),
)
"""What a fault message may say of a gRPC status's details: the first phrase whose
key (lower case) the details contain, in the referee's spelling. An allow-list:
details that match none of them are not quoted at all (:data:`UNQUOTED`), whatever the
status code. A bot's server chooses the details of any code it ends a call with
(an abort's text, an exception's message, HTTP/2 debug data), so it may make the
referee say one of these phrases, never a word of its own."""
TLS_REASONS = frozenset(
    {
        "CERTIFICATE_VERIFY_FAILED",
        "WRONG_VERSION_NUMBER",
        "UNKNOWN_CA",
        "TLSV1_ALERT_UNKNOWN_CA",
        "TLSV1_ALERT_PROTOCOL_VERSION",
        "SSLV3_ALERT_HANDSHAKE_FAILURE",
        "SSLV3_ALERT_BAD_CERTIFICATE",
        "PACKET_LENGTH_TOO_LONG",
        "HTTP_REQUEST",
        "WRONG_SSL_VERSION",
        "DECODE_ERROR",
    }
)
"""OpenSSL's reason names a failed handshake's details may carry, quoted after
"TLS handshake failed" when one of them is there (an operator's first clue)."""


def public_details(closed: StreamClosed) -> str:
    """What a fault message may quote of ``closed.details``: a phrase of
    :data:`GRPC_PHRASES` (with a :data:`TLS_REASONS` name for a failed handshake),
    never the text itself: whatever the status code, a bot's server may have written
    it, and the record is public; a bot's output is its author's only."""
    return grpc_words(closed.details)


def grpc_words(details: str) -> str:
    """The referee's words for a gRPC status's ``details`` (:func:`public_details`)."""
    if not details:
        return "no details"
    lowered = details.lower()
    for key, phrase in GRPC_PHRASES:
        if key in lowered:
            if phrase == "TLS handshake failed":
                reasons = sorted(TLS_REASONS.intersection(re.findall(r"[A-Z0-9_]+", details)))
                return f"{phrase} ({', '.join(reasons)})" if reasons else phrase
            return phrase
    return UNQUOTED


def rpc_error_words(error: grpc.RpcError) -> str:
    """``CODE: words`` for an error a call raised: the status code's name and
    :func:`grpc_words` of its details (never the details themselves)."""
    code = error.code()
    return f"{code.name if code is not None else 'UNKNOWN'}: {grpc_words(error.details() or '')}"


def closed_fault(closed: StreamClosed) -> BotFault:
    """Name the fault for a stream that ended while the referee still needed it."""
    if closed.code is None:
        return BotCrashed("the bot closed its stream before the match ended")
    text = f"stream broke: {closed.code.name}: {public_details(closed)}"
    if "keepalive" in closed.details.lower() or "ping" in closed.details.lower():
        return BotStalled(text)
    if closed.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return ProtocolViolation(
            f"{text} (messages from bots are capped at {MAX_MESSAGE_FROM_BOT} bytes)"
        )
    if undecodable(closed):
        return ProtocolViolation(f"{text} (the bot sent bytes that are not a PlayResponse)")
    return BotCrashed(text)


def undecodable(closed: StreamClosed) -> bool:
    """gRPC ended the call because a message from the bot could not be parsed.

    grpcio reports a failed response deserialisation as INTERNAL with
    "Exception deserializing response!"; any other INTERNAL stays a crash.
    """
    return closed.code == grpc.StatusCode.INTERNAL and "deserializ" in closed.details.lower()
