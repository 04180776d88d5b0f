"""A Liar's Poker bot that plays a uniformly random legal action.

python -m example_bots.liars_poker_random
"""

from __future__ import annotations

from sdk import Bot, run
from sdk.liars_poker import Action, Observation, legal_actions


class RandomLiarsPokerBot(Bot[Observation, Action]):
    """Any legal announcement, answer or exchange, with equal probability."""

    game = "liars_poker"
    name = "liars-poker-random"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


if __name__ == "__main__":
    run(RandomLiarsPokerBot)
