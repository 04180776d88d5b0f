"""One process plays a league at a time: a second runner is refused at once, with
nothing written, and a killed runner's lock frees itself (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import signal

import pytest
import trio
from sqlalchemy import Engine

from league.db import session_scope
from league.leagues import get_league
from league.runlock import LeagueBusyError, league_lock
from league.runner import run_league
from tests.league.test_resume import done_count
from tests.league.test_workers import (
    LEAGUE,
    assert_each_match_once,
    prepare,
    start_run,
    wait_for,
)


def test_a_second_runner_is_refused_while_the_first_plays(engine: Engine) -> None:
    total = prepare(engine, rounds=1)
    with session_scope(engine) as session:
        league = get_league(session=session, name=LEAGUE)
    with league_lock(engine, league):  # another runner, as far as the lock can tell
        with pytest.raises(LeagueBusyError, match=f"league '{LEAGUE}' is being played"):
            trio.run(lambda: run_league(engine, LEAGUE, handle_signals=False))
        assert done_count(engine) == 0
    summary = trio.run(lambda: run_league(engine, LEAGUE, concurrency=2, handle_signals=False))
    assert summary.played == total and summary.remaining == 0
    with league_lock(engine, league):  # released at the end of the run
        pass


@pytest.mark.e2e
def test_a_killed_runners_lock_frees_itself(db_url: str, engine: Engine) -> None:
    total = prepare(engine, rounds=3)
    first = start_run(db_url, "--concurrency", "1", "--workers", "1")
    wait_for(lambda: done_count(engine) >= 1, "a match")
    second = start_run(db_url)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 2 and "is being played by another process" in err, (out, err)
    os.kill(first.pid, signal.SIGKILL)
    first.communicate(timeout=60)
    third = start_run(db_url, "--concurrency", "2")
    out, err = third.communicate(timeout=300)
    assert third.returncode == 0, (out, err)
    assert_each_match_once(engine, total)
