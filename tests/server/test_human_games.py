"""Browser games against a bot, at the HTTP level (issue 32, item 5; the click-through
in headless Chromium is tests/browser/test_play_browser.py).

A signed-in author starts a game from a bot's page, reads only their seat's view,
sends moves (an illegal one is refused by the server, the game goes on), and the
result lands in the humans league while the bot's ladder rating stays where it was.
Another author cannot see or move in that game; a move without the session's CSRF
token or from another origin is refused; a page left alone loses on time.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from league.server.human_tables import WebGame
from league.server.spectators import delayed, public_board, seen, spectator_feed, watched
from referee.core.catalogue import game_names, get_game
from referee.core.playout import random_playout
from referee.records.record import MatchRecord
from referee.records.transcript import public_entries
from tests.server.harness import (
    Served,
    add_author,
    arena,
    played_league,
    start_server,
    stop_server,
)
from tests.server.test_server_submissions import login

pytestmark = pytest.mark.e2e


@dataclass
class Site:
    served: Served
    ada: str
    bob: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("human-games")
    db = played_league(tmp, played=2)
    ada, bob = add_author(db, "ada"), add_author(db, "bob")
    served = start_server(db, tmp / "store", tmp / "serve.log", extra=["--think-time", "4"])
    yield Site(served, login(served, ada), login(served, bob))
    assert stop_server(served) == 0, (tmp / "serve.log").read_text()


def csrf_of(served: Served, cookie: str) -> str:
    page = served.get("/bots/probability", headers={"cookie": cookie}).text
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def post_start(site: Site, cookie: str, *, seat: str, bot: str = "probability") -> Any:
    """``POST /play`` from the bot page's form; the reply."""
    served = site.served
    body = f"csrf={csrf_of(served, cookie)}&bot={bot}&game=liars_dice&seat={seat}".encode()
    return served.request(
        "/play",
        method="POST",
        data=body,
        headers={
            "cookie": cookie,
            "origin": served.url,
            "content-type": "application/x-www-form-urlencoded",
        },
    )


def start(site: Site, cookie: str, *, seat: str = "0", bot: str = "probability") -> str:
    reply = post_start(site, cookie, seat=seat, bot=bot)
    assert reply.status == 303, reply.text
    return str(reply.headers["location"])


def state(site: Site, page: str, cookie: str, query: str = "") -> tuple[int, Any]:
    reply = site.served.get(page + "/state" + query, headers={"cookie": cookie})
    return reply.status, reply.json() if reply.status == 200 else reply.text


