"""``arena rerun``: a ladder match's deal played again with the author's next version
(issue 32, item 4). Unchanged bots replay the original exactly; a changed one shows
where the games part; a league that has not revealed its secret refuses."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_in_process import arena_in_process

TRUTHFUL = f"{sys.executable} -m example_bots.liars_dice_truthful"
CHALLENGER = f"{sys.executable} -m tests.bots.always_challenge"
NEVER = f"{sys.executable} -m example_bots.liars_dice_never_challenge"

pytestmark = pytest.mark.e2e


def arena(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return arena_in_process("--db", f"sqlite:///{db}", *args)


def played_league(tmp_path: Path, *, play: bool = True) -> Path:
    """Two deterministic bots (they decide from what they see), one round: 2 matches."""
    db = tmp_path / "arena.db"
    for name, command in (("truthful", TRUTHFUL), ("challenger", CHALLENGER)):
        added = arena(db, "bot", "add", name, "--cmd", command, "-g", "liars_dice", "--no-check")
        assert added.returncode == 0, added.stderr
    created = arena(
        db, "league", "create", "cup", "--game", "liars_dice", "--bot", "truthful",
        "--bot", "challenger", "--rule", "dice_per_player=2", "--no-sandbox",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    if play:
        ran = arena(db, "league", "run", "cup", "--no-progress")
        assert ran.returncode == 0, ran.stderr
    return db


def seat_of(db: Path, bot: str) -> tuple[str, int]:
    """A played match of ``cup`` (its id) and the seat ``bot`` held in it."""
    matches = json.loads(arena(db, "league", "matches", "cup", "--json").stdout)
    played = next(m for m in matches if m["status"] == "done")
    return f"cup-{played['position']}", played["bots"].index(bot)


def test_the_same_bot_replays_the_original_exactly(tmp_path: Path) -> None:
    db = played_league(tmp_path)
    match, seat = seat_of(db, "truthful")
    done = arena(db, "rerun", match, "--seat", str(seat), "--bot", TRUTHFUL, "--no-sandbox")
    assert done.returncode == 0, done.stderr
    assert "the same game as the original: all" in done.stdout, done.stdout
    original, rerun = done.stdout.split("rerun result:")

    def places(text: str) -> list[tuple[str, str, str]]:  # place, seat, score
        rows = [line.split() for line in text.strip().splitlines()[1:]]
        return [(row[0], row[1], row[-2]) for row in rows]

    assert places(original.split("original result:")[1]) == places(rerun)


def test_a_changed_bot_shows_where_the_games_part(tmp_path: Path) -> None:
    db = played_league(tmp_path)
    match, seat = seat_of(db, "challenger")
    done = arena(db, "rerun", match, "--seat", str(seat), "--bot", NEVER, "--no-sandbox")
    assert done.returncode == 0, done.stderr
    assert "the games part at event" in done.stdout, done.stdout
    assert "original: " in done.stdout and "rerun:    " in done.stdout


def test_a_league_still_secret_refuses(tmp_path: Path) -> None:
    db = played_league(tmp_path, play=False)
    arena(db, "league", "run", "cup", "--no-progress", "--max-matches", "1")
    match, seat = seat_of(db, "truthful")
    done = arena(db, "rerun", match, "--seat", str(seat), "--bot", TRUTHFUL, "--no-sandbox")
    assert done.returncode == 2 and "has not revealed its secret" in done.stderr, done.stderr


def test_a_secret_that_does_not_match_its_commitment_refuses(tmp_path: Path) -> None:
    db = played_league(tmp_path)
    connection = sqlite3.connect(db)
    connection.execute("UPDATE league SET commitment = ? WHERE name = 'cup'", ("0" * 64,))
    connection.commit()
    connection.close()
    match, seat = seat_of(db, "truthful")
    done = arena(db, "rerun", match, "--seat", str(seat), "--bot", TRUTHFUL, "--no-sandbox")
    assert done.returncode == 2 and "does not hash to the commitment" in done.stderr, done.stderr
