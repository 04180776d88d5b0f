"""The acceptance test of the arena server (issue 14), end to end over HTTP.

``arena serve`` on a free port with a temporary database holding a rolling ladder;
two authors (``arena author add``) submit three bots over HTTP — one fails the
pre-submission check and is refused with its reasons — the accepted two enter the
ladder, which the server plays in the background, and the standings are read
through the API. Then the server is killed with SIGKILL mid-ladder and started
again: every match finished before the kill is still there, unchanged, none is
played twice, and the ladder carries on.
"""

from __future__ import annotations

import hashlib
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from league.store.db import make_engine
from league.store.models import LeagueRow, MatchRow
from tests.e2e.conftest import sandboxed_processes
from tests.security.support import wait_until
from tests.server.harness import (
    CRASHER,
    GAME,
    Served,
    add_author,
    arena,
    bot_project,
    packed,
    start_server,
    stop_server,
    submit_http,
)

pytestmark = pytest.mark.e2e

FAST = ["--submission-interval", "0", "--check-matches", "2"]


def finished(db: str, status: str = "done") -> dict[int, tuple[str, str]]:
    """The ladder's matches of ``status``: position → (finish time, SHA-256 of its record)."""
    engine = make_engine(db)
    try:
        with Session(engine) as session:
            league = session.exec(select(LeagueRow).where(LeagueRow.name == "ladder")).one()
            return {
                match.position: (
                    str(match.finished_at),
                    hashlib.sha256(match.record or b"").hexdigest(),
                )
                for match in session.exec(
                    select(MatchRow).where(
                        MatchRow.league_id == league.id, MatchRow.status == status
                    )
                )
            }
    finally:
        engine.dispose()


def gone_within(server_pid: int, seconds: float) -> None:
    """No bot the server ``server_pid`` sandboxed is alive (within ``seconds``)."""
    deadline = time.monotonic() + seconds
    while sandboxed_processes(server_pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sandboxed_processes(server_pid) == []


def wait_for(served: Served, predicate: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        table = served.get("/api/leagues/ladder/standings").json()
        if predicate(table):
            return table
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}:\n{served.log.read_text()[-3000:]}")


def test_submit_over_http_the_ladder_plays_and_a_killed_server_resumes(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    arena(
        "rolling", "create", "ladder", "--game", GAME, "--rate", "600", "--concurrency", "1", db=db
    )
    ada, bob = add_author(db, "ada"), add_author(db, "bob")
    store = tmp_path / "store"
    served = start_server(db, store, tmp_path / "serve.log", extra=FAST)
    try:
        answers = [
            submit_http(
                served, ada, "ada_bot", "ada_bot.tgz", packed(bot_project(tmp_path, "ada_bot"))
            ),
            submit_http(
                served, bob, "bob_bot", "bob_bot.tgz", packed(bot_project(tmp_path, "bob_bot"))
            ),
            submit_http(served, bob, "bob_crash", "bob_crash.py", CRASHER),
        ]
        assert [a.status for a in answers] == [200, 200, 422], [a.text for a in answers]
        assert answers[0].json()["ladders"] == ["ladder"] == answers[1].json()["ladders"]
        refused = answers[2].json()
        assert refused["status"] == "refused" and refused["reasons"]

        table = wait_for(served, lambda t: t["done"] >= 6, 120, "the ladder to play 6 matches")
        rows = {row["bot"]: row for row in table["standings"]}
        assert set(rows) == {"ada_bot", "bob_bot"}
        assert all(row["matches"] >= 6 and row["elo"] is not None for row in rows.values())
        bots = {b["name"]: b for b in served.get("/api/bots").json()}
        assert bots["ada_bot"]["author"] == "ada" and "bob_crash" not in bots

        # SIGKILL while the ladder plays: no clean shutdown, no grace.
        wait_for(served, lambda t: t["done"] >= 8, 60, "two more matches")
        killed = served.process.pid
        if os.geteuid() == 0:  # bots run under uids of the server's own: they are found
            # Between two matches no bot runs: wait for the next one to start.
            running = wait_until(lambda: sandboxed_processes(killed), 30)
            assert running, "no bot of the ladder is running"
        served.process.send_signal(signal.SIGKILL)
        served.process.wait(timeout=10)
        if served.process.stdout is not None:
            served.process.stdout.close()
        gone_within(killed, 10)  # its sandboxed bots die with it
        before = finished(db)
        assert len(before) >= 8
        unplayed = finished(db, "pending")  # the batch being played when it was killed
        assert unplayed

        again = start_server(db, store, tmp_path / "again.log", extra=FAST)
        served = again
        target = len(before) + len(unplayed) + 2  # what was left, then new batches
        wait_for(again, lambda t: t["done"] >= target, 120, "the ladder to resume")
        after = finished(db)
        for position, stamp in before.items():  # nothing lost, nothing played again
            assert after.get(position) == stamp, f"match ladder-{position} changed"
        assert len(after) >= target
        assert set(unplayed) <= set(after)  # what the killed run left is played (once)
        matches = again.get("/api/leagues/ladder/matches").json()
        keys = [m["key"] for m in matches]
        assert len(keys) == len(set(keys))
    finally:
        assert stop_server(served) == 0, served.log.read_text()[-3000:]
    gone_within(served.process.pid, 10)
    # Stopped (SIGINT: running matches finished and written): the tables add up.
    served = start_server(db, store, tmp_path / "last.log", extra=[*FAST, "--no-ladders"])
    try:
        table = served.get("/api/leagues/ladder/standings").json()
        assert sum(row["matches"] for row in table["standings"]) == 2 * table["done"]
        assert sum(row["wins"] for row in table["standings"]) == table["done"]
        assert table["done"] == len(finished(db))
        page = served.get("/leagues/ladder").text
        assert 'id="mode">rolling ladder' in page
        assert 'href="/bots/ada_bot"' in page and 'href="/bots/bob_bot"' in page
        assert served.get("/bots/ada_bot").status == 200
        time.sleep(1.5)  # --no-ladders: nothing is played
        assert served.get("/api/leagues/ladder").json()["done"] == table["done"]
    finally:
        assert stop_server(served) == 0
