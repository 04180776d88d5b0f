"""The self-play example: training runs, and the trained bot plays legal matches in-process."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")

from example_bots.liars_dice_random import RandomLiarsDiceBot
from example_bots.rl_selfplay.bot import SelfPlayLiarsDiceBot
from example_bots.rl_selfplay.policy import RULES
from example_bots.rl_selfplay.train import train
from sdk.local import play_local


def test_a_short_training_run_yields_a_policy() -> None:
    _, policy = train(episodes=200, seed=1)
    assert policy and all("|" in key for key in policy)


def test_the_shipped_policy_beats_random_in_legal_matches() -> None:
    wins = 0
    matches = 200
    for seed in range(matches):
        bots = [SelfPlayLiarsDiceBot, RandomLiarsDiceBot]
        if seed % 2:
            bots.reverse()
        result = play_local("liars_dice", bots, seed=seed, rules=RULES)  # raises if illegal
        trained_seat = seed % 2
        wins += result.outcome.places[trained_seat] == 1
    assert wins / matches > 0.6


@pytest.mark.parametrize("rules", [{}, {"dice_per_player": "1"}, {"wild_face": "1"}])
def test_other_rules_fall_back_to_legal_play(rules: dict[str, str]) -> None:
    """Rules it never trained on (the sum round included) must not crash it:
    ``arena bot check`` found a crash on a sum bid."""
    for seed in range(12):
        play_local("liars_dice", [SelfPlayLiarsDiceBot, RandomLiarsDiceBot], seed=seed, rules=rules)
