"""A counter-strategy: the heuristic, but it challenges every announcement.

A bot that lies when it must and assumes its lies are often accepted pays for
each one; only true claims survive.

    python -m example_bots.liars_poker_always_challenge
"""

from example_bots.liars_poker_heuristic import HeuristicLiarsPokerBot
from sdk import run
from sdk.liars_poker import Action, Challenge, Observation


class AlwaysChallengeLiarsPokerBot(HeuristicLiarsPokerBot):
    """Challenges every announcement; announces and exchanges like the heuristic."""

    name = "liars-poker-always-challenge"

    def act(self, observation: Observation) -> Action:
        if observation.phase == "respond":
            return Challenge()
        return super().act(observation)


if __name__ == "__main__":
    run(AlwaysChallengeLiarsPokerBot)
