"""A bot that passes the check and faults in every ladder match is suspended after
its first ``suspend_after`` (3) matches, through the real ladder path
(:func:`league.execution.rolling_runs.run_rolling`, sandboxed bots): it is scheduled no more, its
opponents are never blamed, and its author is told (``GET /api/submissions``).
The guard (``suspend_after=0``, the old behaviour) lets it fault on and on.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
import trio
from sqlalchemy import Engine
from sqlmodel import col, select

from league.execution.rolling_runs import run_rolling
from league.store.authors import add_author
from league.store.db import open_database, session_scope
from league.store.models import BotRow, MatchRow, SeatRow
from league.store.registry import add_bot, get_bot
from league.store.rolling_ladders import RollingSettings, create_rolling_league, enter_bot
from league.store.suspension import SUSPEND_AFTER
from tests.security.live_server import live_server

pytestmark = pytest.mark.e2e

MATCHES = 12
FAULTER = f"{sys.executable} -m tests.security.ladder_faulter"
HONEST = {
    "random": f"{sys.executable} -m example_bots.liars_dice_random",
    "probability": f"{sys.executable} -m example_bots.liars_dice_probability",
}


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    yield engine
    engine.dispose()


def ladder(engine: Engine, suspend_after: int) -> str:
    """Ladder ``lad``: two example bots and ``sly`` (the faulter), which an author
    submitted; one table per batch, one match at a time. Returns sly's author's token."""
    with session_scope(engine) as session:
        author, token = add_author(session=session, name="mallory")
        for name, command in {**HONEST, "sly": FAULTER}.items():
            bot = add_bot(session=session, name=name, command=command, games=["liars_dice"])
            if name == "sly":
                bot.author_id = author.id
                session.add(bot)
        league = create_rolling_league(
            session=session,
            name="lad",
            game="liars_dice",
            rules={"dice_per_player": "2"},
            settings=RollingSettings(
                matches_per_minute=6000,
                concurrency=1,
                batch_groups=1,
                placement_matches=2,
                suspend_after=suspend_after,
            ),
        )
        for name in (*HONEST, "sly"):
            enter_bot(session=session, league=league, bot=get_bot(session=session, name=name))
    return token


def seats(engine: Engine) -> list[tuple[int, str, str]]:
    """(position, bot, fault) of every seat of every finished match, in order."""
    with session_scope(engine) as session:
        return [
            (match.position, bot.name, seat.fault)
            for seat, match, bot in session.exec(
                select(SeatRow, MatchRow, BotRow)
                .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
                .join(BotRow, col(BotRow.id) == SeatRow.bot_id)
                .where(MatchRow.status == "done")
                .order_by(col(MatchRow.position), col(SeatRow.seat))
            )
        ]


def test_a_bot_faulting_in_its_first_ladder_matches_is_suspended_and_its_author_told(
    engine: Engine, tmp_path: Path
) -> None:
    token = ladder(engine, SUSPEND_AFTER)
    trio.run(lambda: run_rolling(engine, "lad", max_matches=MATCHES))
    played = seats(engine)
    sly = [(p, fault) for p, bot, fault in played if bot == "sly"]
    # It faulted in every match it played, and played at most one batch (2 matches)
    # past its third: the batch already scheduled when its third fault landed.
    assert all(fault == "crash" for _, fault in sly)
    assert SUSPEND_AFTER <= len(sly) <= SUSPEND_AFTER + 1
    assert len({p for p, _, _ in played}) == MATCHES  # the ladder went on without it
    assert max(p for p, _ in sly) < max(p for p, _, _ in played)
    # The opponents are never blamed.
    assert all(fault == "" for _, bot, fault in played if bot != "sly")
    with session_scope(engine) as session:
        row = get_bot(session=session, name="sly")
        assert row.suspended_at is not None and "first 3 ladder matches (crash)" in row.suspension
        assert all(get_bot(session=session, name=n).suspended_at is None for n in HONEST)
    with live_server(engine, tmp_path / "store") as site:
        reply = site.request("/api/submissions", headers={"authorization": f"Bearer {token}"})
        notices = reply.json()["notices"]
        assert [(n["bot"], n["message"].startswith("suspended: it faulted")) for n in notices] == [
            ("sly", True)
        ]
        # Logged in, the author sees it on the upload page and the bot's page; the
        # public bot page does not say it.
        login = site.request(
            "/login",
            method="POST",
            body=urlencode({"token": token}).encode(),
            headers={
                "content-type": "application/x-www-form-urlencoded",
                "origin": site.url,
            },
        )
        assert login.status == 303, login.text
        cookie = login.headers["set-cookie"].split(";", 1)[0]
        for path in ("/submit", "/bots/sly"):
            page = site.request(path, headers={"cookie": cookie}).text
            assert 'id="notices"' in page and "faulted in each of its first 3" in page, path
        assert 'id="notices"' not in site.request("/bots/sly").text


def test_guard_without_suspension_the_faulter_keeps_getting_matches(engine: Engine) -> None:
    ladder(engine, 0)
    trio.run(lambda: run_rolling(engine, "lad", max_matches=MATCHES))
    sly = [fault for _, bot, fault in seats(engine) if bot == "sly"]
    assert len(sly) >= 2 * SUSPEND_AFTER and all(fault == "crash" for fault in sly)


def test_the_faulter_can_no_longer_pass_the_pre_submission_check() -> None:
    """Match ids are opaque tokens now: the faulter takes the check for a real
    match and fails it (before, a ``check-`` id let it pass). Suspension remains
    for bots that tell a check apart some other way (e.g. their first matches)."""
    from league.execution.botcheck import check_bot_matches
    from referee.runtime.process import BotSpec

    spec = BotSpec(name="sly", command=(sys.executable, "-m", "tests.security.ladder_faulter"))
    report = check_bot_matches(spec, "liars_dice", matches=2)
    assert not report.passed and report.faults == {"crash": 2}, report.reasons
