"""A Liar's Poker Dice bot that plays a uniformly random legal action.

python -m example_bots.liars_poker_dice_random
"""

from __future__ import annotations

from sdk import Bot, run
from sdk.liars_poker_dice import Action, Observation, legal_actions


class RandomLiarsPokerDiceBot(Bot[Observation, Action]):
    """Picks any legal declaration, answer or re-roll with equal probability."""

    game = "liars_poker_dice"
    name = "liars-poker-dice-random"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


if __name__ == "__main__":
    run(RandomLiarsPokerDiceBot)
