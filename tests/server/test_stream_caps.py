"""Issue 28: live-update streams are capped per client as well as in total.

The attack: one client opened 200 ``/leagues/{name}/events`` streams, all the
server allowed, and every other client got 503. Now a client (its author session,
else its address) holds at most ``max_streams_per_client``; the next is 429 and
other clients still connect.
"""

from __future__ import annotations

import http.client
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from sqlalchemy import Engine

from league.server.auth import COOKIE, new_session
from league.server.state import Settings
from league.store.db import open_database
from tests.security.live_server import LiveServer, live_server
from tests.server.harness import played_league

EVENTS = f"/leagues/{quote('cup', safe='')}/events"


@pytest.fixture(scope="module")
def league_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return played_league(tmp_path_factory.mktemp("streams"), played=0)


@pytest.fixture
def engine(league_db: str) -> Iterator[Engine]:
    engine = open_database(league_db)
    yield engine
    engine.dispose()


def open_stream(
    site: LiveServer, source: str, stack: ExitStack, cookie: str | None = None
) -> tuple[int, str]:
    """Open the league's event stream from ``source``; (status, body of a refusal).
    An accepted stream stays open until ``stack`` closes."""
    parts = urlsplit(site.url)
    connection = http.client.HTTPConnection(
        parts.hostname or "", parts.port, timeout=30, source_address=(source, 0)
    )
    headers = {"cookie": f"{COOKIE}={cookie}"} if cookie else {}
    connection.request("GET", EVENTS, headers=headers)
    response = connection.getresponse()
    if response.status == 200:
        assert response.readline().startswith(b"retry:")  # the stream is live
        stack.callback(connection.close)
        return 200, ""
    body = response.read().decode("utf-8", "replace")
    connection.close()
    return response.status, body


def settings(tmp_path: Path, **kwargs: int) -> Settings:
    return Settings(store=tmp_path / "store", watch_interval_s=0.2, **kwargs)  # type: ignore[arg-type]


def test_a_client_opening_201_streams_is_refused_beyond_its_cap_and_others_connect(
    engine: Engine, tmp_path: Path
) -> None:
    with live_server(engine, tmp_path / "store") as site, ExitStack() as stack:
        cap = site.server.settings.max_streams_per_client
        statuses = [open_stream(site, "127.0.0.2", stack) for _ in range(201)]
        assert [s for s, _ in statuses] == [200] * cap + [429] * (201 - cap)
        assert "live-update streams open" in statuses[-1][1]
        assert open_stream(site, "127.0.0.3", stack)[0] == 200  # another client connects
        assert site.server.streams == cap + 1


def test_a_closed_stream_frees_its_place(engine: Engine, tmp_path: Path) -> None:
    with live_server(engine, tmp_path / "store", settings=settings(tmp_path, max_streams_per_client=2)) as site:  # fmt: skip  # noqa: E501
        with ExitStack() as first:
            assert [open_stream(site, "127.0.0.2", first)[0] for _ in range(3)] == [200, 200, 429]
        deadline = time.monotonic() + 20  # the server notices the closed connections
        while site.server.streams_of and time.monotonic() < deadline:
            time.sleep(0.05)
        assert site.server.streams_of == {} and site.server.streams == 0
        with ExitStack() as again:
            assert open_stream(site, "127.0.0.2", again)[0] == 200


def test_the_total_cap_still_holds(engine: Engine, tmp_path: Path) -> None:
    custom = settings(tmp_path, max_streams=4, max_streams_per_client=3)
    with live_server(engine, tmp_path / "store", settings=custom) as site, ExitStack() as stack:
        assert [open_stream(site, "127.0.0.2", stack)[0] for _ in range(4)] == [200] * 3 + [429]
        assert open_stream(site, "127.0.0.3", stack)[0] == 200
        assert open_stream(site, "127.0.0.4", stack)[0] == 503


def test_an_authors_streams_count_together_from_every_address(
    engine: Engine, tmp_path: Path
) -> None:
    custom = settings(tmp_path, max_streams_per_client=2)
    with live_server(engine, tmp_path / "store", settings=custom) as site, ExitStack() as stack:
        cookie, _session = new_session(site.server.key, 1)
        assert open_stream(site, "127.0.0.2", stack, cookie)[0] == 200
        assert open_stream(site, "127.0.0.3", stack, cookie)[0] == 200
        assert open_stream(site, "127.0.0.4", stack, cookie)[0] == 429
        assert open_stream(site, "127.0.0.4", stack)[0] == 200  # the address itself is free


def test_guard_without_a_per_client_cap_one_client_takes_every_stream(
    engine: Engine, tmp_path: Path
) -> None:
    custom = settings(tmp_path, max_streams=10, max_streams_per_client=10)
    with live_server(engine, tmp_path / "store", settings=custom) as site, ExitStack() as stack:
        assert [open_stream(site, "127.0.0.2", stack)[0] for _ in range(10)] == [200] * 10
        assert open_stream(site, "127.0.0.3", stack)[0] == 503
