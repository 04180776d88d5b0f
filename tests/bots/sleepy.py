"""A Liar's Dice bot that sleeps before answering one turn, then plays random legal moves.

    python -m tests.bots.sleepy --sleep SECONDS [--on-turn N]

It sleeps ``SECONDS`` inside ``act`` on its own turn number ``N`` (default 1) and
answers every other turn at once: the decision-deadline tests use it to land an
answer just inside or just outside the referee's budget.
"""

from __future__ import annotations

import argparse
import time

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions

SLEEP_S = 0.0
ON_TURN = 1


class SleepyBot(Bot[Observation, Action]):
    game = "liars_dice"

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0

    def act(self, observation: Observation) -> Action:
        self.turns += 1
        if self.turns == ON_TURN:
            time.sleep(SLEEP_S)
        return self.rng.choice(list(legal_actions(observation)))


def main() -> None:
    global SLEEP_S, ON_TURN
    parser = argparse.ArgumentParser()
    parser.add_argument("--sleep", type=float, required=True)
    parser.add_argument("--on-turn", type=int, default=1)
    options, _ = parser.parse_known_args()
    SLEEP_S, ON_TURN = options.sleep, options.on_turn
    run(SleepyBot)


if __name__ == "__main__":
    main()
