"""`arena league run` with an engine bug: the match is stored as aborted, rates
nobody, the run says so loudly (exit 3) and the next run plays it again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from league.store.db import open_database, session_scope
from league.store.models import EntryRow, MatchRow, SeatRow
from referee.core.catalogue import get_game
from referee.games.liars_dice.engine import Challenge
from tests.test_cli_league import arena, db  # noqa: F401 (the db fixture)

pytestmark = pytest.mark.e2e


def plant_bug_in_first_challenge(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine fails on the first challenge it applies (in the first match)."""
    engine_class = type(get_game("liars_dice"))
    correct = engine_class.transition
    fired: list[bool] = []

    def buggy(self: Any, state: Any, seat: int, action: Any) -> Any:
        if isinstance(action, Challenge) and not fired:
            fired.append(True)
            raise RuntimeError("planted engine bug")
        return correct(self, state, seat, action)

    monkeypatch.setattr(engine_class, "transition", buggy)


def test_an_aborted_match_is_reported_not_rated_and_replayed_next_run(
    db: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out = arena(
        db, "league", "create", "cup", "--game", "liars_dice", "--bot", "random", "--bot",
        "probability", "--rounds", "1",
    )  # fmt: skip
    assert code == 0, out
    plant_bug_in_first_challenge(monkeypatch)
    code, out = arena(db, "league", "run", "cup", "--no-progress")
    assert code == 3, out
    assert "aborted 1 match(es)" in out and "cup-0: " in out and "planted engine bug" in out
    assert "played 2 matches" in out and "1 remaining" in out

    engine = open_database(f"sqlite:///{db}")
    with session_scope(engine) as session:
        matches = {m.position: m for m in session.exec(select(MatchRow))}
        assert (matches[0].status, matches[0].reason) == ("aborted", "aborted")
        assert matches[1].status == "done"
        seats = list(session.exec(select(SeatRow)))
        aborted_seats = [s for s in seats if s.match_id == matches[0].id]
        assert all(s.place is None and s.fault == "" and s.elo_after is None for s in aborted_seats)
        done_seats = [s for s in seats if s.match_id == matches[1].id]
        elo = {e.bot_id: e.elo for e in session.exec(select(EntryRow))}
        # Only the completed match moved the ratings.
        assert {s.bot_id: s.elo_after for s in done_seats} == elo
    code, out = arena(db, "league", "status", "cup", "--json")
    status = json.loads(out)
    assert (status["done"], status["pending"], status["aborted"]) == (1, 1, 1)
    code, out = arena(db, "league", "matches", "cup", "--result", "aborted")
    assert code == 0 and "cup-0" in out and "cup-1" not in out
    code, out = arena(db, "replay", "cup-0", "--verify")
    assert code == 0, out
    code, out = arena(db, "replay", "cup-0")
    assert code == 0 and "result (aborted)" in out and "planted engine bug" in out, out

    report = db.parent / "report.html"
    code, out = arena(db, "league", "report", "cup", "--html", str(report), "--samples", "10")
    assert code == 0 and "2 match replays" in out, out
    assert "1 aborted by a referee error" in report.read_text()
    pages = sorted(db.parent.glob("report*/*.html"))
    assert any("planted engine bug" in page.read_text() for page in pages), pages

    monkeypatch.undo()  # the engine is fixed
    code, out = arena(db, "league", "run", "cup", "--no-progress")
    assert code == 0 and "played 1 matches" in out and "0 remaining" in out, out
    code, out = arena(db, "league", "status", "cup", "--json")
    status = json.loads(out)
    assert (status["done"], status["pending"], status["aborted"]) == (2, 0, 0)
    engine.dispose()
