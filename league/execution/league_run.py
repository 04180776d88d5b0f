"""Play a league's pending matches concurrently, resumably: :class:`LeagueRun`.

Each finished match is written (result, seats, record, rating update) whole, in
one transaction; a match that did not finish is never written, so it stays pending
and the next run plays it. Bot processes are kept warm across matches.

The writes happen off the event loop's thread, batched, in finishing order
(:mod:`league.execution.result_writer`); the callbacks come after the commit. Each
match's luck is stored with its result, computed before the batch's transaction where
it does not stall the matches in flight (:mod:`league.execution.luck_worker`).

Stopping: the first Ctrl-C (SIGINT) stops starting new matches and lets the
running ones finish and be saved; a second one abandons the running matches
(discarded, still pending); finished ones waiting for the writer are still
written. SIGKILL loses at most the matches running or waiting to be written
(still pending: the next run plays them again, on the same deals).

A match the referee aborts (its own error, e.g. a game engine bug) is stored as
aborted (no result, no rating change), listed in :attr:`RunSummary.aborted` and
played again by the next run; the other matches carry on.

Where the matches are refereed is an :class:`~league.execution.executor.Executor`:
this process, referee worker processes (``workers`` > 1,
:mod:`league.execution.workers`: the referee is not bound to one core by the GIL)
or Ray (:mod:`league.execution.ray_executor`). The run keeps the queue, the
progress, the signals and every database write, so results, resuming and Ctrl-C
behave the same with each. A worker that dies loses only the matches it was
playing (not written, still pending, listed in :attr:`RunSummary.lost`); the
others carry on.

A league whose schedule grows while it runs (a rolling ladder,
:mod:`league.execution.rolling_runs`) hands the run a :class:`ScheduleSource`, so it
shares this run's writes, resuming, warm pool and workers instead of having a
second runner.
"""

# long module: one class, the run (queue, slots, writes, signals, progress); what it
# delegates (executors, result writer, luck worker, schedules) are modules of their own

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import trio
from sqlalchemy import Engine
from sqlmodel import Session

from league.execution.executor import Executor, LocalExecutor, MatchSlot
from league.execution.luck_worker import LuckWorker
from league.execution.ray_executor import RayExecutor, RayOptions
from league.execution.result_writer import Finished, Leader, ResultWriter
from league.execution.workers import RefereeWorkers, WorkerGone, WorkerLost, WorkerStartError
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
from referee.records.record import MatchRecord
from referee.runtime.match import Limits, MatchSpec
from referee.runtime.sandbox import SandboxConfig, require_tools

DEAL_WAIT_S = 0.02
"""How often a free slot looks again when every queued match waits for its deal's
match in flight (at the end of a league, mostly)."""


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
        return max(0, self.total - self.done) / self.rate if self.rate > 0 else None


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """One match a run wrote, as ``arena league run --jsonl`` prints it: one JSON
    object per line, like a chess runner's per-game output (fastchess, cutechess)."""

    match_id: str
    """``LEAGUE-POSITION`` (``arena replay`` takes it)."""
    reason: str
    """``completed``, ``forfeit`` or ``aborted`` (a referee error: not rated, played again)."""
    bots: tuple[str, ...]
    """Bot names, by seat."""
    versions: tuple[str, ...]
    places: tuple[int, ...]
    """1 is best; ties share a place. An aborted match's places do not count."""
    scores: tuple[float, ...]
    faults: tuple[str | None, ...]
    """The fault kind of each seat (``timeout``, ``crash``, ...), None for none."""
    duration_ms: float
    deal: str
    """The duplicate group: the matches of one deal share it."""
    done: int
    """Matches of the league with a result, this one included."""
    total: int
    """Matches of the league when the run began (a rolling ladder's schedule grows)."""
    error: str = ""
    """The referee's error, for an aborted match."""

    def as_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "match": self.match_id,
            "reason": self.reason,
            "bots": list(self.bots),
            "versions": list(self.versions),
            "places": list(self.places),
            "scores": list(self.scores),
            "faults": list(self.faults),
            "duration_ms": round(self.duration_ms, 1),
            "deal": self.deal,
            "done": self.done,
            "total": self.total,
        }
        if self.error:
            data["error"] = self.error
        return data


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
MatchCallback = Callable[[FinishedMatch], None]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How a :class:`LeagueRun` plays (the ``arena league run`` options)."""

    concurrency: int = 1
    """Matches at a time, over all referee processes."""
    workers: int | None = 1
    """Referee processes (None: one per core), clamped by :func:`worker_count`;
    1 referees in this process."""
    max_matches: int | None = None
    """Stop after handing out this many matches."""
    handle_signals: bool = True
    """The first SIGINT/SIGTERM stops starting matches, a second abandons them."""
    grace_s: float | None = None
    """After ``stop`` is set, abandon the running matches this much later (None: never)."""
    ray: RayOptions | None = None
    """Play each match as a task on a Ray cluster instead (``workers`` is then ignored)."""
    min_protocol: int = 1
    """The lowest bot protocol version a seat may speak
    (:attr:`referee.runtime.match.Limits.min_protocol`):
    the server's ladders set its ``--min-protocol``."""
    write_behind: bool = True
    """Write finished matches from :class:`ResultWriter` (batched, in a worker
    thread). False: each in a transaction of its own on the event loop's thread as it
    finishes, stalling the matches in flight meanwhile — as runs did before; only the
    benchmark that measures the difference sets it (``bench/league_db.py``)."""


