"""League throughput without a database: ``run_match`` from several trio tasks, and
through the league runner's slots in one or several referee processes.

Bots are :mod:`bench.instant_bot` processes (plain processes, ``NO_SANDBOX``, unless a
sandbox is passed), instant or sleeping a fixed time per decision. A warm pool is
warmed with one untimed match per task first; a fresh launcher is timed from the
first start (starting processes is what it costs).
"""

from __future__ import annotations

import gc
import resource
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trio

from bench.instant_bot import match_id_for
from bench.wire import instant_spec
from league.execution.executor import Executor, LocalExecutor, MatchSlot
from league.execution.workers import RefereeWorkers
from referee.runtime.launcher import FreshLauncher, Launcher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import NO_SANDBOX, SandboxConfig

GAME = "liars_dice"


@dataclass(frozen=True)
class LeagueRun:
    matches: int
    wall_s: float
    decisions: int
    decision_span_s: float
    """Sum over matches of (last answer − first answer): time spent in decisions."""
    decision_gaps: int

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.wall_s

    @property
    def per_decision_s(self) -> float:
        return self.decision_span_s / self.decision_gaps

    @property
    def overhead_s(self) -> float:
        """Wall time per match beyond its decisions (concurrency 1 only)."""
        return (self.wall_s - self.decisions * self.per_decision_s) / self.matches


async def _play(
    launcher: Launcher, bot: BotSpec, seeds: list[int], concurrency: int
) -> tuple[int, float, int]:
    decisions = 0
    span = 0.0
    gaps = 0
    queue = list(reversed(seeds))

    async def worker() -> None:
        nonlocal decisions, span, gaps
        while queue:
            seed = queue.pop()
            spec = MatchSpec(
                GAME,
                (bot, bot),
                seed=seed,
                match_id=match_id_for(seed),
                bot_match_id=match_id_for(seed),
            )
            record = await run_match(spec, Limits(), launcher=launcher)
            if record.reason != "completed":
                raise RuntimeError(f"seed {seed}: {record.reason} {record.faults}")
            stamps = [e.at_ms for e in record.events if e.seat is not None and e.at_ms is not None]
            decisions += len(stamps)
            if len(stamps) >= 2:
                span += (stamps[-1] - stamps[0]) / 1000
                gaps += len(stamps) - 1

    async with trio.open_nursery() as nursery:
        for _ in range(concurrency):
            nursery.start_soon(worker)
    return decisions, span, gaps


def league_run(
    matches: int,
    concurrency: int,
    *,
    sleep_ms: float = 0.0,
    warm: bool = True,
    sandbox: SandboxConfig = NO_SANDBOX,
) -> LeagueRun:
    # Plan the (few) matches up front, so MatchStart is instant for the bot too.
    prepare = (f"{GAME}:0-{matches - 1}", f"{GAME}:10000-{10_000 + concurrency - 1}")
    bot = instant_spec(sleep_ms, sandbox=sandbox, prepare=prepare if matches <= 200 else ())

    async def main() -> LeagueRun:
        launcher: Launcher
        pool: WarmPool | None = None
        if warm:
            pool = WarmPool(sandbox=sandbox, max_idle_per_bot=2 * concurrency)
            launcher = pool
            await _play(launcher, bot, list(range(10_000, 10_000 + concurrency)), concurrency)
        else:
            launcher = FreshLauncher(sandbox=sandbox)
        try:
            started = trio.current_time()
            decisions, span, gaps = await _play(launcher, bot, list(range(matches)), concurrency)
            wall = trio.current_time() - started
        finally:
            if pool is not None:
                await pool.aclose()
        return LeagueRun(matches, wall, decisions, span, gaps)

    return trio.run(main)


