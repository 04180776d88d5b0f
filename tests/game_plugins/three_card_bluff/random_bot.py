"""A Three-Card Bluff bot that plays a uniformly random legal action.

python -m tests.game_plugins.three_card_bluff.random_bot
"""

from __future__ import annotations

from sdk import Bot, run
from tests.game_plugins.three_card_bluff.bot_sdk import Action, Observation, legal_actions


class RandomThreeCardBluffBot(Bot[Observation, Action]):
    """Any legal claim or answer, with equal probability."""

    game = "three_card_bluff"
    name = "three-card-bluff-random"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


if __name__ == "__main__":
    run(RandomThreeCardBluffBot)
