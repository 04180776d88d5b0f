"""A counter-strategy: every bid is the least likely lowest raise, a face it lacks.

It raises by the smallest step on the face its own dice support least (a bluff
whenever it holds none of it) and challenges like the probability bot. A bot
that reads bids as information about the bidder's dice is misled every time.

    python -m example_bots.liars_dice_always_bluff
"""

from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from sdk import run
from sdk.liars_dice import (
    Action,
    Bid,
    Challenge,
    Observation,
    SumBid,
    bid_probability,
    legal_actions,
)


class AlwaysBluffLiarsDiceBot(ProbabilityLiarsDiceBot):
    """Challenges below one half, like the probability bot; bluffs every bid."""

    name = "liars-dice-always-bluff"

    def act(self, observation: Observation) -> Action:
        raises = [a for a in legal_actions(observation) if isinstance(a, Bid | SumBid)]
        last = observation.last_bid
        if not raises or (
            last is not None and bid_probability(observation, last) < self.challenge_below
        ):
            return Challenge()
        lowest = min(_height(a) for a in raises)
        step = [a for a in raises if _height(a) == lowest]
        return min(step, key=lambda a: (bid_probability(observation, a), self.rng.random()))


def _height(action: Bid | SumBid) -> int:
    return action.total if isinstance(action, SumBid) else action.quantity


if __name__ == "__main__":
    run(AlwaysBluffLiarsDiceBot)
