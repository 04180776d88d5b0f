"""Limits on a bot's whole process tree: memory, tasks and CPU share (Linux cgroups).

rlimits are per process: a bot that forks gets ``memory_mb`` per child, and every
child may spin on a core of its own. A control group bounds the bot as a whole —
total memory (the kernel's OOM killer acts inside the group only), total tasks,
and CPU bandwidth (``cpus`` cores at most), so one bot can neither exhaust the
host's memory nor starve the referee and the other seats of CPU. Seats share the
CPU fairly (:mod:`referee.runtime.cpu_share`): equal weight, a core of their own while
there are enough, a tighter bandwidth cap when cores are scarce.

Both cgroup layouts are supported: v1 (``/sys/fs/cgroup/{memory,pids,cpu}``) and
v2 (the unified ``/sys/fs/cgroup``). Creating groups needs root (or a delegated
subtree); where neither is writable, :func:`available` says why and the sandbox
runs with rlimits only (``arena`` warns once).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from referee.runtime import cpu_share, owners

ROOT = Path("/sys/fs/cgroup")
GROUP = "arena-bots"
CFS_PERIOD_US = 100_000
PIN_MARK = "-core"
"""A pinned group's name ends with this and its cores (``bot-OWNER-HEX-core1``,
``bot-OWNER-HEX-core2_3``; OWNER is the referee's :mod:`referee.runtime.owners` tag): how
referees tell which cores are taken."""
CpuSharing = Literal["fair", "before", "pooled"]
CPU_SHARING: CpuSharing = "fair"
"""Test-only, for the guards that show what fair sharing prevents; never a setting
of its own. ``"fair"``: :mod:`referee.runtime.cpu_share`. ``"before"``: the groups of before
(a bandwidth cap of ``cpus`` cores, default weights, no pinning). ``"pooled"`` (v1;
on v2 like ``"before"``): no CPU group per seat — every bot's threads compete one by
one in the bots' common group, so a seat's CPU grows with its thread count."""


class CgroupError(Exception):
    """A control group could not be made or configured (the message says where)."""


@dataclass(frozen=True, slots=True)
class BotCgroup:
    """The control group(s) of one bot process tree."""

    paths: tuple[Path, ...]
    shared: frozenset[Path] = field(default=frozenset())
    """Paths among ``paths`` other bots are in too (joined, never removed)."""

    def add(self, pid: int) -> None:
        """Move ``pid`` (and so every process it will start) into the group."""
        for path in self.paths:
            (path / "cgroup.procs").write_text(f"{pid}\n")

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the group for its memory limit."""
        for path in self.paths:
            for name, key in (("memory.events", "oom_kill"), ("memory.oom_control", "oom_kill")):
                with contextlib.suppress(OSError):
                    for line in (path / name).read_text().splitlines():
                        field, _, value = line.partition(" ")
                        if field == key and value.strip() not in ("", "0"):
                            return True
        return False

    def remove(self) -> bool:
        """Remove the group; True when it is gone. The kernel refuses while a task of
        it is not yet reaped (a namespace's init is reaped by the host's init, a moment
        after it died): callers retry."""
        own = [path for path in self.paths if path not in self.shared]
        for path in own:
            with contextlib.suppress(FileNotFoundError, OSError):
                path.rmdir()
        return not any(path.exists() for path in own)


def _write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError as error:
        raise CgroupError(f"cannot write {value.strip()!r} to {path}: {error}") from None


def _write_if_present(path: Path, value: str) -> None:
    """Write ``value`` to a control file that older kernels lack (then do nothing)."""
    if path.exists():
        _write(path, value)


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError as error:
        raise CgroupError(f"cannot read {path}: {error}") from None


