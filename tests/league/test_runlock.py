"""One process plays a league at a time: a second runner is refused at once, with
nothing written, and a killed runner's lock frees itself (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest
import trio
from sqlalchemy import Engine

from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import session_scope
from league.store.leagues import get_league
from league.store.runlock import LeagueBusyError, league_lock
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
            trio.run(lambda: LeagueRun(engine, LEAGUE, RunOptions(handle_signals=False)).play())
        assert done_count(engine) == 0
    summary = trio.run(
        lambda: LeagueRun(engine, LEAGUE, RunOptions(concurrency=2, handle_signals=False)).play()
    )
    assert summary.played == total and summary.remaining == 0
    with league_lock(engine, league):  # released at the end of the run
        pass


@pytest.mark.e2e
def test_a_killed_runners_lock_frees_itself(db_url: str, engine: Engine) -> None:
    total = prepare(engine, rounds=10)  # long enough to outlast the second's start-up
    runs: list[subprocess.Popen[str]] = []
    try:
        runs.append(start_run(db_url, "--concurrency", "1", "--workers", "1"))
        wait_for(lambda: done_count(engine) >= 1, "a match")
        runs.append(start_run(db_url))
        out, err = runs[1].communicate(timeout=120)
        assert runs[0].poll() is None, "the first run ended before the second was refused"
        assert runs[1].returncode == 2, (out, err)
        assert "is being played by another process" in err, err
        os.kill(runs[0].pid, signal.SIGKILL)
        runs[0].communicate(timeout=60)
        runs.append(start_run(db_url, "--concurrency", "2"))
        out, err = runs[2].communicate(timeout=300)
        assert runs[2].returncode == 0, (out, err)
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
            run.communicate()
    assert_each_match_once(engine, total)
