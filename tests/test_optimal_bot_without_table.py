"""Issue 21, item 4: the ladder leaves the tracked docs alone, and the Dice Poker bot
called "optimal" never plays the heuristic's moves under its name.

Without its value table it refuses to start; in a real sandboxed league that is a
``startup`` fault in the standings' faults column, and what the bot printed says how to
build the table: ``arena league run``, ``arena bot check`` and the ladder show it on the
terminal, ``arena league logs`` keeps it. The fault's message, in the public record
(``arena replay``), holds the referee's words only (issue 42, item 2).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from league.store.db import open_database, session_scope
from league.store.leagues import get_league, startup_faults

ROOT = Path(__file__).resolve().parent.parent
NO_TABLES = "/nonexistent/dice-poker-tables"
"""A directory that exists neither outside nor inside the sandbox: no table there."""
OPTIMAL = f"{sys.executable} -m example_bots.dice_poker_optimal --tables {NO_TABLES}"
RANDOM = f"{sys.executable} -m example_bots.dice_poker_random"
BUILD_HINT = "build it with: make dice-poker-table"

runner = CliRunner()


def arena(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
    return result.exit_code, result.output


def make_dry_run(*args: str) -> str:
    done = subprocess.run(
        ["make", "-n", *args], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize("target", ["ladder", "ladder-quick"])
def test_make_ladder_writes_the_build_folder_and_builds_the_table_first(target: str) -> None:
    commands = make_dry_run(target)
    assert "--out build/ladder.md" in commands
    assert "docs/ladder.md" not in commands
    solve = commands.index("example_bots.dice_poker_optimal --solve")
    assert solve < commands.index("league.execution.ladder")
    # The docs page changes only when named.
    assert "--out docs/ladder.md" in make_dry_run(target, "LADDER_OUT=docs/ladder.md")


@pytest.mark.e2e
def test_a_league_shows_the_missing_table_as_startup_faults(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for name, command in (("optimal", OPTIMAL), ("random", RANDOM)):
        code, out = arena(db, "bot", "add", name, "--cmd", command, "--game", "dice_poker",
                          "--no-check")  # fmt: skip
        assert code == 0, out
    code, out = arena(db, "league", "create", "cup", "--game", "dice_poker",
                      "--bot", "optimal", "--bot", "random", "--rounds", "1")  # fmt: skip
    assert code == 0, out
    code, out = arena(db, "league", "run", "cup")  # sandboxed, as every league
    assert code == 0, out
    assert "note: optimal did not start in 2 match(es): " in out, out
    assert BUILD_HINT in out, out

    code, out = arena(db, "league", "standings", "cup", "--json")
    rows = {row["bot"]: row for row in json.loads(out)}
    assert rows["optimal"]["faults"] == {"startup": 2}
    assert rows["optimal"]["wins"] == 0 and rows["random"]["wins"] == 2
    code, out = arena(db, "league", "standings", "cup")
    assert "startup 2" in out

    # The record says what happened in the referee's words; the bot's own line, why
    # and what to do, is in its log (its author's), not in the record.
    code, out = arena(db, "replay", "cup-0")
    assert "startup" in out and "exited with code 2 before it was ready" in out, out
    assert BUILD_HINT not in out and NO_TABLES not in out, out
    code, out = arena(db, "league", "matches", "cup", "--json")
    seat = json.loads(out)[0]["bots"].index("optimal")
    code, out = arena(db, "league", "logs", "cup", "0", "--seat", str(seat))
    assert code == 0 and f"no usable value table for dice_poker in {NO_TABLES}" in out, out
    assert BUILD_HINT in out and "Traceback" not in out
    engine = open_database(f"sqlite:///{db}")
    try:
        with session_scope(engine) as session:
            league = get_league(session=session, name="cup")
            count, message = startup_faults(session=session, league=league)["optimal"]
    finally:
        engine.dispose()
    assert count == 2 and BUILD_HINT in message


@pytest.mark.e2e
def test_bot_check_says_how_to_build_the_table(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    code, out = arena(db, "bot", "add", "optimal", "--cmd", OPTIMAL, "--game", "dice_poker",
                      "--no-check")  # fmt: skip
    assert code == 0, out
    code, out = arena(db, "bot", "check", "optimal", "--game", "dice_poker", "--matches", "2")
    assert code != 0
    # the verdict's line (progress lines come before it, on stderr)
    assert any(line.startswith("FAIL: optimal playing dice_poker") for line in out.splitlines())
    assert "startup in 2 of 2 matches: optimal: bot exited with code 2" in out
    assert BUILD_HINT in out and "Traceback" not in out
