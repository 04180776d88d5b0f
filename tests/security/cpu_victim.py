"""An honest Liar's Dice bot that thinks for a fixed amount of CPU work per decision.

Each decision runs ``--work`` iterations of a small arithmetic loop (the same work
every time: how long it takes says how much CPU the bot received), then plays a
random legal move. Per decision it prints ``DECISION {json}``: when it started and
ended (the host's monotonic clock, s: bubblewrap gives no time namespace, so a
phase-switching hog's clock is the same) and the wall and CPU milliseconds of
that work, and the cores it may run on.

    python -m tests.security.cpu_victim --work 200000
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions

WORK = 200_000


def think(iterations: int) -> int:
    total = 0
    for i in range(iterations):
        total = (total + i * i) % 1_000_003
    return total


class CpuVictim(Bot[Observation, Action]):
    game = "liars_dice"
    name = "cpu-victim"

    def act(self, observation: Observation) -> Action:
        start, cpu = time.monotonic(), time.thread_time()
        think(WORK)
        end, cpu = time.monotonic(), time.thread_time() - cpu
        line = {
            "start": start,
            "end": end,
            "wall_ms": round((end - start) * 1e3, 3),
            "cpu_ms": round(cpu * 1e3, 3),
            "cores": sorted(os.sched_getaffinity(0)),
        }
        print("DECISION " + json.dumps(line), file=sys.stderr, flush=True)
        return self.rng.choice(legal_actions(observation))


def main() -> None:
    global WORK
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", type=int, default=WORK)
    options, _ = parser.parse_known_args()
    WORK = options.work
    run(CpuVictim)


if __name__ == "__main__":
    main()
