"""Issue 28: no lockout of honest authors, each test written as the attack.

Ten unknown token ids from one address used to put that address at 429 for 300 s,
and a valid author token from the same address then got 429 too — on the API and
on ``/login``; behind a reverse proxy every client has the proxy's address. Now a
valid token is checked first (cheaply) and always gets in; only failures are
throttled, per address and per token id, and a trusted proxy's ``X-Forwarded-For``
gives each client its own address (``--forwarded-allow-ips``).

The server runs in this process (:mod:`tests.security.live_server`); clients
connect from distinct loopback addresses.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
from sqlalchemy import Engine

from league.server import throttle
from league.server.state import Settings
from league.server.throttle import forwarded_client, parse_trusted
from league.store.authors import add_author
from league.store.db import open_database, session_scope
from tests.security.live_server import LiveServer, live_server


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    yield engine
    engine.dispose()


def author(engine: Engine, name: str) -> str:
    with session_scope(engine) as session:
        _row, token = add_author(session=session, name=name)
    return token


def made_up_token() -> str:
    return f"arena_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"


def api_status(
    site: LiveServer, token: str, source: str, headers: dict[str, str] | None = None
) -> int:
    """``GET /api/submissions`` with ``token``: 200 accepted, 401 refused, 429 throttled."""
    reply = site.request(
        "/api/submissions",
        headers={"authorization": f"Bearer {token}", **(headers or {})},
        source=source,
    )
    return reply.status


def login_status(site: LiveServer, token: str, source: str) -> int:
    """``POST /login``: 303 logged in, 401 refused, 429 throttled."""
    reply = site.request(
        "/login",
        method="POST",
        body=urlencode({"token": token}).encode(),
        headers={"content-type": "application/x-www-form-urlencoded", "origin": site.url},
        source=source,
    )
    return reply.status


@pytest.mark.parametrize("via", ["api", "login"])
def test_ten_unknown_token_ids_then_a_valid_token_from_the_same_address_gets_in(
    engine: Engine, tmp_path: Path, via: str
) -> None:
    token = author(engine, "honest")
    check = api_status if via == "api" else login_status
    with live_server(engine, tmp_path / "store") as site:
        attacker = "127.0.0.2"
        statuses = [check(site, made_up_token(), attacker) for _ in range(throttle.PER_ADDRESS + 2)]
        assert statuses == [401] * throttle.PER_ADDRESS + [429, 429]  # the flood is cut
        # The attack's effect is gone: a valid token from the same address gets in.
        assert check(site, token, attacker) == (200 if via == "api" else 303)
        # Malformed tokens and wrong secrets of the honest author's id: also cut...
        assert check(site, "arena_nonsense", attacker) == 429
        wrong = token[: -len(token.split("_", 2)[2])] + secrets.token_urlsafe(32)
        assert check(site, wrong, attacker) == 429
        # ...and the valid token still gets in, also from elsewhere.
        assert check(site, token, attacker) == (200 if via == "api" else 303)
        assert check(site, token, "127.0.0.3") == (200 if via == "api" else 303)


def test_wrong_secrets_on_an_authors_id_from_many_addresses_do_not_lock_the_author_out(
    engine: Engine, tmp_path: Path
) -> None:
    """Per token id: after PER_TOKEN failures on the id, its failures are 429 from
    every address; its author's valid token still gets in."""
    token = author(engine, "honest")
    prefix = token[: -len(token.split("_", 2)[2])]
    with live_server(engine, tmp_path / "store") as site:
        per = throttle.PER_ADDRESS
        sources = [f"127.0.2.{k}" for k in range(1, throttle.PER_TOKEN // per + 1)]
        for source in sources:
            for _ in range(per):
                assert api_status(site, prefix + secrets.token_urlsafe(32), source) == 401
        assert api_status(site, prefix + secrets.token_urlsafe(32), "127.0.2.99") == 429
        for source in [*sources, "127.0.2.99"]:
            assert api_status(site, token, source) == 200


def test_a_rejected_token_check_is_cheap(engine: Engine, tmp_path: Path) -> None:
    """A wrong secret of a real token id costs a lookup and a SHA-256, not an scrypt
    (tens of ms of a core): fifty refusals take well under a second of server time."""
    token = author(engine, "honest")
    prefix = token[: -len(token.split("_", 2)[2])]
    with live_server(engine, tmp_path / "store") as site:
        site.server.throttle.enabled = False  # every attempt reaches the check
        began = time.process_time()
        for k in range(50):
            assert api_status(site, prefix + secrets.token_urlsafe(32), f"127.0.3.{k + 1}") == 401
        spent = time.process_time() - began  # this process: the server and the client
        assert spent < 50 * 0.02, spent


def test_behind_a_trusted_proxy_each_client_has_its_own_address(
    engine: Engine, tmp_path: Path
) -> None:
    """The proxy (127.0.0.1, trusted) forwards an attacker (203.0.113.7) and an
    honest author who mistypes (198.51.100.4): the attacker's flood does not make
    the other client's failures 429."""
    token = author(engine, "honest")
    settings = Settings(
        store=tmp_path / "store",
        watch_interval_s=0.2,
        forwarded_allow_ips=parse_trusted("127.0.0.1"),
    )
    with live_server(engine, tmp_path / "store", settings=settings) as site:
        proxy = "127.0.0.1"
        attacker = {"x-forwarded-for": "203.0.113.7"}
        honest = {"x-forwarded-for": "198.51.100.4"}
        for _ in range(throttle.PER_ADDRESS):
            assert api_status(site, made_up_token(), proxy, attacker) == 401
        assert api_status(site, made_up_token(), proxy, attacker) == 429
        assert api_status(site, made_up_token(), proxy, honest) == 401  # a typo: 401, not 429
        assert api_status(site, token, proxy, honest) == 200
        assert api_status(site, token, proxy, attacker) == 200


def test_forwarded_for_from_an_untrusted_peer_is_ignored(engine: Engine, tmp_path: Path) -> None:
    """By default no proxy is trusted: a client that writes a new X-Forwarded-For on
    each attempt is still counted under its own address."""
    author(engine, "honest")
    with live_server(engine, tmp_path / "store") as site:
        statuses = [
            api_status(site, made_up_token(), "127.0.0.2", {"x-forwarded-for": f"10.0.0.{k}"})
            for k in range(throttle.PER_ADDRESS + 1)
        ]
        assert statuses == [401] * throttle.PER_ADDRESS + [429]


def test_forwarded_client_takes_the_right_most_untrusted_hop() -> None:
    trusted = parse_trusted("127.0.0.1, 10.0.0.0/8")
    assert forwarded_client("127.0.0.1", "1.2.3.4", trusted) == "1.2.3.4"
    # The client wrote "6.6.6.6" itself; the proxies appended what they saw.
    assert forwarded_client("127.0.0.1", "6.6.6.6, 1.2.3.4, 10.1.1.1", trusted) == "1.2.3.4"
    assert forwarded_client("192.0.2.1", "1.2.3.4", trusted) == "192.0.2.1"  # not trusted
    assert forwarded_client("127.0.0.1", None, trusted) == "127.0.0.1"
    assert forwarded_client("127.0.0.1", "1.2.3.4", ()) == "127.0.0.1"
    assert len(parse_trusted("*")) == 2 and parse_trusted("") == ()
    with pytest.raises(ValueError, match="not an IP"):
        parse_trusted("proxy.example")
