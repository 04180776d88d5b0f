"""Every command that names a league's match takes one form, ``LEAGUE-N`` (issue 43,
item 4): ``arena replay``, ``arena rerun`` and ``arena league logs`` read it with one
parser (``league.cli.common.parse_match_name``); anything else is one ``error:``
line and exit 2 that shows the form. ``league logs LEAGUE N``, the old form, is
still read, with a one-line note showing the new one. ``arena rerun`` says which
seats' files changed since their bots were registered."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from league.cli.common import MatchName, parse_match_name
from tests.cli_in_process import arena_in_process

ROOT = Path(__file__).resolve().parent.parent
CHALLENGER = f"{sys.executable} -m tests.bots.always_challenge"


def arena(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return arena_in_process("--db", f"sqlite:///{db}", *args)


@pytest.mark.parametrize(
    ("text", "league", "number"),
    [
        ("cup-4", "cup", 4),
        ("my-cup-12", "my-cup", 12),
        ("humans-liars_dice-0", "humans-liars_dice", 0),
    ],
)
def test_a_match_name_is_the_league_a_dash_and_the_number(
    text: str, league: str, number: int
) -> None:
    name = parse_match_name(text)
    assert name == MatchName(league, number)
    assert str(name) == text


@pytest.mark.parametrize("text", ["cup", "cup 4", "cup-", "-4", "cup-x", "cup-²", "cup-4.0", ""])
def test_anything_else_is_a_usage_error_that_shows_the_form(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(typer.Exit) as raised:
        parse_match_name(text)
    assert raised.value.exit_code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "LEAGUE-N, e.g. cup-4" in err
    if text == "cup 4":
        assert "(cup-4?)" in err


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """League ``cup``, finished: a truthful bot run from its own copy of the script
    (so a test can change it) against the one that always challenges; 2 matches."""
    where = tmp_path_factory.mktemp("names")
    script = where / "truthful.py"
    shutil.copy(ROOT / "example_bots" / "liars_dice_truthful.py", script)
    db = where / "arena.db"
    for name, command in (
        ("truthful", f"{sys.executable} {script}"),
        ("challenger", CHALLENGER),
    ):
        added = arena(db, "bot", "add", name, "--cmd", command, "-g", "liars_dice", "--no-check")
        assert added.returncode == 0, added.stderr
    created = arena(
        db, "league", "create", "cup", "--game", "liars_dice", "--bot", "truthful",
        "--bot", "challenger", "--rule", "dice_per_player=2", "--no-sandbox",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    ran = arena(db, "league", "run", "cup", "--no-progress")
    assert ran.returncode == 0, ran.stderr
    return db, script


@pytest.mark.parametrize(
    "command",
    [
        ("replay", "{name}"),
        ("rerun", "{name}", "--seat", "0", "--bot", CHALLENGER, "--no-sandbox"),
        ("league", "logs", "{name}", "--seat", "0"),
    ],
    ids=["replay", "rerun", "league logs"],
)
def test_each_command_reads_the_same_form(
    played: tuple[Path, Path], command: tuple[str, ...]
) -> None:
    db, _ = played
    good = arena(db, *(word.format(name="cup-1") for word in command))
    assert good.returncode == 0, good.stderr
    for bad, says in (
        ("cup 1", "(cup-1?)"),
        ("cup", "LEAGUE-N, e.g. cup-4"),
        ("cup-9", "no match 9"),
    ):
        done = arena(db, *(word.format(name=bad) for word in command))
        assert done.returncode == 2, (bad, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1 and says in errors[0], done.stderr


def test_league_logs_still_reads_the_old_form_with_a_note(played: tuple[Path, Path]) -> None:
    db, _ = played
    new = arena(db, "league", "logs", "cup-0", "--seat", "1")
    old = arena(db, "league", "logs", "cup", "0", "--seat", "1")
    assert new.returncode == old.returncode == 0, old.stderr
    assert old.stdout == new.stdout  # the log itself, unchanged
    assert new.stderr == ""
    assert old.stderr.splitlines() == [
        "note: `arena league logs cup 0` is the old form; write `arena league logs cup-0"
        " --seat 1` (every command names a match LEAGUE-N)"
    ]
    worse = arena(db, "league", "logs", "cup", "first", "--seat", "1")
    assert worse.returncode == 2 and worse.stderr.startswith("error: got 'first'"), worse.stderr
    help_text = arena(db, "league", "logs", "--help").stdout
    assert "Usage: arena league logs [OPTIONS] {LEAGUE-N}\n" in help_text


def test_rerun_names_the_seats_whose_files_changed_since_registration(
    played: tuple[Path, Path],
) -> None:
    db, script = played
    matches = json.loads(arena(db, "league", "matches", "cup", "--json").stdout)
    other = 1 - matches[0]["bots"].index("truthful")
    same = arena(db, "rerun", "cup-0", "--seat", str(other), "--bot", CHALLENGER, "--no-sandbox")
    assert same.returncode == 0, same.stderr
    assert "changed since" not in same.stderr
    original = script.read_text()
    script.write_text(original + "\n# an edit after registration\n")
    try:
        changed = arena(
            db, "rerun", "cup-0", "--seat", str(other), "--bot", CHALLENGER, "--no-sandbox"
        )
        assert changed.returncode == 0, changed.stderr
        truthful_seat = 1 - other
        notes = [line for line in changed.stderr.splitlines() if "changed since" in line]
        assert len(notes) == 1, changed.stderr
        assert notes[0].startswith(f"note: seat {truthful_seat} (truthful): its files changed")
        # Its own seat is the author's new bot: no note about it.
        own = arena(
            db, "rerun", "cup-0", "--seat", str(truthful_seat), "--bot", CHALLENGER, "--no-sandbox"
        )
        assert own.returncode == 0 and "changed since" not in own.stderr, own.stderr
    finally:
        script.write_text(original)
