"""The runner's side of ``--workers N``: start referee worker processes, hand
them matches one slot at a time, collect their records, and stop them for sure.

The runner stays the only database writer and keeps its queue, progress and
signal handling; a worker only plays what it is sent (:mod:`league.execution.worker`).
Each worker has a fixed number of slots (its share of ``--concurrency``); one
runner task per slot takes the next pending match when its previous one is
written, so a slow worker never holds matches another could play.

A worker that dies (crash, OOM killer, ``kill -9``) loses only the matches it was
playing: :class:`WorkerLost` is raised for them, they are not written and stay
pending for the next run; its slots close, the other workers carry on. They are
not handed to another worker in the same run: a match that kills its worker
would otherwise take every worker down in turn.
"""

from __future__ import annotations

import contextlib
import itertools
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import trio

from league.execution.executor import LostWorker, Played
from league.execution.worker_wire import (
    Counters,
    FrameReader,
    Job,
    JobResult,
    WorkerConfig,
    WorkerWireError,
    decode_result,
    encode_config,
    encode_frame,
    encode_job,
)
from league.store.registry import LeagueError
from referee.runtime.match import Limits, MatchSpec
from referee.runtime.sandbox import SandboxConfig, uid_block_lock

WORKER_COMMAND = (sys.executable, "-m", "league.execution.worker")
READY_S = 60.0
"""Time a worker has to start and answer ``ready`` (imports, on a loaded host)."""
CLOSE_S = 15.0
"""Time a worker has to stop its bots and exit before it is killed."""


class WorkerStartError(LeagueError):
    """A referee worker did not start (the text says which and why)."""


class WorkerLost(Exception):
    """The worker playing a match died or broke the protocol: the match is lost
    (not written, still pending)."""


class WorkerGone(WorkerLost):
    """The worker had died before the match was sent: nothing lost, play it elsewhere."""


class MatchRefusedError(LeagueError):
    """A worker's referee refused a match spec (the in-process runner would raise)."""


@dataclass(slots=True)
class _Waiter:
    match_id: str
    done: trio.Event = field(default_factory=trio.Event)
    played: Played | None = None
    error: Exception | None = None


class Worker:
    """One worker process and the jobs it is playing."""

    def __init__(self, index: int, process: trio.Process, slots: int) -> None:
        self.index = index
        self.process = process
        self.slots = slots
        self.counters = Counters()
        self.dead = ""
        """Why it can play no more ("" while it can)."""
        self._waiting: dict[int, _Waiter] = {}
        self._numbers = itertools.count(1)
        self._send_lock = trio.Lock()
        assert process.stdin is not None and process.stdout is not None
        self._stdin = process.stdin
        self._reader = FrameReader(process.stdout)

    @property
    def pid(self) -> int:
        return self.process.pid

    def describe(self) -> str:
        return f"referee worker {self.index} (pid {self.pid})"

    async def send(self, message: dict[str, object]) -> None:
        data = encode_frame(message)
        async with self._send_lock:
            await self._stdin.send_all(data)

    async def handshake(self, config: WorkerConfig) -> None:
        """Send the config; :class:`WorkerStartError` unless ``ready`` comes back."""
        answer: object = "nothing"
        with trio.move_on_after(READY_S):
            try:
                await self.send(encode_config(config))
                message = await self._reader.receive()
            except (trio.BrokenResourceError, WorkerWireError) as error:
                answer = f"{type(error).__name__}: {error}"
            else:
                if message is not None and message["type"] == "ready":
                    return
                answer = "end of output" if message is None else message
            with trio.move_on_after(2.0):  # say how it ended, if it is ending
                await self.process.wait()
        raise WorkerStartError(
            f"{self.describe()} did not start: answered {answer!r} instead of ready within"
            f" {READY_S:g} s, and {self._exit_text()}"
        )

    async def play(self, spec: MatchSpec, limits: Limits) -> Played:
        """Play ``spec`` on this worker. :class:`WorkerLost` if it dies meanwhile,
        :class:`WorkerGone` if it was dead already."""
        if self.dead:
            raise WorkerGone(self.dead)
        number = next(self._numbers)
        waiter = _Waiter(spec.match_id)
        self._waiting[number] = waiter
        try:
            # A worker that died cannot take the job: its reader then fails the
            # waiter with the reason, so a refused send also just waits.
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await self.send(encode_job(Job(number, spec, limits)))
            await waiter.done.wait()
        finally:
            del self._waiting[number]
        if waiter.error is not None:
            raise waiter.error
        assert waiter.played is not None
        return waiter.played

    async def read(self, lost: list[LostWorker], closing: trio.Event) -> None:
        """Deliver results until the worker's stdout ends; then fail what is left."""
        try:
            while (message := await self._reader.receive()) is not None:
                self._deliver(message)
            why = "ended its output"
        except (WorkerWireError, trio.BrokenResourceError, trio.ClosedResourceError) as error:
            why = f"broke the protocol: {error}"
            self.kill()
        with trio.CancelScope(shield=True):
            with trio.move_on_after(CLOSE_S):
                await self.process.wait()
            self.kill()
            await self.process.wait()
            self.dead = f"{self.describe()} {why} and {self._exit_text()}"
        if not closing.is_set() or self._waiting:
            lost.append(LostWorker(self.index, self.pid, self.dead))
        for waiter in self._waiting.values():
            waiter.error = WorkerLost(self.dead)
            waiter.done.set()

    def _deliver(self, message: dict[str, object]) -> None:
        kind = message["type"]
        number = message.get("job")
        waiter = self._waiting.get(number) if isinstance(number, int) else None
        if waiter is None:
            raise WorkerWireError(f"{kind!r} message for job {number!r}, which is not running")
        if kind == "failed":
            waiter.error = MatchRefusedError(f"match {waiter.match_id}: {message.get('error')}")
        elif kind == "result":
            result: JobResult = decode_result(message)
            if result.record.match_id != waiter.match_id:
                raise WorkerWireError(
                    f"job {number} is match {waiter.match_id},"
                    f" but its record is of {result.record.match_id!r}"
                )
            self.counters = result.counters
            waiter.played = Played(result.record, result.logs, result.mixed)
        else:
            raise WorkerWireError(f"unexpected {kind!r} message")
        waiter.done.set()

    async def close_input(self) -> None:
        """End of file on the worker's stdin: it abandons running matches and exits."""
        async with self._send_lock:
            await self._stdin.aclose()

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()

    def _exit_text(self) -> str:
        code = self.process.poll()
        if code is None:
            return "is still running"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"


