"""Referee decisions/s with instant bots vs a raw gRPC bidi ping-pong of the same bytes.

Both sides talk to the same instant bot program (:mod:`bench.instant_bot`) over a
unix socket, started as plain processes (``NO_SANDBOX``: the sandbox changes start-up,
not the stream). The referee plays ``bench-<seed>`` matches through a warm pool
(start-up excluded) and logs every message it sends; right after each match the floor
replays exactly those bytes, seat by seat in the referee's order, from one blocking
gRPC client with no trio, no engine and no record (interleaved match by match, so a
change in the machine's load hits both sides alike). Per decision = (time of the last
answer − time of the first answer) / (decisions − 1), summed over matches, both sides.
"""

from __future__ import annotations

import asyncio
import os
import queue
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import trio

from bench import instant_bot
from bench.instant_bot import SERVICE, match_id_for
from referee.runtime.match import Limits, MatchSpec, MessageLog, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import NO_SANDBOX, SandboxConfig

INSTANT = ("-m", "bench.instant_bot")
WARM_UP_SEED = 1_000_000
"""The untimed match that starts the pool's bots before a run is measured."""


def instant_spec(
    sleep_ms: float = 0.0,
    name: str = "instant",
    *,
    sandbox: SandboxConfig = NO_SANDBOX,
    prepare: Sequence[str] = (),
    aio: bool = False,
) -> BotSpec:
    """The instant bot's command; in the sandbox it runs as a script file (the sandbox
    binds files named on the command line; ``bench`` is not an SDK package).
    ``prepare``: ``GAME:FIRST-LAST`` seed ranges it plans before serving."""
    extra: tuple[str, ...] = ("--sleep-ms", f"{sleep_ms:g}") if sleep_ms else ()
    for spec in prepare:
        extra = (*extra, "--prepare", spec)
    if aio:
        extra = (*extra, "--aio")
    program: tuple[str, ...] = INSTANT
    if sandbox.enabled:
        program = (os.path.abspath(instant_bot.__file__),)
    return BotSpec(name, command=(sys.executable, *program, *extra))


@dataclass
class Transcript:
    """What the referee sent in one match, and who acted when."""

    sent: dict[int, list[bytes]]
    order: list[int]


@dataclass
class RefereeRun:
    per_decision_us: float
    decisions: int
    transcripts: list[Transcript] = field(default_factory=list)
    floor_us: float | None = None
    """Raw round trip replaying the same matches, if a floor was given."""
    aio_floor_us: float | None = None
    """The same replay from a grpc.aio client, if the floor has one."""
    referee_cpu_us: float = 0.0
    """CPU of the referee's process per decision (all its threads)."""
    bot_cpu_us: float = 0.0
    """CPU of the referee's bot processes per decision (both seats together)."""
    floor_bot_cpu_us: float | None = None
    """CPU of the floor's bot processes per decision, replaying the same bytes."""
    rounds: list[float] = field(default_factory=list)
    """Referee ÷ sync floor (decisions/s) of each interleaved round."""
    aio_rounds: list[float] = field(default_factory=list)
    """Referee ÷ grpc.aio floor (decisions/s) of each interleaved round."""


