"""A counter-strategy: the heuristic, but every announcement is one its cards lack.

It announces the lowest announcement above the standing one that its five cards
do not contain (a lie, whatever it holds), or the lowest above it when it
contains them all. A bot that believes announcements because they are plausible
is lied to every time.

    python -m example_bots.liars_poker_always_bluff
"""

from example_bots.liars_poker_heuristic import HeuristicLiarsPokerBot
from sdk import run
from sdk.liars_poker import Action, Announce, Observation, announcements_above, contains


class AlwaysBluffLiarsPokerBot(HeuristicLiarsPokerBot):
    """Lies in every announcement; answers and exchanges like the heuristic."""

    name = "liars-poker-always-bluff"

    def act(self, observation: Observation) -> Action:
        if observation.phase != "announce":
            return super().act(observation)
        hand = observation.hand
        assert hand is not None
        above = announcements_above(observation.last)
        lie = next((a for a in above if not contains(hand, a)), above[0])
        return Announce(lie)


if __name__ == "__main__":
    run(AlwaysBluffLiarsPokerBot)