class WorkerSlot:
    """One match at a time on one worker (a :class:`~league.execution.executor.MatchSlot`)."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    async def play(self, spec: MatchSpec, limits: Limits) -> Played:
        return await self.worker.play(spec, limits)


def shares(concurrency: int, workers: int) -> list[int]:
    """Slots per worker: ``concurrency`` split as evenly as possible, at least one each."""
    if workers < 1 or concurrency < workers:
        raise ValueError(f"cannot split concurrency {concurrency} over {workers} worker(s)")
    base, extra = divmod(concurrency, workers)
    return [base + (1 if index < extra else 0) for index in range(workers)]


class RefereeWorkers:
    """``count`` worker processes sharing ``concurrency`` slots; use :meth:`running`."""

    def __init__(self, count: int, concurrency: int, sandbox: SandboxConfig) -> None:
        self.shares = shares(concurrency, count)
        self.sandbox = sandbox
        self.workers: list[Worker] = []
        self.lost: list[LostWorker] = []
        """Workers that died while the run still needed them."""

    @property
    def slots(self) -> list[WorkerSlot]:
        return [WorkerSlot(w) for w in self.workers for _ in range(w.slots)]

    @property
    def processes(self) -> int:
        return len(self.shares)

    @property
    def started(self) -> int:
        return sum(w.counters.started for w in self.workers)

    @property
    def reused(self) -> int:
        return sum(w.counters.reused for w in self.workers)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[RefereeWorkers]:
        """Start the workers; on leaving, close them (and their bots) for sure.

        A worker that does not start raises :class:`WorkerStartError` as such (not
        in an exception group), after the ones already started are closed."""
        # The workers' bots take uids from the block this runner holds; each worker
        # inherits the lock, so the block stays taken while any of them lives.
        held = uid_block_lock() if self.sandbox.enabled else None
        lock, block = held if held is not None else (None, None)
        try:
            for index, slots in enumerate(self.shares):
                worker = await self._start(index, slots, lock)
                self.workers.append(worker)
                await worker.handshake(
                    WorkerConfig(
                        self.sandbox, uid_index=index, uid_count=len(self.shares), uid_block=block
                    )
                )
        except BaseException:
            with trio.CancelScope(shield=True):
                await self._close()
                await self._close_outputs()
            raise
        closing = trio.Event()
        try:
            async with trio.open_nursery() as readers:
                for worker in self.workers:
                    readers.start_soon(worker.read, self.lost, closing)
                try:
                    yield self
                finally:
                    closing.set()
                    with trio.CancelScope(shield=True):
                        await self._close()
        finally:
            with trio.CancelScope(shield=True):
                await self._close_outputs()

    async def _start(self, index: int, slots: int, lock: int | None) -> Worker:
        try:
            process = await trio.lowlevel.open_process(
                list(WORKER_COMMAND),
                pass_fds=() if lock is None else (lock,),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                # Not in the terminal's process group: a Ctrl-C reaches only the
                # runner, which tells the workers what it means.
                start_new_session=True,
            )
        except OSError as error:
            raise WorkerStartError(f"cannot start referee worker {index}: {error}") from None
        return Worker(index, process, slots)

    async def _close(self) -> None:
        """End every worker's input, give it :data:`CLOSE_S` to stop its bots, then kill."""
        for worker in self.workers:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await worker.close_input()
        with trio.move_on_after(CLOSE_S):
            for worker in self.workers:
                await worker.process.wait()
        for worker in self.workers:
            worker.kill()
            await worker.process.wait()

    async def _close_outputs(self) -> None:
        for worker in self.workers:
            if worker.process.stdout is not None:
                await worker.process.stdout.aclose()
