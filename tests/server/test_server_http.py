"""``arena serve`` over real HTTP: every page and API route, errors, headers,
escaping, author-only logs, and server-sent events for matches that another
process (``arena league run``) plays."""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from league.server.auth import (
    COOKIE,
    csrf_ok,
    load_server_key,
    may_read_logs,
    new_session,
    read_session,
    same_origin,
)
from tests.server.harness import (
    SCRIPT_BOT,
    SCRIPT_LEAGUE,
    Served,
    arena,
    played_league,
    start_server,
    stop_server,
)

pytestmark = pytest.mark.e2e

LIVE_S = 5.0
"""A result is announced within this long (the watcher polls every second; a
stream's keepalive comes every 15 s, so a stream that only noticed changes on its
keepalive would miss this)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("server")
    db = played_league(tmp)
    server = start_server(db, tmp / "store", tmp / "serve.log")
    yield server
    assert stop_server(server) == 0, (tmp / "serve.log").read_text()


def part(name: str) -> str:
    return quote(name, safe="")


PAGES = [
    "/",
    "/leagues/cup",
    "/leagues/cup/matches",
    "/leagues/cup/matches?bot=probability&result=won",
    "/leagues/cup/matches?fault=timeout",
    "/matches/cup-0",
    "/bots",
    "/bots/probability",
    f"/bots/{part(SCRIPT_BOT)}",
    f"/leagues/{part(SCRIPT_LEAGUE)}",
    "/login",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_is_served_with_the_security_headers(served: Served, path: str) -> None:
    reply = served.get(path)
    assert reply.status == 200, reply.text
    assert reply.headers["content-type"].startswith("text/html")
    csp = reply.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert reply.headers["x-content-type-options"] == "nosniff"
    assert reply.headers["x-frame-options"] == "DENY"
    if path.startswith("/matches/"):  # the replay viewer: no request at all, own code by hash
        assert csp.startswith("default-src 'none'")
        assert re.search(r"script-src 'sha256-[^']+'", csp)
    else:  # server pages: no inline script at all
        assert "default-src 'self'" in csp
        assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", reply.text) == []


def test_the_api_lists_what_the_pages_show(served: Served) -> None:
    leagues = served.get("/api/leagues").json()
    assert {league["name"] for league in leagues} == {"cup", SCRIPT_LEAGUE}
    cup = next(league for league in leagues if league["name"] == "cup")
    assert cup["game"] == "liars_dice" and cup["matches"] == 12 and cup["done"] >= 6
    assert "secret" not in cup  # never while matches are pending
    detail = served.get("/api/leagues/cup").json()
    assert detail["secret"] is None and detail["bots"] == sorted(
        ["probability", "random", SCRIPT_BOT]
    )

    matches = served.get("/api/leagues/cup/matches").json()
    # Finished matches only: who plays whom is not public before a match is over.
    assert [m["key"] for m in matches] == [f"cup-{i}" for i in range(cup["done"])]
    assert all(m["status"] == "done" for m in matches)
    won = served.get("/api/leagues/cup/matches?bot=probability&result=won").json()
    assert won and all(m["places"][m["bots"].index("probability")] == 1 for m in won)
    assert served.get("/api/leagues/cup/matches?result=pending").json() == []

    record = served.get("/api/matches/cup-0").json()
    assert record["match_id"] == "cup-0" and record["game"] == "liars_dice"
    assert record["events"]

    bots = served.get("/api/bots").json()
    assert {b["name"] for b in bots} == {"probability", "random", SCRIPT_BOT}
    assert all("command" not in b for b in bots)  # the operator's command lines stay private
    bot = served.get("/api/bots/probability").json()
    assert bot["name"] == "probability" and bot["matches"] >= 4
    assert bot["leagues"][0]["league"] == "cup"
    assert bot["latency"]["decisions"] > 0 and bot["latency"]["mean_ms"] > 0
    assert "command" not in json.dumps(bot)


def test_the_standings_are_exactly_the_command_lines(served: Served) -> None:
    api = served.get("/api/leagues/cup/standings").json()
    cli = json.loads(arena("league", "standings", "cup", "--json", db=served.db))
    if api["done"] != served.get("/api/leagues/cup").json()["done"]:
        pytest.fail("a match finished during the comparison")
    assert api["standings"] == cli
    rows = api["display"]["rows"]
    assert [r["bot"] for r in rows] == [s["bot"] for s in cli]
    assert set(rows[0]["bluff"]) == {
        "bluff_rate",
        "challenge_rate",
        "challenge_accuracy",
        "wrongly_challenged",
    }
    page = served.get("/leagues/cup").text
    for row in rows:
        assert f'<td class="num elo">{row["elo"]}</td>' in page


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/api/leagues/nope", "no league named 'nope'"),
        ("/api/leagues/nope/standings", "no league named 'nope'"),
        ("/api/leagues/nope/matches", "no league named 'nope'"),
        ("/api/bots/nope", "no bot named 'nope'"),
        ("/api/matches/cup-99", "no match 'cup-99'"),
        ("/api/matches/nope", "no match 'nope'"),
        ("/api/leagues/cup/matches?bot=nope", "no bot named 'nope'"),
        ("/api/nothing/here", "no page at /api/nothing/here"),
    ],
)
def test_api_errors_are_json(served: Served, path: str, message: str) -> None:
    reply = served.get(path)
    assert reply.status == 404
    assert reply.headers["content-type"] == "application/json"
    assert reply.json() == {"error": message, "status": 404}


def test_bad_filters_are_400_and_unplayed_replays_404(served: Served) -> None:
    reply = served.get("/api/leagues/cup/matches?result=bogus")
    assert reply.status == 400 and "unknown result" in reply.json()["error"]
    reply = served.get("/api/leagues/cup/matches?result=won")
    assert reply.status == 400 and "needs --bot" in reply.json()["error"]
    reply = served.get("/matches/cup-11")
    assert reply.status == 404 and "has not been played" in html.unescape(reply.text)


@pytest.mark.parametrize("path", ["/leagues/nope", "/bots/nope", "/matches/cup-99", "/no/page"])
def test_page_errors_are_html(served: Served, path: str) -> None:
    reply = served.get(path)
    assert reply.status == 404
    assert reply.headers["content-type"].startswith("text/html")
    assert '<p id="error-message">' in reply.text


def test_script_in_names_is_rendered_as_text(served: Served) -> None:
    for path in ("/leagues/cup", "/bots", f"/bots/{part(SCRIPT_BOT)}", "/leagues/cup/matches"):
        page = served.get(path).text
        assert SCRIPT_BOT not in page, path
        assert html.escape(SCRIPT_BOT) in page, path
    league = served.get(f"/leagues/{part(SCRIPT_LEAGUE)}").text
    assert SCRIPT_LEAGUE not in league
    assert html.escape(SCRIPT_LEAGUE) in league
    index = served.get("/").text
    assert SCRIPT_LEAGUE not in index and html.escape(SCRIPT_LEAGUE) in index
    # The replay viewer embeds names as JSON that cannot close its <script> element.
    replay = served.get("/matches/cup-0").text
    assert SCRIPT_BOT not in replay


def test_logs_are_refused_without_the_bots_author(served: Served) -> None:
    reply = served.get("/matches/cup-0/logs/0")
    assert reply.status == 403
    assert "only to its author" in reply.text
    forged = served.get("/matches/cup-0/logs/0", headers={"cookie": f"{COOKIE}=1.9999999999.x.00"})
    assert forged.status == 403
    assert "logs-private" in served.get("/bots/probability").text


def test_a_wrong_token_does_not_log_in_and_forms_check_their_origin(served: Served) -> None:
    assert "login-form" in served.get("/login").text
    same = {"origin": served.url, "content-type": "application/x-www-form-urlencoded"}
    reply = served.request("/login", method="POST", data=b"token=x", headers=same)
    assert reply.status == 401 and "set-cookie" not in reply.headers
    cross = {"origin": "https://evil.example", "content-type": "application/x-www-form-urlencoded"}
    assert served.request("/login", method="POST", data=b"token=x", headers=cross).status == 403
    assert served.request("/logout", method="POST", data=b"", headers=cross).status == 403
    bare = {"content-type": "application/x-www-form-urlencoded"}
    assert served.request("/logout", method="POST", data=b"", headers=bare).status == 403
    huge = b"token=" + b"x" * (1 << 20)  # a login form is a few bytes: not read past 8 KiB
    assert served.request("/login", method="POST", data=huge, headers=same).status == 413


def test_session_cookies_are_signed_and_expire(tmp_path: Path) -> None:
    key = load_server_key(tmp_path / "store")
    assert (tmp_path / "store" / "server.key").stat().st_mode & 0o777 == 0o600
    assert load_server_key(tmp_path / "store") == key  # kept across restarts
    value, session = new_session(key, 7, now=1000.0)
    assert read_session(key, value, now=1001.0) == session
    assert read_session(key, value, now=1000.0 + 13 * 3600) is None  # expired
    assert read_session(b"x" * 32, value, now=1001.0) is None  # another server's key
    _author, expires, nonce, mac = value.split(".")
    assert read_session(key, f"8.{expires}.{nonce}.{mac}", now=1001.0) is None  # altered
    assert csrf_ok(session, session.csrf) and not csrf_ok(session, "x") and not csrf_ok(None, "x")
    assert may_read_logs(session, 7) and not may_read_logs(session, 8)
    assert not may_read_logs(session, None) and not may_read_logs(None, 7)
    assert same_origin({"origin": "http://h:1"}, "h:1")
    assert same_origin({"referer": "http://h:1/login"}, "h:1")
    assert not same_origin({"origin": "http://evil:1"}, "h:1")
    assert not same_origin({}, "h:1") and not same_origin({"origin": "null"}, "h:1")


def test_a_match_played_by_another_process_is_announced(served: Served) -> None:
    """The event stream fires for a result written by ``arena league run``, and the
    standings then count it."""
    before = served.get("/api/leagues/cup/standings").json()
    with served.events("cup") as events:
        first = next(events)
        assert first["done"] == before["done"]
        arena("league", "run", "cup", "--max-matches", "1", "--no-progress", db=served.db)
        written = time.monotonic()
        second = next(events)
        waited = time.monotonic() - written
    assert second["done"] == first["done"] + 1
    assert waited < LIVE_S, f"the event came {waited:.1f} s after the result was written"
    after = served.get("/api/leagues/cup/standings").json()
    assert after["done"] == before["done"] + 1
    assert sum(r["matches"] for r in after["standings"]) == 2 * after["done"]


def test_sigint_stops_the_server_with_a_stream_open(tmp_path: Path) -> None:
    db = played_league(tmp_path, played=0)
    server = start_server(db, tmp_path / "store", tmp_path / "serve.log")
    with server.events("cup") as events:
        assert next(events)["done"] == 0
        began = time.monotonic()
        assert stop_server(server) == 0
        assert time.monotonic() - began < 10
        assert list(events) == []


def test_a_taken_port_is_a_clear_error(tmp_path: Path) -> None:
    import os
    import socket
    import subprocess
    import sys

    from tests.server.harness import ROOT

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "league.cli", "serve", "--port", str(port),
             "--store", str(tmp_path / "store")],
            capture_output=True, text=True, timeout=60, cwd=ROOT,
            env={**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'a.db'}"},
        )  # fmt: skip
    assert done.returncode == 2
    assert f"error: cannot serve on 127.0.0.1:{port}: [Errno 98] Address already in use" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr
