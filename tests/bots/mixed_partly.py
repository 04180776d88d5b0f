"""A Liar's Dice bot whose mixed moves an exact ``arena exploit`` cannot take as its policy.

  python -m tests.bots.mixed_partly --mode MODE

deep-one    uniform mixed moves while at most one bid was made, then one action
            drawn by the bot itself (uniformly): mixed at some information sets only
drift       uniform mixed moves for its first 20 answers, then a third more weight
            on the first legal action: the same information set, other probabilities
one-random  one action drawn by the bot itself everywhere, uniformly (the random bot
            without mixed moves: a black box, measured by the bracket)
"""

from __future__ import annotations

import argparse

from sdk import Bot, Mixed, run
from sdk.liars_dice import Action, Observation, legal_actions

MODE = "deep-one"
DRIFT_AFTER = 20


class MixedPartlyBot(Bot[Observation, Action]):
    game = "liars_dice"
    name = "mixed-partly"

    def act(self, observation: Observation) -> Action | Mixed:
        actions = legal_actions(observation)
        uniform = dict.fromkeys(actions, 1 / len(actions))
        if MODE == "one-random" or (MODE == "deep-one" and len(observation.bids) > 1):
            return self.rng.choice(actions)
        _ANSWERS[0] += 1  # per process: a league's process plays many matches
        if MODE == "drift" and _ANSWERS[0] > DRIFT_AFTER and len(actions) > 1:
            first = actions[0]
            weights = {a: (4.0 if a == first else 3.0) for a in actions}
            total = sum(weights.values())
            return Mixed({a: w / total for a, w in weights.items()})
        return Mixed(uniform)


_ANSWERS = [0]


def main() -> None:
    global MODE
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default=MODE)
    options, _ = parser.parse_known_args()
    MODE = options.mode
    run(MixedPartlyBot)


if __name__ == "__main__":
    main()
