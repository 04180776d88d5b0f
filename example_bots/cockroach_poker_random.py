"""A Cockroach Poker bot that plays a uniformly random legal action.

python -m example_bots.cockroach_poker_random
"""

from __future__ import annotations

from example_bots.uniform import uniform
from sdk import Bot, Mixed, run
from sdk.cockroach_poker import Action, Observation, legal_actions


class RandomCockroachPokerBot(Bot[Observation, Action]):
    """Passes any card with any claim, believes or not, with equal probability."""

    game = "cockroach_poker"
    name = "cockroach-poker-random"

    def act(self, observation: Observation) -> Action | Mixed:
        """A mixed move: the referee draws the action, uniformly among the legal ones
        (:func:`example_bots.uniform.uniform`)."""
        return uniform(legal_actions(observation), self.rng)


if __name__ == "__main__":
    run(RandomCockroachPokerBot)
