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

import os
import queue
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import trio

from bench import instant_bot
from bench.instant_bot import SERVICE, match_id_for
from referee.runtime.match import Limits, MatchSpec, MessageLog, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import NO_SANDBOX, SandboxConfig

INSTANT = ("-m", "bench.instant_bot")


def instant_spec(
    sleep_ms: float = 0.0,
    name: str = "instant",
    *,
    sandbox: SandboxConfig = NO_SANDBOX,
    prepare: Sequence[str] = (),
) -> BotSpec:
    """The instant bot's command; in the sandbox it runs as a script file (the sandbox
    binds files named on the command line; ``bench`` is not an SDK package).
    ``prepare``: ``GAME:FIRST-LAST`` seed ranges it plans before serving."""
    extra: tuple[str, ...] = ("--sleep-ms", f"{sleep_ms:g}") if sleep_ms else ()
    for spec in prepare:
        extra = (*extra, "--prepare", spec)
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


def referee_run(
    game: str,
    seeds: range,
    rules: Mapping[str, str] | None = None,
    *,
    floor: Floor | None = None,
    sandbox: SandboxConfig = NO_SANDBOX,
) -> RefereeRun:
    """Play ``seeds`` with two instant bots from a warm pool; per-decision time.

    With ``floor``, each match is replayed on the raw floor right after the referee
    played it (interleaved, so a change in the machine's load hits both sides alike).
    """
    bot = instant_spec(sandbox=sandbox)
    total_ms = 0.0
    gaps = 0
    decisions = 0
    floor_s = 0.0
    floor_gaps = 0
    transcripts: list[Transcript] = []

    async def play_all() -> None:
        nonlocal total_ms, gaps, decisions, floor_s, floor_gaps
        pool = WarmPool(sandbox=sandbox)
        try:
            for seed in seeds:
                log = MessageLog()
                spec = MatchSpec(
                    game,
                    (bot, bot),
                    seed=seed,
                    rules=dict(rules or {}),
                    match_id=match_id_for(seed),
                    bot_match_id=match_id_for(seed),
                )
                record = await run_match(spec, Limits(), launcher=pool, observer=log)
                if record.reason != "completed":
                    raise RuntimeError(f"{game} seed {seed}: {record.reason} {record.faults}")
                acts = [e for e in record.events if e.seat is not None]
                stamps = [e.at_ms for e in acts if e.at_ms is not None]
                if len(stamps) >= 2:
                    total_ms += stamps[-1] - stamps[0]
                    gaps += len(stamps) - 1
                decisions += len(acts)
                transcript = Transcript(log.sent, [e.seat for e in acts if e.seat is not None])
                transcripts.append(transcript)
                if floor is not None:
                    span, count = await trio.to_thread.run_sync(floor.replay, transcript)
                    floor_s += span
                    floor_gaps += count
        finally:
            await pool.aclose()

    trio.run(play_all)
    return RefereeRun(
        total_ms * 1000 / gaps,
        decisions,
        transcripts,
        floor_s * 1e6 / floor_gaps if floor_gaps else None,
    )


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
