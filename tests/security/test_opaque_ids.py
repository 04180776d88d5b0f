"""The match id a bot receives is an opaque token of one shape everywhere.

It used to be the referee's own id (``check-3``, ``ladder-246``, ``cup-7``), which
told a bot where it was playing (issue 19 §3). Now every match sends a token of
16 URL-safe characters: random, or keyed on the league's secret deal key (so a
resumed league run sends a match the same token and the SDK's ``self.rng``, which
is seeded from it, replays), or derived from the seed of a reproducible match.
The referee's id stays in the record (``match_id``) next to what was sent
(``bot_match_id``). The check's ids are covered by test_context_sniffing.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from league.cli import app
from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    decompress_record,
    get_league,
    match_deal_key,
    match_key,
)
from league.store.models import MatchRow
from league.store.registry import add_bot
from referee.core.chance import new_secret
from referee.core.messages import new_match_token
from referee.records.record import MatchRecord
from referee.records.replay import seat_messages
from tests.e2e.conftest import EXAMPLE, module_bot
from tests.security.support import assert_no_processes_left

TOKEN = re.compile(r"[A-Za-z0-9_-]{16}")


def assert_opaque(record: MatchRecord) -> None:
    """The seats were sent a token (as the replay regenerates MatchStart), never
    the referee's id."""
    assert TOKEN.fullmatch(record.bot_match_id), record.bot_match_id
    assert record.bot_match_id != record.match_id
    for seat in range(record.num_seats):
        assert seat_messages(record, seat)[0].start.match_id == record.bot_match_id


def test_tokens_have_one_shape_and_reveal_nothing() -> None:
    key, other_key = new_secret(), new_secret()
    drawn = {new_match_token(match_id="ladder-246") for _ in range(200)}
    assert len(drawn) == 200
    keyed = new_match_token(match_id="cup-7", key=key)
    seeded = new_match_token(match_id="m", seed=7)
    for token in (*drawn, keyed, seeded):
        assert TOKEN.fullmatch(token), token
        assert "ladder" not in token and "cup" not in token
    # Keyed and seeded tokens replay; a different key, match or seed changes them.
    assert keyed == new_match_token(match_id="cup-7", key=key)
    assert keyed != new_match_token(match_id="cup-7", key=other_key)
    assert keyed != new_match_token(match_id="cup-8", key=key)
    assert seeded == new_match_token(match_id="m", seed=7) != new_match_token(match_id="m", seed=8)


@pytest.mark.e2e
async def test_league_matches_send_a_keyed_token_not_league_position(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    try:
        with session_scope(engine) as session:
            for name in ("random", "probability"):
                spec = module_bot(EXAMPLE[name], name=name)
                add_bot(
                    session=session,
                    name=name,
                    command=shlex.join(spec.command),
                    games=["liars_dice"],
                )
            create_league(
                session=session,
                name="cup",
                settings=LeagueSettings(
                    "liars_dice", ("random", "probability"), rules={"dice_per_player": "2"}
                ),
            )
        summary = await LeagueRun(
            engine, "cup", RunOptions(concurrency=1, handle_signals=False)
        ).play()
        assert summary.remaining == 0
        with session_scope(engine) as session:
            league = get_league(session=session, name="cup")
            matches = list(session.exec(select(MatchRow).where(MatchRow.league_id == league.id)))
            assert len(matches) == 2
            for match in matches:
                assert match.record is not None
                record = decompress_record(match.record)
                assert record.match_id == match_key(league, match.position)
                assert_opaque(record)
                # A resumed run would send the same token: it is keyed on the deal key.
                key = match_deal_key(league, match.group_key)
                assert record.bot_match_id == new_match_token(match_id=record.match_id, key=key)
    finally:
        engine.dispose()
    assert_no_processes_left()


@pytest.mark.e2e
def test_a_command_line_match_sends_a_token(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    commands = [shlex.join(module_bot(EXAMPLE[name]).command) for name in ("random", "random")]
    result = CliRunner().invoke(
        app,
        [
            "match",
            "--game",
            "liars_dice",
            "--rule",
            "dice_per_player=2",
            "--quiet",
            "--record",
            str(path),
            *(arg for command in commands for arg in ("--bot", command)),
        ],
    )
    assert result.exit_code == 0, result.output
    assert_opaque(MatchRecord.from_json(path.read_text()))
    assert_no_processes_left()
