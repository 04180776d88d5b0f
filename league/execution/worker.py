"""A referee worker process of ``arena league run --workers N``: plays the matches
its runner sends, with a warm pool of its own, and sends back their records.

    python -m league.execution.worker   (started by the runner; speaks worker_wire)

Why a process: the referee's work (encoding observations, the game engine,
hashing records) runs under one GIL, so one runner process is bound to one core.
Several workers each referee their share of the matches on a core of their own;
the runner stays the only process that touches the database.

The worker ignores SIGINT: the runner decides what a Ctrl-C means (finish the
running matches, or abandon them) and says so over the pipe. End of file on stdin
— the runner is done, gave up, or died — abandons whatever is running, stops every
bot the worker started, and exits.
"""

from __future__ import annotations

import os
import signal
import sys

import trio

from league.execution.worker_wire import (
    Counters,
    FrameReader,
    Job,
    JobResult,
    WorkerWireError,
    decode_config,
    decode_job,
    encode_frame,
    encode_result,
)
from referee.core.mixed import MixedAnswer
from referee.runtime.match import run_match
from referee.runtime.pool import WarmPool
from referee.runtime.sandbox import share_uids


class Outbox:
    """Frames to the runner, one at a time (jobs finish concurrently)."""

    def __init__(self, stream: trio.abc.SendStream) -> None:
        self._stream = stream
        self._lock = trio.Lock()

    async def send(self, message: dict[str, object]) -> None:
        data = encode_frame(message)
        async with self._lock:
            await self._stream.send_all(data)


async def play(job: Job, pool: WarmPool, outbox: Outbox) -> None:
    logs: dict[int, bytes] = {}
    mixed: dict[int, list[MixedAnswer]] = {}
    try:
        record = await run_match(job.spec, job.limits, launcher=pool, logs=logs, mixed=mixed)
    except Exception as error:  # a spec the referee refuses: the runner decides
        await outbox.send(
            {"type": "failed", "job": job.number, "error": f"{type(error).__name__}: {error}"}
        )
        return
    counters = Counters(pool.started, pool.reused)
    await outbox.send(encode_result(JobResult(job.number, record, logs, counters, mixed)))


async def serve(inbox: trio.abc.ReceiveStream, outbox: Outbox) -> None:
    reader = FrameReader(inbox)
    first = await reader.receive()
    if first is None:
        return
    if first["type"] != "config":
        raise WorkerWireError(f"expected a config message first, got {first['type']!r}")
    config = decode_config(first)
    share_uids(config.uid_index, config.uid_count, config.uid_block)
    pool = WarmPool(sandbox=config.sandbox)
    try:
        await outbox.send({"type": "ready", "pid": os.getpid()})
        async with trio.open_nursery() as nursery:
            while (message := await reader.receive()) is not None:
                if message["type"] != "play":
                    raise WorkerWireError(f"unexpected {message['type']!r} message")
                nursery.start_soon(play, decode_job(message), pool, outbox)
            nursery.cancel_scope.cancel()  # end of file: abandon the running matches
    finally:
        with trio.CancelScope(shield=True):
            await pool.aclose()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The protocol owns the original stdout; anything printed goes to stderr.
    protocol_out = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    async def run() -> None:
        inbox = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
        outbox = trio.lowlevel.FdStream(protocol_out)
        try:
            await serve(inbox, Outbox(outbox))
        except* (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the runner is gone: nobody to report to (the bots were stopped)
        finally:
            await inbox.aclose()
            await outbox.aclose()

    trio.run(run)


if __name__ == "__main__":
    main()
