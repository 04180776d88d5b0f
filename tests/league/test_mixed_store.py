"""A league keeps each seat's mixed moves for its author (``match_mixed``), and checks
every mixed draw against them once its secret is revealed.

The random example bots answer every turn with a mixed move, so a league of them has
a commitment on every action: each must have its probabilities stored (in process and
through a referee worker's pipe), ``verify_league`` and ``arena league verify`` check
them against the secret, and a stored answer altered afterwards fails the check (and
``arena rerun``'s). The table arrives with migration 0010: a database already holding
leagues upgrades, its old matches still verify, and a match's rows go with it.
"""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

import trio
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine
from sqlmodel import col, select
from typer.testing import CliRunner

from league.cli import app
from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import MIGRATIONS, make_engine, open_database, session_scope
from league.store.human_games import (
    finish_human_match,
    human_row,
    humans_league,
    start_human_match,
)
from league.store.leagues import (
    LeagueSettings,
    create_league,
    decompress_record,
    delete_league,
    get_league,
    match_deal_key,
    match_key,
    record_result,
    verify_league,
)
from league.store.match_luck import match_luck
from league.store.mixed_moves import match_mixed, mixed_count, stored_mixed, write_mixed
from league.store.models import MatchMixedRow, MatchRow, SeatRow
from league.store.registry import add_bot
from referee.runtime.sandbox import SandboxConfig
from tests.mixed_records import mixed_record

RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
RULES = {"dice_per_player": "2"}
runner = CliRunner()


def random_league(engine: Engine, name: str = "mix") -> None:
    """Two random bots (both answer mixed), two matches of two dice each."""
    with session_scope(engine) as session:
        for bot in ("ra", "rb"):
            add_bot(session=session, name=bot, command=RANDOM, games=["liars_dice"])
        create_league(
            session=session,
            name=name,
            settings=LeagueSettings(
                "liars_dice", ("ra", "rb"), rules=RULES, sandbox=SandboxConfig(enabled=False)
            ),
        )


def assert_every_mixed_event_is_kept(engine: Engine, name: str = "mix") -> int:
    """Each done match's stored answers are exactly its mixed events; how many."""
    kept = 0
    with session_scope(engine) as session:
        league = get_league(session=session, name=name)
        rows = session.exec(select(MatchRow).where(MatchRow.league_id == league.id)).all()
        assert rows and all(row.status == "done" for row in rows)
        for row in rows:
            record = decompress_record(row.record or b"")
            committed = {(e.seat, e.turn) for e in record.events if e.mixed is not None}
            stored = stored_mixed(session=session, match=row)
            assert {(seat, a.turn) for seat, listed in stored.items() for a in listed} == (
                committed
            )
            assert all(mixed_count(session=session, match=row, seat=s) for s in stored)
            kept += len(committed)
    assert kept > 0  # the random bots answered mixed
    return kept


def assert_luck_is_stored(engine: Engine, name: str = "mix") -> None:
    """Each done match's seats hold its luck as computed from its record and its
    stored mixed moves (:mod:`league.store.match_luck`), bit for bit."""
    with session_scope(engine) as session:
        league = get_league(session=session, name=name)
        for row in session.exec(select(MatchRow).where(MatchRow.league_id == league.id)):
            found = match_luck(
                decompress_record(row.record or b""), stored_mixed(session=session, match=row)
            )
            seats = session.exec(select(SeatRow).where(SeatRow.match_id == row.id)).all()
            assert found is not None and found.seats is not None
            assert {s.seat: s.luck for s in seats} == dict(enumerate(found.seats))


def alter_stored(engine: Engine, name: str = "mix", *, drop: bool = False) -> str:
    """Change (or with ``drop``, leave out) the first stored mixed move of the league's
    first match with two entries or more; that match's key."""
    with session_scope(engine) as session:
        league = get_league(session=session, name=name)
        rows = session.exec(
            select(MatchRow).where(MatchRow.league_id == league.id).order_by(col(MatchRow.position))
        ).all()
        for row in rows:
            for stored in session.exec(
                select(MatchMixedRow).where(MatchMixedRow.match_id == row.id)
            ).all():
                moves = json.loads(zlib.decompress(stored.data))
                for index, move in enumerate(moves):
                    probabilities = move["probabilities"]
                    if len(probabilities) < 2:
                        continue
                    if drop:
                        del moves[index]
                    else:  # weight moved between two actions: still a distribution
                        probabilities[0], probabilities[1] = probabilities[1], probabilities[0]
                        if probabilities[0] == probabilities[1]:
                            probabilities[0] = probabilities[0] * 0.5
                            probabilities[1] = probabilities[1] * 1.5
                    stored.data = zlib.compress(json.dumps(moves).encode())
                    session.add(stored)
                    return match_key(league, row.position)
    raise AssertionError("no stored mixed move with two entries")


def test_a_league_keeps_every_mixed_move_and_verify_checks_each_draw(engine: Engine) -> None:
    random_league(engine)
    summary = trio.run(
        lambda: LeagueRun(engine, "mix", RunOptions(concurrency=2, handle_signals=False)).play()
    )
    assert summary.played == 2 and summary.remaining == 0
    kept = assert_every_mixed_event_is_kept(engine)
    assert_luck_is_stored(engine)
    with session_scope(engine) as session:
        result = verify_league(session=session, league=get_league(session=session, name="mix"))
        assert result.ok, result.problems
        assert result.mixed_checked == result.mixed_events == kept
    altered = alter_stored(engine)
    with session_scope(engine) as session:
        result = verify_league(session=session, league=get_league(session=session, name="mix"))
        assert not result.ok and len(result.problems) == 1
        assert result.problems[0].startswith(f"match {altered}: event ")
        assert "do not match the record's commitment" in result.problems[0]


