"""A counter-strategy: the heuristic, but it challenges every declaration.

Only true declarations survive against it; a bot that bluffs expecting some
acceptance pays for each bluff.

    python -m example_bots.liars_poker_dice_always_challenge
"""

from example_bots.liars_poker_dice_heuristic import HeuristicLiarsPokerDiceBot
from sdk import run
from sdk.liars_poker_dice import Action, Challenge, Observation


class AlwaysChallengeLiarsPokerDiceBot(HeuristicLiarsPokerDiceBot):
    """Challenges every declaration; declares and re-rolls like the heuristic."""

    name = "liars-poker-dice-always-challenge"

    def _answer(self, observation: Observation) -> Action:
        self._passed = None
        return Challenge()


if __name__ == "__main__":
    run(AlwaysChallengeLiarsPokerDiceBot)
