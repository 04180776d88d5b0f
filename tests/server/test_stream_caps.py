"""Issue 28: live-update streams are capped per client as well as in total.
Issue 42, item 4: and per address group (network), for visitors not logged in.

The attack of issue 28: one client opened 200 ``/leagues/{name}/events`` streams, all
the server allowed, and every other client got 503. Now a client (its author session,
else its address) holds at most ``max_streams_per_client``; the next is 429 and
other clients still connect.

The attack of issue 42: one client with 13 addresses (``127.0.0.2`` … ``127.0.0.14``)
opened 16 streams from each, 208 in all, so the per-client cap held and the total
did not: an honest viewer got 503. Now the anonymous streams of one network (IPv4
/24, IPv6 /64) are capped too (``max_streams_per_group``, 429 beyond); the honest
viewer from another network still gets a stream, and the guard shows the same
attack starves it with the group cap at the total.
"""

from __future__ import annotations

import http.client
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from sqlalchemy import Engine

from league.server.auth import COOKIE, new_session
from league.server.live import UNPARSED_GROUP, address_group
from league.server.state import Settings, SettingsError
from league.server.throttle import parse_trusted
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
    site: LiveServer,
    source: str,
    stack: ExitStack,
    cookie: str | None = None,
    forwarded_for: str | None = None,
) -> tuple[int, str]:
    """Open the league's event stream from ``source`` (with ``X-Forwarded-For:
    forwarded_for`` when given); (status, body of a refusal). An accepted stream
    stays open until ``stack`` closes."""
    parts = urlsplit(site.url)
    connection = http.client.HTTPConnection(
        parts.hostname or "", parts.port, timeout=30, source_address=(source, 0)
    )
    headers = {"cookie": f"{COOKIE}={cookie}"} if cookie else {}
    if forwarded_for is not None:
        headers["x-forwarded-for"] = forwarded_for
    connection.request("GET", EVENTS, headers=headers)
    response = connection.getresponse()
    if response.status == 200:
        assert response.readline().startswith(b"retry:")  # the stream is live
        stack.callback(connection.close)
        return 200, ""
    body = response.read().decode("utf-8", "replace")
    connection.close()
    return response.status, body


def settings(tmp_path: Path, **kwargs: Any) -> Settings:
    return Settings(store=tmp_path / "store", watch_interval_s=0.2, **kwargs)


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
        assert site.server.streams_of_group == {}
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


ATTACKERS = [f"127.0.0.{i}" for i in range(2, 15)]
"""The issue's 13 loopback addresses: one network, 127.0.0.0/24."""
HONEST = "127.0.1.2"
"""A viewer from another network (127.0.1.0/24; Linux routes all of 127/8 to lo)."""


def attack(site: LiveServer, stack: ExitStack, per_address: int) -> list[int]:
    """``per_address`` streams from each of :data:`ATTACKERS`; their statuses."""
    return [open_stream(site, a, stack)[0] for a in ATTACKERS for _ in range(per_address)]


def test_13_addresses_of_one_network_leave_an_honest_viewer_a_stream(
    engine: Engine, tmp_path: Path
) -> None:
    """The attack of issue 42 against the default caps (200 in all, 16 per client,
    32 per network): the network gets its 32, the rest of its 208 tries are 429
    naming it, and a viewer from another network connects."""
    with live_server(engine, tmp_path / "store") as site, ExitStack() as stack:
        defaults = site.server.settings
        assert (defaults.max_streams, defaults.max_streams_per_client) == (200, 16)
        group_cap = defaults.max_streams_per_group
        assert defaults.max_streams > 4 * group_cap  # several networks fit in the total
        assert len(ATTACKERS) * defaults.max_streams_per_client > defaults.max_streams
        statuses = attack(site, stack, 16)
        assert statuses == [200] * group_cap + [429] * (len(statuses) - group_cap)
        status, body = open_stream(site, ATTACKERS[-1], stack)
        assert status == 429 and "the network 127.0.0.0/24 has 32 live-update streams" in body
        assert open_stream(site, HONEST, stack)[0] == 200
        assert site.server.streams == group_cap + 1
        assert site.server.streams_of_group == {"127.0.0.0/24": group_cap, "127.0.1.0/24": 1}


def test_guard_without_a_group_cap_the_13_addresses_starve_the_honest_viewer(
    engine: Engine, tmp_path: Path
) -> None:
    """The same attack with the group cap at the total (as good as none): the
    per-client cap holds for each address, yet the 13 take all 200 streams."""
    custom = settings(tmp_path, max_streams_per_group=200)
    with live_server(engine, tmp_path / "store", settings=custom) as site, ExitStack() as stack:
        statuses = attack(site, stack, 16)
        assert statuses[:200] == [200] * 200  # every stream the server has
        assert set(statuses[200:]) <= {429, 503}  # the network's cap is the total's
        assert open_stream(site, HONEST, stack)[0] == 503