def arena(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
    return result.exit_code, result.output


def test_worker_processes_send_them_and_the_cli_checks_and_shows_them(tmp_path: Path) -> None:
    """Through a referee worker (the JSON form over its pipe); then ``arena league
    verify``, ``arena league logs --mixed`` and ``arena rerun``'s check read them."""
    db = tmp_path / "arena.db"
    engine = open_database(f"sqlite:///{db}")
    try:
        random_league(engine)
        options = RunOptions(concurrency=2, workers=2, handle_signals=False)
        summary = trio.run(lambda: LeagueRun(engine, "mix", options).play())
        assert summary.played == 2 and summary.workers == 2  # worker processes
        kept = assert_every_mixed_event_is_kept(engine)
        assert_luck_is_stored(engine)
        with session_scope(engine) as session:
            league = get_league(session=session, name="mix")
            key = match_key(league, 0)
            match = session.exec(select(MatchRow).where(MatchRow.position == 0)).one()
            seat_answers = match_mixed(session=session, match=match, seat=0) or []
    finally:
        engine.dispose()
    code, out = arena(db, "league", "verify", "mix")
    assert code == 0, out
    assert f"{kept} of {kept} mixed draws match their seats' kept probabilities" in out

    code, out = arena(db, "league", "logs", key, "--seat", "0", "--mixed")
    assert code == 0, out
    lines = out.splitlines()
    assert len(lines) == len(seat_answers) > 0
    assert all(" drawn: " in line for line in lines), out
    assert lines[0].startswith(f"turn {seat_answers[0].turn}: ")
    code, out = arena(db, "league", "logs", key, "--seat", "0")
    assert code == 0 and f"answered {len(seat_answers)} turn(s) with mixed moves" in out, out

    engine = open_database(f"sqlite:///{db}")
    try:
        altered = alter_stored(engine, drop=True)
    finally:
        engine.dispose()
    code, out = arena(db, "league", "verify", "mix")
    assert code == 1 and f"MISMATCH match {altered}: event " in out and "is missing" in out, out
    code, out = arena(db, "rerun", altered, "--seat", "0", "--bot", RANDOM, "--no-sandbox")
    assert code == 2 and "does not check against the deal" in out and "is missing" in out, out


def test_a_human_games_bots_mixed_moves_are_kept(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    try:
        with session_scope(engine) as session:
            league = humans_league(session=session, game="liars_dice", rules={})
            bot = add_bot(session=session, name="b", command=RANDOM, games=["liars_dice"])
            person = human_row(session=session, player="ada", game="liars_dice")
            match = start_human_match(session=session, league=league, seats=[person, bot])
        record, answers = mixed_record(match.chance_key, match_id=match.key)
        with session_scope(engine) as session:
            assert finish_human_match(
                session=session, match=match, record=record, mixed={1: answers[1]}
            )
        with session_scope(engine) as session:
            row = session.get(MatchRow, match.match_id)
            assert row is not None
            assert stored_mixed(session=session, match=row) == {1: answers[1]}
    finally:
        engine.dispose()


def test_a_populated_database_upgrades_and_a_matchs_mixed_moves_go_with_it(db_url: str) -> None:
    """Migration 0010 on a database at 0009 holding a finished league (its records have
    mixed events, nothing stored for them): the old league still verifies (no draw
    checked), moves stored afterwards are checked, deleting the league deletes them."""
    engine = make_engine(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    kept = {}
    with session_scope(engine) as session:  # written at head, then taken back to 0009
        for bot in ("ra", "rb"):
            add_bot(session=session, name=bot, command=RANDOM, games=["liars_dice"])
        league = create_league(
            session=session, name="old", settings=LeagueSettings("liars_dice", ("ra", "rb"))
        )
        for row in session.exec(select(MatchRow).where(MatchRow.league_id == league.id)).all():
            key = match_key(league, row.position)
            record, answers = mixed_record(match_deal_key(league, row.group_key), match_id=key)
            assert row.id is not None
            record_result(session=session, league=league, match_id=row.id, record=record)
            kept[row.id] = answers
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0009")
    engine.dispose()

    upgraded = open_database(db_url)
    try:
        with session_scope(upgraded) as session:
            league = get_league(session=session, name="old")
            before = verify_league(session=session, league=league)
            assert before.ok and before.mixed_events > 0 and before.mixed_checked == 0
            for match_id, answers in kept.items():
                write_mixed(session=session, match_id=match_id, game="liars_dice", mixed=answers)
        with session_scope(upgraded) as session:
            after = verify_league(session=session, league=get_league(session=session, name="old"))
            assert after.ok, after.problems
            assert after.mixed_checked == after.mixed_events == before.mixed_events
            seats = sum(len(answers) for answers in kept.values())
            assert len(session.exec(select(MatchMixedRow)).all()) == seats
            delete_league(session=session, name="old")
        with session_scope(upgraded) as session:
            assert session.exec(select(MatchMixedRow)).all() == []
    finally:
        upgraded.dispose()
