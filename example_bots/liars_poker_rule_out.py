"""A counter-strategy: accept every announcement the cards it passed do not rule out.

When this bot passed the five cards on, it knows all but the ``k`` cards the
announcer exchanged. An announcement is ruled out when no ``5 - k`` of the passed
cards plus ``k`` jokers (wild, so at least as good as any ``k`` new cards) contain
it. It challenges exactly those (and the highest announcement, which it must);
it accepts everything else, a starter's opening claim included. It announces and
exchanges like the heuristic.

    python -m example_bots.liars_poker_rule_out
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from example_bots.liars_poker_heuristic import HeuristicLiarsPokerBot
from sdk import run
from sdk.bot import MatchInfo
from sdk.liars_poker import (
    HIGHEST,
    JOKER,
    Accept,
    Action,
    Announcement,
    Card,
    Challenge,
    Observation,
    contains,
)


def ruled_out(passed: Sequence[Card], exchanged: int, claim: Announcement) -> bool:
    """Whether no hand kept from ``passed`` after exchanging ``exchanged`` cards can
    contain ``claim`` (the new cards taken as jokers, the best they could be)."""
    jokers = (JOKER,) * exchanged
    return not any(
        contains((*kept, *jokers), claim) for kept in combinations(passed, len(passed) - exchanged)
    )


class RuleOutLiarsPokerBot(HeuristicLiarsPokerBot):
    """Challenges only what its passed cards rule out; otherwise the heuristic."""

    name = "liars-poker-rule-out"

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        self.passed: tuple[int, tuple[Card, ...]] | None = None
        """(deal, the five cards this bot announced with and passed on)."""

    def act(self, observation: Observation) -> Action:
        if observation.phase == "respond":
            return self.answer(observation)
        action = self.announce(observation) if observation.phase == "announce" else None
        if action is None:
            return super().act(observation)
        assert observation.hand is not None
        self.passed = (observation.deal, observation.hand)
        return action

    def announce(self, observation: Observation) -> Action:
        """The announcement (the heuristic's; subclasses change it)."""
        return super().act(observation)

    def answer(self, observation: Observation) -> Action:
        claim = observation.claims[-1]
        if claim.announcement == HIGHEST:
            return Challenge()
        previous = observation.claims[-2] if len(observation.claims) > 1 else None
        if (
            self.passed is not None
            and self.passed[0] == observation.deal
            and previous is not None
            and previous.seat == observation.seat
            and claim.exchanged is not None
            and ruled_out(self.passed[1], claim.exchanged, claim.announcement)
        ):
            return Challenge()
        return Accept()


if __name__ == "__main__":
    run(RuleOutLiarsPokerBot)
