"""Registry, league creation, results and a real league run, on SQLite and PostgreSQL."""

from __future__ import annotations

import functools
import sys

import pytest
import trio
from sqlalchemy import Engine, func
from sqlmodel import select

from league.domain.schedules import expected_count
from league.execution.botcheck import check_bot
from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    decompress_record,
    delete_league,
    finished_results,
    get_league,
    league_bots,
    league_status,
    pending_matches,
    record_result,
)
from league.store.models import BotRow, EntryRow, LeagueRow, MatchRow, SeatRow
from league.store.registry import (
    AlreadyExistsError,
    BotCheckError,
    LeagueError,
    NotFoundError,
    add_bot,
    get_bot,
    list_bots,
    remove_bot,
)
from league.store.standings import crosstable, standings
from referee.records.record import MatchRecord

RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
PROBABILITY = f"{sys.executable} -m example_bots.liars_dice_probability"


def register(engine: Engine, *names: str, check: bool = False) -> None:
    commands = {"random": RANDOM, "probability": PROBABILITY}
    with session_scope(engine) as session:
        for name in names:
            add_bot(
                session=session,
                name=name,
                command=commands.get(name.split("-")[0], RANDOM),
                games=["liars_dice"],
                check=check_bot if check else None,
            )


def counts(engine: Engine) -> tuple[int, ...]:
    with session_scope(engine) as session:
        return tuple(
            session.exec(select(func.count()).select_from(model)).one()
            for model in (BotRow, LeagueRow, EntryRow, MatchRow, SeatRow)
        )


