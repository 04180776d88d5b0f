"""A league's secret: committed at creation, dealing every duplicate group, revealed and
verifiable once the league is over."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import col, select
from typer.testing import CliRunner

from league.cli import app
from league.store.db import open_database, session_scope
from league.store.leagues import (
    LeagueSettings,
    compress_record,
    create_league,
    decompress_record,
    get_league,
    revealed_secret,
    verify_league,
)
from league.store.models import MatchRow
from league.store.registry import LeagueError, add_bot
from referee.core.catalogue import get_game
from referee.core.chance import ChanceStream, commitment, deal_key, league_secret_from_seed
from referee.gamekit.base import CHANCE, draw_chance
from referee.records.replay import replay_states, verify
from tests.forge import swap_two_dice

RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
PROBABILITY = f"{sys.executable} -m example_bots.liars_dice_probability"
runner = CliRunner()


def make(engine: Engine, name: str, **settings: object) -> None:
    with session_scope(engine) as session:
        for bot in ("a", "b", "c"):
            with contextlib.suppress(LeagueError):  # registered by an earlier call
                add_bot(session=session, name=bot, command=RANDOM, games=["liars_dice"])
        create_league(
            session=session,
            name=name,
            settings=LeagueSettings("liars_dice", ("a", "b", "c"), **settings),  # type: ignore[arg-type]
        )


def test_a_league_gets_a_fresh_committed_secret(engine: Engine) -> None:
    make(engine, "one")
    make(engine, "two")
    make(engine, "seeded", reproducible_seed=7)
    with session_scope(engine) as session:
        one, two, seeded = (get_league(session=session, name=n) for n in ("one", "two", "seeded"))
        assert len(one.secret) == 32 and one.secret != two.secret
        assert one.commitment == hashlib.sha256(one.secret).hexdigest()
        assert one.seed is None
        assert seeded.secret == league_secret_from_seed(7) and seeded.seed == 7
        # Nothing is revealed and nothing can be verified while matches are pending.
        assert revealed_secret(session=session, league=one) is None
        with pytest.raises(LeagueError, match="'one' has 6 pending match"):
            verify_league(session=session, league=one)


def arena(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
    return result.exit_code, result.output


@pytest.mark.e2e
def test_commit_run_reveal_verify_and_catch_a_forged_deal(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for name, command in (("random", RANDOM), ("probability", PROBABILITY)):
        code, out = arena(db, "bot", "add", name, "--cmd", command, "--game", "liars_dice")
        assert code == 0, out
    code, out = arena(
        db, "league", "create", "cup", "--game", "liars_dice", "--bot", "random",
        "--bot", "probability", "--rounds", "2", "--rule", "dice_per_player=2",
    )  # fmt: skip
    assert code == 0, out
    published = re.search(r"commitment \(sha256 of the league secret\): ([0-9a-f]{64})", out)
    assert published, out
    code, out = arena(db, "league", "show", "cup", "--json")
    shown = json.loads(out)
    assert shown["commitment"] == published[1] and shown["secret"] is None
    code, out = arena(db, "league", "show", "cup")
    assert published[1] in out and "revealed when no match is pending" in out
    code, out = arena(db, "league", "verify", "cup")
    assert code == 2 and "4 pending match(es)" in out

    code, out = arena(db, "league", "run", "cup", "--no-progress")
    assert code == 0 and "played 4 matches" in out, out
    code, out = arena(db, "league", "show", "cup", "--json")
    secret = bytes.fromhex(json.loads(out)["secret"])
    assert commitment(secret) == published[1]
    code, out = arena(db, "league", "show", "cup")
    assert secret.hex() in out
    code, out = arena(db, "league", "verify", "cup")
    assert code == 0 and "verified" in out and "4 matches replayed" in out, out

    engine = open_database(f"sqlite:///{db}")
    with session_scope(engine) as session:
        league = get_league(session=session, name="cup")
        matches = list(
            session.exec(
                select(MatchRow)
                .where(MatchRow.league_id == league.id)
                .order_by(col(MatchRow.position))
            )
        )
        records = {m.position: decompress_record(m.record or b"") for m in matches}
        # Both rotations of a group get the same deal: the same first roll, and every
        # outcome is what the group's key draws.
        for group in {m.group_key for m in matches}:
            rotations = [m for m in matches if m.group_key == group]
            assert len(rotations) == 2
            firsts = {records[m.position].events[0].outcome for m in rotations}
            assert len(firsts) == 1, group
            for m in rotations:
                assert verify(records[m.position], chance_key=deal_key(secret, group)) == []
                assert records[m.position].seed is None
        # Two groups get different deals. Their first rolls alone coincide about once
        # in 390 leagues (two sorted two-dice hands each), so compare every roll.
        assert matches[0].group_key != matches[2].group_key

        def rolls(position: int) -> list[object]:
            return [e.outcome for e in records[position].events if e.seat is None]

        shared = min(len(rolls(0)), len(rolls(2)))
        assert rolls(0)[:shared] != rolls(2)[:shared]  # r0 vs r1
        assert_draws_match(records[1], deal_key(secret, matches[1].group_key))

        # A forged deal, re-sealed through the record API: only the secret catches it.
        forged, event = swap_two_dice(records[3])
        assert verify(forged) == []
        matches[3].record = compress_record(forged)
        session.add(matches[3])
    engine.dispose()
    code, out = arena(db, "league", "verify", "cup")
    assert code == 1 and "NOT VERIFIED (1 problem(s))" in out, out
    assert f"MISMATCH match cup-3: event {event}: chance outcome" in out
    assert "is not what the chance key draws" in out

    code, out = arena(db, "league", "verify", "cup", "--secret", "00" * 32)
    assert code == 1 and "not the commitment" in out and published[1] in out
    code, out = arena(db, "league", "verify", "cup", "--secret", "abc")
    assert code == 2 and "'abc' is not hexadecimal" in out


def assert_draws_match(record: object, key: bytes) -> None:
    """Independently of verify(): re-draw every chance event from the group's key."""
    from referee.records.record import MatchRecord

    assert isinstance(record, MatchRecord)
    game = get_game(record.game)
    stream = ChanceStream(key)
    states = replay_states(record)
    for event, before in zip(record.events, states, strict=False):
        if event.seat is None:
            assert game.to_act(before) == CHANCE
            assert event.outcome == draw_chance(game.chance_request(before), stream)


def test_migrating_an_old_league_gives_it_a_committed_secret(db_url: str) -> None:
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from league.store.db import MIGRATIONS, make_engine, migrate

    engine = make_engine(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        connection.execute(
            text(
                "INSERT INTO league (name, game, rules, table_size, rounds, seed, decision_s,"
                " startup_s, k_factor, created_at) VALUES ('old', 'liars_dice', '{}', 2, 1, 5,"
                " 2.0, 15.0, 16.0, CURRENT_TIMESTAMP)"
            )
        )
    migrate(engine)
    with session_scope(engine) as session:
        league = get_league(session=session, name="old")
        assert len(league.secret) == 32 and league.seed is None
        assert league.commitment == commitment(league.secret)
    engine.dispose()
