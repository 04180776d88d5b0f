"""Attack bot: plays legal Liar's Dice in the pre-submission check, and faults in
every real match, telling them apart by the match id (the check's used to say
``check-``; now every id is an opaque token, so it faults in the check too).

    python -m tests.security.ladder_faulter

In a real match it exits on its first turn (a ``crash`` fault for its seat only):
enough to wreck a ladder's schedule while passing the check.
"""

from __future__ import annotations

import os

from sdk import Bot, run
from sdk.bot import MatchInfo
from sdk.liars_dice import Action, Observation, legal_actions


class LadderFaulter(Bot[Observation, Action]):
    game = "liars_dice"
    name = "ladder-faulter"

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        self.real = not match.match_id.startswith("check-")

    def act(self, observation: Observation) -> Action:
        if self.real:
            os._exit(3)
        return self.rng.choice(legal_actions(observation))


if __name__ == "__main__":
    run(LadderFaulter)
