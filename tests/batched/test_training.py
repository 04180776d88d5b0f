"""The self-play example trains on the batched engine: a short run yields a table the
bot can use, keyed like the PettingZoo path's."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

from example_bots.rl_selfplay.policy import load
from example_bots.rl_selfplay.train import main, train_batched


def test_a_short_batched_training_run_yields_a_policy() -> None:
    policy = train_batched(episodes=2000, seed=1, batch=64)
    assert policy and all(key.split("|")[0] in "123456" for key in policy)
    assert {"challenge"} <= set(policy.values())


def test_the_command_trains_either_way(tmp_path: Path) -> None:
    for engine, episodes in (("batched", "500"), ("pettingzoo", "50")):
        out = tmp_path / f"{engine}.json"
        main(["--engine", engine, "--episodes", episodes, "--out", str(out), "--batch", "32"])
        assert load(out)
