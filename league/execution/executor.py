"""Where a league run's matches are refereed, behind one small interface.

An :class:`Executor` offers ``slots``; a slot plays one match spec at a time and
returns its record (:meth:`MatchSlot.play`). The run
(:class:`league.execution.league_run.LeagueRun`) owns everything else — the queue, the
progress, the signals and every database write — so the three executors differ
only in where the referee's work happens:

- :class:`LocalExecutor`: this process, its slots sharing one warm pool;
- :class:`league.execution.workers.RefereeWorkers` (``--workers N``): referee
  worker processes, each with a warm pool and a share of the slots;
- :class:`league.execution.ray_executor.RayExecutor` (``--executor ray``): each
  match a task on a Ray cluster.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol

import trio

from referee.core.mixed import MixedAnswer
from referee.records.record import MatchRecord
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.sandbox import SandboxConfig


@dataclass(frozen=True, slots=True)
class Played:
    """A refereed match: its record, each seat's captured log and each seat's mixed
    moves (``run_match``'s ``mixed``; like the logs, for the seat's author only)."""

    record: MatchRecord
    logs: dict[int, bytes]
    mixed: dict[int, list[MixedAnswer]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LostWorker:
    """A referee worker that died while the run still needed it."""

    index: int
    pid: int
    reason: str


class MatchSlot(Protocol):
    """Plays one match at a time (the run keeps one task per slot taking the next match)."""

    async def play(self, spec: MatchSpec, limits: Limits) -> Played: ...


class Executor(Protocol):
    """Where the matches are refereed: this process, worker processes, or Ray."""

    @property
    def slots(self) -> Sequence[MatchSlot]: ...
    @property
    def started(self) -> int:
        """Bot processes started."""

    @property
    def reused(self) -> int:
        """Bot processes reused from the warm pool."""

    @property
    def lost(self) -> list[LostWorker]: ...
    @property
    def processes(self) -> int:
        """Referee processes that played the matches (1: this one)."""

    def running(self) -> AbstractAsyncContextManager[object]:
        """Start what the slots need; on leaving, stop it (and every bot) for sure."""


class LocalSlot:
    def __init__(self, pool: WarmPool) -> None:
        self.pool = pool

    async def play(self, spec: MatchSpec, limits: Limits) -> Played:
        logs: dict[int, bytes] = {}
        mixed: dict[int, list[MixedAnswer]] = {}
        record = await run_match(spec, limits, launcher=self.pool, logs=logs, mixed=mixed)
        return Played(record, logs, mixed)


class LocalExecutor:
    """``concurrency`` slots in this process, sharing one warm pool."""

    processes = 1

    def __init__(self, concurrency: int, sandbox: SandboxConfig) -> None:
        self.pool = WarmPool(sandbox=sandbox)
        self.slots: list[MatchSlot] = [LocalSlot(self.pool) for _ in range(concurrency)]
        self.lost: list[LostWorker] = []

    @property
    def started(self) -> int:
        return self.pool.started

    @property
    def reused(self) -> int:
        return self.pool.reused

    @asynccontextmanager
    async def running(self) -> AsyncIterator[LocalExecutor]:
        try:
            yield self
        finally:
            with trio.CancelScope(shield=True):
                await self.pool.aclose()
