"""A Liar's Dice bot that computes for a while before it answers: the README's
counting bot, after spinning ``--burn-ms`` of its own CPU time (a busy loop on its
thread's CPU clock, so a busy machine makes it take longer, never less work).

    python -m tests.bots.burner --burn-ms 100 [--turns N]

``--turns N``: spin only in its first N decisions of each match (as a bot that
builds a table at its first decision), then answer at once.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from sdk import Bot, run
from sdk.liars_dice import (
    Action,
    Bid,
    Challenge,
    Observation,
    SumBid,
    bid_probability,
    is_legal,
)

parser = argparse.ArgumentParser()
parser.add_argument("--burn-ms", type=float, default=0.0)
parser.add_argument("--turns", type=int, default=None)
OPTIONS, _ = parser.parse_known_args()


def burn(seconds: float) -> None:
    """Spin until this thread has used ``seconds`` of CPU."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class BurnerBot(Bot[Observation, Action]):
    game = "liars_dice"

    turns = 0  # the SDK makes one instance per match

    def act(self, observation: Observation) -> Action:
        self.turns += 1
        if OPTIONS.turns is None or self.turns <= OPTIONS.turns:
            burn(OPTIONS.burn_ms / 1000)
        if observation.bids and bid_probability(observation, observation.bids[-1].bid) < 0.4:
            return Challenge()
        if observation.sum_round:
            candidates: list[Action] = [SumBid(total) for total in range(2, 13)]
        else:
            face = Counter(observation.own_dice).most_common(1)[0][0]
            candidates = [Bid(n, face) for n in range(1, sum(observation.dice_counts) + 1)]
        return next((a for a in candidates if is_legal(observation, a)), Challenge())


if __name__ == "__main__":
    run(BurnerBot)
