"""A counter-strategy: challenge every bid; open with the most likely bid.

A bot that models its opponent's challenge rate as moderate pays for every
bluff against it, and gains nothing from bidding high.

    python -m example_bots.liars_dice_always_challenge
"""

from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from sdk import run
from sdk.liars_dice import Action, Challenge, Observation


class AlwaysChallengeLiarsDiceBot(ProbabilityLiarsDiceBot):
    """Challenges whenever there is a bid to challenge."""

    name = "liars-dice-always-challenge"

    def act(self, observation: Observation) -> Action:
        if observation.last_bid is not None:
            return Challenge()
        return super().act(observation)


if __name__ == "__main__":
    run(AlwaysChallengeLiarsDiceBot)
