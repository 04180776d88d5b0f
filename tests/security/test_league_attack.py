"""A whole league with a hostile bot: its attacks change nothing the league stores.

The hostile bot tries to SIGSTOP+SIGKILL the other seat (the probability bot,
found by a token in its command line) and the referee (its parent and the
pytest process's pid) in every match it plays, under the league's default
sandbox and warm pool. The league must finish with every match stored, the
stored seats equal to the stored records, the honest bot never faulted, and no
bot process left.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from sqlmodel import select

from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    decompress_record,
    get_league,
    match_log,
)
from league.store.models import BotRow, MatchRow, SeatRow
from league.store.registry import add_bot
from tests.e2e.conftest import EXAMPLE
from tests.security.support import (
    RULES,
    assert_no_processes_left,
    hostile,
    new_token,
    reports,
    victim,
)

pytestmark = pytest.mark.e2e


async def test_league_with_a_signal_attacker_stores_exactly_its_records(tmp_path: Path) -> None:
    token = new_token()
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    attacker = hostile("signal", needle=token, pids=[os.getpid()])
    honest = victim(token, EXAMPLE["probability"])
    with session_scope(engine) as session:
        for name, spec in (("hostile", attacker), ("probability", honest)):
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
                "liars_dice",
                ("hostile", "probability"),
                rules=RULES,
                rounds=2,
                decision_s=2.0,
                startup_s=20.0,
            ),
        )
    try:
        summary = await LeagueRun(
            engine, "cup", RunOptions(concurrency=2, handle_signals=False)
        ).play()
        assert summary.remaining == 0 and not summary.interrupted, summary
        with session_scope(engine) as session:
            league = get_league(session=session, name="cup")
            matches = list(session.exec(select(MatchRow).where(MatchRow.league_id == league.id)))
            assert matches and all(m.status == "done" for m in matches)
            attacks = 0
            for match in matches:
                assert match.record is not None
                record = decompress_record(match.record)
                seats = sorted(
                    session.exec(
                        select(SeatRow, BotRow)
                        .join(BotRow, BotRow.id == SeatRow.bot_id)  # type: ignore[arg-type]
                        .where(SeatRow.match_id == match.id)
                    ),
                    key=lambda pair: pair[0].seat,
                )
                assert record.reason == match.reason == "completed", record.faults
                assert record.places == tuple(seat.place for seat, _ in seats)
                assert record.scores == tuple(seat.score for seat, _ in seats)
                assert [bot.name for _, bot in seats] == [s.bot for s in record.seats]
                assert all(seat.fault == "" for seat, _ in seats), record.faults
                hostile_seat = next(seat.seat for seat, bot in seats if bot.name == "hostile")
                log = match_log(session=session, match=match, seat=hostile_seat) or b""
                for result in reports(log):
                    if result.get("phase") != "done":
                        continue
                    attacks += 1
                    assert result["targets"]["opponent"] == [], result
                    assert os.getpid() in result["targets"]["referee"], result
                    for target, outcome in result["sent"].items():
                        assert "sent" not in outcome.values(), (target, outcome)
            # Every match had the attacker attack (one report per match).
            assert attacks == len(matches)
    finally:
        engine.dispose()
    assert_no_processes_left()
