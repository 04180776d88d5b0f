"""What ``arena bot check`` measures of the checked bot while it plays: its start-up
time, its peak memory, the system calls its sandbox refused (:class:`MeasuringPool`,
around the warm pool a league uses), and what each of its decisions cost it
(:class:`DecisionTimer`: CPU and waits for a busy CPU, from /proc) — the clocks the
check's speed rule judges (:class:`DecisionClock`)."""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.v1 import bot_pb2
from referee.core.events import ActionEvent, Event
from referee.runtime.launcher import Lease
from referee.runtime.match import MessageLog
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec


@dataclass(frozen=True, slots=True)
class TreeClock:
    """What a bot's process tree has used so far (ns): CPU as the kernel bills it
    (``/proc/PID/stat``, every thread and reaped child included, 10 ms ticks), CPU of
    its live threads (``schedstat``, exact), and how long its threads waited,
    runnable, for a CPU other processes held (``schedstat``'s run delay: the load of
    the machine, not the bot's work)."""

    billed_ns: int
    cpu_ns: int
    waited_ns: int


_TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def tree_clock(pid: int) -> TreeClock | None:
    """:class:`TreeClock` of ``pid`` and every process under it, or None when /proc
    does not show them (not Linux, or hidden from us)."""
    billed = cpu = waited = 0
    seen = False
    for member in _descendants(pid):
        try:
            with open(f"/proc/{member}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            # utime, stime, cutime, cstime: the process's threads, dead ones included,
            # and its reaped children (a live child is counted as a member itself).
            billed += sum(int(value) for value in fields[11:15]) * _TICK_NS
            tasks = os.listdir(f"/proc/{member}/task")
        except (OSError, ValueError, IndexError):
            continue
        seen = True
        for task in tasks:
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{member}/task/{task}/schedstat") as handle:
                    ran, delay = handle.read().split()[:2]
                cpu += int(ran)
                waited += int(delay)
    return TreeClock(billed, cpu, waited) if seen else None


@dataclass(frozen=True, slots=True)
class DecisionClock:
    """One decision of the checked bot: its wall time (the record's ``elapsed_ms``)
    and, where /proc shows the bot, the CPU it used and how long it waited for a CPU
    meanwhile."""

    wall_ms: float
    cpu_ms: float | None = None
    waited_ms: float | None = None

    def own_ms(self, cores: float = 1.0) -> float:
        """The decision's time on a machine with nothing else to run: its wall time
        less the time its threads waited for a CPU others held, but never less than
        its CPU time spread over the ``cores`` it may use at once (the sandbox's
        cap: a quarter of a core makes a CPU second four), nor more than its wall
        time.

        A busy machine adds run-queue waits, which are taken off; it cannot add CPU
        (beyond small cache effects). A bot that computes too long burns CPU, and one
        that sleeps or waits on its own threads keeps its wall time: both stay slow.
        Without /proc: the wall time."""
        if self.cpu_ms is None or self.waited_ms is None:
            return self.wall_ms
        return min(self.wall_ms, max(self.cpu_ms / cores, self.wall_ms - self.waited_ms))


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process under it (Linux /proc), for memory sampling."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{current}/task").iterdir():
                text = (task / "children").read_text()
                todo.extend(int(p) for p in text.split())
    return found


def peak_rss_kb(pid: int) -> int | None:
    """The largest peak RSS (VmHWM) of a process in ``pid``'s tree, in KiB, or None
    when /proc does not tell (not Linux, or the processes are hidden from us)."""
    best: int | None = None
    for member in _descendants(pid):
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    value = int(line.split()[1])
                    best = value if best is None else max(best, value)
    return best


class MeasuringPool:
    """A :class:`WarmPool` (as a league uses) that also times the checked bot's
    start-up and samples its memory before each lease ends."""

    def __init__(self, pool: WarmPool, checked: BotSpec) -> None:
        self.pool = pool
        self.checked = checked
        self.startup_ms: float | None = None
        self.peak_rss_kb: int | None = None
        self.rss_samples = 0
        self.refused_calls: dict[str, int] = {}
        """Calls the sandbox refused the checked bot: name -> matches it was refused in."""
        self.checked_pid: int | None = None
        """The process the checked bot's current lease started (None: between leases,
        or a bot the referee dials rather than starts)."""

    @asynccontextmanager
    async def lease(
        self, spec: BotSpec, startup_s: float, *, group: str = "", last_of_deal: bool = True
    ) -> AsyncIterator[Lease]:
        began = time.perf_counter()
        async with self.pool.lease(
            spec, startup_s, group=group, last_of_deal=last_of_deal
        ) as leased:
            if spec == self.checked and leased.uses == 1 and self.startup_ms is None:
                self.startup_ms = (time.perf_counter() - began) * 1000
            if spec is self.checked and leased.process is not None:
                self.checked_pid = leased.process.process.pid
            try:
                yield leased
            finally:
                if spec is self.checked:
                    self.checked_pid = None
                if spec == self.checked and leased.process is not None:
                    refusals = leased.process.refusals
                    for name in refusals.counts if refusals is not None else ():
                        self.refused_calls[name] = self.refused_calls.get(name, 0) + 1
                    rss = peak_rss_kb(leased.process.process.pid)
                    if rss is not None:
                        self.rss_samples += 1
                        self.peak_rss_kb = max(rss, self.peak_rss_kb or 0)


class DecisionTimer(MessageLog):
    """Reads the checked bot's :class:`TreeClock` as each of its turns is sent
    (:meth:`on_send`, before the referee starts its clock) and once its answer is
    applied (:meth:`on_event`): what each of its decisions cost it, in the order
    played. A decision that ends in a fault has no end: it is left out (the fault
    judges it)."""

    def __init__(self, pool: MeasuringPool, seat: int) -> None:
        super().__init__()
        self.pool = pool
        self.seat = seat
        self.began: TreeClock | None = None
        self.spent: list[tuple[float, float] | None] = []
        """(CPU ms, waited ms) per decision of the checked seat; None: not measured."""

    def on_send(self, seat: int, message: bot_pb2.PlayRequest) -> None:
        if seat != self.seat or message.WhichOneof("kind") != "turn":
            return
        pid = self.pool.checked_pid
        self.began = None if pid is None else tree_clock(pid)

    def on_event(self, event: Event) -> None:
        if not isinstance(event, ActionEvent) or event.seat != self.seat:
            return
        pid = self.pool.checked_pid
        began, self.began = self.began, None
        ended = None if pid is None or began is None else tree_clock(pid)
        if began is None or ended is None:
            self.spent.append(None)
            return
        cpu_ns = ended.cpu_ns - began.cpu_ns
        billed_ns = ended.billed_ns - began.billed_ns
        if billed_ns > cpu_ns + 2 * _TICK_NS:  # threads or children that ended meanwhile
            cpu_ns = billed_ns
        self.spent.append((cpu_ns / 1e6, max(0, ended.waited_ns - began.waited_ns) / 1e6))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))
    return ordered[index]
