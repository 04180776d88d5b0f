"""``arena league run --adaptive``: after its own schedule a fixed league keeps
scheduling duplicate groups where the ratings are in doubt (real bots, unsandboxed)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import trio
from sqlalchemy import Engine
from sqlmodel import select

from league.execution.adaptive import AdaptiveError, AdaptiveSchedule
from league.execution.league_run import LeagueRun, Progress, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import LeagueSettings, create_league, get_league
from league.store.models import MatchRow
from league.store.registry import add_bot
from league.store.rolling_ladders import create_rolling_league
from referee.runtime.sandbox import SandboxConfig

ROOT = Path(__file__).resolve().parents[2]
BOTS = {
    "random": f"{sys.executable} -m example_bots.liars_dice_random",
    "counting": f"{sys.executable} -m example_bots.liars_dice_counting",
    "probability": f"{sys.executable} -m example_bots.liars_dice_probability",
}


def prepare(engine: Engine) -> None:
    with session_scope(engine) as session:
        for name, command in BOTS.items():
            add_bot(session=session, name=name, command=command, games=["liars_dice"])
        create_league(
            session=session,
            name="adapt",
            settings=LeagueSettings(
                "liars_dice",
                tuple(BOTS),
                rounds=1,
                reproducible_seed=5,
                rules={"dice_per_player": "2"},
                sandbox=SandboxConfig(enabled=False),
            ),
        )


def rows(engine: Engine) -> list[tuple[int, str, str]]:
    with session_scope(engine) as session:
        league = get_league(session=session, name="adapt")
        return [
            (m.round, m.group_key, m.status)
            for m in session.exec(select(MatchRow).where(MatchRow.league_id == league.id))
        ]


def test_the_schedule_grows_in_duplicate_groups_after_the_fixed_one(engine: Engine) -> None:
    prepare(engine)
    assert len(rows(engine)) == 6  # one round-robin of three bots, both seat rotations
    run = LeagueRun(
        engine,
        "adapt",
        RunOptions(concurrency=2, workers=1, max_matches=12, handle_signals=False),
        schedule=AdaptiveSchedule(engine, "adapt"),
    )
    summary = trio.run(run.play)
    # --max-matches reached with the rest of a batch still pending: the run ended
    # (exit 0), it was not interrupted; the next run plays those first.
    assert summary.played == 12 and not summary.interrupted and summary.remaining == 2
    grown = [(r, g) for r, g, _ in rows(engine) if r >= 1]
    assert len(grown) == 8  # one batch of 4 groups, each in both rotations
    assert set(Counter(g for _, g in grown).values()) == {2}
    assert [s for *_, s in rows(engine)].count("done") == 12


def test_it_stops_once_every_adjacent_pair_is_separated(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare(engine)
    monkeypatch.setattr("league.store.rolling_ladders.settled", lambda *_, **__: True)
    run = LeagueRun(
        engine,
        "adapt",
        RunOptions(concurrency=2, workers=1, max_matches=40, handle_signals=False),
        schedule=AdaptiveSchedule(engine, "adapt"),
    )
    assert trio.run(run.play).played == 6
    assert len(rows(engine)) == 6


def test_a_rolling_ladder_is_refused(engine: Engine) -> None:
    with session_scope(engine) as session:
        create_rolling_league(session=session, name="lad", game="liars_dice")
    with pytest.raises(AdaptiveError, match="'lad' is a rolling ladder"):
        AdaptiveSchedule(engine, "lad")


def test_the_command_needs_max_matches(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    engine = open_database(url)
    prepare(engine)
    engine.dispose()
    done = subprocess.run(
        [sys.executable, "-m", "league.cli", "--db", url, "league", "run", "adapt", "--adaptive"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: --adaptive needs --max-matches (the schedule grows until then)"
    )


def test_progress_counts_towards_the_run_budget_not_the_first_schedule(engine: Engine) -> None:
    """The league's first schedule is 6 matches; ``--max-matches 12`` lets the run
    add 12: progress reads n/12 all the way (it read 12/6, 200%, and a negative ETA)."""
    prepare(engine)
    seen: list[Progress] = []
    run = LeagueRun(
        engine,
        "adapt",
        RunOptions(concurrency=2, workers=1, max_matches=12, handle_signals=False),
        schedule=AdaptiveSchedule(engine, "adapt"),
        on_progress=seen.append,
    )
    trio.run(run.play)
    assert seen and {p.total for p in seen} == {12}
    assert all(p.done <= p.total for p in seen)
    assert seen[-1].done == 12
    assert all(p.eta_s is None or p.eta_s >= 0 for p in seen)