async def _play_slots(
    slots: Sequence[MatchSlot], bot: BotSpec, seeds: list[int]
) -> tuple[int, float, int]:
    """As :func:`_play`, through the league runner's slots (one task per slot)."""
    decisions = 0
    span = 0.0
    gaps = 0
    queue = list(reversed(seeds))

    async def on_slot(slot: MatchSlot) -> None:
        nonlocal decisions, span, gaps
        while queue:
            seed = queue.pop()
            spec = MatchSpec(
                GAME,
                (bot, bot),
                seed=seed,
                match_id=match_id_for(seed),
                bot_match_id=match_id_for(seed),
            )
            record = (await slot.play(spec, Limits())).record
            if record.reason != "completed":
                raise RuntimeError(f"seed {seed}: {record.reason} {record.faults}")
            stamps = [e.at_ms for e in record.events if e.seat is not None and e.at_ms is not None]
            decisions += len(stamps)
            if len(stamps) >= 2:
                span += (stamps[-1] - stamps[0]) / 1000
                gaps += len(stamps) - 1

    async with trio.open_nursery() as nursery:
        for slot in slots:
            nursery.start_soon(on_slot, slot)
    return decisions, span, gaps


@dataclass(frozen=True)
class WorkersRun:
    run: LeagueRun
    runner_cpu_s: float
    """CPU time of this (the runner's) process during the timed matches."""

    @property
    def runner_cpu_per_match_ms(self) -> float:
        return self.runner_cpu_s / self.run.matches * 1e3


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def workers_run(matches: int, concurrency: int, workers: int) -> WorkersRun:
    """Instant bots through the runner's players: this process (``workers`` 1) or
    referee worker processes (:mod:`league.execution.workers`), ``concurrency`` slots in all.

    No database (the runner's writes are the same either way); every process is
    started and its pool warmed by one untimed match per slot first."""
    return players_run(
        lambda bot: (
            LocalExecutor(concurrency, NO_SANDBOX)
            if workers == 1
            else RefereeWorkers(workers, concurrency, NO_SANDBOX)
        ),
        matches,
        concurrency,
    )


def ray_run(matches: int, concurrency: int, sleep_ms: float, *, ray: bool) -> WorkersRun:
    """Sleeping bots, ``concurrency`` slots: through a local Ray instance declaring
    ``concurrency`` logical CPUs, one per match task (so Ray keeps one warm worker
    process per slot), when ``ray``; else in this process — the two executors of
    ``arena league run``, without the database."""

    def make(bot: BotSpec) -> Executor:
        if not ray:
            return LocalExecutor(concurrency, NO_SANDBOX)
        from league.execution.ray_executor import RayExecutor, RayOptions

        options = RayOptions(num_cpus=concurrency, cpus_per_match=1)
        return RayExecutor(concurrency, NO_SANDBOX, options, [bot])

    return players_run(make, matches, concurrency, sleep_ms)


def players_run(
    make: Callable[[BotSpec], Executor], matches: int, concurrency: int, sleep_ms: float = 0.0
) -> WorkersRun:
    """``matches`` through the slots of ``make(bot)``, after one untimed match per slot."""
    bot = instant_spec(sleep_ms)

    async def main() -> WorkersRun:
        players = make(bot)
        async with players.running():
            warm = list(range(10_000, 10_000 + concurrency))
            await _play_slots(players.slots, bot, warm)
            started, cpu = trio.current_time(), _cpu_s()
            decisions, span, gaps = await _play_slots(players.slots, bot, list(range(matches)))
            wall, cpu = trio.current_time() - started, _cpu_s() - cpu
        return WorkersRun(LeagueRun(matches, wall, decisions, span, gaps), cpu)

    return trio.run(main)


@dataclass(frozen=True)
class MemoryRun:
    small: int
    large: int
    rss_small_kb: int
    rss_large_kb: int
    peak_kb: int


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def memory_run(large: int, concurrency: int = 2) -> MemoryRun:
    """RSS of this process (the league runner) after ``large // 10`` and ``large`` matches.

    Records are dropped after each match, as a league that stores them in its
    database would; a warm pool of instant bots, ``concurrency`` tasks.
    """
    small = large // 10
    bot = instant_spec()

    async def main() -> tuple[int, int]:
        pool = WarmPool(sandbox=NO_SANDBOX, max_idle_per_bot=2 * concurrency)
        try:
            await _play(pool, bot, list(range(small)), concurrency)
            gc.collect()
            at_small = _rss_kb()
            await _play(pool, bot, list(range(small, large)), concurrency)
            gc.collect()
            return at_small, _rss_kb()
        finally:
            await pool.aclose()

    at_small, at_large = trio.run(main)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return MemoryRun(small, large, at_small, at_large, peak)
