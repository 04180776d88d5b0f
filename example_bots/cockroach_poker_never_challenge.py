"""A counter-strategy: believe every claim; pass like the heuristic.

Believing takes the card face down whatever it is, so lies cost it as much as
truths; only a bot that reads this habit and sends its most dangerous kinds
profits.

    python -m example_bots.cockroach_poker_never_challenge
"""

from example_bots.cockroach_poker_heuristic import HeuristicCockroachPokerBot
from sdk import run
from sdk.cockroach_poker import Action, Believe, Observation


class NeverChallengeCockroachPokerBot(HeuristicCockroachPokerBot):
    """Believes every claim; announces like the heuristic."""

    name = "cockroach-poker-never-challenge"

    def answer(self, observation: Observation) -> Action:
        return Believe()


if __name__ == "__main__":
    run(NeverChallengeCockroachPokerBot)
