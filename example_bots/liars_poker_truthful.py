"""A counter-strategy: announce the best hand truthfully; challenge only what the
cards it passed rule out.

The 15-line bot of issue 22: it lies only when it must (its best hand does not
beat the standing announcement; then the heuristic's smallest lie or lowest
supported announcement), and it answers like
:mod:`example_bots.liars_poker_rule_out`.

    python -m example_bots.liars_poker_truthful
"""

from example_bots.liars_poker_rule_out import RuleOutLiarsPokerBot
from sdk import run
from sdk.liars_poker import Action, Announce, Observation, best_announcement


class TruthfulLiarsPokerBot(RuleOutLiarsPokerBot):
    """Best hand, truthfully; challenges only claims its passed cards rule out."""

    name = "liars-poker-truthful"

    def announce(self, observation: Observation) -> Action:
        assert observation.hand is not None
        best = best_announcement(observation.hand)
        last = observation.last
        if last is None or best > last:
            return Announce(best)
        return super().announce(observation)


if __name__ == "__main__":
    run(TruthfulLiarsPokerBot)
