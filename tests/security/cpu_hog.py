"""A hostile Liar's Dice bot that keeps every core busy while it plays legal moves.

On a small host an honest opponent's decisions slow down when it competes for the
CPU with a bot that spins: the hog starts ``--processes`` fresh interpreters with
``--threads`` threads each that busy-loop for as long as it lives, tries to
widen its CPU affinity to every core, and plays random legal moves at once. It
reports ``HOG {json}``: what it started, which control group each of its processes
is in (none may leave the bot's group) and the cores it may run on.

With ``--toggle`` the hog stops its spinners (SIGSTOP) at one of its turns and
resumes them (SIGCONT) at the next, so the opponent's decisions alternate between a
spinning and a stopped hog: one match measures its opponent both ways, under the
same background load (see ``tests.security.cpu_victim``). Every change is printed
as ``HOGSTATE {"t": ..., "spinning": ...}`` (the host's monotonic clock, s; the
first line is the state the spinners start in). The switch happens before the
hog answers, so the opponent's next decision runs wholly in the new state: unlike
windows of the clock, this does not depend on how fast the hog answers while its
spinners crowd its own core.

    python -m tests.security.cpu_hog --processes 4 --threads 2 [--toggle]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions

SPIN = """
import sys, threading
def spin():
    while True:
        pass
for _ in range(int(sys.argv[1]) - 1):
    threading.Thread(target=spin, daemon=True).start()
spin()
"""
"""A spinner: ``argv[1]`` threads busy-looping. Spinning threads hold the
interpreter lock, so they run in children of their own: the bot itself stays
quick to answer."""


def control_group(pid: int | str) -> str:
    """The bot's view of ``pid``'s control groups (/proc/PID/cgroup, one line)."""
    try:
        return " ".join(Path(f"/proc/{pid}/cgroup").read_text().split())
    except OSError as error:
        return f"unreadable: {error}"


def widen_affinity() -> str:
    """Ask for every core the host has (a pinned bot must not get them)."""
    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    except OSError as error:
        return f"refused: {error}"
    return "accepted"


def start_hogging(processes: int, threads: int) -> list[subprocess.Popen[bytes]]:
    argv = [sys.executable, "-c", SPIN, str(threads)]
    children = [subprocess.Popen(argv) for _ in range(processes)]
    report_state(spinning=True)
    return children


def report_state(*, spinning: bool) -> None:
    line = {"t": time.monotonic(), "spinning": spinning}
    print("HOGSTATE " + json.dumps(line), file=sys.stderr, flush=True)


def set_spinning(spinning: bool) -> None:
    """Stop or resume every spinner, then say so (the line's time is after the switch)."""
    for child in CHILDREN:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signal.SIGCONT if spinning else signal.SIGSTOP)
    CpuHog.spinning = spinning
    report_state(spinning=spinning)


class CpuHog(Bot[Observation, Action]):
    game = "liars_dice"
    name = "cpu-hog"
    reported = False
    spinning = True

    def act(self, observation: Observation) -> Action:
        if OPTIONS.toggle:
            set_spinning(not CpuHog.spinning)
        if not CpuHog.reported:
            CpuHog.reported = True
            groups = {str(child.pid): control_group(child.pid) for child in CHILDREN}
            groups["self"] = control_group("self")
            report = {
                "processes": len(CHILDREN),
                "threads": OPTIONS.threads,
                "groups": groups,
                "widened": widen_affinity(),
                "cores": sorted(os.sched_getaffinity(0)),
            }
            print("HOG " + json.dumps(report), file=sys.stderr, flush=True)
        return self.rng.choice(legal_actions(observation))


parser = argparse.ArgumentParser()
parser.add_argument("--processes", type=int, default=4)
parser.add_argument("--threads", type=int, default=2)
parser.add_argument("--toggle", action="store_true")
OPTIONS, _ = parser.parse_known_args()
CHILDREN: list[subprocess.Popen[bytes]] = []

if __name__ == "__main__":
    CHILDREN = start_hogging(OPTIONS.processes, OPTIONS.threads)
    run(CpuHog)
