"""No mixed move's probabilities in any public place (the canary of test_canary.py,
for mixed moves).

A bot that answers every turn with a mixed move (:mod:`tests.bots.mixed_answers`,
mode ``planted``) puts :data:`PLANTED` on the first legal action of each turn. It
plays a league (through referee worker processes, so the probabilities cross the
worker's pipe and are stored in ``match_mixed``) that the server shows. No public
page, API answer, feed or HTML report may hold that probability in any form: its
decimal digits, its 8-byte double either way round, their hex, ``float.hex``. Nor
may the pages another author, or the bot's own author, read — but for one: the
author's log page of the bot's seat.

Guards (the needles can be found where they belong): the author's log page and
``arena league logs --mixed`` show the planted probability, the stored moves hold it
exactly, every one of the bot's actions carries a commitment, and ``arena league
verify`` checks every draw against the stored moves.
"""

from __future__ import annotations

import struct
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlmodel import select

from league.store.authors import add_author
from league.store.db import open_database, session_scope
from league.store.leagues import LeagueSettings, create_league
from league.store.mixed_moves import stored_mixed
from league.store.models import MatchRow
from league.store.registry import add_bot
from referee.records.record import MatchRecord
from referee.runtime.sandbox import SandboxConfig
from tests.bots.mixed_answers import PLANTED
from tests.server.harness import Served, arena, start_server, stop_server
from tests.server.test_server_submissions import login

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

LEAGUE = "mixcup"
PLANTER = "planter"
DECIMAL = f"{PLANTED:.6g}"
"""What the author's view prints (six significant digits): any longer decimal form of
:data:`PLANTED` starts with it too."""
NEEDLES = {
    "decimal": DECIMAL.encode(),
    "double (big-endian)": struct.pack(">d", PLANTED),
    "double (little-endian, protobuf)": struct.pack("<d", PLANTED),
    "double's hex (big-endian)": struct.pack(">d", PLANTED).hex().encode(),
    "double's hex (little-endian)": struct.pack("<d", PLANTED).hex().encode(),
    "float.hex": PLANTED.hex().encode(),
}


def assert_clean(body: bytes, where: str) -> None:
    for what, needle in NEEDLES.items():
        assert needle.lower() not in body.lower(), f"the planted {what} is in {where}"


@dataclass
class Site:
    served: Served
    db: str
    author: str
    """The planter's author's session cookie."""
    other: str
    """Another author's session cookie."""
    report: Path


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("mixed-canary")
    db = f"sqlite:///{tmp / 'arena.db'}"
    engine = open_database(db)
    with session_scope(engine) as session:
        ada, ada_token = add_author(session=session, name="ada")
        _, bob_token = add_author(session=session, name="bob")
        planter = add_bot(
            session=session,
            name=PLANTER,
            command=f"{sys.executable} -m tests.bots.mixed_answers --mode planted",
            games=["liars_dice"],
        )
        planter.author_id = ada.id  # as if ada had submitted it
        session.add(planter)
        add_bot(
            session=session,
            name="probability",
            command=f"{sys.executable} -m example_bots.liars_dice_probability",
            games=["liars_dice"],
        )
        create_league(
            session=session,
            name=LEAGUE,
            settings=LeagueSettings(
                "liars_dice",
                (PLANTER, "probability"),
                rules={"dice_per_player": "2"},
                sandbox=SandboxConfig(enabled=False),
            ),
        )
    engine.dispose()
    arena(
        "league", "run", LEAGUE, "--workers", "2", "--concurrency", "2", "--no-progress", db=db
    )  # fmt: skip
    report = tmp / "report"
    arena("league", "report", LEAGUE, "--html", str(report / "index.html"), db=db)
    served = start_server(db, tmp / "store", tmp / "serve.log")
    try:
        yield Site(served, db, login(served, ada_token), login(served, bob_token), report)
    finally:
        assert stop_server(served) == 0, (tmp / "serve.log").read_text()
        time.sleep(0.1)


