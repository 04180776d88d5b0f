"""A Liar's Poker bot that plays a uniformly random legal action.

python -m example_bots.liars_poker_random
"""

from __future__ import annotations

from example_bots.uniform import uniform
from sdk import Bot, Mixed, run
from sdk.liars_poker import Action, Observation, legal_actions


class RandomLiarsPokerBot(Bot[Observation, Action]):
    """Any legal announcement, answer or exchange, with equal probability."""

    game = "liars_poker"
    name = "liars-poker-random"

    def act(self, observation: Observation) -> Action | Mixed:
        """A mixed move: the referee draws the action, uniformly among the legal ones
        (:func:`example_bots.uniform.uniform`)."""
        return uniform(legal_actions(observation), self.rng)


if __name__ == "__main__":
    run(RandomLiarsPokerBot)
