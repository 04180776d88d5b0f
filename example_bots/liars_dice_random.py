"""A Liar's Dice bot that plays a uniformly random legal action.

python -m example_bots.liars_dice_random
"""

from __future__ import annotations

from example_bots.uniform import uniform
from sdk import Bot, Mixed, run
from sdk.liars_dice import Action, Observation, legal_actions


class RandomLiarsDiceBot(Bot[Observation, Action]):
    """Picks any legal bid or challenge with equal probability."""

    game = "liars_dice"
    name = "liars-dice-random"

    def act(self, observation: Observation) -> Action | Mixed:
        """A mixed move: the referee draws the action, uniformly among the legal ones."""
        return uniform(legal_actions(observation), self.rng)

    def policy(self, observation: Observation) -> dict[Action, float]:
        """The exact policy (``arena exploit --in-process`` reads it instead of sampling)."""
        actions = legal_actions(observation)
        return {action: 1 / len(actions) for action in actions}


if __name__ == "__main__":
    run(RandomLiarsDiceBot)
