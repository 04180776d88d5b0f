"""A Liar's Dice bot that is random only where it opens: one of the two cheapest bids.

    python -m tests.bots.coin_opener

Elsewhere it plays as ``tests.bots.always_challenge`` (challenge whenever a bid
exists). A stochastic bot whose reachable tree is small, so that
tests/test_exploit_matches.py can check the probe's K answers per information set
over real matches in seconds (the random bot reaches thousands).
"""

from __future__ import annotations

from sdk import Bot, run
from sdk.liars_dice import Action, Challenge, Observation, legal_actions


class CoinOpenerBot(Bot[Observation, Action]):
    game = "liars_dice"

    def act(self, observation: Observation) -> Action:
        actions = legal_actions(observation)
        if Challenge() in actions:
            return Challenge()
        return self.rng.choice(actions[:2])


if __name__ == "__main__":
    run(CoinOpenerBot)