def _v2_parent() -> tuple[Path, bool] | None:
    """The v2 parent of bot groups and whether it can pin (cpuset), or None on v1."""
    if not (ROOT / "cgroup.controllers").exists():
        return None
    parent = ROOT / GROUP
    parent.mkdir(exist_ok=True)
    wanted = {"memory", "pids", "cpu"}
    available = set((ROOT / "cgroup.controllers").read_text().split())
    if not wanted <= available:
        raise CgroupError(f"cgroup v2 lacks controllers {sorted(wanted - available)}")
    if CPU_SHARING == "fair" and "cpuset" in available:
        wanted.add("cpuset")
    for path in (ROOT, parent):
        enabled = set((path / "cgroup.subtree_control").read_text().split())
        if not wanted <= enabled:
            _write(path / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
    return parent, "cpuset" in wanted


def _v1_cpuset_parent() -> Path | None:
    """The v1 cpuset parent of bot groups, its cores and memory nodes filled in from
    the root's (a v1 cpuset group starts empty); None without a cpuset hierarchy."""
    base = ROOT / "cpuset"
    if not (base / "cgroup.procs").exists():
        return None
    parent = base / GROUP
    parent.mkdir(exist_ok=True)
    for name in ("cpuset.cpus", "cpuset.mems"):
        if not _read(parent / name):
            _write(parent / name, _read(base / name))
    return parent


def _cpu_plan(siblings: Path, group_cores: str | None, cpus: float) -> cpu_share.CpuPlan:
    """The CPU of a new group beside the bot groups in ``siblings``: which cores
    they are pinned to is in their names (``...-coreN``), on v1 and v2 alike. A
    group a dead referee left holds no core: what it still holds is killed
    (:func:`end_orphans`) and it is removed here, so a core is never lost to one."""
    held: set[int] = set()
    others = 0
    for path in _live_groups(siblings, remove_stale=True):
        others += 1
        _, mark, pins = path.name.rpartition(PIN_MARK)
        if mark:
            held.update(int(pin) for pin in pins.split("_") if pin.isdigit())
    usable = cpu_share.usable_cores(cpu_share.parse_cpu_list(group_cores or ""))
    return cpu_share.plan(
        usable=usable, held=held, others=others, cpus=cpus, can_pin=group_cores is not None
    )


def _is_stale(path: Path) -> bool:
    """Whether the referee that made bot group ``path`` (``bot-OWNER-...``) is gone;
    groups of the older pid-only form are stale once no process has that pid."""
    owner = path.name.split("-")[1] if path.name.startswith("bot-") else ""
    alive = owners.tag_is_alive(owner)
    if alive is None:
        return owner.isdigit() and not Path(f"/proc/{owner}").exists()
    return not alive


def _live_groups(parent: Path, *, remove_stale: bool = False) -> list[Path]:
    """The bot groups in ``parent`` whose referee still runs. ``remove_stale``: remove
    the others, and count as live a stale one that cannot be removed (its processes
    are still dying, and run meanwhile)."""
    try:
        paths = sorted(parent.iterdir())
    except OSError:
        return []
    live = []
    for path in paths:
        if not path.name.startswith("bot-") or not path.is_dir():
            continue
        if _is_stale(path):
            if not remove_stale:
                continue
            end_orphans(path)
            with contextlib.suppress(OSError):
                path.rmdir()
                continue
        live.append(path)
    return live


def end_orphans(path: Path) -> int:
    """SIGKILL every process left in the bot group ``path`` of a referee that is gone;
    how many there were.

    Bots die with their referee (the death signals, the lifeline's watcher); this
    is the last line for a sandbox that had not yet reached either when the
    referee died (bubblewrap's namespace init, still waiting for its parent's
    go-ahead, outlives it). Whatever is in such a group is an orphan by
    construction: the group's name says which referee made it, and it is gone.
    A process may fork while it is being killed, so this looks again, a few times."""
    ended = 0
    for _ in range(5):
        try:
            pids = [int(pid) for pid in (path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return ended
        if not pids:
            return ended
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                ended += 1
    return ended


def live_groups() -> list[str]:
    """The names of the bot groups of live referees on this host (this one's too),
    where the CPU rule reads them; empty where there are no bot groups."""
    parent = ROOT / GROUP if (ROOT / "cgroup.controllers").exists() else ROOT / "cpu" / GROUP
    return [path.name for path in _live_groups(parent)]


def _pin_suffix(cpu: cpu_share.CpuPlan) -> str:
    return PIN_MARK + "_".join(str(core) for core in cpu.cores)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on directory ``path`` (so two referees never pick the
    same free core at once)."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class _Limits:
    """What :func:`create` bounds: memory in all, tasks, CPU bandwidth in cores."""

    memory_mb: int
    max_tasks: int
    cpus: float


def create(*, memory_mb: int, max_tasks: int, cpus: float) -> BotCgroup:
    """A fresh group limited to ``memory_mb`` in all and ``max_tasks`` tasks, with
    the CPU of :mod:`referee.runtime.cpu_share` (equal weight, a core of its own when one
    is free, at most ``cpus`` cores of bandwidth). :class:`CgroupError` when that
    cannot be done."""
    name = f"bot-{owners.own_tag()}-{secrets.token_hex(4)}"
    made: list[Path] = []  # every directory made so far: removed if the group cannot be finished
    limits = _Limits(memory_mb, max_tasks, cpus)
    try:
        v2 = _v2_parent()
        if v2 is not None:
            parent, can_pin = v2
            return _create_v2(parent, can_pin, name, made, limits)
        return _create_v1(name, made, limits)
    except (OSError, cpu_share.CpuListError) as error:
        BotCgroup(tuple(made), frozenset([ROOT / "cpu" / GROUP])).remove()
        raise CgroupError(f"cannot create a control group for a bot: {error}") from None
    except CgroupError:
        BotCgroup(tuple(made), frozenset([ROOT / "cpu" / GROUP])).remove()
        raise


def _create_v2(
    parent: Path, can_pin: bool, name: str, made: list[Path], limits: _Limits
) -> BotCgroup:
    """:func:`create` under cgroup v2: one group below ``parent``."""
    with _locked(parent):
        cores = _read(parent / "cpuset.cpus.effective") if can_pin else None
        cpu = _cpu_plan(parent, cores, limits.cpus) if CPU_SHARING == "fair" else None
        _write(parent / "cpu.weight", str(cpu_share.parent_weight(cpu, v2=True)))
        path = parent / (name + (_pin_suffix(cpu) if cpu and cpu.pinned else ""))
        path.mkdir()
    made.append(path)
    _write(path / "memory.max", str(limits.memory_mb << 20))
    with contextlib.suppress(CgroupError):
        _write(path / "memory.swap.max", "0")
    _write(path / "pids.max", str(limits.max_tasks))
    _write(path / "cpu.max", f"{_quota(cpu, limits.cpus)} {CFS_PERIOD_US}")
    if cpu is not None:
        _write_if_present(path / "cpu.max.burst", _quota(cpu, limits.cpus))
        _write(path / "cpu.weight", str(cpu_share.WEIGHT_V2))
        if can_pin:
            _write(path / "cpuset.cpus", cpu.cpu_list)
    return BotCgroup((path,))


def _create_v1(name: str, made: list[Path], limits: _Limits) -> BotCgroup:
    """:func:`create` under cgroup v1: a group per controller (the CPU one shared
    by every bot when CPU sharing is ``pooled``)."""
    for controller in ("memory", "pids", "cpu"):
        if not (ROOT / controller / "cgroup.procs").exists():
            raise CgroupError(f"no cgroup v1 {controller} hierarchy at {ROOT / controller}")
    cpu_parent = ROOT / "cpu" / GROUP
    cpu_parent.mkdir(exist_ok=True)
    fair = CPU_SHARING == "fair"
    cpuset_parent = _v1_cpuset_parent() if fair else None
    with _locked(cpu_parent):
        cores = _read(cpuset_parent / "cpuset.effective_cpus") if cpuset_parent else None
        cpu = _cpu_plan(cpu_parent, cores, limits.cpus) if fair else None
        _write(cpu_parent / "cpu.shares", str(cpu_share.parent_weight(cpu, v2=False)))
        if cpu is not None and cpu.pinned:
            name += _pin_suffix(cpu)
        if CPU_SHARING != "pooled":
            (cpu_parent / name).mkdir()
    if CPU_SHARING == "pooled":
        made.append(cpu_parent)
        shared = frozenset(made)
    else:
        made.append(cpu_parent / name)
        shared = frozenset()
    for controller, files in _v1_settings(cpu, cpuset_parent, limits).items():
        path = ROOT / controller / GROUP / name
        if controller != "cpu":
            path.parent.mkdir(exist_ok=True)
            path.mkdir()
            made.append(path)
        for file, value in files.items():
            if file == "memory.memsw.limit_in_bytes" and not (path / file).exists():
                continue  # swap accounting off: memory.limit_in_bytes still holds
            if file == "cpu.cfs_burst_us":
                _write_if_present(path / file, value)  # kernels before 5.14: none
                continue
            _write(path / file, value)
    return BotCgroup(tuple(made), shared)


def _v1_settings(
    cpu: cpu_share.CpuPlan | None, cpuset_parent: Path | None, limits: _Limits
) -> dict[str, dict[str, str]]:
    """The files to write in each v1 controller's group, by controller."""
    settings: dict[str, dict[str, str]] = {
        "cpu": {
            "cpu.cfs_period_us": str(CFS_PERIOD_US),
            "cpu.cfs_quota_us": _quota(cpu, limits.cpus),
        },
        "memory": {
            "memory.limit_in_bytes": str(limits.memory_mb << 20),
            "memory.memsw.limit_in_bytes": str(limits.memory_mb << 20),
        },
        "pids": {"pids.max": str(limits.max_tasks)},
    }
    if cpu is not None:
        settings["cpu"]["cpu.shares"] = str(cpu_share.SHARES_V1)
        settings["cpu"]["cpu.cfs_burst_us"] = _quota(cpu, limits.cpus)
        if cpuset_parent is not None:
            mems = _read(cpuset_parent / "cpuset.mems")
            settings["cpuset"] = {"cpuset.cpus": cpu.cpu_list, "cpuset.mems": mems}
    if CPU_SHARING == "pooled":
        del settings["cpu"]
    return settings


def _quota(cpu: cpu_share.CpuPlan | None, cpus: float) -> str:
    """The bandwidth quota (µs per period) of the plan's cap, else of ``cpus`` cores."""
    cores = cpu.quota_cores if cpu is not None else cpus
    return str(max(1000, int(CFS_PERIOD_US * cores)))


_availability: str | None = None
_checked = False


def available() -> str | None:
    """None if bot control groups can be made here, else why not (checked once;
    also removes the empty groups that referees killed with SIGKILL left behind)."""
    global _availability, _checked
    if not _checked:
        _checked = True
        try:
            create(memory_mb=64, max_tasks=8, cpus=1.0).remove()
        except CgroupError as error:
            _availability = str(error)
        else:
            sweep_stale()
    return _availability


def sweep_stale() -> int:
    """Remove bot groups whose referee process is gone, ending what they still hold
    (:func:`end_orphans`; a group whose processes are not yet reaped stays)."""
    removed = 0
    parents = [ROOT / GROUP] + [ROOT / c / GROUP for c in ("memory", "pids", "cpu", "cpuset")]
    for parent in parents:
        if not parent.is_dir():
            continue
        for path in parent.iterdir():
            if not path.is_dir() or not _is_stale(path):
                continue
            end_orphans(path)
            with contextlib.suppress(OSError):
                path.rmdir()
                removed += 1
    return removed
