"""The self-play-trained Liar's Dice policy as an SDK bot (serves over gRPC like any bot).

python -m example_bots.rl_selfplay.bot

Plays the table in policy.json (see train.py); an information state it never met,
or a rules configuration other than the one it trained on, falls back to a random
legal action.
"""

from __future__ import annotations

from example_bots.rl_selfplay.policy import action_text, info_key, load, trained_for
from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions


class SelfPlayLiarsDiceBot(Bot[Observation, Action]):
    game = "liars_dice"
    name = "liars-dice-selfplay"

    def __init__(self) -> None:
        super().__init__()
        self.table = load()

    def act(self, observation: Observation) -> Action:
        legal = legal_actions(observation)
        if not trained_for(observation):
            return self.rng.choice(legal)
        wanted = self.table.get(info_key(observation))
        for action in legal:
            if action_text(action) == wanted:
                return action
        return self.rng.choice(legal)


if __name__ == "__main__":
    run(SelfPlayLiarsDiceBot)
