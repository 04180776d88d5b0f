"""A counter-strategy: the heuristic, but it accepts every declaration it may.

It challenges only the top hand (which cannot be topped). Every bluff against it
stands; it then has to beat the claim itself.

    python -m example_bots.liars_poker_dice_never_challenge
"""

from example_bots.liars_poker_dice_heuristic import HeuristicLiarsPokerDiceBot
from sdk import run
from sdk.liars_poker_dice import TOP_HAND, Accept, Action, Challenge, Observation


class NeverChallengeLiarsPokerDiceBot(HeuristicLiarsPokerDiceBot):
    """Accepts everything but the top hand; otherwise the heuristic."""

    name = "liars-poker-dice-never-challenge"

    def _answer(self, observation: Observation) -> Action:
        self._passed = None
        return Challenge() if observation.last_declaration == TOP_HAND else Accept()


if __name__ == "__main__":
    run(NeverChallengeLiarsPokerDiceBot)
