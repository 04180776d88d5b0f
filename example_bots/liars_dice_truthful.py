"""A counter-strategy: bid only what its own dice already make true, else challenge.

Its bids are never lies, so a bot that challenges by the odds of unseen dice
loses every challenge of them; it challenges as soon as it cannot raise
truthfully.

    python -m example_bots.liars_dice_truthful
"""

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


class TruthfulLiarsDiceBot(Bot[Observation, Action]):
    """The lowest raise its own dice guarantee; a challenge when there is none."""

    game = "liars_dice"
    name = "liars-dice-truthful"

    def act(self, observation: Observation) -> Action:
        certain = [
            action
            for action in legal_actions(observation)
            if isinstance(action, Bid | SumBid) and bid_probability(observation, action) == 1
        ]
        if certain:
            return certain[0]
        if observation.last_bid is None:  # an opening bid is required: the lowest legal one
            return next(a for a in legal_actions(observation) if not isinstance(a, Challenge))
        return Challenge()


if __name__ == "__main__":
    run(TruthfulLiarsDiceBot)
