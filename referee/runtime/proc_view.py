"""What a sandboxed bot sees of ``/proc``: its own processes, and host-wide numbers frozen.

bubblewrap's ``--proc`` mounts a procfs of the bot's PID namespace: ``/proc/PID`` shows
only the sandbox's own processes. But the files at the top of ``/proc`` describe the
whole host, and many of them move when *another* sandbox does something: the number
of threads in ``/proc/loadavg``, free memory in ``/proc/meminfo``, the fork counter of
``/proc/stat``, open files in ``/proc/sys/fs/file-nr``, idle time in ``/proc/uptime``,
``/proc/pressure/*``, ``/proc/vmstat`` and more. Two bots running at once could signal
each other through any of them (one opens 200 files, the other reads ``file-nr``).

So the view is an allow-list. Inside the sandbox:

- ``/proc/PID``, ``self`` and ``thread-self``, ``mounts`` and ``net`` (links into the
  bot's own processes and network namespace) are the sandbox's own procfs;
- ``cpuinfo``, ``meminfo``, ``stat``, ``loadavg`` and ``uptime`` are synthetic and
  constant: the host's processors (without their clock rate), the bot's own memory
  limit, zero load;
- ``/proc/sys`` is a copy of the host's, taken once per boot and never updated
  (programs read settings there, such as ``vm/overcommit_memory``; the counters in it
  stand still);
- ``version``, ``filesystems``, ``cmdline``, ``crypto``, ``devices``, ``sysvipc``
  (the bot's own IPC namespace) are the kernel's, and do not change while it runs;
- every other top-level entry is hidden behind an empty file or directory.

The synthetic files live in one directory per referee process, named like the bots'
own directories (``arena-bot-OWNER-view-...``), so the sweep of
:func:`referee.runtime.process.sweep_workdirs` removes those of a killed referee. The copy of
``/proc/sys`` (1,300 files, half a second to read) is shared by every referee of the
same user on the host until it reboots (:func:`shared_sys`): each ``arena`` command
used to take its own.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path

from referee.runtime import owners

KEPT = frozenset(
    {
        "self",
        "thread-self",
        "mounts",
        "net",
        "version",
        "filesystems",
        "cmdline",
        "crypto",
        "devices",
        "sysvipc",
    }
)
"""Top-level entries of the sandbox's procfs left as they are (see the module text)."""

SYNTHETIC = ("cpuinfo", "meminfo", "stat", "loadavg", "uptime")
"""Top-level files replaced by constant ones."""

FROZEN_DIR = "sys"
"""Replaced by a copy of the host's, taken once."""

MAX_SYS_FILE = 1 << 16
"""A /proc/sys file longer than this is not copied (none is, on hosts seen)."""


class ProcView:
    """The host directory holding one referee's synthetic files and /proc/sys copy."""

    def __init__(self, root: Path, memory_mb: int) -> None:
        self.root = root
        self.memory_mb = memory_mb

    @functools.cached_property
    def _args(self) -> tuple[str, ...]:
        args: list[str] = []
        for name in SYNTHETIC:
            args += ["--ro-bind", str(self.root / "memory" / str(self.memory_mb) / name)]
            args.append(f"/proc/{name}")
        args += ["--ro-bind", str(shared_sys()), "/proc/sys"]
        for name, is_dir in _hidden_entries():
            empty = self.root / ("empty-dir" if is_dir else "empty-file")
            args += ["--ro-bind", str(empty), f"/proc/{name}"]
        return tuple(args)

    def bwrap_args(self) -> list[str]:
        """bubblewrap options that turn the ``--proc /proc`` just mounted into the view
        (worked out once: listing /proc on a busy host is not free)."""
        return list(self._args)


_lock = threading.Lock()
_views: dict[tuple[int, int], ProcView] = {}


def view_for(memory_mb: int) -> ProcView:
    """This referee process's view for bots with ``memory_mb`` of memory (made once)."""
    key = (os.getpid(), memory_mb)
    with _lock:
        view = _views.get(key)
        if view is None or not view.root.is_dir():
            root = _root()
            _write_synthetic(root / "memory" / str(memory_mb), memory_mb)
            view = _views[key] = ProcView(root, memory_mb)
        return view


_roots: dict[int, Path] = {}


def _root() -> Path:
    pid = os.getpid()
    root = _roots.get(pid)
    if root is None or not root.is_dir():  # first use, or removed under our feet
        root = Path(tempfile.mkdtemp(prefix=f"{owners.WORKDIR_PREFIX}{owners.own_tag()}-view-"))
        root.chmod(0o755)
        (root / "empty-dir").mkdir(mode=0o755)
        (root / "empty-file").touch(mode=0o444)
        if pid not in _roots:
            atexit.register(_remove_all, pid)
        _roots[pid] = root
    return root


