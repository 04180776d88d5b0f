"""A Liar's Poker bot that weighs claims by their odds and announces the least it must.

* **Answering**: it estimates (Monte Carlo, ``SAMPLES`` deals from the deck with
  ``self.rng``) the chance that five random cards — the hand it is about to
  receive — contain the standing announcement. Below ``CHALLENGE_BELOW`` it
  challenges; otherwise it accepts (after the highest announcement it must
  challenge).
* **Exchanging**: it tries every exchange of 0..4 cards and keeps the one most
  likely (Monte Carlo) to leave a hand that beats the standing announcement,
  preferring fewer cards on ties.
* **Announcing**: the lowest announcement above the standing one that its cards
  contain, when there is one; otherwise the lowest announcement above the
  standing one (the smallest possible lie).

    python -m example_bots.liars_poker_heuristic
"""

from __future__ import annotations

from sdk import Bot, run
from sdk.liars_poker import (
    HIGHEST,
    Accept,
    Action,
    Announce,
    Challenge,
    Exchange,
    Observation,
    announcements_above,
    containment_probability,
    exchange_success_probability,
    exchanges,
    lowest_contained_above,
)

SAMPLES = 200
"""Monte Carlo deals per probability estimate of a claim."""
EXCHANGE_SAMPLES = 40
"""Monte Carlo draws per candidate exchange."""
CHALLENGE_BELOW = 0.5
"""Challenge a standing announcement less likely than this to be true."""


class HeuristicLiarsPokerBot(Bot[Observation, Action]):
    """Odds-based challenges, best exchange, smallest supported announcement."""

    game = "liars_poker"
    name = "liars-poker-heuristic"

    def act(self, observation: Observation) -> Action:
        last = observation.last
        if observation.phase == "respond":
            assert last is not None
            if last == HIGHEST:
                return Challenge()
            odds = containment_probability(last, self.rng, samples=SAMPLES)
            return Challenge() if odds < CHALLENGE_BELOW else Accept()
        hand = observation.hand
        assert hand is not None
        if observation.phase == "exchange":
            return self.best_exchange(observation)
        supported = lowest_contained_above(hand, last)
        if supported is not None:
            return Announce(supported)
        return Announce(announcements_above(last)[0])

    def best_exchange(self, observation: Observation) -> Exchange:
        hand = observation.hand
        assert hand is not None
        last = observation.last
        best: tuple[float, int] | None = None
        choice = Exchange(())
        for option in exchanges(hand):
            odds = exchange_success_probability(
                hand, option.discards, last, self.rng, samples=EXCHANGE_SAMPLES
            )
            key = (odds, -len(option.discards))
            if best is None or key > best:
                best, choice = key, option
        return choice


if __name__ == "__main__":
    run(HeuristicLiarsPokerBot)
