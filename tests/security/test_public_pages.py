"""What the public pages and API show while a league runs and after.

- **Hidden schedule**: a match not yet finished (pending, running, aborted to be
  played again) is not listed with its bots anywhere public, so a bot's author —
  or the bot — cannot look it up and learn its next opponent
  (``tests.security.schedule_spy``, a real client process, finds nothing; with
  the old listing it finds every pending match of its bot).
- **Redaction**: no public endpoint serves a bot's command line or address (the
  operator's commands, store paths), though the stored records hold them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlmodel import col, select

from league.server.state import Settings
from league.store.db import open_database, session_scope
from league.store.leagues import decompress_record, find_match, get_league, record_result
from league.store.models import BotRow, SeatRow
from tests.security.live_server import LiveServer, live_server
from tests.server.harness import SCRIPT_BOT, played_league

ROOT = Path(__file__).resolve().parents[2]
PLAYED = 6
SPY_BOT = "random"


ABORTED = "cup-11"


@pytest.fixture(scope="module")
def league_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """League ``cup``: 12 matches of 3 bots, 6 played by ``arena league run``, 5
    pending, and ``cup-11`` aborted by a referee error (its record stored, to be
    played again by the same seats)."""
    db = played_league(tmp_path_factory.mktemp("public"), played=PLAYED)
    engine = open_database(db)
    try:
        with session_scope(engine) as session:
            _, played = find_match(session=session, key="cup-0")
            _, match = find_match(session=session, key=ABORTED)
            assert played.record is not None and match.status == "pending"
            stored = decompress_record(played.record)
            seats = session.exec(
                select(SeatRow, BotRow)
                .join(BotRow, col(BotRow.id) == SeatRow.bot_id)
                .where(SeatRow.match_id == match.id)
                .order_by(col(SeatRow.seat))
            ).all()
            aborted = replace(
                stored,
                match_id=ABORTED,
                reason="aborted",
                seats=tuple(
                    replace(info, bot=bot.name)
                    for info, (_, bot) in zip(stored.seats, seats, strict=True)
                ),
            )
            league = get_league(session=session, name="cup")
            assert match.id is not None
            record_result(session=session, league=league, match_id=match.id, record=aborted)
    finally:
        engine.dispose()
    return db


@pytest.fixture
def site(league_db: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    engine = open_database(league_db)
    hide = getattr(request, "param", True)
    settings = Settings(store=tmp_path / "store", watch_interval_s=0.2, hide_unfinished=hide)
    try:
        with live_server(engine, tmp_path / "store", settings=settings) as served:
            yield served
    finally:
        engine.dispose()


def run_spy(site: LiveServer, bot: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.security.schedule_spy", site.url, bot],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    leaks: list[dict[str, object]] = json.loads(done.stdout)["leaks"]
    return leaks


@pytest.mark.parametrize("site", [False], indirect=True, ids=["old-listing"])
def test_guard_the_old_listing_tells_a_bot_its_next_opponents(site: LiveServer) -> None:
    leaks = run_spy(site, SPY_BOT)
    places = {str(leak["where"]) for leak in leaks}
    assert {"api", "page", "record", "logs"} <= places
    assert any(leak["opponents"] for leak in leaks)


def test_unfinished_matches_are_not_listed_and_their_log_links_say_nothing(
    site: LiveServer,
) -> None:
    assert run_spy(site, SPY_BOT) == []
    assert run_spy(site, SCRIPT_BOT) == []
    # The finished ones are still listed, with their bots.
    listed = site.request("/api/leagues/cup/matches").json()
    assert len(listed) == PLAYED and all(m["status"] == "done" for m in listed)
    # The progress numbers stay public.
    assert site.request("/api/leagues/cup").json()["pending"] == 12 - PLAYED


def public_paths(site: LiveServer) -> list[str]:
    """Every public page and API answer about league ``cup``, its bots and its first
    finished match."""
    key = site.request("/api/leagues/cup/matches").json()[0]["key"]
    bots = [b["name"] for b in site.request("/api/bots").json()]
    paths = ["/", "/api/leagues", "/bots", "/api/bots"]
    paths += ["/leagues/cup", "/api/leagues/cup", "/api/leagues/cup/standings"]
    paths += ["/leagues/cup/matches", "/api/leagues/cup/matches"]
    paths += [f"/matches/{quote(key, safe='')}", f"/api/matches/{quote(key, safe='')}"]
    for bot in bots:
        paths += [f"/bots/{quote(bot, safe='')}", f"/api/bots/{quote(bot, safe='')}"]
    return paths


def test_no_public_answer_carries_a_bot_command(site: LiveServer, league_db: str) -> None:
    engine = open_database(league_db)
    try:
        with session_scope(engine) as session:
            _, match = find_match(session=session, key="cup-0")
            assert match.record is not None
            stored = decompress_record(match.record)
    finally:
        engine.dispose()
    commands = {part for seat in stored.seats for part in seat.command}
    # Guard: the stored record holds the command lines (the old /api/matches served it).
    assert sys.executable in commands and stored.to_json().count("example_bots.") >= 2
    secrets_ = [sys.executable, "example_bots."]
    for path in public_paths(site):
        reply = site.request(path)
        assert reply.status == 200, (path, reply.status)
        for secret in secrets_:
            assert secret not in reply.text, (path, secret)
    record = site.request("/api/matches/cup-0").json()
    assert all(seat["command"] == [] and seat["address"] == "" for seat in record["seats"])
    assert [seat["bot"] for seat in record["seats"]] == [seat.bot for seat in stored.seats]
