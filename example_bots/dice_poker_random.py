"""A Dice Poker bot that plays a uniformly random legal action.

python -m example_bots.dice_poker_random
"""

from __future__ import annotations

from sdk import Bot, run
from sdk.dice_poker import Action, Observation, legal_actions


class RandomDicePokerBot(Bot[Observation, Action]):
    """Picks any legal re-roll or scorecard line with equal probability."""

    game = "dice_poker"
    name = "dice-poker-random"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


if __name__ == "__main__":
    run(RandomDicePokerBot)