def test_an_author_on_a_flooded_network_still_gets_a_stream(engine: Engine, tmp_path: Path) -> None:
    custom = settings(tmp_path, max_streams_per_client=2, max_streams_per_group=4)
    with live_server(engine, tmp_path / "store", settings=custom) as site, ExitStack() as stack:
        assert attack(site, stack, 2)[:5] == [200] * 4 + [429]
        cookie, _session = new_session(site.server.key, 1)
        assert open_stream(site, "127.0.0.20", stack, cookie)[0] == 200
        assert open_stream(site, "127.0.0.20", stack)[0] == 429  # anonymous: the network's cap
        assert site.server.streams_of_group == {"127.0.0.0/24": 4}  # the author's is not in it


def test_behind_a_proxy_the_forwarded_networks_are_capped(engine: Engine, tmp_path: Path) -> None:
    """Behind a trusted proxy (127.0.0.1) the client is the address its
    ``X-Forwarded-For`` names: 13 addresses of 10.9.8.0/24, half of them written as
    IPv4-mapped IPv6 (one network still), are capped as one; a viewer from 192.0.2.7
    connects. A peer that is not a trusted proxy cannot spread its streams over
    networks by writing the header: it stays in its own."""
    custom = settings(
        tmp_path,
        max_streams=40,
        max_streams_per_client=4,
        max_streams_per_group=8,
        forwarded_allow_ips=parse_trusted("127.0.0.1"),
    )
    with live_server(engine, tmp_path / "store", settings=custom) as site, ExitStack() as stack:
        forwarded = [
            (f"::ffff:10.9.8.{i}" if i % 2 else f"10.9.8.{i}")
            for i in range(2, 15)
            for _ in range(4)
        ]
        statuses = [open_stream(site, "127.0.0.1", stack, forwarded_for=f)[0] for f in forwarded]
        assert statuses == [200] * 8 + [429] * (len(forwarded) - 8)
        assert open_stream(site, "127.0.0.1", stack, forwarded_for="192.0.2.7")[0] == 200
        untrusted = [
            open_stream(site, "127.0.0.5", stack, forwarded_for=f"203.0.{i}.1")[0]
            for i in range(10)
        ]
        assert untrusted == [200] * 4 + [429] * 6  # its own address's cap, in 127.0.0.0/24
        assert site.server.streams_of_group == {
            "10.9.8.0/24": 8,
            "192.0.2.0/24": 1,
            "127.0.0.0/24": 4,
        }


def test_one_ipv6_subnet_is_one_network_however_many_addresses_it_uses(
    engine: Engine, tmp_path: Path
) -> None:
    """An IPv6 host has a /64 of its own: a new address per stream (2001:db8:1:2::N)
    escapes the per-address cap, not the network's. Another /64 still connects."""
    custom = settings(
        tmp_path,
        max_streams=40,
        max_streams_per_client=4,
        max_streams_per_group=8,
        forwarded_allow_ips=parse_trusted("127.0.0.1"),
    )
    with live_server(engine, tmp_path / "store", settings=custom) as site, ExitStack() as stack:
        statuses = [
            open_stream(site, "127.0.0.1", stack, forwarded_for=f"2001:db8:1:2::{i:x}")[0]
            for i in range(1, 41)
        ]
        assert statuses == [200] * 8 + [429] * 32
        assert open_stream(site, "127.0.0.1", stack, forwarded_for="2001:db8:1:3::1")[0] == 200
        assert site.server.streams_of_group == {"2001:db8:1:2::/64": 8, "2001:db8:1:3::/64": 1}


def test_address_groups() -> None:
    assert address_group("127.0.0.9") == "127.0.0.0/24"
    assert address_group("::ffff:127.0.0.9") == "127.0.0.0/24"  # IPv4-mapped counts as IPv4
    assert address_group("::ffff:7f00:9") == "127.0.0.0/24"
    assert address_group("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:2:bbbb::7") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert address_group("fe80::1%eth0") == "fe80::/64"
    assert address_group("10.1.2.3", ipv4_prefix=16) == "10.1.0.0/16"
    assert address_group("::ffff:10.1.2.3", ipv4_prefix=16) == "10.1.0.0/16"
    assert address_group("2001:db8:1:2::1", ipv6_prefix=48) == "2001:db8:1::/48"
    assert address_group("10.1.2.3", ipv4_prefix=32) == "10.1.2.3/32"
    for odd in ("unknown", "", "1.2.3.4:5678", "garbage, more"):
        assert address_group(odd) == UNPARSED_GROUP


def test_a_prefix_out_of_range_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"stream_group_ipv4_prefix .* got 33"):
        settings(tmp_path, stream_group_ipv4_prefix=33)
    with pytest.raises(SettingsError, match=r"stream_group_ipv6_prefix .* got -1"):
        settings(tmp_path, stream_group_ipv6_prefix=-1)
