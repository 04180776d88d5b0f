"""A Liar's Poker Dice bot that plays a uniformly random legal action.

python -m example_bots.liars_poker_dice_random
"""

from __future__ import annotations

from example_bots.uniform import uniform
from sdk import Bot, Mixed, run
from sdk.liars_poker_dice import Action, Observation, legal_actions


class RandomLiarsPokerDiceBot(Bot[Observation, Action]):
    """Picks any legal declaration, answer or re-roll with equal probability."""

    game = "liars_poker_dice"
    name = "liars-poker-dice-random"

    def act(self, observation: Observation) -> Action | Mixed:
        """A mixed move: the referee draws the action, uniformly among the legal ones
        (:func:`example_bots.uniform.uniform`)."""
        return uniform(legal_actions(observation), self.rng)


if __name__ == "__main__":
    run(RandomLiarsPokerDiceBot)
