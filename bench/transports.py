"""How fast each way of driving a gRPC stream from trio can be: the designs tried for
"the referee at the gRPC floor", measured without any referee logic.

Every design replays the same referee transcripts (the bytes a real match sent, see
:mod:`bench.wire`) against the same instant bots, match by match in turn, so a change in
the machine's load hits them alike. Per decision = (last answer − first answer) /
(decisions − 1), as in the stream rows. The designs:

``sync``
    the floor: one blocking grpcio client thread, ``put`` then ``next`` (no trio).
``aio``
    a grpc.aio client on an asyncio loop (no trio).
``trio + sync (ours)``
    the referee's channel (:class:`referee.runtime.channel.SeatStream`): trio sends
    into grpcio's request iterator, a reader thread hands each answer to trio with
    ``run_sync_soon``.
``trio guest on asyncio``
    trio as a guest of the asyncio loop (``trio.lowlevel.start_guest_run``); each ask
    is a grpc.aio write and read on that loop, and wakes the trio task directly.
``trio + asyncio thread``
    trio as the host; grpc.aio runs on an asyncio loop in one other thread; an ask
    hops there with ``call_soon_threadsafe`` and back with ``run_sync_soon``.
"""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio
import trio

from arena.v1 import bot_pb2
from bench.instant_bot import SERVICE
from bench.wire import Floor, Transcript
from referee.runtime.channel import BotConnection

Replay = Callable[[Floor, Transcript], tuple[float, int]]


def _sync(floor: Floor, transcript: Transcript) -> tuple[float, int]:
    return floor.replay(transcript)


def _aio(floor: Floor, transcript: Transcript) -> tuple[float, int]:
    return floor.replay_aio(transcript)


def _span(stamps: Sequence[float]) -> tuple[float, int]:
    if len(stamps) < 2:
        return 0.0, 0
    return stamps[-1] - stamps[0], len(stamps) - 1


def _requests(transcript: Transcript) -> dict[int, list[bot_pb2.PlayRequest]]:
    return {
        seat: [bot_pb2.PlayRequest.FromString(m) for m in messages]
        for seat, messages in transcript.sent.items()
    }


def _trio_sync(floor: Floor, transcript: Transcript) -> tuple[float, int]:
    """The referee's own channel layer, with nothing else running."""
    requests = _requests(transcript)

    async def main() -> tuple[float, int]:
        connections = [BotConnection(floor.bots[seat].address) for seat in requests]
        streams = [connection.open_stream() for connection in connections]
        pending = {seat: iter(messages) for seat, messages in requests.items()}
        try:
            for seat, stream in enumerate(streams):
                stream.send(next(pending[seat]))
                await stream.receive()
            stamps = []
            for seat in transcript.order:
                streams[seat].send(next(pending[seat]))
                await streams[seat].receive()
                stamps.append(time.perf_counter())
            for seat, stream in enumerate(streams):
                for rest in pending[seat]:
                    stream.send(rest)
                await stream.finish(5.0)
        finally:
            for stream in streams:
                stream.cancel()
            for connection in connections:
                connection.close()
        return _span(stamps)

    return trio.run(main)


async def _aio_calls(
    floor: Floor, seats: int
) -> tuple[list[grpc.aio.Channel], list[grpc.aio.StreamStreamCall]]:
    channels = [grpc.aio.insecure_channel(floor.bots[seat].address) for seat in range(seats)]
    return channels, [channel.stream_stream(f"/{SERVICE}/Play")() for channel in channels]


async def _aio_finish(
    channels: list[grpc.aio.Channel],
    calls: list[grpc.aio.StreamStreamCall],
    pending: dict[int, Any],
) -> None:
    for seat, call in enumerate(calls):
        for rest in pending[seat]:
            await call.write(rest)
        await call.done_writing()
        while await call.read() is not grpc.aio.EOF:
            pass
    for channel in channels:
        await channel.close()


async def _wait_for(start: Callable[[Callable[[bytes], None]], None]) -> bytes:
    """Park the current trio task until ``start``'s callback delivers an answer
    (the callback must run in the trio thread, or via ``run_sync_soon``)."""
    task = trio.lowlevel.current_task()
    box: list[bytes] = []

    def deliver(answer: bytes) -> None:
        box.append(answer)
        trio.lowlevel.reschedule(task)

    start(deliver)
    await trio.lowlevel.wait_task_rescheduled(lambda _: trio.lowlevel.Abort.FAILED)
    return box[0]


async def _ask_all(
    transcript: Transcript, ask: Callable[[int, bytes], Awaitable[bytes]]
) -> list[float]:
    pending = {seat: iter(messages) for seat, messages in transcript.sent.items()}
    for seat in range(len(transcript.sent)):
        await ask(seat, next(pending[seat]))
    stamps = []
    for seat in transcript.order:
        await ask(seat, next(pending[seat]))
        stamps.append(time.perf_counter())
    return stamps


