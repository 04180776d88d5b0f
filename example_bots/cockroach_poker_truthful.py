"""A counter-strategy: pass one kind again and again, always naming it truthfully.

It picks the kind it holds most of and sticks to it while it holds any (then
picks again).

With two seats this is seat 0's forced win (see ``docs/rules/cockroach_poker.md``,
"Two seats: a forced win for seat 0"): a true claim ends in front of the target
whatever it answers, and seat 0 holds at least four of some kind. It answers like
the heuristic.

    python -m example_bots.cockroach_poker_truthful
"""

from example_bots.cockroach_poker_heuristic import HeuristicCockroachPokerBot
from sdk import run
from sdk.bot import MatchInfo
from sdk.cockroach_poker import KINDS, Action, Announce, Kind, Observation


class TruthfulCockroachPokerBot(HeuristicCockroachPokerBot):
    """Passes its most numerous kind, always truthfully; answers like the heuristic."""

    name = "cockroach-poker-truthful"

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        self.kind: Kind | None = None
        """The kind it keeps passing (four of it put a two-seat target out)."""

    def announce(self, observation: Observation) -> Action:
        hand = observation.hand
        if self.kind is None or not hand[self.kind]:
            self.kind = Kind(max(KINDS, key=lambda k: (hand[k], -k)))
        return Announce(self.kind, self.kind)


if __name__ == "__main__":
    run(TruthfulCockroachPokerBot)
