"""What `arena league` prints about ratings: honest numbers in every table.

A league one bot wins every match of (its opponent exits at start, so it forfeits
every time) is the edge case: a plain maximum-likelihood fit puts the winner at +∞,
and a bootstrap of a 4–0 record gives a zero-width interval.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app

runner = CliRunner()
RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
QUITTER = f"{sys.executable} -c 'raise SystemExit(3)'"


def arena(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished league: ``random`` beat ``quitter`` in all 4 matches."""
    db = tmp_path_factory.mktemp("sweep") / "arena.db"
    for name, command in (("random", RANDOM), ("quitter", QUITTER)):
        code, out = arena(
            db, "bot", "add", name, "--cmd", command, "--game", "liars_dice", "--no-check"
        )
        assert code == 0, out
    code, out = arena(
        db,
        "league",
        "create",
        "sweep",
        "--game",
        "liars_dice",
        "--bot",
        "random",
        "--bot",
        "quitter",
        "--rounds",
        "2",
        "--startup-timeout",
        "5",
    )
    assert code == 0, out
    code, out = arena(db, "league", "run", "sweep", "--no-progress")
    assert code == 0 and "played 4 matches" in out, out
    return db


COMMANDS = [
    ["league", "standings", "sweep", "--samples", "50"],
    ["league", "standings", "sweep", "--samples", "50", "--json"],
    ["league", "crosstable", "sweep"],
    ["league", "crosstable", "sweep", "--json"],
    ["league", "show", "sweep"],
    ["league", "status", "sweep"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2] + a[3:4]))
def test_no_inf_and_no_python_reprs(sweep: Path, args: list[str]) -> None:
    code, out = arena(sweep, *args)
    assert code == 0, out
    assert not re.search(r"\binf\b|∞|nan", out, re.IGNORECASE), out
    assert "{'" not in out and "['" not in out, out


def test_a_clean_sweep_has_finite_intervals_with_width(sweep: Path) -> None:
    _, out = arena(sweep, "league", "standings", "sweep", "--samples", "50", "--json")
    rows = {row["bot"]: row for row in json.loads(out)}
    assert rows["random"]["wins"] == 4 and rows["quitter"]["wins"] == 0
    for row in rows.values():
        assert all(math.isfinite(row[k]) for k in ("elo", "elo_low", "elo_high"))
        assert row["elo_low"] < row["elo"] < row["elo_high"]
        assert row["elo_high"] - row["elo_low"] > 100
    assert rows["random"]["elo"] > 1500 > rows["quitter"]["elo"]
    _, out = arena(sweep, "league", "standings", "sweep", "--samples", "50")
    line = next(line for line in out.splitlines() if " random " in line)
    low, high = re.search(r"(\d+) \.\. (\d+)", line).groups()  # type: ignore[union-attr]
    assert low != high
    assert "Elo:" in out and "prior" in out


def test_crosstable_elo_difference_is_finite(sweep: Path) -> None:
    _, out = arena(sweep, "league", "crosstable", "sweep", "--json")
    pair = json.loads(out)["random"]["quitter"]
    assert (pair["wins"], pair["losses"]) == (4, 0)
    assert 0 < pair["elo"] < 1000 and 0 < pair["margin"] < 1000
    _, out = arena(sweep, "league", "crosstable", "sweep")
    assert re.search(r"[-+]\d+\.\d ± \d+\.\d", out), out


def test_show_and_status_say_different_things(sweep: Path) -> None:
    _, shown = arena(sweep, "league", "show", "sweep")
    _, status = arena(sweep, "league", "status", "sweep")
    assert "rules: " in shown and "dice_per_player=" in shown and "commitment" in shown
    assert "played: 4 of 4 matches" in status and "quitter: startup 4" in status
    assert "commitment" not in status and "played" not in shown
    # --json keeps the fields scripts read.
    _, out = arena(sweep, "league", "status", "sweep", "--json")
    assert json.loads(out)["done"] == 4


def test_the_static_report_shows_one_elo_and_no_infinity(sweep: Path, tmp_path: Path) -> None:
    page = tmp_path / "sweep.html"
    code, out = arena(sweep, "league", "report", "sweep", "--html", str(page), "--samples", "50")
    assert code == 0, out
    # progress on the way (it ran 70 s silent on a large league)
    assert "standings and ratings (50 bootstrap samples) ..." in out, out
    assert "match replays 0/4 ..." in out and "match replays 3/4 ..." in out, out
    text = page.read_text()
    assert "∞" not in text and not re.search(r"\binf\b", text)
    assert "incr. Elo" not in text and ">Elo history</th>" in text
    assert re.search(r'<div class="diff"[^>]*>\+\d+ ± \d+<', text), "finite Elo difference"


def test_standings_show_the_population_view(sweep: Path) -> None:
    _, out = arena(sweep, "league", "standings", "sweep", "--samples", "50", "--json")
    rows = {row["bot"]: row for row in json.loads(out)}
    assert (rows["random"]["nash_mass"], rows["random"]["nash_value"]) == (1.0, 0.0)
    assert rows["quitter"]["nash_mass"] == 0.0 and rows["quitter"]["nash_value"] < 0
    _, out = arena(sweep, "league", "standings", "sweep", "--samples", "50")
    assert "population view (Nash averaging):" in out
    line = next(line for line in out.splitlines()[::-1] if line.startswith("quitter "))
    assert re.search(r"0\.0%\s+-\d+\s+2$", line), line
    _, out = arena(sweep, "league", "standings", "sweep", "--samples", "50", "--no-population")
    assert "population view" not in out


def test_the_static_report_shows_the_population_view(sweep: Path, tmp_path: Path) -> None:
    page = tmp_path / "sweep.html"
    code, out = arena(sweep, "league", "report", "sweep", "--html", str(page), "--samples", "50")
    assert code == 0, out
    text = page.read_text()
    table = re.search(r'<table id="population".*?</table>', text, re.S)
    assert table is not None
    rows = re.findall(r'<tr data-bot="(\w+)">.*?data-stat="mass">([^<]+)<', table.group(0))
    assert rows == [("random", "100.0%"), ("quitter", "0.0%")]
    values = re.findall(r'data-stat="value">([^<]+)<', table.group(0))
    assert values[0] == "0" and re.fullmatch(r"−\d+", values[1]), values
