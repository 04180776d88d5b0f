"""What a bot process may use (:class:`SandboxConfig`), apart from the machinery that
enforces it (:mod:`referee.runtime.sandbox`).

Apart so that what only reads or parses the settings — the CLI's options, a league's
stored settings — does not load the sandbox's machinery (its seccomp filter, control
groups, the view of ``/proc``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class SandboxError(Exception):
    """The sandbox cannot start here (a tool is missing, or the kernel refuses)."""


class BotFilesError(SandboxError):
    """The bot's own files cannot be given to it (the bot's doing, not the host's)."""


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """What a bot process may use. ``enabled=False`` is ``--no-sandbox``."""

    enabled: bool = True
    memory_mb: int = 2048
    """Address-space limit (RLIMIT_AS) of each bot process, MiB."""
    cpu_s: int = 600
    """CPU seconds a bot process may use in its whole life (RLIMIT_CPU); the warm
    pool retires processes long before an honest bot gets near it."""
    max_procs: int = 128
    """Processes and threads of the bot's user (RLIMIT_NPROC)."""
    max_files: int = 256
    """Open file descriptors (RLIMIT_NOFILE)."""
    file_mb: int = 16
    """Largest file the bot may write (RLIMIT_FSIZE): its log, and any file in /tmp."""
    tmp_mb: int = 64
    """Size of the private /tmp."""
    cpus: float = 1.0
    """CPU bandwidth of the whole bot, in cores (control group; see below)."""
    cgroup: bool = True
    """Also bound the bot's whole process tree — ``memory_mb`` of memory in all,
    ``max_procs`` tasks, ``cpus`` cores — with a control group, where the host
    allows (:mod:`referee.runtime.cgroups`). rlimits alone are per process."""
    readable: tuple[str, ...] = ()
    """Extra host paths the bot may read (bound read-only at the same path)."""
    protect: tuple[str, ...] = field(default=())
    """Host files never visible inside even if under a bound directory (the
    database, records): each is hidden behind an empty file."""
    seccomp: bool = True
    """Load the system-call filter of :mod:`referee.runtime.seccomp`. Never stored nor
    offered on the command line: only the guard tests switch it off, to show
    that the attacks it stops succeed without it."""
    fresh_keyring: bool = True
    """Start each bot with an empty session keyring of its own (see
    :mod:`referee.runtime.spawn`). Like ``seccomp``, switched off only by guard tests."""
    close_channels: bool = True
    """Close the channels between sandboxes that run at once: the allow list's rules
    marked ``channel`` (:mod:`referee.runtime.syscall_rules`: locks, watches, shared
    futexes, page-cache queries, host-wide counters) and the frozen view of ``/proc``
    (:mod:`referee.runtime.proc_view`). Switched off only by guard tests."""
    ipc_net_namespaces: bool = True
    """New IPC and network namespaces (System V IPC, POSIX message queues, abstract
    unix sockets and the network of the sandbox's own). Switched off only by the
    channel test's guard."""
    copy_trees: bool = True
    """Give a submitted tree (:data:`referee.runtime.sandbox.BOT_TREE_MARKER`) to the
    bot as a fresh copy with fixed times (:mod:`referee.runtime.tree_copy`) instead of
    binding the host's, so its file metadata is the same in every start. Switched off
    only by the check-versus-ladder test's guard."""

    def __post_init__(self) -> None:
        if isinstance(self.cpus, bool) or not isinstance(self.cpus, int | float):
            raise ValueError(f"sandbox cpus must be a number of cores, got {self.cpus!r}")
        if not 0.01 <= self.cpus <= 1024:
            raise ValueError(f"sandbox cpus must be between 0.01 and 1024, got {self.cpus!r}")
        for name in ("memory_mb", "cpu_s", "max_procs", "max_files", "file_mb", "tmp_mb"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"sandbox {name} must be a positive integer, got {value!r}")

    def to_dict(self) -> dict[str, object]:
        """The settings a league stores (``protect`` is the runner's business)."""
        return {
            "enabled": self.enabled,
            "memory_mb": self.memory_mb,
            "cpu_s": self.cpu_s,
            "max_procs": self.max_procs,
            "max_files": self.max_files,
            "file_mb": self.file_mb,
            "tmp_mb": self.tmp_mb,
            "cpus": self.cpus,
            "cgroup": self.cgroup,
            "readable": list(self.readable),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> SandboxConfig:
        """Inverse of :meth:`to_dict`; missing keys take the defaults.

        :class:`ValueError` names an unknown key or a bad value.
        """
        known = {
            "enabled",
            "memory_mb",
            "cpu_s",
            "max_procs",
            "max_files",
            "file_mb",
            "tmp_mb",
            "cpus",
            "cgroup",
        }
        unknown = sorted(set(data) - known - {"readable"})
        if unknown:
            raise ValueError(f"unknown sandbox setting(s) {', '.join(unknown)}")
        values: dict[str, Any] = {k: data[k] for k in known if k in data}
        for flag in ("enabled", "cgroup"):
            if flag in values and not isinstance(values[flag], bool):
                raise ValueError(f"sandbox {flag} must be true or false, got {values[flag]!r}")
        readable = data.get("readable", [])
        if not isinstance(readable, list) or not all(isinstance(p, str) for p in readable):
            raise ValueError(f"sandbox readable must be a list of paths, got {readable!r}")
        return cls(**values, readable=tuple(readable))

    @property
    def log_cap_bytes(self) -> int:
        return self.file_mb << 20

    def describe(self) -> str:
        if not self.enabled:
            return "no sandbox"
        return (
            f"sandbox: {self.memory_mb} MiB, {self.cpu_s} CPU s, {self.max_procs} processes,"
            f" {self.max_files} files, {self.file_mb} MiB per file, {self.tmp_mb} MiB /tmp,"
            f" {self.cpus:g} CPU" + ("" if self.cgroup else " (no control group)")
        )


DEFAULT_SANDBOX = SandboxConfig()
NO_SANDBOX = SandboxConfig(enabled=False)
