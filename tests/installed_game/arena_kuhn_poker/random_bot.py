"""A Kuhn Poker bot that plays a uniformly random legal action.

python -m arena_kuhn_poker.random_bot
"""

from __future__ import annotations

from arena_kuhn_poker.sdk import Action, Observation, legal_actions
from sdk import Bot, run


class RandomKuhnPokerBot(Bot[Observation, Action]):
    game = "kuhn_poker"
    name = "kuhn-poker-random"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


if __name__ == "__main__":
    run(RandomKuhnPokerBot)
