"""The SQLite run lock leaves no ``.lock`` file in the user's directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine

from league.store.models import LeagueRow
from league.store.runlock import LeagueBusyError, league_lock


def _league() -> LeagueRow:
    return LeagueRow(id=3, name="cup", game="liars_dice", secret=b"\0", commitment="00")


def test_the_lock_file_is_gone_after_the_run_and_held_during_it(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'arena.db'}")
    league = _league()
    with league_lock(engine, league):
        assert [p.name for p in tmp_path.glob("*.lock")] == ["arena.db.league-3.lock"]
        with (
            pytest.raises(LeagueBusyError, match="'cup' is being played"),
            league_lock(engine, league),
        ):
            pass
    assert list(tmp_path.glob("*.lock")) == []
    with league_lock(engine, league):  # and it can be taken again
        pass
    assert list(tmp_path.glob("*.lock")) == []


def test_a_killed_runs_leftover_lock_file_is_reused_and_removed(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'arena.db'}")
    (tmp_path / "arena.db.league-3.lock").write_text("")  # a run killed by SIGKILL left it
    with league_lock(engine, _league()):
        pass
    assert list(tmp_path.glob("*.lock")) == []
