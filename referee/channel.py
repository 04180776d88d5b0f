"""The referee's gRPC side: a channel to one bot, readiness, and a per-seat stream
bridged into trio.

grpcio has no trio support, so each Play stream gets one reader thread that
iterates the blocking response stream and hands each message to the trio run
through a memory channel (``trio.from_thread.run``). Outgoing messages go into a
thread-safe queue that gRPC's own thread drains. Timeouts are trio scopes in the
caller; when one fires the caller cancels the call.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import trio

from arena.v1 import bot_pb2, bot_pb2_grpc
from referee.faults import BotCrashed, BotFault, BotStalled, BotStartupError, ProtocolViolation

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
class StreamClosed:
    """The bot's response stream ended; ``code`` is None for a clean end."""

    code: grpc.StatusCode | None
    details: str = ""


class BotConnection:
    """A gRPC channel to one bot (a process we started, or a running service)."""

    def __init__(self, address: str, *, socket_path: Path | None = None) -> None:
        self.address = address
        self.socket_path = socket_path
        self.channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
        self.stub = bot_pb2_grpc.BotServiceStub(self.channel)
        self.health: bot_pb2.HealthResponse | None = None

    async def wait_ready(self, budget: float, *, exited: object = None) -> bot_pb2.HealthResponse:
        """Call Health until it answers, within ``budget`` seconds.

        ``exited`` is a zero-argument callable telling whether the process has
        died (then waiting stops at once).
        """
        last_error = "no answer"
        with trio.move_on_after(budget):
            while True:
                if callable(exited) and (reason := exited()):
                    raise BotStartupError(f"bot {reason} before it was ready")
                if self.socket_path is not None and not self.socket_path.exists():
                    await trio.sleep(0.01)
                    continue
                try:
                    self.health = await trio.to_thread.run_sync(self._health_call)
                    return self.health
                except grpc.RpcError as error:
                    last_error = f"{error.code().name}: {error.details()}"
                await trio.sleep(0.02)
        raise BotStartupError(f"bot not ready at {self.address} within {budget:g} s ({last_error})")

    def _health_call(self) -> bot_pb2.HealthResponse:
        response: bot_pb2.HealthResponse = self.stub.Health(
            bot_pb2.HealthRequest(), timeout=0.5, wait_for_ready=True
        )
        return response

    def open_stream(self) -> SeatStream:
        return SeatStream(self.stub, trio.lowlevel.current_trio_token())

    def close(self) -> None:
        self.channel.close()


class SeatStream:
    """One seat's bidirectional Play stream, usable from trio."""

    def __init__(self, stub: bot_pb2_grpc.BotServiceStub, token: trio.lowlevel.TrioToken) -> None:
        self._token = token
        self._outbox: queue.SimpleQueue[bot_pb2.PlayRequest | None] = queue.SimpleQueue()
        send, receive = trio.open_memory_channel[bot_pb2.PlayResponse | StreamClosed](4)
        self._send, self._receive = send, receive
        self._closed: StreamClosed | None = None
        self._cancelled = False
        self._call = stub.Play(self._requests())
        self._reader = threading.Thread(target=self._read, name="arena-seat-reader", daemon=True)
        self._reader.start()

    def _requests(self) -> Iterator[bot_pb2.PlayRequest]:
        while (message := self._outbox.get()) is not None:
            yield message

    def _read(self) -> None:
        """Reader thread: forward every response, then how the stream ended."""
        ending: StreamClosed
        try:
            try:
                for response in self._call:
                    trio.from_thread.run(self._send.send, response, trio_token=self._token)
                ending = StreamClosed(None)
            except grpc.RpcError as error:
                ending = StreamClosed(error.code(), error.details() or "")
            trio.from_thread.run(self._send.send, ending, trio_token=self._token)
        except (trio.RunFinishedError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the referee stopped listening; nothing left to deliver

    def send(self, message: bot_pb2.PlayRequest) -> None:
        """Queue a message to the bot (never blocks)."""
        self._outbox.put(message)

    async def receive(self) -> bot_pb2.PlayResponse:
        """The next message from the bot; :class:`BotFault` if the stream ended."""
        if self._closed is None:
            if self._cancelled:
                raise BotCrashed("the stream was cancelled by the referee")
            item = await self._receive.receive()
            if isinstance(item, bot_pb2.PlayResponse):
                return item
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


def closed_fault(closed: StreamClosed) -> BotFault:
    """Name the fault for a stream that ended while the referee still needed it."""
    if closed.code is None:
        return BotCrashed("the bot closed its stream before the match ended")
    text = f"stream broke: {closed.code.name}: {closed.details}"
    if "keepalive" in closed.details.lower() or "ping" in closed.details.lower():
        return BotStalled(text)
    if closed.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return ProtocolViolation(
            f"{text} (messages from bots are capped at {MAX_MESSAGE_FROM_BOT} bytes)"
        )
    return BotCrashed(text)
