"""Play a league's pending matches concurrently, resumably.

Each finished match is written (result, seats, record, rating update) in one
transaction; a match that did not finish is never written, so it stays pending
and the next run plays it. Bot processes are kept warm across matches.

Stopping: the first Ctrl-C (SIGINT) stops starting new matches and lets the
running ones finish and be saved; a second one abandons the running matches
(discarded, still pending). SIGKILL at any moment loses at most the matches that
were running.

A match the referee aborts (its own error, e.g. a game engine bug) is stored as
aborted (no result, no rating change), listed in :attr:`RunSummary.aborted` and
played again by the next run; the other matches carry on.

Several referee processes (``workers`` > 1, :mod:`league.execution.workers`): the matches
are refereed in worker processes, each with its own warm pool and a share of the
``concurrency`` slots, so the referee is not bound to one core by the GIL. This
process keeps the queue, the progress, the signals and every database write, so
results, resuming and Ctrl-C behave as with one. A worker that dies loses only
the matches it was playing (not written, still pending, listed in
:attr:`RunSummary.lost`); the others carry on.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import trio
from sqlalchemy import Engine

from league.execution.workers import (
    LostWorker,
    Played,
    RefereeWorkers,
    WorkerGone,
    WorkerLost,
    WorkerStartError,
)
from league.store.db import session_scope
from league.store.leagues import (
    PendingMatch,
    get_league,
    league_bots,
    league_sandbox,
    league_status,
    match_deal_key,
    match_key,
    pending_matches,
    record_result,
)
from league.store.models import LeagueRow
from league.store.registry import bot_spec
from league.store.runlock import league_lock
from referee.match import Limits, MatchSpec, run_match
from referee.pool import WarmPool
from referee.sandbox import SandboxConfig, require_tools

if TYPE_CHECKING:
    from league.execution.ray_executor import RayOptions


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    total: int
    played_now: int
    """Matches finished by this run."""
    elapsed_s: float
    leader: str
    leader_elo: float
    stopping: bool = False

    @property
    def rate(self) -> float:
        """Matches per second in this run."""
        return self.played_now / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        return (self.total - self.done) / self.rate if self.rate > 0 else None


@dataclass(frozen=True, slots=True)
class AbortedMatch:
    match_id: str
    """``LEAGUE-POSITION``."""
    error: str
    """The referee error that stopped it."""


@dataclass(frozen=True, slots=True)
class LostMatch:
    match_id: str
    """``LEAGUE-POSITION``."""
    error: str
    """Which referee worker died, and how."""


@dataclass(frozen=True, slots=True)
class RunSummary:
    played: int
    remaining: int
    """Matches still without a result (pending or aborted)."""
    interrupted: bool
    processes_started: int
    processes_reused: int
    elapsed_s: float
    aborted: tuple[AbortedMatch, ...] = ()
    """Matches of this run the referee aborted (stored as aborted, not rated)."""
    workers: int = 1
    """Referee processes that played the matches (1: this one; with Ray, the
    worker processes that returned a match)."""
    lost: tuple[LostMatch, ...] = ()
    """Matches a dying referee worker took with it (not written: still pending)."""
    lost_workers: tuple[str, ...] = ()
    """Referee workers that died during the run, and how."""


ProgressCallback = Callable[[Progress], None]


def match_id(league: LeagueRow, pending: PendingMatch) -> str:
    """Deterministic: a resumed run gives a match the id (and bot seeds) it would have had.

    Its deal is deterministic too (the league secret and its duplicate group), so a
    match interrupted and played again gets the same dice and cards."""
    return match_key(league, pending.position)


def protected_files(engine: Engine) -> tuple[str, ...]:
    """The SQLite file (and its journals) of ``engine``: never visible to a bot."""
    database = engine.url.database if engine.url.get_backend_name() == "sqlite" else None
    if not database or database == ":memory:":
        return ()
    path = Path(database).resolve()
    return tuple(str(path) + suffix for suffix in ("", "-wal", "-shm", "-journal"))


class WorkersError(ValueError):
    """A bad number of referee worker processes (the text has the number)."""


def worker_count(workers: int | None, concurrency: int, pending: int) -> int:
    """The referee processes a run uses: ``workers`` (None: one per core), but never
    more than ``concurrency`` or the matches to play — a worker without a slot or
    a match would only cost its start-up."""
    if workers is None:
        workers = os.cpu_count() or 1
    elif workers < 1:
        raise WorkersError(f"workers must be at least 1, got {workers}")
    return max(1, min(workers, concurrency, pending))


class MatchSlot(Protocol):
    """Plays one match at a time (a runner task per slot takes the next match)."""

    async def play(self, spec: MatchSpec, limits: Limits) -> Played: ...


class LocalSlot:
    def __init__(self, pool: WarmPool) -> None:
        self.pool = pool

    async def play(self, spec: MatchSpec, limits: Limits) -> Played:
        logs: dict[int, bytes] = {}
        record = await run_match(spec, limits, launcher=self.pool, logs=logs)
        return Played(record, logs)


class Players(Protocol):
    """Where the matches are refereed: this process, worker processes, or Ray."""

    @property
    def slots(self) -> Sequence[MatchSlot]: ...
    @property
    def started(self) -> int: ...
    @property
    def reused(self) -> int: ...
    @property
    def lost(self) -> list[LostWorker]: ...
    def running(self) -> AbstractAsyncContextManager[object]: ...


class LocalPlayers:
    """``concurrency`` slots in this process, sharing one warm pool."""

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
    async def running(self) -> AsyncIterator[LocalPlayers]:
        try:
            yield self
        finally:
            with trio.CancelScope(shield=True):
                await self.pool.aclose()


async def run_league(
    engine: Engine,
    name: str,
    *,
    concurrency: int = 1,
    workers: int | None = 1,
    max_matches: int | None = None,
    on_progress: ProgressCallback | None = None,
    handle_signals: bool = True,
    stop: trio.Event | None = None,
    grace_s: float | None = None,
    more: Callable[[], Awaitable[list[PendingMatch]]] | None = None,
    pace: Callable[[], Awaitable[None]] | None = None,
    on_result: Callable[[str], None] | None = None,
    ray: RayOptions | None = None,
) -> RunSummary:
    """Play the pending matches of league ``name``; see the module docstring.

    ``workers``: referee processes (None: one per core), clamped by
    :func:`worker_count`; 1 referees in this process. ``ray``: play each match as
    a task on a Ray cluster instead (:mod:`league.execution.ray_executor`; ``workers`` is
    then ignored).

    The hooks of a league whose schedule grows while it runs (a rolling ladder,
    :mod:`league.store.rolling`), so it shares this runner's writes, resuming, warm pool
    and workers instead of having a second runner:

    - ``stop``: once set, like the first Ctrl-C: no new match starts, running ones
      finish and are written; ``grace_s`` after it (None: never) the running ones
      are abandoned (not written: still pending, played again by the next run).
    - ``more``: awaited (by one slot at a time) when the queue is empty; returns the
      next matches to play, already written as pending rows, or ``[]`` to end.
      With ``more`` every one of the ``concurrency`` slots is used from the start.
    - ``pace``: awaited before each match starts (a rate limit).
    - ``on_result``: called with ``LEAGUE-POSITION`` after each finished (or aborted)
      match is committed.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    with session_scope(engine) as session:
        league = get_league(session=session, name=name)
        todo = pending_matches(session=session, league=league)
        status = league_status(session=session, league=league)
    if max_matches is not None:
        todo = todo[:max_matches]
    capacity = len(todo) if more is None else (max_matches or concurrency)
    slots = min(concurrency, max(1, capacity))
    processes = worker_count(workers, concurrency, capacity)
    rules = json.loads(league.rules)
    limits = Limits(decision_s=league.decision_s, startup_s=league.startup_s)
    sandbox = league_sandbox(league)
    if sandbox.enabled:
        require_tools()  # a clear error now rather than a startup fault per seat
    sandbox = replace(sandbox, protect=(*sandbox.protect, *protected_files(engine)))
    players: Players
    if ray is not None:
        from league.execution.ray_executor import RayPlayers

        bots = {bot_spec(bot) for pending in todo for bot in pending.bots}
        ray_players = RayPlayers(slots, sandbox, ray, sorted(bots, key=lambda b: b.name))
        players = ray_players
    elif processes == 1:
        players = LocalPlayers(slots, sandbox)
    else:
        players = RefereeWorkers(processes, slots, sandbox)
    started = time.monotonic()
    done = status.done
    played = 0
    stopping = False
    queue = list(reversed(todo))
    aborted: list[AbortedMatch] = []
    lost: list[LostMatch] = []

    def report() -> None:
        if on_progress is None:
            return
        with session_scope(engine) as session:
            entries = league_bots(session=session, league=league)
        leader_entry, leader_bot = max(entries, key=lambda pair: pair[0].elo)
        on_progress(
            Progress(
                done=done,
                total=status.total,
                played_now=played,
                elapsed_s=time.monotonic() - started,
                leader=leader_bot.name,
                leader_elo=leader_entry.elo,
                stopping=stopping,
            )
        )

    handed = 0
    more_lock = trio.Lock()

    def stopped() -> bool:
        return stopping or (stop is not None and stop.is_set())

    async def next_match() -> PendingMatch | None:
        """The next match to start (after ``pace``), or None: nothing more to play."""
        nonlocal handed
        if stopped() or (max_matches is not None and handed >= max_matches):
            return None
        if not queue and more is not None:
            async with more_lock:
                if not queue and not stopped():
                    queue.extend(reversed(await more()))
        # Checked again: another slot may have taken the last allowed match while
        # this one waited for ``more``.
        if not queue or stopped() or (max_matches is not None and handed >= max_matches):
            return None
        pending = queue.pop()
        handed += 1
        if pace is not None:
            await pace()
            if stopped():  # not started: still pending
                queue.append(pending)
                handed -= 1
                return None
        return pending

    async def play_on(slot: MatchSlot) -> None:
        nonlocal done, played
        while (pending := await next_match()) is not None:
            spec = MatchSpec(
                game=league.game,
                bots=tuple(bot_spec(bot) for bot in pending.bots),
                rules=rules,
                match_id=match_id(league, pending),
                deal_group=pending.group,
                chance_key=match_deal_key(league, pending.group),
            )
            try:
                result = await slot.play(spec, limits)
            except WorkerGone:  # this slot's worker had died: another slot plays it
                queue.append(pending)
                return
            except WorkerLost as error:  # not written: still pending; this slot is gone
                lost.append(LostMatch(spec.match_id, str(error)))
                return
            record = result.record
            with session_scope(engine) as session:
                record_result(
                    session=session,
                    league=league,
                    match_id=pending.match_id,
                    record=record,
                    logs=result.logs,
                )
            if record.reason == "aborted":
                aborted.append(AbortedMatch(spec.match_id, str(record.meta.get("error", ""))))
            else:
                done += 1
            played += 1
            if on_result is not None:
                on_result(spec.match_id)
            report()

    async def watch_stop(event: trio.Event, cancel_scope: trio.CancelScope) -> None:
        nonlocal stopping
        await event.wait()
        if not stopping:
            stopping = True
            report()
        if grace_s is not None:
            await trio.sleep(grace_s)
            cancel_scope.cancel()

    async def watch_signals(cancel_scope: trio.CancelScope) -> None:
        nonlocal stopping
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                if not stopping:
                    stopping = True
                    report()
                else:
                    cancel_scope.cancel()
                    return

    interrupted = False
    start_error: WorkerStartError | None = None
    # One process plays a league at a time (two would take the same matches).
    with league_lock(engine, league):
        report()
        async with trio.open_nursery() as outer:
            if handle_signals:
                outer.start_soon(watch_signals, outer.cancel_scope)
            if stop is not None:
                outer.start_soon(watch_stop, stop, outer.cancel_scope)
            try:
                async with players.running(), trio.open_nursery() as tasks:
                    for slot in players.slots:
                        tasks.start_soon(play_on, slot)
            except WorkerStartError as error:  # raised before any match started
                start_error = error
            outer.cancel_scope.cancel()
    interrupted = stopping
    if start_error is not None:
        raise start_error
    lost_workers = tuple(w.reason for w in players.lost)
    if ray is not None:
        processes = len(ray_players.worker_pids)
    remaining = status.total - done
    if more is not None:  # the schedule grew during the run
        with session_scope(engine) as session:
            remaining = league_status(session=session, league=league).pending
    return RunSummary(
        played=played,
        remaining=remaining,
        interrupted=interrupted or (bool(queue) and not lost_workers),
        processes_started=players.started,
        processes_reused=players.reused,
        elapsed_s=time.monotonic() - started,
        aborted=tuple(aborted),
        workers=processes,
        lost=tuple(lost),
        lost_workers=lost_workers,
    )