def test_add_bot_checks_it_starts_and_records_a_content_version(engine: Engine) -> None:
    with session_scope(engine) as session:
        row = add_bot(session=session, name="probability", command=PROBABILITY, check=check_bot)
        assert row.games == "liars_dice"  # learnt from the bot's Health answer
        assert len(row.version) == 12
    with session_scope(engine) as session, pytest.raises(AlreadyExistsError):
        add_bot(session=session, name="probability", command=PROBABILITY, check=check_bot)
    with session_scope(engine) as session:
        labelled = add_bot(
            session=session, name="probability", command=PROBABILITY, version="v2", check=check_bot
        )
        assert labelled.version == "v2"
        assert get_bot(session=session, name="probability").version == "v2"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"command": f"{sys.executable} -c 'import sys; sys.exit(3)'"}, BotCheckError, "exited"),
        ({"command": RANDOM, "games": ["chess"]}, LeagueError, "unknown game"),
        ({"command": RANDOM, "games": ["dice_poker"]}, BotCheckError, "not dice_poker"),
        ({"command": "", "address": ""}, LeagueError, "exactly one"),
        ({"command": "'unclosed"}, LeagueError, "bad command line"),
    ],
)
def test_add_bot_rejects_bad_bots_and_writes_nothing(
    engine: Engine, kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    before = counts(engine)
    with pytest.raises(error, match=message), session_scope(engine) as session:
        check = functools.partial(check_bot, startup_s=3.0)
        add_bot(session=session, name="bad", check=check, **kwargs)  # type: ignore[arg-type]
    assert counts(engine) == before


def test_remove_bot_retires_played_versions_and_deletes_unplayed(engine: Engine) -> None:
    register(engine, "random", "probability", "random-spare")
    with session_scope(engine) as session:
        create_league(
            session=session,
            name="l",
            settings=LeagueSettings("liars_dice", ("random", "probability")),
        )
    with session_scope(engine) as session:
        remove_bot(session=session, name="random")
        remove_bot(session=session, name="random-spare")
    with session_scope(engine) as session:
        names = {b.name for b in list_bots(session=session, include_retired=True)}
        assert names == {"random", "probability"}
        with pytest.raises(NotFoundError):
            get_bot(session=session, name="random")
        with pytest.raises(NotFoundError):
            remove_bot(session=session, name="random")


@pytest.mark.parametrize(("n", "k", "rounds"), [(2, 2, 1), (3, 2, 2), (4, 3, 1)])
def test_create_league_writes_the_whole_schedule(
    engine: Engine, n: int, k: int, rounds: int
) -> None:
    names = [f"random-{i}" for i in range(n)]
    register(engine, *names)
    with session_scope(engine) as session:
        league = create_league(
            session=session,
            name="rr",
            settings=LeagueSettings("liars_dice", tuple(names), table_size=k, rounds=rounds),
        )
        status = league_status(session=session, league=league)
        assert status.total == status.pending == expected_count(n, k, rounds)
        pending = pending_matches(session=session, league=league)
        assert [p.position for p in pending] == list(range(status.total))
        seats = {name: [0] * k for name in names}
        for match in pending:
            for seat, bot in enumerate(match.bots):
                seats[bot.name][seat] += 1
        assert len({count for per_seat in seats.values() for count in per_seat}) == 1


@pytest.mark.parametrize(
    ("name", "settings", "error", "message"),
    [
        (
            "x",
            LeagueSettings("liars_dice", ("random", "ghost")),
            NotFoundError,
            "no bot named 'ghost'",
        ),
        ("x", LeagueSettings("chess", ("random", "probability")), LeagueError, "unknown game"),
        (
            "x",
            LeagueSettings("liars_dice", ("random", "probability"), rules={"wild_face": "2"}),
            LeagueError,
            "wild_face",
        ),
        ("x", LeagueSettings("liars_dice", ("random", "random")), LeagueError, "entered twice"),
        (
            "x",
            LeagueSettings("liars_dice", ("random", "probability"), table_size=3),
            LeagueError,
            "need at least table_size=3 bots",
        ),
        (
            "x",
            LeagueSettings("liars_dice", ("random", "probability"), table_size=11),
            LeagueError,
            "seats",
        ),
        (
            "taken",
            LeagueSettings("liars_dice", ("random", "probability")),
            AlreadyExistsError,
            "already exists",
        ),
        (
            "has space",
            LeagueSettings("liars_dice", ("random", "probability")),
            LeagueError,
            "bad league name",
        ),
    ],
)
def test_create_league_rejects_bad_input_and_writes_nothing(
    engine: Engine, name: str, settings: LeagueSettings, error: type[Exception], message: str
) -> None:
    register(engine, "random", "probability")
    with session_scope(engine) as session:
        create_league(
            session=session,
            name="taken",
            settings=LeagueSettings("liars_dice", ("random", "probability")),
        )
    before = counts(engine)
    with pytest.raises(error, match=message), session_scope(engine) as session:
        create_league(session=session, name=name, settings=settings)
    assert counts(engine) == before


def test_a_league_runs_to_the_end_with_warm_bots(engine: Engine) -> None:
    register(engine, "random", "probability")
    with session_scope(engine) as session:
        create_league(
            session=session,
            name="run",
            settings=LeagueSettings("liars_dice", ("random", "probability"), rounds=3),
        )
    summary = trio.run(
        lambda: LeagueRun(engine, "run", RunOptions(concurrency=2, handle_signals=False)).play()
    )
    assert summary.played == 6 and summary.remaining == 0 and not summary.interrupted
    assert summary.processes_reused > 0
    # Two matches at a time, two seats each; the rotations of a deal group never share
    # a process, and a process that played a deal's first rotation is parked until its
    # second has ended: each bot may need four, two per running deal.
    assert summary.processes_started <= 8
    with session_scope(engine) as session:
        league = get_league(session=session, name="run")
        assert pending_matches(session=session, league=league) == []
        results = finished_results(session=session, league=league)
        assert len(results) == 6
        table = standings(session=session, league=league, samples=50)
        assert table[0].bot == "probability"
        assert sum(row.matches for row in table) == 12
        assert table[0].lo is not None and table[0].lo <= table[0].elo <= table[0].hi  # type: ignore[operator]
        cross = crosstable(session=session, league=league)
        h2h = cross["probability"]["random"]
        assert h2h.wins + h2h.draws + h2h.losses == 6
        match = session.exec(select(MatchRow).where(MatchRow.league_id == league.id)).first()
        assert match is not None and match.record is not None
        record = decompress_record(match.record)
        assert record.match_id == f"run-{match.position}"
        assert record.seed is None  # dealt from the league secret, which is not recorded
        # Second run: nothing left to play.
    again = trio.run(lambda: LeagueRun(engine, "run", RunOptions(handle_signals=False)).play())
    assert again.played == 0


def test_a_result_is_written_once_with_its_seats_and_rating(engine: Engine) -> None:
    register(engine, "random", "probability")
    with session_scope(engine) as session:
        league = create_league(
            session=session,
            name="w",
            settings=LeagueSettings("liars_dice", ("random", "probability")),
        )
        first = pending_matches(session=session, league=league)[0]
    record = MatchRecord(
        match_id="w-0",
        game="liars_dice",
        rules={},
        num_seats=2,
        seed=None,
        seats=(),
        events=(),
        faults=(),
        reason="completed",
        places=(2, 1),
        scores=(0.0, 3.0),
    )
    with session_scope(engine) as session:
        league = get_league(session=session, name="w")
        record_result(session=session, league=league, match_id=first.match_id, record=record)
    with session_scope(engine) as session:
        league = get_league(session=session, name="w")
        seats = session.exec(select(SeatRow).where(SeatRow.match_id == first.match_id)).all()
        assert sorted((s.seat, s.place, s.score) for s in seats) == [(0, 2, 0.0), (1, 1, 3.0)]
        winner = first.bots[1].name
        elos = {bot.name: e.elo for e, bot in league_bots(session=session, league=league)}
        assert elos[winner] > 1500 > elos[first.bots[0].name]
        with pytest.raises(LeagueError, match="already has a result"):
            record_result(session=session, league=league, match_id=first.match_id, record=record)


def test_delete_league_removes_everything_but_the_bots(engine: Engine) -> None:
    register(engine, "random", "probability")
    with session_scope(engine) as session:
        create_league(
            session=session,
            name="d",
            settings=LeagueSettings("liars_dice", ("random", "probability")),
        )
    with session_scope(engine) as session:
        delete_league(session=session, name="d")
    assert counts(engine) == (2, 0, 0, 0, 0)


def test_a_bot_service_reached_by_address_plays_in_a_league(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service requires a token; the registry stores only the variable's name."""
    import os
    import socket
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("REMOTE_TOKEN", "league-test-token")
    service = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "example_bots.liars_dice_probability",
            "--listen",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "ARENA_BOT_TOKEN": "league-test-token"},
    )
    try:
        register(engine, "random")
        with session_scope(engine) as session:
            row = add_bot(
                session=session,
                name="remote",
                address=f"127.0.0.1:{port}",
                token_env="REMOTE_TOKEN",
                check=check_bot,
            )
            assert row.games == "liars_dice" and row.version == "service"
            assert row.token_env == "REMOTE_TOKEN"
            create_league(
                session=session,
                name="remote-cup",
                settings=LeagueSettings("liars_dice", ("random", "remote"), rounds=2),
            )
        summary = trio.run(
            lambda: LeagueRun(engine, "remote-cup", RunOptions(handle_signals=False)).play()
        )
        assert summary.played == 4 and summary.remaining == 0
        with session_scope(engine) as session:
            league = get_league(session=session, name="remote-cup")
            assert league_status(session=session, league=league).forfeits == 0
    finally:
        service.terminate()
        service.wait(10)
