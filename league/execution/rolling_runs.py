"""Playing a rolling ladder (``docs/rolling.md``): :func:`run_rolling`.

The ladder's matches are played by :class:`~league.execution.league_run.LeagueRun`
itself, so a rolling ladder has the same transactional writes, resuming, sandbox,
warm pool and Ctrl-C as a fixed league. This module only adds what makes it roll:
:class:`RollingSchedule`, the run's schedule source (the next batch from
:func:`league.store.rolling_ladders.extend_schedule` when the queue is empty, match starts
spaced to the ladder's rate), and a stop event; and it plays every match with
bot processes of its own (``MatchSpec.single_use``, :class:`RollingRun`), as the
pre-entry check does, so a process sees one match in both and cannot tell them apart.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import trio
from sqlalchemy import Engine, func
from sqlmodel import col, select

from league.execution.league_run import AbortedMatch, LeagueRun, RunOptions
from league.store.db import session_scope
from league.store.leagues import PendingMatch, get_league
from league.store.models import MatchRow
from league.store.rolling_ladders import (
    RollingError,
    RollingSettings,
    extend_schedule,
    rolling_settings,
)
from referee.runtime.match import MatchSpec


@dataclass(frozen=True, slots=True)
class RollingSummary:
    played: int
    """Matches written by this run (finished or aborted)."""
    scheduled: int
    """Matches this run appended to the schedule."""
    pending: int
    """Matches without a result when it ended (the next run plays them first)."""
    stopped: bool
    """Ended by ``stop`` or a signal (not by ``max_matches``)."""
    elapsed_s: float
    aborted: tuple[AbortedMatch, ...] = ()
    processes_started: int = 0
    processes_reused: int = 0
    match_ids: tuple[str, ...] = ()
    """``LEAGUE-POSITION`` of each match written, in the order written."""


class RollingRun(LeagueRun):
    """A :class:`LeagueRun` whose every match starts its bots afresh and stops them
    after it (``MatchSpec.single_use``): a ladder match is its processes' only one,
    as a check match is (:mod:`league.execution.botcheck`)."""

    def _spec(self, pending: PendingMatch) -> MatchSpec:
        return replace(super()._spec(pending), single_use=True)


class RollingSchedule:
    """The ladder's :class:`~league.execution.league_run.ScheduleSource`: batch after batch,
    paced to ``matches_per_minute`` (re-read with each batch, so a changed rate
    takes effect without a restart), until ``stop``."""

    def __init__(
        self,
        engine: Engine,
        name: str,
        settings: RollingSettings,
        stop: trio.Event,
        idle_poll_s: float,
    ) -> None:
        self.engine = engine
        self.name = name
        self.stop = stop
        self.idle_poll_s = idle_poll_s
        self.interval = 60.0 / settings.matches_per_minute
        self.next_start = trio.current_time()
        self.scheduled = 0
        """Matches appended to the schedule so far."""
        self._pace_lock = trio.Lock()

    async def pace(self) -> None:
        async with self._pace_lock:
            with trio.move_on_at(self.next_start):
                await self.stop.wait()
            self.next_start = max(self.next_start, trio.current_time()) + self.interval

    async def more(self) -> list[PendingMatch]:
        """The next batch; with too few active entries for a table, looks again every
        ``idle_poll_s`` (another process may enter a bot) until ``stop``."""
        while not self.stop.is_set():
            with session_scope(self.engine) as session:
                current = get_league(session=session, name=self.name)
                self.interval = 60.0 / rolling_settings(current).matches_per_minute
                batch = extend_schedule(session=session, league=current)
            if batch:
                self.scheduled += len(batch)
                return batch
            with trio.move_on_after(self.idle_poll_s):
                await self.stop.wait()
        return []


async def run_rolling(
    engine: Engine,
    name: str,
    *,
    stop: trio.Event | None = None,
    max_matches: int | None = None,
    on_match: Callable[[str], None] | None = None,
    handle_signals: bool = False,
    grace_s: float | None = 10.0,
    idle_poll_s: float = 2.0,
    workers: int | None = 1,
    min_protocol: int = 1,
) -> RollingSummary:
    """Play ladder ``name`` until ``stop`` is set (or ``max_matches`` are written).

    Pending matches first (those of a killed run), then batch after batch from
    :class:`RollingSchedule`. Match starts are spaced ``60 / matches_per_minute``
    seconds apart; ``concurrency`` matches at a time. With fewer active entries than
    a table needs it waits, looking again every ``idle_poll_s`` seconds (another
    process may :func:`~league.store.rolling_ladders.enter_bot`), until ``stop``.

    ``on_match(LEAGUE-POSITION)``: after each match is committed. ``stop``: no new
    match starts; running ones get ``grace_s`` to finish (None: as long as they
    take), then are abandoned — not written, still pending, played by the next run.
    ``handle_signals`` (the command line): the first SIGINT/SIGTERM is ``stop``
    without a grace limit, a second abandons the running matches. ``workers``:
    referee processes, as for :class:`league.execution.league_run.LeagueRun` (1: this process).
    ``min_protocol``: the lowest protocol a seat may speak (``RunOptions.min_protocol``).
    """
    with session_scope(engine) as session:
        league = get_league(session=session, name=name)
        settings = rolling_settings(league)
    if max_matches is not None and max_matches < 1:
        raise RollingError(f"max_matches must be at least 1, got {max_matches}")
    event = stop if stop is not None else trio.Event()
    schedule = RollingSchedule(engine, name, settings, event, idle_poll_s)
    written: list[str] = []
    started = time.monotonic()

    def record(match_id: str) -> None:
        written.append(match_id)
        if on_match is not None:
            on_match(match_id)

    options = RunOptions(
        concurrency=settings.concurrency,
        workers=workers,
        max_matches=max_matches,
        handle_signals=False,
        grace_s=None if handle_signals else grace_s,
        min_protocol=min_protocol,
    )
    run = RollingRun(engine, name, options, schedule=schedule, stop=event, on_result=record)
    summary = None
    async with trio.open_nursery() as nursery:
        abandon = trio.CancelScope()
        if handle_signals:
            nursery.start_soon(_watch_signals, event, abandon)
        with abandon:
            summary = await run.play()
        nursery.cancel_scope.cancel()
    with session_scope(engine) as session:
        pending = session.exec(
            select(func.count())
            .select_from(MatchRow)
            .where(
                MatchRow.league_id == league.id, col(MatchRow.status).in_(("pending", "aborted"))
            )
        ).one()
    return RollingSummary(
        played=len(written),
        scheduled=schedule.scheduled,
        pending=pending,
        stopped=event.is_set(),
        elapsed_s=time.monotonic() - started,
        aborted=summary.aborted if summary else (),
        processes_started=summary.processes_started if summary else 0,
        processes_reused=summary.processes_reused if summary else 0,
        match_ids=tuple(written),
    )


async def _watch_signals(event: trio.Event, abandon: trio.CancelScope) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            if not event.is_set():
                event.set()
            else:
                abandon.cancel()
                return
