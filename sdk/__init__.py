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
"""

from sdk.bot import Bot, MatchInfo, MatchResult, SeatResult
from sdk.serve import run

__all__ = ["Bot", "MatchInfo", "MatchResult", "SeatResult", "run"]
