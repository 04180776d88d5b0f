"""Which referee made a host resource, told apart from a later process with its pid.

A referee names what it leaves on the host while bots run — a bot's directory
(``arena-bot-OWNER-...``), its control group (``bot-OWNER-...``) — after itself, so a
later referee can remove those of referees that were killed. A pid alone is not
enough: this host's pids wrap (``/proc/sys/kernel/pid_max`` is often 32768), and a
busy host reuses a dead referee's pid within minutes, which left its resources
looking alive. The owner tag is ``PID.START``: the pid and when that process started
(clock ticks since boot), which no later process with the same pid shares.
"""

from __future__ import annotations

import os

WORKDIR_PREFIX = "arena-bot-"
"""Host directories a referee makes while bots run: ``arena-bot-OWNER-...``."""


def start_ticks(pid: int) -> str | None:
    """When ``pid`` started (clock ticks since boot, /proc/PID/stat field 22)."""
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            return stat_file.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def own_tag() -> str:
    """This process's owner tag, ``PID.START``."""
    return f"{os.getpid()}.{start_ticks(os.getpid()) or 0}"


def tag_is_alive(tag: str) -> bool | None:
    """Whether the process a tag names still runs: True or False for a ``PID.START``
    tag, None for anything else (a resource of an older, pid-only form)."""
    pid, _, started = tag.partition(".")
    if not (pid.isdigit() and started.isdigit()):
        return None
    return start_ticks(int(pid)) == started
