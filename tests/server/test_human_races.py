"""Starting games against bots in a burst, as the attack round did (issue 42, item 3).

Before: one author (limit: one game) started 3, 5 and 4 games in three races of 12
``POST /play`` (the per-author check and the table's registration had a database
query between them), and the losers were shown ``sqlite3.IntegrityError UNIQUE
constraint failed ... [SQL: INSERT ...]``. Now, against the real ``arena serve``:
12 concurrent starts of one author give exactly one game and eleven 409s; five
authors at once against a cap of three give exactly three games and two 503s; two
authors at the same moment both play. Every game answered 303 has its match.

The guards run the server in this process with the in-process check taken away:
the database's unique holder alone still gives one game; without it too, the burst
gets several games again.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
import trio

from tests.server.harness import Reply, Served, add_author, played_league, start_server, stop_server
from tests.server.test_server_submissions import login

pytestmark = pytest.mark.e2e

AUTHORS = 6
FORBIDDEN = ("sqlite3", "IntegrityError", "SQL", "Traceback", "psycopg")


@pytest.fixture(scope="module")
def league_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[str]]:
    tmp = tmp_path_factory.mktemp("races")
    db = played_league(tmp, played=0)
    return db, [add_author(db, f"a{i}") for i in range(AUTHORS)]


@dataclass
class Site:
    served: Served
    cookies: list[str]
    csrfs: list[str]


@pytest.fixture
def site(league_db: tuple[str, list[str]], tmp_path: Path) -> Iterator[Site]:
    """``arena serve`` with at most three games at once; every game it starts ends
    when it stops (a stopped server stores none)."""
    db, tokens = league_db
    served = start_server(
        db, tmp_path / "store", tmp_path / "serve.log",
        extra=["--think-time", "120", "--max-human-games", "3", "--no-ladders"],
    )  # fmt: skip
    try:
        cookies = [login(served, token) for token in tokens]
        yield Site(served, cookies, [csrf_of(served, cookie) for cookie in cookies])
    finally:
        assert stop_server(served) == 0, (tmp_path / "serve.log").read_text()[-3000:]
    assert "incident" not in (tmp_path / "serve.log").read_text()


def csrf_of(served: Served, cookie: str) -> str:
    page = served.get("/bots/probability", headers={"cookie": cookie}).text
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def start_request(url: str, cookie: str, csrf: str) -> tuple[str, dict[str, str], bytes]:
    body = urlencode({"csrf": csrf, "bot": "probability", "game": "liars_dice", "seat": "0"})
    headers = {
        "cookie": cookie,
        "origin": url,
        "content-type": "application/x-www-form-urlencoded",
    }
    return "/play", headers, body.encode()


def burst(send: Callable[[int], Reply], count: int) -> list[Reply]:
    """``send(i)`` for ``i`` in ``range(count)`` from threads released together."""
    start = threading.Barrier(count)
    replies: list[Any] = [None] * count

    def run(index: int) -> None:
        start.wait()
        replies[index] = send(index)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return replies


def post_start(site: Site, author: int) -> Reply:
    path, headers, body = start_request(site.served.url, site.cookies[author], site.csrfs[author])
    return site.served.request(path, method="POST", data=body, headers=headers)


def games_of(site: Site, replies: list[Reply], authors: list[int]) -> list[str]:
    """The match keys of the games the 303 answers started (each must have one)."""
    keys = []
    for reply, author in zip(replies, authors, strict=True):
        assert not any(word in reply.text for word in FORBIDDEN), reply.text[-500:]
        if reply.status != 303:
            continue
        page = reply.headers["location"]
        state = site.served.get(page + "/state", headers={"cookie": site.cookies[author]}).json()
        assert state["state"] != "error" and state["match"], state
        keys.append(state["match"])
    return keys


def test_a_burst_of_starts_from_one_author_gives_one_game(site: Site) -> None:
    replies = burst(lambda _: post_start(site, 0), 12)
    assert sorted(r.status for r in replies) == [303] + [409] * 11, [r.status for r in replies]
    assert len(games_of(site, replies, [0] * 12)) == 1
    assert "you have a game" in next(r for r in replies if r.status == 409).text


def test_authors_starting_together_past_the_cap_get_exactly_the_cap(site: Site) -> None:
    replies = burst(lambda i: post_start(site, i), 5)
    statuses = sorted(r.status for r in replies)
    assert statuses == [303, 303, 303, 503, 503], statuses
    keys = games_of(site, replies, list(range(5)))
    assert len(set(keys)) == 3  # each game its own match


def test_two_people_starting_at_the_same_moment_both_play(site: Site) -> None:
    """Two authors at once (a first game in a new humans league, too): both 303, each
    game its own match, nobody shown a database error."""
    replies = burst(lambda i: post_start(site, 4 + i), 2)
    assert [r.status for r in replies] == [303, 303], [r.text[-300:] for r in replies]
    keys = games_of(site, replies, [4, 5])
    assert len(set(keys)) == 2


# --- Guards: the in-process check taken away -------------------------------------


@dataclass
class InProcess:
    url: str
    cookie: str
    csrf: str
    server: Any


@pytest.fixture
def in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcess]:
    """The server in this process, its games stubbed (a game holds its reservation
    until the server stops, and starts no bot), one author logged in."""
    from league.server import human_games
    from league.server.auth import new_session
    from league.store.authors import add_author as make_author
    from league.store.db import open_database, session_scope
    from league.store.registry import add_bot
    from tests.security.live_server import live_server

    async def held(server: Any, game: Any, plan: Any, reserved: Any) -> None:
        try:
            await trio.sleep_forever()
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(human_games._unreserve, server, reserved)
            game.done = True

    monkeypatch.setattr(human_games, "_play", held)
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    with session_scope(engine) as session:
        author, _token = make_author(session=session, name="ada")
        add_bot(session=session, name="probability", command="true", games=["liars_dice"])
        author_id = author.id
    assert author_id is not None
    with live_server(engine, tmp_path / "store", background=[human_games.run_human_tables]) as live:
        value, session_ = new_session(live.server.key, author_id)
        yield InProcess(live.url, f"arena_session={value}", session_.csrf, live.server)
    engine.dispose()


def in_process_burst(site: InProcess, count: int) -> list[int]:
    from tests.server.harness import Served

    served = Served(site.url, "", Path("."), None, Path("."))  # type: ignore[arg-type]
    path, headers, body = start_request(site.url, site.cookie, site.csrf)
    replies = burst(
        lambda _: served.request(path, method="POST", data=body, headers=headers), count
    )
    return sorted(r.status for r in replies)


def without_the_table_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """:meth:`HumanTables.reserve` as if each start saw no game of its author yet (the
    old check ran before an ``await``, so a burst all passed it)."""
    from league.server.human_tables import HumanTables

    def reserve(self: HumanTables, game: Any) -> None:
        self.games[game.token] = game

    monkeypatch.setattr(HumanTables, "reserve", reserve)


def test_guard_without_the_table_check_the_database_still_gives_one_game(
    in_process: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_the_table_check(monkeypatch)
    assert in_process_burst(in_process, 12) == [303] + [409] * 11


def test_guard_without_either_a_burst_gets_several_games(
    in_process: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    import league.store.human_games as store

    without_the_table_check(monkeypatch)
    monkeypatch.setattr(store, "_holder", lambda seats: None)
    statuses = in_process_burst(in_process, 12)
    assert statuses.count(303) > 1, statuses
