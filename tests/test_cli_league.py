"""``arena bot`` and ``arena league`` through the real command line parser."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app

runner = CliRunner()
RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
PROBABILITY = f"{sys.executable} -m example_bots.liars_dice_probability"


def arena(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
    return result.exit_code, result.output


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "arena.db"
    for name, command in (("random", RANDOM), ("probability", PROBABILITY)):
        code, out = arena(
            path, "bot", "add", name, "--cmd", command, "--game", "liars_dice", "--no-check"
        )
        assert code == 0, out
    return path


@pytest.mark.e2e
def test_full_league_workflow(db: Path) -> None:
    code, out = arena(db, "bot", "add", "checked", "--cmd", RANDOM)
    assert code == 0 and "plays liars_dice" in out, out
    code, out = arena(db, "bot", "list", "--json")
    assert {b["name"] for b in json.loads(out)} == {"random", "probability", "checked"}
    code, out = arena(db, "bot", "show", "probability")
    assert code == 0 and "liars_dice_probability" in out

    code, out = arena(
        db,
        "league",
        "create",
        "cup",
        "--game",
        "liars_dice",
        "--bot",
        "random",
        "--bot",
        "probability",
        "--bot",
        "checked",
        "--rounds",
        "1",
        "--rule",
        "dice_per_player=3",
    )
    assert code == 0 and "6 matches" in out, out
    code, out = arena(db, "league", "run", "cup", "--concurrency", "2", "--no-progress")
    assert code == 0 and "played 6 matches" in out, out
    code, out = arena(db, "league", "status", "cup", "--json")
    status = json.loads(out)
    assert status["done"] == 6 and status["pending"] == 0
    assert status["rules"]["dice_per_player"] == "3"
    code, out = arena(db, "league", "standings", "cup", "--samples", "50")
    assert code == 0 and "95% interval" in out and "probability" in out, out
    assert "likelihood of superiority" in out
    code, out = arena(db, "league", "standings", "cup", "--samples", "50", "--json")
    rows = json.loads(out)
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert sum(r["matches"] for r in rows) == 12
    code, out = arena(db, "league", "crosstable", "cup")
    assert code == 0 and "LOS" in out
    code, out = arena(db, "league", "crosstable", "cup", "--json")
    table = json.loads(out)
    h2h = table["probability"]["random"]
    assert h2h["wins"] + h2h["draws"] + h2h["losses"] == 2
    code, out = arena(db, "league", "list")
    assert "cup" in out and "6/6" in out
    code, out = arena(db, "league", "matches", "cup", "--json")
    listed = json.loads(out)
    assert [m["key"] for m in listed] == [f"cup-{i}" for i in range(6)]
    code, out = arena(
        db, "league", "matches", "cup", "--bot", "probability", "--result", "won", "--json"
    )
    won = json.loads(out)
    assert all(
        1 in [p for b, p in zip(m["bots"], m["places"], strict=True) if b == "probability"]
        for m in won
    )
    code, out = arena(db, "league", "matches", "cup", "--result", "won")
    assert code == 2 and "needs --bot" in out
    code, out = arena(db, "league", "matches", "cup", "--fault", "timeout", "--json")
    assert code == 0 and json.loads(out) == []
    code, out = arena(db, "league", "matches", "cup", "--fault", "sneeze")
    assert code == 2 and "unknown fault 'sneeze'" in out
    code, out = arena(db, "replay", "cup-3", "--verify")
    assert code == 0 and "verified cup-3" in out, out
    code, out = arena(db, "replay", "cup-3")
    assert code == 0 and "result (completed)" in out
    code, out = arena(db, "replay", "cup-99")
    assert code == 2 and "has no match 99" in out
    code, out = arena(db, "bot", "remove", "random", "--yes")
    assert code == 0
    code, out = arena(db, "league", "delete", "cup", "--yes")
    assert code == 0
    code, out = arena(db, "league", "list", "--json")
    assert json.loads(out) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["league", "create", "x", "--game", "liars_dice", "--bot", "random", "--bot", "ghost"],
            "no bot named 'ghost'",
        ),
        (
            ["league", "create", "x", "--game", "chess", "--bot", "random", "--bot", "probability"],
            "unknown game 'chess'",
        ),
        (
            [
                "league",
                "create",
                "x",
                "--game",
                "liars_dice",
                "--bot",
                "random",
                "--bot",
                "probability",
                "--rule",
                "wild_face=9",
            ],
            "rule wild_face='9'",
        ),
        (
            [
                "league",
                "create",
                "x",
                "--game",
                "liars_dice",
                "--bot",
                "random",
                "--bot",
                "probability",
                "--rule",
                "nope",
            ],
            "expected key=value",
        ),
        (
            [
                "league",
                "create",
                "taken",
                "--game",
                "liars_dice",
                "--bot",
                "random",
                "--bot",
                "probability",
            ],
            "league 'taken' already exists",
        ),
        (["league", "run", "ghost"], "no league named 'ghost'"),
        (["league", "standings", "ghost"], "no league named 'ghost'"),
        (["bot", "show", "ghost"], "no bot named 'ghost'"),
        (["bot", "remove", "ghost"], "no bot named 'ghost'"),
        (["bot", "add", "x", "--cmd", "/nonexistent/bot"], "bot file not found: /nonexistent/bot"),
        (
            ["bot", "add", "x", "--cmd", RANDOM, "--game", "liars_dice", "--address", "h:1"],
            "exactly one",
        ),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(
    db: Path, args: list[str], message: str
) -> None:
    code, out = arena(
        db,
        "league",
        "create",
        "taken",
        "--game",
        "liars_dice",
        "--bot",
        "random",
        "--bot",
        "probability",
    )
    assert code == 0
    before = _snapshot(db)
    code, out = arena(db, *args)
    assert code == 2, out
    assert message in out
    assert _snapshot(db) == before


def _snapshot(db: Path) -> str:
    _, bots = arena(db, "bot", "list", "--json", "--all")
    _, leagues = arena(db, "league", "list", "--json")
    return bots + leagues


def test_unreachable_database_is_a_clear_error() -> None:
    result = runner.invoke(
        app, ["--db", "postgresql+psycopg://nobody@/arena?host=/nonexistent-dir", "bot", "list"]
    )
    assert result.exit_code == 2
    assert "cannot open database" in result.output


def test_read_only_command_on_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "none.db"
    result = runner.invoke(app, ["--db", f"sqlite:///{path}", "league", "standings", "x"])
    assert result.exit_code == 2 and "no database at" in result.output
    assert not path.exists()


def test_delete_asks_for_confirmation(db: Path) -> None:
    arena(
        db,
        "league",
        "create",
        "keep",
        "--game",
        "liars_dice",
        "--bot",
        "random",
        "--bot",
        "probability",
    )
    result = runner.invoke(
        app, ["--db", f"sqlite:///{db}", "league", "delete", "keep"], input="n\n"
    )
    assert result.exit_code == 1
    _code, out = arena(db, "league", "list")
    assert "keep" in out
