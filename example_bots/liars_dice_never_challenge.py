"""A counter-strategy: the probability bot's most likely raise, and never a challenge.

It challenges only when no raise is left. Against it, every bluff of the strong
bot stands, and every challenge it "saves" is a bid the strong bot must top.

    python -m example_bots.liars_dice_never_challenge
"""

from fractions import Fraction

from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from sdk import run


class NeverChallengeLiarsDiceBot(ProbabilityLiarsDiceBot):
    """Raises (most likely raise given its dice) until no raise is left."""

    name = "liars-dice-never-challenge"
    challenge_below = Fraction(0)


if __name__ == "__main__":
    run(NeverChallengeLiarsDiceBot)
