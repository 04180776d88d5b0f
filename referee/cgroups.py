"""Limits on a bot's whole process tree: memory, tasks and CPU share (Linux cgroups).

rlimits are per process: a bot that forks gets ``memory_mb`` per child, and every
child may spin on a core of its own. A control group bounds the bot as a whole —
total memory (the kernel's OOM killer acts inside the group only), total tasks,
and CPU bandwidth (``cpus`` cores at most), so one bot can neither exhaust the
host's memory nor starve the referee and the other seats of CPU.

Both cgroup layouts are supported: v1 (``/sys/fs/cgroup/{memory,pids,cpu}``) and
v2 (the unified ``/sys/fs/cgroup``). Creating groups needs root (or a delegated
subtree); where neither is writable, :func:`available` says why and the sandbox
runs with rlimits only (``arena`` warns once).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
GROUP = "arena-bots"
CFS_PERIOD_US = 100_000


class CgroupError(Exception):
    """A control group could not be made or configured (the message says where)."""


@dataclass(frozen=True, slots=True)
class BotCgroup:
    """The control group(s) of one bot process tree."""

    paths: tuple[Path, ...]

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
        for path in self.paths:
            with contextlib.suppress(FileNotFoundError, OSError):
                path.rmdir()
        return not any(path.exists() for path in self.paths)


def _write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError as error:
        raise CgroupError(f"cannot write {value.strip()!r} to {path}: {error}") from None


def _v2_parent() -> Path | None:
    if not (ROOT / "cgroup.controllers").exists():
        return None
    parent = ROOT / GROUP
    parent.mkdir(exist_ok=True)
    wanted = {"memory", "pids", "cpu"}
    available = set((ROOT / "cgroup.controllers").read_text().split())
    if not wanted <= available:
        raise CgroupError(f"cgroup v2 lacks controllers {sorted(wanted - available)}")
    for path in (ROOT, parent):
        enabled = set((path / "cgroup.subtree_control").read_text().split())
        if not wanted <= enabled:
            _write(path / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
    return parent


def create(*, memory_mb: int, max_tasks: int, cpus: float) -> BotCgroup:
    """A fresh group limited to ``memory_mb`` in all, ``max_tasks`` tasks and
    ``cpus`` cores of CPU bandwidth. :class:`CgroupError` when that cannot be done."""
    name = f"bot-{os.getpid()}-{secrets.token_hex(4)}"
    quota = max(1000, int(CFS_PERIOD_US * cpus))
    made: list[Path] = []
    try:
        v2 = _v2_parent()
        if v2 is not None:
            path = v2 / name
            path.mkdir()
            made.append(path)
            _write(path / "memory.max", str(memory_mb << 20))
            with contextlib.suppress(CgroupError):
                _write(path / "memory.swap.max", "0")
            _write(path / "pids.max", str(max_tasks))
            _write(path / "cpu.max", f"{quota} {CFS_PERIOD_US}")
            return BotCgroup((path,))
        settings = {
            "memory": {
                "memory.limit_in_bytes": str(memory_mb << 20),
                "memory.memsw.limit_in_bytes": str(memory_mb << 20),
            },
            "pids": {"pids.max": str(max_tasks)},
            "cpu": {"cpu.cfs_period_us": str(CFS_PERIOD_US), "cpu.cfs_quota_us": str(quota)},
        }
        for controller, files in settings.items():
            base = ROOT / controller
            if not (base / "cgroup.procs").exists():
                raise CgroupError(f"no cgroup v1 {controller} hierarchy at {base}")
            parent = base / GROUP
            parent.mkdir(exist_ok=True)
            path = parent / name
            path.mkdir()
            made.append(path)
            for file, value in files.items():
                if file == "memory.memsw.limit_in_bytes" and not (path / file).exists():
                    continue  # swap accounting off: memory.limit_in_bytes still holds
                _write(path / file, value)
        return BotCgroup(tuple(made))
    except OSError as error:
        BotCgroup(tuple(made)).remove()
        raise CgroupError(f"cannot create a control group for a bot: {error}") from None
    except CgroupError:
        BotCgroup(tuple(made)).remove()
        raise


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
    """Remove bot groups whose referee process is gone (a non-empty group stays)."""
    removed = 0
    parents = [ROOT / GROUP] + [ROOT / c / GROUP for c in ("memory", "pids", "cpu")]
    for parent in parents:
        if not parent.is_dir():
            continue
        for path in parent.iterdir():
            owner = path.name.split("-")[1] if path.name.startswith("bot-") else ""
            if not path.is_dir() or not owner.isdigit() or Path(f"/proc/{owner}").exists():
                continue
            with contextlib.suppress(OSError):
                path.rmdir()
                removed += 1
    return removed