class ScheduleSource(Protocol):
    """Matches beyond the league's pending ones, for a schedule that grows while it runs."""

    async def more(self) -> list[PendingMatch]:
        """The next matches to play, already written as pending rows, or ``[]`` to end.

        Awaited by one slot at a time, when the queue is empty."""

    async def pace(self) -> None:
        """Awaited before each match starts (a rate limit)."""


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


def choose_executor(
    options: RunOptions, todo: list[PendingMatch], capacity: int, sandbox: SandboxConfig
) -> Executor:
    """Ray if asked, else this process for one referee process, else worker processes."""
    slots = min(options.concurrency, max(1, capacity))
    processes = worker_count(options.workers, options.concurrency, capacity)  # checks workers
    if options.ray is not None:
        bots = {bot_spec(bot) for pending in todo for bot in pending.bots}
        return RayExecutor(slots, sandbox, options.ray, sorted(bots, key=lambda b: b.name))
    if processes == 1:
        return LocalExecutor(slots, sandbox)
    return RefereeWorkers(processes, slots, sandbox)


class LeagueRun:
    """One run over league ``name``'s pending matches; see the module docstring.

    ``stop``: once set, like the first Ctrl-C: no new match starts, running ones
    finish and are written; ``options.grace_s`` after it the running ones are
    abandoned (not written: still pending, played again by the next run).
    ``schedule``: where matches come from once the pending ones are handed out;
    with it every one of the ``concurrency`` slots is used from the start.
    ``on_result``: called with ``LEAGUE-POSITION`` after each finished (or aborted)
    match is committed; ``on_match`` then with the whole :class:`FinishedMatch`.
    Use once: ``summary = await LeagueRun(...).play()``.
    """

    def __init__(
        self,
        engine: Engine,
        name: str,
        options: RunOptions = RunOptions(),
        *,
        schedule: ScheduleSource | None = None,
        stop: trio.Event | None = None,
        on_progress: ProgressCallback | None = None,
        on_result: Callable[[str], None] | None = None,
        on_match: MatchCallback | None = None,
    ) -> None:
        if options.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {options.concurrency}")
        self.engine = engine
        self.name = name
        self.options = options
        self.schedule = schedule
        self.stop = stop
        self.on_progress = on_progress
        self.on_result = on_result
        self.on_match = on_match
        self.queue: list[PendingMatch] = []
        """Matches to hand out, the next one last."""
        self.handed = 0
        self.done = 0
        """Matches of the league with a result (before and during this run)."""
        self.played = 0
        """Matches this run wrote (finished or aborted)."""
        self.stopping = False
        self.aborted: list[AbortedMatch] = []
        self.lost: list[LostMatch] = []
        self.started = time.monotonic()
        self._schedule_lock = trio.Lock()
        self.one_rotation_at_a_time = True
        """Off only in the benchmark that measures what it costs (bench/trust_cost.py)."""
        self._playing: dict[str, int] = {}
        """Deal groups with a match in flight (how many): the next rotation of a deal
        waits until its group has none, so one rotation is played at a time and the
        warm pool's parked processes of the earlier ones never run beside it."""
        self.writer = ResultWriter(self._write, self._written)
        self.lucks = LuckWorker()

    async def play(self) -> RunSummary:
        """Play until the queue (and the schedule source) is empty, or a stop."""
        with session_scope(self.engine) as session:
            self.league = get_league(session=session, name=self.name)
            todo = pending_matches(session=session, league=self.league)
            self.status = league_status(session=session, league=self.league)
        if self.options.max_matches is not None:
            todo = todo[: self.options.max_matches]
        capacity = (
            len(todo)
            if self.schedule is None
            else (self.options.max_matches or self.options.concurrency)
        )
        self.rules = json.loads(self.league.rules)
        self.limits = Limits(
            decision_s=self.league.decision_s,
            startup_s=self.league.startup_s,
            min_protocol=self.options.min_protocol,
        )
        executor = choose_executor(self.options, todo, capacity, self._sandbox())
        self.started = time.monotonic()
        self.done = self.status.done
        self.queue = list(reversed(todo))
        # One process plays a league at a time (two would take the same matches).
        with league_lock(self.engine, self.league), self.lucks:
            self._report()
            await self._play_all(executor)
        return self._summary(executor)

    def _sandbox(self) -> SandboxConfig:
        sandbox = league_sandbox(self.league)
        if sandbox.enabled:
            require_tools()  # a clear error now rather than a startup fault per seat
        return replace(sandbox, protect=(*sandbox.protect, *protected_files(self.engine)))

    async def _play_all(self, executor: Executor) -> None:
        start_error: WorkerStartError | None = None
        async with trio.open_nursery() as outer:
            if self.options.handle_signals:
                outer.start_soon(self._watch_signals, outer.cancel_scope)
            if self.stop is not None:
                outer.start_soon(self._watch_stop, self.stop, outer.cancel_scope)
            async with trio.open_nursery() as writing:
                writing.start_soon(self.writer.run)  # shielded: writes what it was given
                try:
                    async with executor.running(), trio.open_nursery() as tasks:
                        for slot in executor.slots:
                            tasks.start_soon(self._play_on, slot)
                except WorkerStartError as error:  # raised before any match started
                    start_error = error
                finally:
                    self.writer.close()
            outer.cancel_scope.cancel()
        if start_error is not None:
            raise start_error

    def _summary(self, executor: Executor) -> RunSummary:
        lost_workers = tuple(w.reason for w in executor.lost)
        limit = self.options.max_matches
        limited = limit is not None and self.handed >= limit  # a grown schedule may remain
        remaining = self.status.total - self.done
        if self.schedule is not None:  # the schedule grew during the run
            with session_scope(self.engine) as session:
                remaining = league_status(session=session, league=self.league).pending
        return RunSummary(
            played=self.played,
            remaining=remaining,
            interrupted=self.stopping or (bool(self.queue) and not lost_workers and not limited),
            processes_started=executor.started,
            processes_reused=executor.reused,
            elapsed_s=time.monotonic() - self.started,
            aborted=tuple(self.aborted),
            workers=executor.processes,
            lost=tuple(self.lost),
            lost_workers=lost_workers,
        )

    def _report(self, leader: Leader | None = None) -> None:
        """Tell ``on_progress`` where the run stands; ``leader``: as a batch just
        written left it (else read now)."""
        if self.on_progress is None:
            return
        if leader is None:
            with session_scope(self.engine) as session:
                leader = self._leader(session)
        self.on_progress(
            Progress(
                done=self.done,
                total=self._run_total(),
                played_now=self.played,
                elapsed_s=time.monotonic() - self.started,
                leader=leader.leader,
                leader_elo=leader.leader_elo,
                stopping=self.stopping,
            )
        )

    def _leader(self, session: Session) -> Leader:
        entry, bot = max(league_bots(session=session, league=self.league), key=lambda p: p[0].elo)
        return Leader(bot.name, entry.elo)

    def _run_total(self) -> int:
        """The league's results when this run ends at the latest: its schedule, or
        what ``--max-matches`` lets this run add (a growing schedule — ``--adaptive``,
        a rolling ladder — has no end of its own, so its budget is the total; an
        adaptive run that settles early ends below it)."""
        total = self.status.total
        limit = self.options.max_matches
        if self.schedule is not None:
            grown = self.done + len(self.queue)
            return self.status.done + limit if limit is not None else max(total, grown)
        return total if limit is None else min(total, self.status.done + limit)

    def _stopped(self) -> bool:
        return self.stopping or (self.stop is not None and self.stop.is_set())

    def _exhausted(self) -> bool:
        limit = self.options.max_matches
        return not self.queue or self._stopped() or (limit is not None and self.handed >= limit)

    def _eligible(self, prefer: str) -> int | None:
        """Where in the queue the next match to hand out is: a match of ``prefer`` (the
        deal this slot just played) first, else the next one whose deal has no match in
        flight; None when every queued match waits for its deal's match in flight."""
        if not self.one_rotation_at_a_time:
            return len(self.queue) - 1 if self.queue else None
        if prefer:
            for index in range(len(self.queue) - 1, -1, -1):
                if self.queue[index].group == prefer:
                    return index
        for index in range(len(self.queue) - 1, -1, -1):
            group = self.queue[index].group
            if not group or not self._playing.get(group):
                return index
        return None

    async def _next_match(self, prefer: str = "") -> PendingMatch | None:
        """The next match to start (after the schedule's pace), or None: nothing more."""
        limit = self.options.max_matches
        if self._stopped() or (limit is not None and self.handed >= limit):
            return None
        if not self.queue and self.schedule is not None:
            async with self._schedule_lock:
                if not self.queue and not self._stopped():
                    # The schedule is drawn from the results: every finished one first.
                    await self.writer.flush()
                    self.queue.extend(reversed(await self.schedule.more()))
        # Checked again: another slot may have taken the last allowed match while
        # this one waited for the schedule.
        if self._exhausted():
            return None
        while (index := self._eligible(prefer)) is None:
            await trio.sleep(DEAL_WAIT_S)
            if self._exhausted():
                return None
        pending = self.queue.pop(index)
        self._playing[pending.group] = self._playing.get(pending.group, 0) + 1
        self.handed += 1
        if self.schedule is not None:
            await self.schedule.pace()
            if self._stopped():  # not started: still pending
                self.queue.append(pending)
                self._done_with(pending)
                self.handed -= 1
                return None
        return pending

    def _done_with(self, pending: PendingMatch) -> None:
        left = self._playing.get(pending.group, 0) - 1
        if left > 0:
            self._playing[pending.group] = left
        else:
            self._playing.pop(pending.group, None)

    def _spec(self, pending: PendingMatch) -> MatchSpec:
        return MatchSpec(
            game=self.league.game,
            bots=tuple(bot_spec(bot) for bot in pending.bots),
            rules=self.rules,
            match_id=match_id(self.league, pending),
            deal_group=pending.group,
            chance_key=match_deal_key(self.league, pending.group),
            last_of_deal=not any(other.group == pending.group for other in self.queue),
        )

    async def _play_on(self, slot: MatchSlot) -> None:
        last_deal = ""
        while (pending := await self._next_match(last_deal)) is not None:
            last_deal = pending.group
            spec = self._spec(pending)
            try:
                result = await slot.play(spec, self.limits)
            except WorkerGone:  # this slot's worker had died: another slot plays it
                self.queue.append(pending)
                return
            except WorkerLost as error:  # not written: still pending; this slot is gone
                self.lost.append(LostMatch(spec.match_id, str(error)))
                return
            finally:
                self._done_with(pending)
            finished = Finished(pending, spec, result)
            if self.options.write_behind:
                self.writer.put(finished)
            else:  # as runs did before the writer: the event loop waits on the database
                self._written([finished], self._write([finished]))

    def _write(self, batch: list[Finished]) -> Leader | None:
        """Write ``batch`` in one transaction, in its order (each match whole, its
        rating update on the ratings the ones before it left); the leader after it
        when there is a progress report to give. Runs in the writer's worker thread
        (on the event loop's with ``write_behind`` off); the matches' luck before it."""
        lucks = self.lucks.lucks([(f.played.record, f.played.mixed) for f in batch])
        with session_scope(self.engine) as session:
            for finished, luck in zip(batch, lucks, strict=True):
                record_result(
                    session=session,
                    league=self.league,
                    match_id=finished.pending.match_id,
                    record=finished.played.record,
                    logs=finished.played.logs,
                    mixed=finished.played.mixed,
                    luck=luck,
                )
            return self._leader(session) if self.on_progress is not None else None

    def _written(self, batch: list[Finished], leader: Leader | None) -> None:
        """After ``batch`` is committed: count it, tell the callbacks, report."""
        for finished in batch:
            spec, record = finished.spec, finished.played.record
            if record.reason == "aborted":
                error_text = str(record.meta.get("error", ""))
                self.aborted.append(AbortedMatch(spec.match_id, error_text))
            else:
                self.done += 1
            self.played += 1
            if self.on_result is not None:
                self.on_result(spec.match_id)
            if self.on_match is not None:
                self.on_match(self._finished(spec, record))
            self._report(leader)

    def _finished(self, spec: MatchSpec, record: MatchRecord) -> FinishedMatch:
        faults = {fault.seat: fault.kind.value for fault in record.faults}
        return FinishedMatch(
            match_id=spec.match_id,
            reason=record.reason,
            bots=tuple(seat.bot for seat in record.seats),
            versions=tuple(seat.version for seat in record.seats),
            places=tuple(record.places),
            scores=tuple(record.scores),
            faults=tuple(faults.get(seat) for seat in range(record.num_seats)),
            duration_ms=record.duration_ms,
            deal=spec.deal_group or "",
            done=self.done,
            total=self.status.total,
            error=str(record.meta.get("error", "")) if record.reason == "aborted" else "",
        )

    def _begin_stopping(self) -> None:
        if not self.stopping:
            self.stopping = True
            self._report()

    async def _watch_stop(self, event: trio.Event, cancel_scope: trio.CancelScope) -> None:
        await event.wait()
        self._begin_stopping()
        if self.options.grace_s is not None:
            await trio.sleep(self.options.grace_s)
            cancel_scope.cancel()

    async def _watch_signals(self, cancel_scope: trio.CancelScope) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                if self.stopping:
                    cancel_scope.cancel()
                    return
                self._begin_stopping()
