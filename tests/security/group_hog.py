"""A hostile Liar's Dice bot that uses many processes at once (control-group attacks).

Per-process rlimits do not bound a bot that forks: each child gets the full
memory limit and a core of its own. On its first turn this bot starts ``--children``
processes that each either allocate and touch ``--mib`` MiB (``--attack memory``)
or spin for ``--seconds`` (``--attack cpu``), waits for them, and prints one line
``HOG {json}``: how many children succeeded or were killed, and the CPU seconds
they used in that wall time. Then it plays random legal moves.

    python -m tests.security.group_hog --attack memory --children 4 --mib 200
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions

MEMORY_CHILD = """
import sys, time
try:
    block = bytearray(int(sys.argv[1]) << 20)
except MemoryError:
    sys.exit(3)
for offset in range(0, len(block), 4096):
    block[offset] = 1
time.sleep(2.0)  # hold it while the siblings allocate
"""
CPU_CHILD = """
import sys, time
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    pass
"""


def hog(attack: str, children: int, mib: int, seconds: float) -> dict[str, object]:
    """Start ``children`` fresh interpreters (fork+exec: a forked gRPC process is
    not safe to keep running) that hog memory or CPU, and wait for them."""
    started = time.monotonic()
    script, argument = (MEMORY_CHILD, mib) if attack == "memory" else (CPU_CHILD, seconds)
    try:
        procs = [
            subprocess.Popen([sys.executable, "-c", script, str(argument)]) for _ in range(children)
        ]
    except OSError as error:
        return {"error": f"spawn: {error}"}
    codes = [proc.wait() for proc in procs]
    usage = os.times()
    return {
        "attack": attack,
        "ok": sum(1 for code in codes if code == 0),
        "killed": sum(1 for code in codes if code < 0),
        "signals": sorted(-code for code in codes if code < 0),
        "refused": sum(1 for code in codes if code == 3),
        "cpu_s": usage.children_user + usage.children_system,
        "wall_s": time.monotonic() - started,
    }


class GroupHog(Bot[Observation, Action]):
    game = "liars_dice"
    name = "group-hog"
    done = False

    def act(self, observation: Observation) -> Action:
        if not GroupHog.done:
            GroupHog.done = True
            report = hog(OPTIONS.attack, OPTIONS.children, OPTIONS.mib, OPTIONS.seconds)
            print("HOG " + json.dumps(report), file=sys.stderr, flush=True)
        return self.rng.choice(legal_actions(observation))


parser = argparse.ArgumentParser()
parser.add_argument("--attack", choices=["memory", "cpu"], required=True)
parser.add_argument("--children", type=int, default=4)
parser.add_argument("--mib", type=int, default=200)
parser.add_argument("--seconds", type=float, default=2.0)
OPTIONS, _ = parser.parse_known_args()

if __name__ == "__main__":
    run(GroupHog)