def _remove_all(pid: int) -> None:
    root = _roots.get(pid)
    if os.getpid() == pid and root is not None:  # not in a forked child
        shutil.rmtree(root, ignore_errors=True)


def _hidden_entries() -> list[tuple[str, bool]]:
    """The host's top-level /proc entries the view hides: (name, is a directory)."""
    hidden = []
    for entry in sorted(os.listdir("/proc")):
        if entry.isdigit() or entry in KEPT or entry in SYNTHETIC or entry == FROZEN_DIR:
            continue
        path = Path("/proc") / entry
        if path.is_symlink():
            continue  # a link into the bot's own processes (e.g. ``net``, ``mounts``)
        hidden.append((entry, path.is_dir()))
    return hidden


SHARED_SYS_PREFIX = "arena-proc-sys-"
"""The shared copy of ``/proc/sys``: ``arena-proc-sys-UID-BOOT_ID`` in the temporary
directory (not ``arena-bot-...``: no sweep removes it while the host runs)."""

_shared: dict[int, Path] = {}


def shared_sys() -> Path:
    """The copy of ``/proc/sys`` every referee of this user shares until the host
    reboots: made once, atomically (built aside, then renamed into place; of two
    referees racing, one rename wins and both use its copy).

    A directory at that path that is not this user's own, or that others could
    write, is never used: this referee then keeps a private copy in its view
    directory."""
    pid = os.getpid()
    found = _shared.get(pid)
    if found is not None and found.is_dir():
        return found
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = "unknown-boot"
    path = Path(tempfile.gettempdir()) / f"{SHARED_SYS_PREFIX}{os.getuid()}-{boot}"
    if not _trusted(path):
        building = Path(tempfile.mkdtemp(prefix=f"{path.name}.building-", dir=path.parent))
        try:
            building.chmod(0o755)
            _copy_sys(Path("/proc/sys"), building / "sys")
            os.rename(building, path)
        except OSError:  # another referee renamed first (or the path is taken)
            shutil.rmtree(building, ignore_errors=True)
    if _trusted(path):
        found = path / "sys"
    else:
        found = _root() / "sys"
        if not found.is_dir():
            _copy_sys(Path("/proc/sys"), found)
    _shared[pid] = found
    return found


def _trusted(path: Path) -> bool:
    """Whether ``path`` is a complete shared copy: a real directory (not a link) of
    this user's, writable by no one else, holding ``sys``."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISDIR(st.st_mode)
        and st.st_uid == os.getuid()
        and not st.st_mode & 0o022
        and (path / "sys").is_dir()
    )


def _copy_sys(source: Path, target: Path) -> None:
    """Copy every readable file of ``/proc/sys`` (mode 0444), once."""
    target.mkdir(mode=0o755)
    for dirpath, dirnames, filenames in os.walk(source):
        here = target / os.path.relpath(dirpath, source)
        here.mkdir(mode=0o755, exist_ok=True)
        for name in filenames:
            try:
                with open(os.path.join(dirpath, name), "rb") as file:
                    data = file.read(MAX_SYS_FILE + 1)
            except OSError:
                continue  # write-only, or not for this user
            if len(data) > MAX_SYS_FILE:
                continue
            out = here / name
            out.write_bytes(data)
            out.chmod(0o444)
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]


def _write_synthetic(directory: Path, memory_mb: int) -> None:
    directory.mkdir(mode=0o755, parents=True, exist_ok=True)
    cpus = os.cpu_count() or 1
    files = {
        "cpuinfo": _cpuinfo(),
        "meminfo": _meminfo(memory_mb),
        "stat": _stat(cpus),
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": "1000.00 1000.00\n",
    }
    for name, text in files.items():
        path = directory / name
        path.write_text(text)
        path.chmod(0o444)


def _cpuinfo() -> str:
    """The host's, without the lines that move (the clock rate, bogomips stays)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
    return "".join(line + "\n" for line in text.splitlines() if not line.startswith("cpu MHz"))


def _meminfo(memory_mb: int) -> str:
    kib = memory_mb * 1024
    rows = [
        ("MemTotal", kib),
        ("MemFree", kib),
        ("MemAvailable", kib),
        ("Buffers", 0),
        ("Cached", 0),
        ("SwapCached", 0),
        ("SwapTotal", 0),
        ("SwapFree", 0),
    ]
    return "".join(f"{name + ':':<16}{value:>8} kB\n" for name, value in rows)


def _stat(cpus: int) -> str:
    zero = " 0 0 0 0 0 0 0 0 0 0"
    lines = [f"cpu {zero}"] + [f"cpu{index}{zero}" for index in range(cpus)]
    lines += [
        "intr 0",
        "ctxt 0",
        "btime 0",
        "processes 1",
        "procs_running 1",
        "procs_blocked 0",
        "softirq 0",
    ]
    return "\n".join(lines) + "\n"
