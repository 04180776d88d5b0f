"""`arena league run`'s output for scripts and logs: --jsonl, and the piped summary.

The league is real (three example bots, 6 matches, sandboxed) and the command runs
as a user runs it, in a subprocess with stdout and stderr piped (not a terminal).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from league.cli.leagues import ProgressPrinter
from league.execution.league_run import FinishedMatch, Progress

BOTS = {
    "random": "liars_dice_random",
    "probability": "liars_dice_probability",
    "counting": "liars_dice_counting",
}


def arena(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "league.cli", "--db", f"sqlite:///{db}", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )


@pytest.fixture
def league_db(tmp_path: Path) -> Path:
    db = tmp_path / "arena.db"
    for name, module in BOTS.items():
        command = f"{sys.executable} -m example_bots.{module}"
        done = arena(db, "bot", "add", name, "--cmd", command, "--game", "liars_dice", "--no-check")
        assert done.returncode == 0, done.stderr
    bots = [arg for name in BOTS for arg in ("--bot", name)]
    done = arena(db, "league", "create", "cup", "--game", "liars_dice", *bots,
                 "--rule", "dice_per_player=2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return db


def test_jsonl_prints_one_object_per_finished_match(league_db: Path) -> None:
    done = arena(league_db, "league", "run", "cup", "--jsonl", "--concurrency", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 6  # stdout is JSON lines only: the summary went to stderr
    objects = [json.loads(line) for line in lines]
    assert sorted(o["match"] for o in objects) == [f"cup-{i}" for i in range(6)]
    assert [o["done"] for o in objects] == [1, 2, 3, 4, 5, 6]
    for o in objects:
        assert o["reason"] == "completed" and o["total"] == 6
        assert len(o["bots"]) == len(o["places"]) == len(o["scores"]) == len(o["faults"]) == 2
        assert set(o["bots"]) <= set(BOTS) and sorted(o["places"]) in ([1, 2], [1, 1])
        assert o["faults"] == [None, None] and o["duration_ms"] > 0
        assert o["deal"].startswith("r0-t")
    assert "finished: played 6 matches" in done.stderr
    # Piped: score summaries, not a line per update (a start line and the end).
    summaries = [line for line in done.stderr.splitlines() if " matches (" in line]
    assert summaries[0].startswith("0/6 matches (0%)")
    assert summaries[-1].startswith("6/6 matches (100%)")
    assert len(summaries) == 2
    assert "this run, wins/played (mean place): " in summaries[-1]
    assert "\r" not in done.stderr
    # The JSON agrees with the stored league.
    listed = json.loads(arena(league_db, "league", "matches", "cup", "--json").stdout)
    by_key = {m["key"]: m for m in listed}
    for o in objects:
        assert by_key[o["match"]]["places"] == o["places"]
        assert by_key[o["match"]]["bots"] == o["bots"]


def test_without_jsonl_stdout_is_the_summary_only(league_db: Path) -> None:
    done = arena(league_db, "league", "run", "cup", "--max-matches", "2", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("finished: played 2 matches")
    assert done.stderr == ""


def progress(done: int, total: int = 100, played_now: int | None = None) -> Progress:
    return Progress(
        done=done,
        total=total,
        played_now=done if played_now is None else played_now,
        elapsed_s=float(done),
        leader="a",
        leader_elo=1510.0,
    )


def finished(winner: str, loser: str) -> FinishedMatch:
    return FinishedMatch(
        match_id="cup-0",
        reason="completed",
        bots=(winner, loser),
        versions=("1", "2"),
        places=(1, 2),
        scores=(1.0, 0.0),
        faults=(None, "timeout"),
        duration_ms=5.0,
        deal="r0-t0",
        done=1,
        total=100,
    )


def test_piped_summary_every_n_matches_or_s_seconds() -> None:
    now = [0.0]
    out = io.StringIO()
    printer = ProgressPrinter(out, tty=False, every_s=30.0, clock=lambda: now[0])
    printer(progress(0))
    for done in range(1, 26):
        now[0] += 1.0
        printer.match(finished("a", "b"))
        printer(progress(done))
    lines = out.getvalue().splitlines()
    # The start, then every 10 matches (a tenth of 100), not one line per update.
    assert [line.split(" ")[0] for line in lines] == ["0/100", "10/100", "20/100"]
    assert "a 20/20 (1.00), b 0/20 (2.00) faults 20" in lines[-1]
    now[0] += 31.0  # quiet for longer than every_s: the next match prints at once
    printer.match(finished("b", "a"))
    printer(progress(26))
    assert out.getvalue().splitlines()[-1].startswith("26/100")
    printer.close()  # nothing new since: no repeated line
    assert len(out.getvalue().splitlines()) == 4
    printer.match(finished("b", "a"))
    printer(progress(27))
    printer.close()
    assert out.getvalue().splitlines()[-1].startswith("27/100")


def test_terminal_progress_bar_labels_the_elo_history() -> None:
    out = io.StringIO()
    printer = ProgressPrinter(out, tty=True)
    printer(progress(5))
    printer.close()
    assert out.getvalue().startswith("\r[#")
    assert "leader a (Elo history 1510)" in out.getvalue()


def test_a_finished_league_prints_no_start_line_and_counts_come_from_progress() -> None:
    out = io.StringIO()
    printer = ProgressPrinter(out, tty=False, every_n=2)
    printer(progress(10, total=10, played_now=0))  # nothing to play: say nothing
    printer.close()
    assert out.getvalue() == ""
    # Without match() calls (the demo) the summary still follows the progress.
    printer = ProgressPrinter(out, tty=False, every_n=2)
    for done in range(5):
        printer(progress(done, total=10))
    printer.close()
    assert [line.split(" ")[0] for line in out.getvalue().splitlines()] == [
        "0/10",
        "2/10",
        "4/10",
    ]