def task_cpu_ns(pid: int) -> int:
    """CPU time of every thread of process ``pid`` so far (ns; 0 once it is gone).

    ``/proc/PID/task/TID/schedstat`` counts in nanoseconds, where ``stat``'s clock
    ticks (10 ms) would swamp a round's few milliseconds of bot time.
    """
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as handle:
                total += int(handle.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total


def descendants(root: int) -> set[int]:
    """Every live process below ``root`` (children, grandchildren: a sandbox's bot)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents[int(entry)] = int(fields[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def cpu_of(pids: set[int]) -> int:
    return sum(task_cpu_ns(pid) for pid in pids)


def _rounds(seeds: range, rounds: int) -> list[range]:
    """``seeds`` cut into ``rounds`` consecutive runs (fewer if there are fewer seeds)."""
    rounds = max(1, min(rounds, len(seeds)))
    size, extra = divmod(len(seeds), rounds)
    cuts, start = [], seeds.start
    for index in range(rounds):
        end = start + (size + (1 if index < extra else 0)) * seeds.step
        cuts.append(range(start, end, seeds.step))
        start = end
    return cuts


def referee_run(
    game: str,
    seeds: range,
    rules: Mapping[str, str] | None = None,
    *,
    floor: Floor | None = None,
    sandbox: SandboxConfig = NO_SANDBOX,
    rounds: int = 1,
    bot: BotSpec | None = None,
) -> RefereeRun:
    """Play ``seeds`` with two instant bots from a warm pool; per-decision time.

    With ``floor``, each match is replayed on the raw floor right after the referee
    played it (interleaved, so a change in the machine's load hits both sides alike),
    from the blocking client and then from the grpc.aio one. ``rounds``: the seeds
    are cut into that many rounds and each round's ratios are kept (the spread).
    CPU is counted per process: the referee's own (this process, every thread, while
    it plays) and its bots' (from ``/proc``, while they play), and the floor's bots'
    while they answer the replay.
    """
    bot = bot or instant_spec(sandbox=sandbox)
    transcripts: list[Transcript] = []
    totals = {"ms": 0.0, "gaps": 0, "decisions": 0, "referee_cpu": 0.0, "bot_ns": 0}
    per_round: list[tuple[float, int, float, int, float, int]] = []
    floor_bot_ns = 0
    floor_pids = floor.pids() if floor is not None else set()
    me = os.getpid()

    async def play_all() -> None:
        nonlocal floor_bot_ns
        pool = WarmPool(sandbox=sandbox)
        try:
            # One untimed match first: the bots' start-up is not a decision's CPU.
            warm = MatchSpec(
                game,
                (bot, bot),
                seed=WARM_UP_SEED,
                rules=dict(rules or {}),
                match_id=match_id_for(WARM_UP_SEED),
                bot_match_id=match_id_for(WARM_UP_SEED),
            )
            await run_match(warm, Limits(), launcher=pool)
            for chunk in _rounds(seeds, rounds):
                # The pool's bots (a warm pool keeps them; walking /proc per match would
                # cost the referee milliseconds between matches).
                bots = descendants(me) - floor_pids
                ms = 0.0
                gaps = 0
                sync_s = aio_s = 0.0
                sync_n = aio_n = 0
                for seed in chunk:
                    log = MessageLog()
                    spec = MatchSpec(
                        game,
                        (bot, bot),
                        seed=seed,
                        rules=dict(rules or {}),
                        match_id=match_id_for(seed),
                        bot_match_id=match_id_for(seed),
                    )
                    bots_before = cpu_of(bots)
                    cpu_before = time.process_time()
                    record = await run_match(spec, Limits(), launcher=pool, observer=log)
                    totals["referee_cpu"] += time.process_time() - cpu_before
                    totals["bot_ns"] += cpu_of(bots) - bots_before
                    if record.reason != "completed":
                        raise RuntimeError(f"{game} seed {seed}: {record.reason} {record.faults}")
                    acts = [e for e in record.events if e.seat is not None]
                    stamps = [e.at_ms for e in acts if e.at_ms is not None]
                    if len(stamps) >= 2:
                        ms += stamps[-1] - stamps[0]
                        gaps += len(stamps) - 1
                    totals["decisions"] += len(acts)
                    transcript = Transcript(log.sent, [e.seat for e in acts if e.seat is not None])
                    transcripts.append(transcript)
                    if floor is not None:
                        before = cpu_of(floor_pids)
                        span, count = await trio.to_thread.run_sync(floor.replay, transcript)
                        floor_bot_ns += cpu_of(floor_pids) - before
                        sync_s += span
                        sync_n += count
                        span, count = await trio.to_thread.run_sync(floor.replay_aio, transcript)
                        aio_s += span
                        aio_n += count
                totals["ms"] += ms
                totals["gaps"] += gaps
                per_round.append((ms, gaps, sync_s, sync_n, aio_s, aio_n))
        finally:
            await pool.aclose()

    trio.run(play_all)
    decisions = int(totals["decisions"])
    gaps = int(totals["gaps"])
    run = RefereeRun(
        totals["ms"] * 1000 / gaps,
        decisions,
        transcripts,
        referee_cpu_us=totals["referee_cpu"] * 1e6 / max(1, decisions),
        bot_cpu_us=totals["bot_ns"] / 1000 / max(1, decisions),
    )
    if floor is not None:
        sync_s = sum(r[2] for r in per_round)
        sync_gaps = sum(r[3] for r in per_round)
        aio_s = sum(r[4] for r in per_round)
        aio_gaps = sum(r[5] for r in per_round)
        run.floor_us = sync_s * 1e6 / sync_gaps if sync_gaps else None
        run.aio_floor_us = aio_s * 1e6 / aio_gaps if aio_gaps else None
        run.floor_bot_cpu_us = floor_bot_ns / 1000 / max(1, decisions)
        for ms, gaps_, sync_span, sync_count, aio_span, aio_count in per_round:
            if not gaps_ or not sync_count or not aio_count:
                continue
            referee_us = ms * 1000 / gaps_
            run.rounds.append(sync_span * 1e6 / sync_count / referee_us)
            run.aio_rounds.append(aio_span * 1e6 / aio_count / referee_us)
    return run


class InstantProcess:
    """An instant bot as a plain subprocess listening on a private unix socket."""

    def __init__(self, sleep_ms: float = 0.0) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="bench-bot-")
        self.address = f"unix:{Path(self._tmp.name) / 'bot.sock'}"
        env = dict(os.environ, ARENA_LISTEN=self.address)
        extra = ["--sleep-ms", f"{sleep_ms:g}"] if sleep_ms else []
        self.process = subprocess.Popen(
            [sys.executable, *INSTANT, *extra], env=env, stdin=subprocess.DEVNULL
        )
        self.channel = grpc.insecure_channel(self.address)
        health = self.channel.unary_unary(f"/{SERVICE}/Health")
        health(b"", timeout=30, wait_for_ready=True)

    def stream(self) -> BlockingStream:
        return BlockingStream(self.channel)

    def close(self) -> None:
        self.channel.close()
        self.process.terminate()
        self.process.wait(10)
        self._tmp.cleanup()


class BlockingStream:
    """One raw Play stream: send bytes, block for the answer (no trio, no decoding)."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        play = channel.stream_stream(f"/{SERVICE}/Play")
        self._answers: Iterator[bytes] = play(self._requests())

    def _requests(self) -> Iterator[bytes]:
        while (item := self._outbox.get()) is not None:
            yield item

    def ask(self, message: bytes) -> bytes:
        self._outbox.put(message)
        return next(self._answers)

    def send(self, message: bytes) -> None:
        self._outbox.put(message)

    def close(self) -> None:
        self._outbox.put(None)
        for _ in self._answers:
            pass


class Floor:
    """Two instant bots as plain processes, and a raw client replaying transcripts."""

    def __init__(self) -> None:
        self.bots = [InstantProcess(), InstantProcess()]

    def replay(self, transcript: Transcript) -> tuple[float, int]:
        """(seconds from the first to the last answer, round trips in between)."""
        streams = [self.bots[seat].stream() for seat in range(len(transcript.sent))]
        pending = {seat: iter(messages) for seat, messages in transcript.sent.items()}
        for seat, stream in enumerate(streams):
            stream.ask(next(pending[seat]))  # MatchStart -> Ready (not timed)
        stamps = []
        for seat in transcript.order:
            streams[seat].ask(next(pending[seat]))
            stamps.append(time.perf_counter())
        for seat, stream in enumerate(streams):
            for rest in pending[seat]:  # MatchEnd
                stream.send(rest)
            stream.close()
        if len(stamps) < 2:
            return 0.0, 0
        return stamps[-1] - stamps[0], len(stamps) - 1

    def replay_aio(self, transcript: Transcript) -> tuple[float, int]:
        """:meth:`replay` from a grpc.aio client on its own asyncio loop (one thread)."""
        return asyncio.run(self._replay_aio(transcript))

    async def _replay_aio(self, transcript: Transcript) -> tuple[float, int]:
        channels = [
            grpc.aio.insecure_channel(self.bots[seat].address)
            for seat in range(len(transcript.sent))
        ]
        try:
            calls = [channel.stream_stream(f"/{SERVICE}/Play")() for channel in channels]
            pending = {seat: iter(messages) for seat, messages in transcript.sent.items()}
            for seat, call in enumerate(calls):  # MatchStart -> Ready (not timed)
                await call.write(next(pending[seat]))
                await call.read()
            stamps = []
            for seat in transcript.order:
                await calls[seat].write(next(pending[seat]))
                await calls[seat].read()
                stamps.append(time.perf_counter())
            for seat, call in enumerate(calls):
                for rest in pending[seat]:  # MatchEnd
                    await call.write(rest)
                await call.done_writing()
                while await call.read() is not grpc.aio.EOF:
                    pass
        finally:
            for channel in channels:
                await channel.close()
        if len(stamps) < 2:
            return 0.0, 0
        return stamps[-1] - stamps[0], len(stamps) - 1

    def pids(self) -> set[int]:
        return {bot.process.pid for bot in self.bots}

    def close(self) -> None:
        for bot in self.bots:
            bot.close()

    def __enter__(self) -> Floor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def floor_run(transcripts: list[Transcript]) -> float:
    """Mean µs per raw round trip replaying ``transcripts`` (see module doc)."""
    total = 0.0
    gaps = 0
    with Floor() as floor:
        for transcript in transcripts:
            span, count = floor.replay(transcript)
            total += span
            gaps += count
    return total * 1e6 / gaps


ECHO_PEER = """
import os, socket, struct, sys
peer = socket.socket(fileno=int(sys.argv[1]))
answer = b"x" * int(sys.argv[2])
def exact(n):
    data = b""
    while len(data) < n:
        chunk = peer.recv(n - len(data))
        if not chunk:
            raise SystemExit(0)
        data += chunk
    return data
while True:
    (size,) = struct.unpack("<I", exact(4))
    exact(size)
    peer.sendall(struct.pack("<I", len(answer)) + answer)
"""


def socket_floor_us(transcripts: list[Transcript], answer_bytes: int = 24) -> float:
    """Mean µs of one framed round trip over a unix socket to another process.

    The physical limit under any RPC stack: the referee's requests of ``transcripts``
    (length-prefixed), each answered by ``answer_bytes`` from a peer process that does
    nothing else. No HTTP/2, no protobuf, no threads.
    """
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    peer = subprocess.Popen(
        [sys.executable, "-S", "-c", ECHO_PEER, str(theirs.fileno()), str(answer_bytes)],
        pass_fds=(theirs.fileno(),),
        stdin=subprocess.DEVNULL,
    )
    theirs.close()
    try:
        requests = [m for t in transcripts for messages in t.sent.values() for m in messages]
        total = 0.0
        for message in requests:
            started = time.perf_counter()
            ours.sendall(struct.pack("<I", len(message)) + message)
            (size,) = struct.unpack("<I", _exact(ours, 4))
            _exact(ours, size)
            total += time.perf_counter() - started
        return total * 1e6 / max(1, len(requests))
    finally:
        ours.close()
        peer.wait(10)


def _exact(sock: Any, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the echo peer closed its socket")
        data += chunk
    return data


SDK_BOT = ("-m", "example_bots.liars_dice_random")
"""The SDK bot whose CPU per decision the stream section compares with a bare server."""


def bot_cpu_rounds(
    game: str, seeds: range, bots: Mapping[str, BotSpec], rounds: int
) -> dict[str, list[float]]:
    """CPU per decision of each bot's processes (both seats) in referee matches,
    round by round: each round plays its share of ``seeds`` with every bot in turn."""
    cpu: dict[str, list[float]] = {name: [] for name in bots}
    for chunk in _rounds(seeds, rounds):
        for name, spec in bots.items():
            cpu[name].append(referee_run(game, chunk, bot=spec).bot_cpu_us)
    return cpu
