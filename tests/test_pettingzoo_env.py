"""sdk.pettingzoo_env: PettingZoo's own api_test for every game, masks against the engine."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test

from referee.core.catalogue import game_names, get_game
from sdk.pettingzoo_env import env
from tests.game_plugins import registered_games

CONFIGS: dict[str, tuple[dict[str, str], int]] = {
    "liars_dice": ({"dice_per_player": "2"}, 2),
    "liars_poker_dice": ({}, 2),
    "dice_poker": ({}, 2),
    "cockroach_poker": ({}, 3),
    "liars_poker": ({"penalty_limit": "2"}, 3),
}
"""Rules and seats that keep a game's episodes short; other games play their
defaults at their minimum seat count."""

GAMES = registered_games()


def config(game: str) -> tuple[dict[str, str], int]:
    return CONFIGS.get(game, ({}, get_game(game).min_seats))


def test_the_configs_name_registered_games() -> None:
    assert set(CONFIGS) <= set(game_names())


# PettingZoo warns about every Dict observation with an action mask (its classic
# environments included); the test itself passing is what counts.
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test(game: str) -> None:
    rules, seats = config(game)
    api_test(env(game, rules=rules, num_seats=seats, seed=1), num_cycles=300)


@pytest.mark.parametrize("game", GAMES)
def test_random_masked_play_matches_the_engine(game: str) -> None:
    rules, seats = config(game)
    arena = env(game, rules=rules, num_seats=seats, seed=5)
    rng = random.Random(0)
    for _episode in range(3):
        arena.reset()
        totals = dict.fromkeys(arena.possible_agents, 0.0)
        steps = 0
        for agent in arena.agent_iter(max_iter=20_000):
            observation, reward, done, truncated, _info = arena.last()
            totals[agent] += reward
            assert observation["observation"].shape == (arena.obs_size,)
            assert observation["observation"].dtype.name == "float32"
            if done or truncated:
                arena.step(None)
                continue
            view: Any = arena.typed_observation(agent)
            legal = arena.game.legal_actions(view)
            mask = observation["action_mask"]
            assert int(mask.sum()) == len(legal)
            for action in legal:
                assert mask[arena.action_index(action, view)] == 1
            arena.step(rng.choice([int(i) for i in mask.nonzero()[0]]))
            steps += 1
        assert not arena.agents, "the episode ended"
        assert steps > 0
        assert max(totals.values()) == 1.0 and min(totals.values()) == -1.0


def test_seeded_episodes_deal_like_seeded_matches() -> None:
    def first_moves(seed: int) -> list[int]:
        arena = env("liars_dice", rules={"dice_per_player": "2"}, seed=seed)
        arena.reset()
        return [int(arena.observe(agent)["observation"].sum()) for agent in arena.possible_agents]

    assert first_moves(4) == first_moves(4)


def test_illegal_actions_are_refused() -> None:
    arena = env("liars_dice", rules={"dice_per_player": "1"}, seed=0)
    arena.reset()
    mask = arena.observe(arena.agent_selection)["action_mask"]
    with pytest.raises(ValueError):
        arena.step(int((mask == 0).nonzero()[0][0]))
