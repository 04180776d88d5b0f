"""Bluff Arena bot SDK: subclass :class:`Bot`, implement ``act``, call :func:`run`.

    from sdk import Bot, run
    from sdk.liars_dice import Observation, legal_actions

    class MyBot(Bot):
        game = "liars_dice"
        def act(self, observation):
            return self.rng.choice(legal_actions(observation))

    if __name__ == "__main__":
        run(MyBot)

gRPC stays hidden: ``run`` serves the bot on the address the referee chose.
``legal_actions(observation)`` and ``is_legal(observation, action)`` work for the
observation of any game (:mod:`sdk.legality`).
"""

from sdk.bot import Bot, MatchInfo, MatchResult, Mixed, SeatResult
from sdk.legality import is_legal, legal_actions
from sdk.serve import run

__all__ = [
    "Bot",
    "MatchInfo",
    "MatchResult",
    "Mixed",
    "SeatResult",
    "is_legal",
    "legal_actions",
    "run",
]
