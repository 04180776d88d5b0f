"""Fair CPU between seats: the rule that gives each bot's control group its CPU.

A bot that busy-loops in many threads and processes must not slow its opponent's
thinking. Every bot's control group (:mod:`referee.runtime.cgroups`) gets:

1. **the same weight** — ``cpu.weight`` 100 (v2) / ``cpu.shares`` 1024 (v1) — so
   the kernel divides contended CPU equally between *seats*, however many threads
   or processes a seat runs (they all stay in its group);
2. **a core of its own when there are enough**: a core of the referee's CPUs that
   no other live bot group on this host is pinned to (read from the groups
   themselves, so concurrent referees see each other's seats). The group's
   ``cpuset.cpus`` is that core and its bandwidth (``cpu.max`` /
   ``cpu.cfs_quota_us``) the sandbox's ``cpus`` (at most 1 here). A hog's spinning
   children then compete only with each other. A sandbox allowed more than one
   core is not pinned: it keeps its cap of ``cpus`` cores on all of them while free
   cores remain;
3. **when cores are scarce** — no free core is left, i.e. this host's live bots
   outnumber its cores (without a cpuset controller: the live bots, this one
   included, outnumber the cores) — no pinning (all the referee's cores) and a
   bandwidth cap of ``cores ÷ live bots`` cores (this one included), but never
   below :data:`MIN_SCARCE_CORES` (an idle warm pool holds groups too). The cap
   comes with a burst allowance of one period's quota (``cpu.max.burst`` /
   ``cpu.cfs_burst_us``, where the kernel has it): a bot that was idle may spend
   what it saved on one decision, a bot that spins never saves any;
4. **the bots' parent group** (``arena-bots``) **weighs one seat per core**. The
   kernel splits a group's weight between the cores in proportion to where its
   children run: with the default weight, every bot on the host together weighed
   one process, and a hog spinning on its own core drew half of that weight away
   from its opponent's core, where the opponent then lost to any other process.

The sandbox's ``cpus`` setting is always an upper bound on the cap. The rule is
first come, first served per bot: on a host with one free core left, a match's
first seat is pinned there and its second is not (both still have equal weight).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

WEIGHT_V2 = 100
"""``cpu.weight`` of every bot group (cgroup v2; the kernel's default for a group)."""
SHARES_V1 = 1024
"""``cpu.shares`` of every bot group (cgroup v1; the kernel's default for a group)."""
MIN_SCARCE_CORES = 0.5
"""The smallest bandwidth cap (cores) the scarce rule gives a bot."""


def parent_weight(cpu: CpuPlan | None, *, v2: bool) -> int:
    """The weight of the group holding every bot group (rule 4): one seat's weight
    per usable core, or the kernel's default for the groups of before (``None``)."""
    seat = WEIGHT_V2 if v2 else SHARES_V1
    if cpu is None:
        return seat
    return min(10_000 if v2 else 262_144, seat * max(1, cpu.usable))


class CpuListError(ValueError):
    """A kernel CPU list (``0-3,6``) could not be read."""


@dataclass(frozen=True, slots=True)
class CpuPlan:
    """What one bot group gets: where it may run and how much bandwidth it has."""

    cores: tuple[int, ...]
    """The cores its processes may run on (its ``cpuset.cpus``)."""
    pinned: bool
    """True when no other live bot group is pinned to any of ``cores``."""
    quota_cores: float
    """Its bandwidth cap in cores (``cpu.max`` / ``cpu.cfs_quota_us`` over the period)."""
    usable: int = 1
    """How many cores the referee could give bots (the parent's weight scales with it)."""

    @property
    def cpu_list(self) -> str:
        return format_cpu_list(self.cores)


def parse_cpu_list(text: str) -> tuple[int, ...]:
    """The cores of a kernel CPU list such as ``"0-3,6"`` (empty text: none)."""
    cores: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        first, dash, last = part.partition("-")
        try:
            low, high = int(first), int(last) if dash else int(first)
        except ValueError:
            raise CpuListError(f"not a CPU list: {text!r}") from None
        if low < 0 or high < low:
            raise CpuListError(f"not a CPU list: {text!r}")
        cores.update(range(low, high + 1))
    return tuple(sorted(cores))


def format_cpu_list(cores: Iterable[int]) -> str:
    """The kernel's CPU list form of ``cores`` (``(0, 1, 2, 5)`` → ``"0-2,5"``)."""
    ranges: list[str] = []
    ordered = sorted(set(cores))
    start = previous = None
    for core in [*ordered, None]:
        if core is not None and previous is not None and core == previous + 1:
            previous = core
            continue
        if start is not None:
            ranges.append(f"{start}" if start == previous else f"{start}-{previous}")
        start = previous = core
    return ",".join(ranges)


def usable_cores(group_cores: Sequence[int]) -> tuple[int, ...]:
    """The cores both the bots' parent group and this referee may run on."""
    mine = os.sched_getaffinity(0)
    both = tuple(core for core in group_cores if core in mine)
    return both or tuple(sorted(mine))


def plan(
    *,
    usable: Sequence[int],
    held: Collection[int],
    others: int,
    cpus: float,
    can_pin: bool = True,
) -> CpuPlan:
    """The CPU of a new bot group (the rule in this module's docstring).

    ``usable``: the referee's cores; ``held``: cores other live bot groups are pinned
    to; ``others``: how many other live bot groups there are; ``cpus``: the
    sandbox's cap in cores; ``can_pin``: False without a cpuset controller (then
    cores are scarce once the live bots outnumber them).
    """
    if not usable:
        raise CpuListError("no usable cores")
    free = [core for core in usable if core not in held]
    if can_pin and cpus <= 1 and free:
        return CpuPlan((free[0],), pinned=True, quota_cores=cpus, usable=len(usable))
    scarce = not free if can_pin else others + 1 > len(usable)
    if not scarce:
        return CpuPlan(tuple(usable), pinned=False, quota_cores=cpus, usable=len(usable))
    share = max(MIN_SCARCE_CORES, len(usable) / (others + 1))
    return CpuPlan(tuple(usable), pinned=False, quota_cores=min(cpus, share), usable=len(usable))
