"""The Node.js Liar's Dice bot (example_bots/node_liars_dice) plays Python bots over
gRPC through the real referee, under the default sandbox: proof that
docs/protocol.md and the .proto files are enough to write a bot in another language."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from tests.e2e.conftest import EXAMPLE, module_bot

pytestmark = pytest.mark.e2e

BOT_DIR = Path(__file__).resolve().parents[2] / "example_bots" / "node_liars_dice"
NODE = shutil.which("node")
NPM = shutil.which("npm")
FAST = Limits(decision_s=5.0, startup_s=20.0)


@pytest.fixture(scope="module")
def node_bot() -> BotSpec:
    """The bot's command, after ``npm ci`` if its dependencies are not installed yet
    (.ci/run installs Node.js and runs ``npm ci`` itself)."""
    if NODE is None or NPM is None:
        pytest.skip("Node.js and npm are not installed (apt-get install nodejs npm)")
    installed = BOT_DIR / "node_modules" / ".package-lock.json"
    if not installed.exists():
        subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=BOT_DIR, check=True)
    return BotSpec(name="node", command=(NODE, str(BOT_DIR / "bot.js")))


@pytest.mark.parametrize(
    ("seed", "rules", "seats"),
    [
        (1, {}, ("node", "random")),
        (2, {"wild_face": "1", "raise_rule": "reset-face"}, ("probability", "node")),
        (
            3,
            {"dice_per_player": "2", "raise_rule": "quantity-or-face", "wild_face": "6"},
            ("random", "node", "probability"),
        ),
        (
            4,
            {"wild_face": "6", "wild_opening": "keep", "sum_endgame": "false", "roll_off": "false"},
            ("node", "probability"),
        ),
        (5, {"one_round": "true", "dice_per_player": "3"}, ("node", "random", "node")),
        (6, {"dice_per_player": "1"}, ("probability", "node")),
    ],
)
async def test_node_bot_plays_python_bots(
    node_bot: BotSpec, seed: int, rules: dict[str, str], seats: tuple[str, ...]
) -> None:
    bots = tuple(
        BotSpec(name=f"node{i}", command=node_bot.command)
        if name == "node"
        else module_bot(EXAMPLE[name])
        for i, name in enumerate(seats)
    )
    record = await run_match(MatchSpec("liars_dice", bots, seed=seed, rules=rules), FAST)
    assert record.reason == "completed", record.faults
    assert not record.faults
    node_seats = [i for i, name in enumerate(seats) if name == "node"]
    assert all(record.seats[i].deltas for i in node_seats), "the Node bot asks for deltas"
    assert any(e.seat in node_seats for e in record.events), "the Node bot never acted"
    # Protocol 3: every request to it carried a nonce, and it echoed each one.
    assert all(record.seats[i].protocol == 3 for i in node_seats)
    assert all(record.nonce_of(e.turn or 0) for e in record.events if e.seat in node_seats)


def test_node_bot_in_a_league(node_bot: BotSpec, tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "arena.db"

    def arena(*args: str) -> str:
        result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
        assert result.exit_code == 0, result.output
        return result.output

    node_cmd = " ".join(node_bot.command)
    assert "plays liars_dice" in arena("bot", "add", "node", "--cmd", node_cmd)
    for name in ("random", "probability"):
        arena(
            "bot",
            "add",
            name,
            "--cmd",
            f"{sys.executable} -m {EXAMPLE[name]}",
            "--game",
            "liars_dice",
            "--no-check",
        )
    out = arena(
        "league", "create", "polyglot", "--game", "liars_dice",
        "--bot", "node", "--bot", "random", "--bot", "probability",
        "--rounds", "1", "--rule", "dice_per_player=3",
    )  # fmt: skip
    assert "6 matches" in out, out
    out = arena("league", "run", "polyglot", "--concurrency", "2", "--no-progress")
    assert "played 6 matches" in out, out
    rows = json.loads(arena("league", "standings", "polyglot", "--samples", "50", "--json"))
    assert {r["bot"] for r in rows} == {"node", "random", "probability"}
    assert sum(r["matches"] for r in rows) == 12
    assert not any(r["faults"] for r in rows), rows
