"""A deterministic Liar's Dice bot: challenge whenever a bid exists, else bid the lowest.

    python -m tests.bots.always_challenge

Its best response is checkable by hand (tests/test_exploit.py): ``arena exploit``
tests use it as a bot whose exploitability is known exactly.
"""

from __future__ import annotations

from sdk import Bot, run
from sdk.liars_dice import Action, Challenge, Observation, legal_actions


class AlwaysChallengeBot(Bot[Observation, Action]):
    game = "liars_dice"

    def act(self, observation: Observation) -> Action:
        actions = legal_actions(observation)
        return Challenge() if Challenge() in actions else actions[0]


if __name__ == "__main__":
    run(AlwaysChallengeBot)
