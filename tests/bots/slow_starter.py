"""An honest Liar's Dice bot that takes a long time to start serving, then plays
random legal moves.

    python -m tests.bots.slow_starter --delay SECONDS

It serves ``SECONDS`` after its process started (as a bot loading a large table
would; the time its imports took counts), inside the referee's start-up budget.
It must never be faulted for that, and neither must its opponent.
"""

from __future__ import annotations

import argparse
import os
import time

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions


class SlowStarter(Bot[Observation, Action]):
    game = "liars_dice"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(list(legal_actions(observation)))


def seconds_since_start() -> float:
    """How long ago this process started (Linux: /proc/self/stat against the boot clock;
    the sandbox's /proc/uptime stands still, like every host-wide number there)."""
    with open("/proc/self/stat") as stat:
        started_ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
    now = time.clock_gettime(time.CLOCK_BOOTTIME)
    return now - started_ticks / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, required=True)
    args, _ = parser.parse_known_args()
    time.sleep(max(0.0, args.delay - seconds_since_start()))
    run(SlowStarter)


if __name__ == "__main__":
    main()
