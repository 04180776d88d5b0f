"""A Liar's Dice bot that plays the exact odds of its own dice.

For every bid it computes the exact chance that the bid is true given only its
own dice (binomial odds for the unseen dice, with the round's wild rule; the
exact sum distribution in a sum round). It challenges when the standing bid is
less likely than ``CHALLENGE_BELOW`` (or when no raise is left); otherwise it
makes the most likely legal raise, the lowest such (ties broken with ``self.rng``).

    python -m example_bots.liars_dice_probability
"""

from __future__ import annotations

from fractions import Fraction

from sdk import Bot, run
from sdk.liars_dice import (
    Action,
    Bid,
    Challenge,
    Observation,
    SumBid,
    bid_probability,
    legal_actions,
)

CHALLENGE_BELOW = Fraction(1, 2)
"""Challenge any standing bid whose chance of being true is below this."""


class ProbabilityLiarsDiceBot(Bot[Observation, Action]):
    """Challenges unlikely bids; otherwise makes the most likely raise."""

    game = "liars_dice"
    name = "liars-dice-probability"
    challenge_below: Fraction = CHALLENGE_BELOW
    """The threshold; the counter-strategy variants (``liars_dice_probability_05``...) lower it."""

    def act(self, observation: Observation) -> Action:
        legal = legal_actions(observation)
        raises = [action for action in legal if isinstance(action, Bid | SumBid)]
        odds = {action: bid_probability(observation, action) for action in raises}
        best = max(odds.values(), default=Fraction(-1))
        last = observation.last_bid
        if last is not None:
            standing = bid_probability(observation, last)
            if standing < self.challenge_below or not raises:
                return Challenge()
        likely = [action for action, chance in odds.items() if chance == best]
        # Among equally likely raises, prefer the least aggressive one (lowest
        # quantity or total), so the opponent has the most room to overbid.
        lowest = min(_height(action) for action in likely)
        return self.rng.choice([action for action in likely if _height(action) == lowest])


def _height(action: Bid | SumBid) -> int:
    return action.total if isinstance(action, SumBid) else action.quantity


if __name__ == "__main__":
    run(ProbabilityLiarsDiceBot)
