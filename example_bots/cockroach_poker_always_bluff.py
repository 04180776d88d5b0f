"""A counter-strategy: every pass is a lie; it answers like the heuristic.

It passes the heuristic's card but always names another kind (the one the
target already shows most of). A bot that believes claims by card counting is
lied to every time.

    python -m example_bots.cockroach_poker_always_bluff
"""

from example_bots.cockroach_poker_heuristic import HeuristicCockroachPokerBot
from sdk import run
from sdk.cockroach_poker import KINDS, Action, Announce, Kind, Observation


class AlwaysBluffCockroachPokerBot(HeuristicCockroachPokerBot):
    """Lies in every announcement; answers like the heuristic."""

    name = "cockroach-poker-always-bluff"

    def announce(self, observation: Observation) -> Action:
        chosen = super().announce(observation)
        assert isinstance(chosen, Announce)
        theirs = observation.seats[self.target(observation)].face_up
        claims = [kind for kind in KINDS if kind != chosen.card]
        claim = max(claims, key=lambda kind: (theirs[kind], self.rng.random()))
        return Announce(chosen.card, Kind(claim))


if __name__ == "__main__":
    run(AlwaysBluffCockroachPokerBot)
