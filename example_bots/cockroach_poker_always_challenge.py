"""A counter-strategy: disbelieve every claim; pass like the heuristic.

Disbelieving a lie sends the card back to its announcer, so a bot that lies
often pays; true claims still end face up in front of it.

    python -m example_bots.cockroach_poker_always_challenge
"""

from example_bots.cockroach_poker_heuristic import HeuristicCockroachPokerBot
from sdk import run
from sdk.cockroach_poker import Action, Disbelieve, Observation


class AlwaysChallengeCockroachPokerBot(HeuristicCockroachPokerBot):
    """Disbelieves every claim; announces like the heuristic."""

    name = "cockroach-poker-always-challenge"

    def answer(self, observation: Observation) -> Action:
        return Disbelieve()


if __name__ == "__main__":
    run(AlwaysChallengeCockroachPokerBot)
