"""A hostile Liar's Dice bot that keeps every core busy while it plays legal moves.

On a small host an honest opponent's decisions slow down when it competes for the
CPU with a bot that spins: the hog starts ``--processes`` fresh interpreters with
``--threads`` threads each that busy-loop for as long as it lives, tries to
widen its CPU affinity to every core, and plays random legal moves at once. It
reports ``HOG {json}``: what it started, which control group each of its processes
is in (none may leave the bot's group) and the cores it may run on.

With ``--phase S`` every spinner spins only in the even ``S``-second phases of the
host's monotonic clock (``int(time.monotonic() / S)`` even) and sleeps in the odd
ones, so one match measures its opponent both with and without the hog, under
the same background load (see ``tests.security.cpu_victim``).

    python -m tests.security.cpu_hog --processes 4 --threads 2 [--phase 1.0]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions

SPIN = """
import sys, threading, time
phase = float(sys.argv[1])
def spin():
    while True:
        if phase > 0 and int(time.monotonic() / phase) % 2:
            time.sleep(phase - time.monotonic() % phase)
for _ in range(int(sys.argv[2]) - 1):
    threading.Thread(target=spin, daemon=True).start()
spin()
"""
"""A spinner: ``argv[2]`` threads busy-looping (only in the even phases if
``argv[1]`` > 0). Spinning threads hold the interpreter lock, so they run in
children of their own: the bot itself stays quick to answer."""


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
    argv = [sys.executable, "-c", SPIN, str(OPTIONS.phase), str(threads)]
    return [subprocess.Popen(argv) for _ in range(processes)]


class CpuHog(Bot[Observation, Action]):
    game = "liars_dice"
    name = "cpu-hog"
    reported = False

    def act(self, observation: Observation) -> Action:
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
parser.add_argument("--phase", type=float, default=0.0)
OPTIONS, _ = parser.parse_known_args()
CHILDREN: list[subprocess.Popen[bytes]] = []

if __name__ == "__main__":
    CHILDREN = start_hogging(OPTIONS.processes, OPTIONS.threads)
    run(CpuHog)
