"""A Dice Poker bot that plays a uniformly random legal action.

python -m example_bots.dice_poker_random
"""

from __future__ import annotations

from example_bots.uniform import uniform
from sdk import Bot, Mixed, run
from sdk.dice_poker import Action, Observation, legal_actions


class RandomDicePokerBot(Bot[Observation, Action]):
    """Picks any legal re-roll or scorecard line with equal probability."""

    game = "dice_poker"
    name = "dice-poker-random"

    def act(self, observation: Observation) -> Action | Mixed:
        """A mixed move: the referee draws the action, uniformly among the legal ones
        (:func:`example_bots.uniform.uniform`)."""
        return uniform(legal_actions(observation), self.rng)


if __name__ == "__main__":
    run(RandomDicePokerBot)
