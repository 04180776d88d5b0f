"""A counter-strategy: the heuristic, but it accepts every announcement it may.

It challenges only the highest announcement (which cannot be accepted). Every
bluff against it stands; it then has to beat the claim itself.

    python -m example_bots.liars_poker_never_challenge
"""

from example_bots.liars_poker_heuristic import HeuristicLiarsPokerBot
from sdk import run
from sdk.liars_poker import HIGHEST, Accept, Action, Challenge, Observation


class NeverChallengeLiarsPokerBot(HeuristicLiarsPokerBot):
    """Accepts everything but the highest announcement; otherwise the heuristic."""

    name = "liars-poker-never-challenge"

    def act(self, observation: Observation) -> Action:
        if observation.phase == "respond":
            return Challenge() if observation.last == HIGHEST else Accept()
        return super().act(observation)


if __name__ == "__main__":
    run(NeverChallengeLiarsPokerBot)
