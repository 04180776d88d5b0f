"""A counter-strategy that runs the strong bot's own answering code before each claim.

:mod:`example_bots.liars_poker_strong` answers a claim from public facts (the
claims of the deal, the exchange count, the cards it passed on) and from its
opponent model, which it learns from events this bot sees as well: claims of ours
shown true or false (it sees our cards when it accepts, everyone sees them after a
challenge) and our answers to its claims. This bot keeps a copy of the strong bot
(``shadow``) and feeds it those same events: the cards the strong bot passed it, its
claims' truth and our answers to them, each of our claims shown. Before announcing
it asks the copy about a ladder of candidate announcements (``candidates``):

* a true announcement the copy would challenge: announce it (the challenge loses);
* otherwise the highest candidate the copy would accept (its challenge threshold);
* if it would challenge every candidate, the lowest legal announcement.

The copy draws its own sampled hands, so its answer near the threshold may differ
from the real bot's (which draws from the match's seeded generator). With more than
two seats it announces as the strong bot does; exchanges and answers are always the
strong bot's.

    python -m example_bots.liars_poker_strong_counter
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from example_bots.liars_poker_strong import StrongLiarsPokerBot, _bin, plausibility
from sdk import run
from sdk.liars_poker import (
    Action,
    Announce,
    Announcement,
    Card,
    Challenge,
    Claim,
    Observation,
    announcements_above,
    best_announcement,
    contains,
    lowest_contained_above,
)

LADDER = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)
"""Positions above the standing claim tried as candidates (0: the lowest raise)."""


def candidates(hand: Sequence[Card], last: Announcement | None) -> list[Announcement]:
    """The announcements to try, lowest first: ``LADDER`` positions above ``last`` plus
    the lowest and the best announcement the hand holds."""
    above = announcements_above(last)
    found = {above[i] for i in LADDER if i < len(above)}
    lowest = lowest_contained_above(tuple(hand), last)
    if lowest is not None:
        found |= {lowest, best_announcement(tuple(hand))}
    return sorted(found)


class StrongCounterLiarsPokerBot(StrongLiarsPokerBot):
    """Announces at the strong bot's simulated challenge threshold."""

    name = "liars-poker-strong-counter"

    def __init__(self) -> None:
        super().__init__()
        self.shadow = StrongLiarsPokerBot()
        """The strong bot's code, fed what the real one learns about us."""
        self._my_cards: dict[tuple[int, int], tuple[Card, ...]] = {}
        self._shown_keys: set[tuple[int, int]] = set()

    def act(self, observation: Observation) -> Action:
        if observation.num_seats == 2:
            self._feed(observation)
        return super().act(observation)

    def _feed(self, observation: Observation) -> None:
        """Give the copy what the real strong bot has seen since the last call."""
        shadow = self.shadow
        other = 1 - observation.seat
        if observation.phase == "exchange" and observation.claims and observation.hand:
            key = (observation.deal, len(observation.claims) - 1)
            if observation.claims[-1].seat == other:
                claim = observation.claims[-1].announcement
                shadow._passed[key] = tuple(observation.hand)
                shadow._ours[key] = (_bin(plausibility(claim)), contains(observation.hand, claim))
        for result in observation.results[shadow._seen_results :]:
            last = (result.deal, len(result.claims) - 1)
            if result.claims[-1].seat == other and last not in shadow._ours:
                claim = result.claims[-1].announcement
                shadow._ours[last] = (_bin(plausibility(claim)), result.truthful)
        deals = [(r.deal, r.claims) for r in observation.results]
        deals.append((observation.deal, observation.claims))
        for deal, claims in deals:
            for index, made in enumerate(claims[:-1]):
                key = (deal, index)
                if made.seat == observation.seat and key not in self._shown_keys:
                    cards = self._my_cards.get(key)
                    if cards is not None:  # accepted: the strong bot saw our cards
                        self._shown_keys.add(key)
                        shadow._shown(key, contains(cards, made.announcement))
        view = dataclasses.replace(observation, seat=other, hand=None)
        shadow._learn(view)

    def _announce(self, observation: Observation, hand: tuple[Card, ...]) -> Action:
        if observation.num_seats != 2:
            return super()._announce(observation, hand)
        key = (observation.deal, len(observation.claims))
        accepted: Announcement | None = None
        asked: Announcement | None = None
        for candidate in candidates(hand, observation.last):
            asked = candidate
            challenged = self._challenged(observation, candidate)
            if challenged and contains(hand, candidate):
                accepted = candidate
                break
            if not challenged:
                accepted = candidate
        choice = accepted if accepted is not None else announcements_above(observation.last)[0]
        if choice != asked:
            self._challenged(observation, choice)  # the copy keeps the made claim's features
        self._my_cards[key] = tuple(hand)
        super()._announce(observation, hand)  # its own bookkeeping of our claim
        self._passed[key] = tuple(hand)
        self._ours[key] = (_bin(plausibility(choice)), contains(hand, choice))
        return Announce(choice)

    def _challenged(self, observation: Observation, claim: Announcement) -> bool:
        """Whether the copy of the strong bot challenges ``claim`` made now by us."""
        other = 1 - observation.seat
        made = Claim(observation.seat, observation.exchanged, claim)
        view = dataclasses.replace(
            observation,
            seat=other,
            phase="respond",
            to_act=other,
            hand=None,
            claims=(*observation.claims, made),
        )
        return isinstance(self.shadow.act(view), Challenge)


if __name__ == "__main__":
    run(StrongCounterLiarsPokerBot)
