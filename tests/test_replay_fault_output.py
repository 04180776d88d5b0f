"""A crashed bot's traceback in the replay viewer (issue 32, item 3).

A league keeps what each seat's bot wrote (``arena league logs``), never in the
record. The operator's own page, ``arena replay LEAGUE-N --html``, shows the last
lines of a faulted seat's output (the SDK's traceback) under its fault; the public
pages, ``arena serve``'s replay and the league report's match pages, never do.
"""

from __future__ import annotations

import json
import re
import sys
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from tests.server.harness import start_server, stop_server

ROOT = Path(__file__).resolve().parents[1]
CRASH = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'misbehaving.py'} --mode raise"
"""Raises inside ``act`` on its first turn: the SDK prints the traceback to stderr."""
RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
BUG = "RuntimeError: the bot's own bug"
runner = CliRunner()

pytestmark = pytest.mark.e2e


def arena(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """League ``boom``: the crashing bot against the random one, both seat orders."""
    path = tmp_path_factory.mktemp("boom") / "arena.db"
    for name, command in (("crash", CRASH), ("random", RANDOM)):
        code, out = arena(
            path, "bot", "add", name, "--cmd", command, "--game", "liars_dice", "--no-check"
        )
        assert code == 0, out
    code, out = arena(
        path, "league", "create", "boom", "--game", "liars_dice",
        "--bot", "crash", "--bot", "random", "--rounds", "1",
    )  # fmt: skip
    assert code == 0, out
    code, out = arena(path, "league", "run", "boom", "--no-progress")
    assert code == 0, out
    return path


def crashed_seat(db: Path) -> int:
    code, out = arena(db, "league", "matches", "boom", "--json")
    assert code == 0, out
    first = json.loads(out)[0]
    assert first["key"] == "boom-0" and "crash" in " ".join(first["faults"]), first
    return int(first["bots"].index("crash"))


def fault_output(page: str, seat: int) -> str | None:
    """The output shown under seat ``seat``'s fault, unescaped (None: none shown)."""
    faults = re.search(r'<ul id="faults".*?</ul>', page, re.S)
    assert faults is not None, "the page lists no fault"
    assert re.search(rf"<li[^>]*>seat {seat} \(crash\): <b>crash</b>", faults[0])
    shown = re.search(
        rf'<details class="fault-output" data-seat="{seat}" open>.*?<pre>(.*?)</pre>',
        faults[0],
        re.S,
    )
    return None if shown is None else unescape(shown[1])


def test_arena_replay_html_shows_the_crashed_bots_traceback_under_its_fault(
    db: Path, tmp_path: Path
) -> None:
    seat = crashed_seat(db)
    page = tmp_path / "boom-0.html"
    code, out = arena(db, "replay", "boom-0", "--html", str(page))
    assert code == 0, out
    shown = fault_output(page.read_text(encoding="utf-8"), seat)
    assert shown is not None
    assert shown.startswith("Traceback (most recent call last):"), shown
    assert shown.endswith(BUG) and "misbehaving.py" in shown, shown
    code, logs = arena(db, "league", "logs", "boom", "0", "--seat", str(seat))
    assert code == 0 and logs.rstrip().endswith(shown), logs  # its last lines, as captured
    # Only the faulted seat's output (seat 1 - seat printed nothing, and did not fault);
    # none at all when the operator says so.
    assert page.read_text(encoding="utf-8").count('class="fault-output"') == 1
    code, out = arena(db, "replay", "boom-0", "--html", str(page), "--no-bot-output")
    assert code == 0, out
    assert fault_output(page.read_text(encoding="utf-8"), seat) is None


def test_the_public_replay_pages_show_no_bot_output(db: Path, tmp_path: Path) -> None:
    seat = crashed_seat(db)
    served = start_server(
        f"sqlite:///{db}", tmp_path / "store", tmp_path / "serve.log", extra=["--no-ladders"]
    )
    try:
        reply = served.get("/matches/boom-0")
    finally:
        assert stop_server(served) == 0, (tmp_path / "serve.log").read_text()
    assert reply.status == 200
    report = tmp_path / "report" / "boom.html"
    code, out = arena(db, "league", "report", "boom", "--html", str(report), "--samples", "10")
    assert code == 0, out
    match_pages = [p for p in report.parent.rglob("*.html") if p != report]
    assert len(match_pages) == 2
    assert fault_output(reply.text, seat) is None  # the fault is listed, its output is not
    for page in [reply.text, *(p.read_text(encoding="utf-8") for p in match_pages)]:
        assert 'id="faults"' in page and 'class="fault-output"' not in page
        assert "Traceback" not in page and BUG not in page