def planter_seats(site: Site) -> list[tuple[str, int]]:
    """(match key, the planter's seat) of every match of the league."""
    rows = site.served.get(f"/api/leagues/{LEAGUE}/matches").json()
    assert len(rows) == 2
    return [(row["key"], row["bots"].index(PLANTER)) for row in rows]


def public_paths(site: Site) -> list[str]:
    """Every page and API answer about the league, its bots and its matches."""
    paths = ["/", "/bots", "/api/bots", "/api/leagues", "/live", "/login"]
    paths += [f"/leagues/{LEAGUE}", f"/api/leagues/{LEAGUE}", f"/api/leagues/{LEAGUE}/standings"]
    paths += [f"/leagues/{LEAGUE}/matches", f"/api/leagues/{LEAGUE}/matches"]
    paths += [f"/leagues/{LEAGUE}/figures", "/api/submissions"]
    for key, _ in planter_seats(site):
        part = quote(key, safe="")
        paths += [f"/matches/{part}", f"/api/matches/{part}", f"/watch/{part}/feed"]
        paths += [f"/matches/{part}/logs/{seat}" for seat in (0, 1)]
    for name in (PLANTER, "probability"):
        paths += [f"/bots/{name}", f"/api/bots/{name}"]
    return paths


def test_no_public_page_api_answer_feed_or_report_holds_the_probabilities(site: Site) -> None:
    served = site.served
    mine = {f"/matches/{quote(key, safe='')}/logs/{seat}" for key, seat in planter_seats(site)}
    for path in public_paths(site):
        for who, cookie in (("anybody", None), ("another author", site.other)):
            reply = served.get(path, headers={"cookie": cookie} if cookie else {})
            assert_clean(reply.body, f"GET {path} as {who} ({reply.status})")
        if path not in mine:  # the author's own view of every other page
            reply = served.get(path, headers={"cookie": site.author})
            assert_clean(reply.body, f"GET {path} as the bot's author ({reply.status})")
    with served.events(LEAGUE, timeout=10) as events:
        assert_clean(str(next(events)).encode(), "the league's events")
    for written in sorted(site.report.rglob("*")):
        if written.is_file():
            assert_clean(written.read_bytes(), f"the league report's {written.name}")
    # The records are public and hold a commitment for each of the planter's actions.
    for key, seat in planter_seats(site):
        record = MatchRecord.from_dict(served.get(f"/api/matches/{key}").json())
        own = [event for event in record.events if event.seat == seat]
        assert own and all(event.mixed is not None for event in own), key
        assert_clean(record.to_json().encode(), f"the record of {key}")


def test_the_probabilities_are_the_authors_alone(site: Site) -> None:
    """Guard: the bot's author reads them (log page, ``arena league logs --mixed``),
    they are stored exactly, and ``arena league verify`` checks them; nobody else
    reads the log page."""
    served = site.served
    for key, seat in planter_seats(site):
        path = f"/matches/{quote(key, safe='')}/logs/{seat}"
        reply = served.get(path, headers={"cookie": site.author})
        assert reply.status == 200 and "private" in reply.headers["cache-control"]
        assert f"mixed moves of seat {seat}" in reply.text and DECIMAL in reply.text, reply.text
        assert served.get(path).status == 403
        assert served.get(path, headers={"cookie": site.other}).status == 403
        out = arena("league", "logs", key, "--seat", str(seat), "--mixed", db=site.db)
        assert DECIMAL in out and " drawn: " in out, out
    engine = open_database(site.db)
    try:
        with session_scope(engine) as session:
            for row in session.exec(select(MatchRow)).all():
                stored = stored_mixed(session=session, match=row)
                assert any(
                    PLANTED in answer.distribution.probabilities
                    for answers in stored.values()
                    for answer in answers
                ), row.position
    finally:
        engine.dispose()
    out = arena("league", "verify", LEAGUE, db=site.db)
    assert "verified" in out and "mixed draws match their seats' kept probabilities" in out
