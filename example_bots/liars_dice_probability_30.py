"""A counter-strategy: the probability bot, challenging only bids below 30 % likely.

One of the threshold variants (0.05-0.30) the strong bot is measured against
(``python -m bench.counters liars_dice``): a bot tuned to the 0.5 threshold of
``liars_dice_probability`` loses to opponents that challenge less often.

    python -m example_bots.liars_dice_probability_30
"""

from fractions import Fraction

from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from sdk import run


class Probability30LiarsDiceBot(ProbabilityLiarsDiceBot):
    """Challenges a standing bid only when it is less than 30 % likely."""

    name = "liars-dice-probability-30"
    challenge_below = Fraction(30, 100)


if __name__ == "__main__":
    run(Probability30LiarsDiceBot)
