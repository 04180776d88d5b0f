"""A random Liar's Dice bot that says on stderr who it is at every decision.

Each process draws a token at start, so tests can tell processes apart through
the captured output (pids repeat inside the sandbox's PID namespace).
"""

from __future__ import annotations

import secrets
import sys

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions

TOKEN = secrets.token_hex(8)


class ChattyBot(Bot[Observation, Action]):
    game = "liars_dice"
    name = "chatty"

    def act(self, observation: Observation) -> Action:
        print(f"chatty process={TOKEN} seat={observation.seat}", file=sys.stderr, flush=True)
        return self.rng.choice(legal_actions(observation))


if __name__ == "__main__":
    run(ChattyBot)