def _guest(floor: Floor, transcript: Transcript) -> tuple[float, int]:
    """trio as a guest of asyncio; asks are grpc.aio calls on the same thread."""

    async def host() -> tuple[float, int]:
        loop = asyncio.get_running_loop()
        channels, calls = await _aio_calls(floor, len(transcript.sent))
        finished: asyncio.Future[Any] = loop.create_future()

        async def ask(seat: int, message: bytes) -> bytes:
            async def exchange(deliver: Callable[[bytes], None]) -> None:
                await calls[seat].write(message)
                deliver(await calls[seat].read())

            return await _wait_for(lambda deliver: _keep(loop.create_task(exchange(deliver))))

        trio.lowlevel.start_guest_run(
            _ask_all,
            transcript,
            ask,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            run_sync_soon_not_threadsafe=loop.call_soon,
            done_callback=finished.set_result,
            host_uses_signal_set_wakeup_fd=True,
        )
        stamps = (await finished).unwrap()
        await _aio_finish(channels, calls, _rest(transcript))
        return _span(stamps)

    return asyncio.run(host())


_TASKS: set[asyncio.Task[Any]] = set()


def _keep(task: asyncio.Task[Any]) -> None:
    """Hold a reference until the task is done (asyncio keeps only weak ones)."""
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


def _rest(transcript: Transcript) -> dict[int, Any]:
    """What each seat is sent after its last answer (MatchEnd)."""
    asked = {seat: 1 for seat in transcript.sent}
    for seat in transcript.order:
        asked[seat] += 1
    return {seat: iter(messages[asked[seat] :]) for seat, messages in transcript.sent.items()}


@dataclass
class _LoopThread:
    """An asyncio loop running forever in a daemon thread."""

    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.new_event_loop)

    def __post_init__(self) -> None:
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


def _trio_thread(loop_thread: _LoopThread) -> Replay:
    def replay(floor: Floor, transcript: Transcript) -> tuple[float, int]:
        loop = loop_thread.loop

        async def main() -> tuple[float, int]:
            token = trio.lowlevel.current_trio_token()
            channels, calls = await trio.to_thread.run_sync(
                loop_thread.run, _aio_calls(floor, len(transcript.sent))
            )

            async def ask(seat: int, message: bytes) -> bytes:
                def start(deliver: Callable[[bytes], None]) -> None:
                    async def exchange() -> None:
                        await calls[seat].write(message)
                        token.run_sync_soon(deliver, await calls[seat].read())

                    loop.call_soon_threadsafe(lambda: _keep(loop.create_task(exchange())))

                return await _wait_for(start)

            stamps = await _ask_all(transcript, ask)
            await trio.to_thread.run_sync(
                loop_thread.run, _aio_finish(channels, calls, _rest(transcript))
            )
            return _span(stamps)

        return trio.run(main)

    return replay


@dataclass
class DesignResult:
    name: str
    per_decision_us: float
    rounds: list[float]
    """This design's decisions/s ÷ the sync floor's, per round."""

    @property
    def ratio(self) -> float:
        return statistics.median(self.rounds)


def compare(transcripts: list[Transcript], rounds: int = 3) -> list[DesignResult]:
    """Replay ``transcripts`` ``rounds`` times through every design, in turn per match."""
    loop_thread = _LoopThread()
    designs: dict[str, Replay] = {
        "sync": _sync,
        "aio": _aio,
        "trio + sync (ours)": _trio_sync,
        "trio guest on asyncio": _guest,
        "trio + asyncio thread": _trio_thread(loop_thread),
    }
    per_round: dict[str, list[tuple[float, int]]] = {name: [] for name in designs}
    try:
        with Floor() as floor:
            for _ in range(rounds):
                spans = dict.fromkeys(designs, 0.0)
                counts = dict.fromkeys(designs, 0)
                for transcript in transcripts:
                    for name, replay in designs.items():
                        span, count = replay(floor, transcript)
                        spans[name] += span
                        counts[name] += count
                for name in designs:
                    per_round[name].append((spans[name], counts[name]))
    finally:
        loop_thread.close()
    results = []
    for name, timed in per_round.items():
        per_decision = [span * 1e6 / count for span, count in timed]
        floor_us = [span * 1e6 / count for span, count in per_round["sync"]]
        total_span = sum(span for span, _ in timed)
        total_count = sum(count for _, count in timed)
        results.append(
            DesignResult(
                name,
                total_span * 1e6 / total_count,
                [f / d for f, d in zip(floor_us, per_decision, strict=True)],
            )
        )
    return results
