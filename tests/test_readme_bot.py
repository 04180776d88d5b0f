"""The bot shown in the README is complete, short, and plays real matches."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec

ROOT = Path(__file__).resolve().parents[1]


def readme_bot_source() -> str:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks, "README has no python example"
    return str(blocks[0])


def test_readme_bot_is_the_counting_example_bot() -> None:
    example = (ROOT / "example_bots" / "liars_dice_counting.py").read_text()
    assert readme_bot_source() in example


def test_readme_bot_is_under_25_lines() -> None:
    lines = [line for line in readme_bot_source().splitlines() if line.strip()]
    assert len(lines) < 25


@pytest.mark.e2e
async def test_readme_bot_plays_a_real_match(tmp_path: Path) -> None:
    path = tmp_path / "my_bot.py"
    path.write_text(readme_bot_source())
    tmp_path.chmod(0o755)  # sandboxed bots run as a user of their own: files must be readable
    bots = (
        BotSpec("readme", command=(sys.executable, str(path))),
        BotSpec(
            "probability", command=(sys.executable, "-m", "example_bots.liars_dice_probability")
        ),
    )
    sum_bids = 0
    # One die each: every round is a two-player sum round.
    for seed, rules in [(1, {"wild_face": "1"}), (2, {}), (3, {"dice_per_player": "1"})]:
        spec = MatchSpec("liars_dice", bots, seed=seed, rules=rules, match_id=f"readme-{seed}")
        record = await run_match(spec, Limits())
        assert record.reason == "completed", record.faults
        sum_bids += sum(1 for e in record.events if e.seat == 0 and "sum_bid" in str(e.action))
    assert sum_bids > 0