def wait_for(site: Site, page: str, cookie: str, *states: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, data = state(site, page, cookie)
        assert status == 200, data
        if data["state"] in states:
            return data
        time.sleep(0.1)
    raise AssertionError(f"no state {states} within {timeout} s: {data}")


def send(
    site: Site,
    page: str,
    cookie: str,
    decision: int,
    choice: int,
    token: str | None,
    origin: str | None = None,
) -> int:
    """``POST page/move``; its status."""
    served = site.served
    headers = {
        "cookie": cookie,
        "origin": origin or served.url,
        "content-type": "application/json",
    }
    if token is not None:
        headers["x-csrf-token"] = token
    body = json.dumps({"decision": decision, "choice": choice}).encode()
    return served.request(page + "/move", method="POST", data=body, headers=headers).status


def test_a_whole_game_from_the_bots_page_into_the_humans_league(site: Site) -> None:
    served = site.served
    before = served.get("/api/leagues/cup/standings").json()
    page = start(site, site.ada)
    assert served.get(page, headers={"cookie": site.ada}).status == 200
    token = csrf_of(served, site.ada)
    moves = 0
    while True:
        data = wait_for(site, page, site.ada, "your-move", "over")
        if data["state"] == "over":
            break
        view = data["view"]
        assert view["seat"] == 0 and view["choices"] and 0 < data["seconds_left"] <= 4
        assert not any(line.startswith("rules") for line in view["lines"])
        # The board: the legal moves as JSON, in the order of the choices.
        offered = data["board"]["moves"]
        assert len(offered) == len(view["choices"])
        for label, move in zip(view["choices"], offered, strict=True):
            kind = next(iter(move))
            assert kind in ("bid", "challenge") and label.startswith(kind)
        # Asked again for the decision it shows, the page gets the clock only; and
        # only the lines of "what happened" after the ones it has.
        status, again = state(site, page, site.ada, f"?seen={view['decision']}&told={data['told']}")
        assert status == 200 and again["state"] == "your-move" and "view" not in again
        assert again["story"] == [] and again["told"] == data["told"]
        if moves == 0:  # refused: out of range, stale decision, no token, cross-site
            decision = view["decision"]
            assert send(site, page, site.ada, decision, 999, token) == 409
            assert send(site, page, site.ada, decision + 7, 0, token) == 409
            assert send(site, page, site.ada, decision, 0, None) == 403
            assert send(site, page, site.ada, decision, 0, token, "https://evil.example") == 403
            # Another author neither sees the game nor moves in it.
            assert state(site, page, site.bob)[0] == 404
            assert served.get(page, headers={"cookie": site.bob}).status == 404
            assert send(site, page, site.bob, decision, 0, csrf_of(served, site.bob)) == 404
            assert state(site, page, "")[0] == 404
        assert send(site, page, site.ada, view["decision"], 0, token) == 200
        moves += 1
    assert data["view"]["result"].startswith("you placed"), data
    key = data["match"]
    record = MatchRecord.from_dict(served.get(f"/api/matches/{key}").json())
    assert record.seats[0].bot == "human:ada" and record.seats[1].bot == "probability"
    assert sum(1 for e in record.events if e.seat == 0) == moves
    # How it ended, and every move of both seats in the engine's words for seat 0.
    assert data["ending"].startswith("the game was played to the end: you "), data["ending"]
    story = data["story"]
    assert data["told"] == len(story)
    said = [line["text"] for line in story if line["seat"] is not None]
    assert len(said) == sum(1 for e in record.events if e.seat is not None)
    assert {line["seat"] for line in story if line["seat"] is not None} == {0, 1}
    assert all(t.startswith("you: ") for t in said if t in {x["text"] for x in story if x["mine"]})
    humans = served.get("/api/leagues/humans-liars_dice/standings").json()
    assert {row["bot"] for row in humans["standings"]} == {"human:ada", "probability"}
    after = served.get("/api/leagues/cup/standings").json()
    assert after == before  # the ladder's ratings did not move


def test_a_page_left_alone_loses_on_time_and_the_next_game_may_start(site: Site) -> None:
    page = start(site, site.bob, seat="0")
    assert start_refused(site, site.bob) == 409  # one game at a time
    data = wait_for(site, page, site.bob, "over", timeout=40)
    key = data["match"]
    record = MatchRecord.from_dict(site.served.get(f"/api/matches/{key}").json())
    assert record.reason == "forfeit"
    assert [(f.seat, f.kind.value) for f in record.faults] == [(0, "timeout")]
    # The page says so (it used to say only "the game ended").
    assert data["ending"].startswith("you ran out of time: you lost"), data["ending"]
    start(site, site.bob)  # the table is free again


def start_refused(site: Site, cookie: str) -> int:
    return int(post_start(site, cookie, seat="1").status)


def test_playing_needs_a_login_and_a_real_bot(site: Site, tmp_path: Path) -> None:
    served = site.served
    page = served.get("/bots/probability").text
    assert 'id="play-login"' in page and 'id="play-form"' not in page
    anonymous = served.request(
        "/play", method="POST", data=b"bot=probability&game=liars_dice&seat=0",
        headers={"origin": served.url, "content-type": "application/x-www-form-urlencoded"},
    )  # fmt: skip
    assert anonymous.status == 403
    body = f"csrf={csrf_of(served, site.ada)}&bot=nosuch&game=liars_dice&seat=0".encode()
    headers = {
        "cookie": site.ada,
        "origin": served.url,
        "content-type": "application/x-www-form-urlencoded",
    }
    assert served.request("/play", method="POST", data=body, headers=headers).status == 404
    wrong_game = f"csrf={csrf_of(served, site.ada)}&bot=probability&game=dice_poker&seat=0"
    assert (
        served.request("/play", method="POST", data=wrong_game.encode(), headers=headers).status
        == 400
    )
    arena("league", "list", db=served.db)


def test_spectators_see_the_public_view_a_round_behind(site: Site) -> None:
    served = site.served
    cy = login(served, add_author(served.db, "cy"))
    page = start(site, cy, seat="1")
    token = csrf_of(served, cy)
    key = None
    settled: list[str] = []  # what each finished round's reveal said, as the player read it
    before: Any = None  # the feed when the player was last asked
    unchanged = 0
    while True:
        data = wait_for(site, page, cy, "your-move", "over")
        key = data["match"]
        if data["state"] == "over":
            break
        settled += data["view"]["news"]
        live = served.get("/live").text
        assert f"/watch/{key}" in live and "cy" in live
        feed = served.get(f"/watch/{key}/feed").json()
        if before is not None and not data["view"]["news"]:
            # Two moves were made (the player's, the bot's) and no round settled: a
            # spectator's feed must not tell that anything happened.
            assert feed == before, (before, feed)
            unchanged += 1
        before = feed
        assert feed["state"] == "running" and feed["replay"] is None
        shown = "\n".join(feed["lines"])
        if settled:  # the last finished round is held back, and the one in play
            assert settled[-1] not in shown, (settled[-1], shown)
        assert "held_back" not in feed  # a live count told when each move was made
        board = feed["board"]  # the public table: nobody's cup, only counts
        assert board["obs"]["own_dice"] == [] and board["obs"]["seat"] == 0
        assert sum(board["facts"]["dice_counts"]) == board["facts"]["total_dice"]
        for line in feed["lines"]:  # nobody's cup: counts only until the reveal
            assert "roll:" not in line or re.search(r"roll: seat 0 \(\d dic?e\)", line), line
        assert send(site, page, cy, data["view"]["decision"], 0, token) == 200
    assert len(settled) >= 2, settled
    assert unchanged >= 1, "no two moves within one round were compared"
    final = served.get(f"/watch/{key}/feed").json()
    assert final["state"] == "over" and final["replay"] == f"/matches/{key}"
    assert all(text in "\n".join(final["lines"]) for text in settled)
    watch = served.get(f"/watch/{key}")
    assert watch.status == 200 and "watch.js" in watch.text
    assert served.get("/watch/humans-liars_dice-999/feed").status == 404


def test_the_game_page_draws_with_the_replay_viewers_scripts_from_this_origin(site: Site) -> None:
    served = site.served
    kit = served.get("/static/viewer/kit.js")
    assert kit.status == 200 and kit.headers["content-type"].startswith("text/javascript")
    assert "window.ArenaKit" in kit.text
    game = served.get("/static/viewer/liars_dice.js")
    assert game.status == 200 and "ArenaGames" in game.text
    assert served.get("/static/viewer/board.css").headers["content-type"].startswith("text/css")
    assert served.get("/static/viewer/nosuch.js").status == 404


def resign(site: Site, page: str, cookie: str, token: str | None, origin: str | None = None) -> int:
    """``POST page/resign``; its status."""
    served = site.served
    headers = {"cookie": cookie, "origin": origin or served.url}
    if token is not None:
        headers["x-csrf-token"] = token
    return served.request(page + "/resign", method="POST", data=b"", headers=headers).status


def test_a_person_resigns_and_the_record_says_resigned(site: Site) -> None:
    served = site.served
    dee = login(served, add_author(served.db, "dee"))
    page = start(site, dee, seat="0")
    token = csrf_of(served, dee)
    wait_for(site, page, dee, "your-move")
    assert resign(site, page, dee, None) == 403  # no token
    assert resign(site, page, dee, token, "https://evil.example") == 403
    assert resign(site, page, site.ada, csrf_of(served, site.ada)) == 404  # not ada's game
    assert resign(site, page, dee, token) == 200
    data = wait_for(site, page, dee, "over")
    assert data["ending"].startswith("you resigned: you lost"), data["ending"]
    record = MatchRecord.from_dict(served.get(f"/api/matches/{data['match']}").json())
    assert record.reason == "forfeit"
    assert [(f.seat, f.kind.value) for f in record.faults] == [(0, "resigned")]
    assert resign(site, page, dee, token) == 409  # over: nothing to resign


@pytest.mark.parametrize("name", sorted(game_names()))
def test_the_spectators_feed_built_as_events_come_is_the_one_built_at_once(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The feed is kept up to date event by event (so a request's time tells nothing):
    at every moment its text and table are what reading every event so far at once
    gives (:func:`referee.records.transcript.public_entries`, :func:`delayed`), and it
    is the same feed kept all along (never failed and built again)."""
    game = get_game(name)
    rules = game.default_rules()
    playout = random_playout(game, rules, 2, random.Random(4))
    web = WebGame("t", 1, "ada", "bot", name, 0)
    kept = None
    for count, event in enumerate(playout.events, start=1):
        seen(web, event)
        assert not caplog.records, [r.getMessage() for r in caplog.records]
        kept = kept or web.watched
        assert web.watched is kept, count
        entries = public_entries(game, rules, 2, playout.events[:count])
        shown = delayed(entries, over=False)
        feed = spectator_feed(web)
        assert feed["lines"] == [line for entry in shown for line in entry.lines], count
        assert feed["board"] == public_board(web, playout.events[: len(shown)]), count
        assert feed["state"] == "running" and feed["replay"] is None
    web.done = True
    watched(web).refresh(web)
    final = spectator_feed(web)
    assert final["state"] == "over"
    every = public_entries(game, rules, 2, playout.events)
    assert final["lines"] == [line for entry in every for line in entry.lines]
