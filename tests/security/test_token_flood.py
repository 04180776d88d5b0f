"""A flood of wrong tokens neither pins a core nor locks an author out: a wrong
secret costs a SHA-256 (no scrypt), after a few failures per client address (or
token id) the failures are answered 429, and an author with the right token — from
the flooding address itself — still gets in. Tokens still stored with the old slow
hash (scrypt) are throttled per token id before hashing, and lose the slow hash at
their first successful check.

The attack is a real client process (``tests.security.token_flood``) against the
server running in this process, whose scrypt calls are counted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

import league.store.authors
from league.server import throttle
from league.store.authors import SCRYPT_PARAMS, add_author, find_by_token_id
from league.store.db import open_database, session_scope
from tests.security.live_server import LiveServer, live_server

ROOT = Path(__file__).resolve().parents[2]
FLOOD = 40


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    yield engine
    engine.dispose()


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every scrypt hash the server computes (the token id's row salt, as hex)."""
    calls: list[str] = []
    real = league.store.authors._hash

    def counting(secret: str, salt: bytes, params: str) -> str:
        calls.append(salt.hex())
        return real(secret, salt, params)

    monkeypatch.setattr(league.store.authors, "_hash", counting)
    return calls


def author(engine: Engine, name: str) -> str:
    with session_scope(engine) as session:
        _row, token = add_author(session=session, name=name)
    return token


def legacy_author(engine: Engine, name: str) -> str:
    """An author whose row has the old slow hash (scrypt), as before the fast one."""
    token = author(engine, name)
    token_id, secret = token.split("_", 2)[1:]
    with session_scope(engine) as session:
        row = find_by_token_id(session, token_id)
        assert row is not None
        row.token_params = SCRYPT_PARAMS
        row.token_hash = league.store.authors._hash(
            secret, bytes.fromhex(row.token_salt), SCRYPT_PARAMS
        )
        session.add(row)
    return token


def params_of(engine: Engine, token: str) -> str:
    with session_scope(engine) as session:
        row = find_by_token_id(session, token.split("_")[1])
        assert row is not None
        return row.token_params


def server_hashes(hashes: list[str]) -> list[str]:
    """Forget the hashes of creating the authors: count only the server's."""
    hashes.clear()
    return hashes


def flood(
    site: LiveServer, token_id: str, *, source: str, login: bool = False, parallel: int = 1
) -> dict:  # type: ignore[type-arg]
    args = [sys.executable, "-m", "tests.security.token_flood", site.url]
    args += ["--token-id", token_id, "--count", str(FLOOD), "--source", source]
    args += ["--parallel", str(parallel)]
    done = subprocess.run(
        args + (["--login"] if login else []),
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def submit_status(site: LiveServer, token: str, source: str) -> int:
    """``POST /api/submissions`` with ``token`` and an empty form: 400 means the token
    was accepted (the form is what is wrong), 401 refused, 429 throttled."""
    reply = site.request(
        "/api/submissions",
        method="POST",
        body=b"",
        headers={"authorization": f"Bearer {token}", "content-type": "text/plain"},
        source=source,
    )
    return reply.status


@pytest.mark.parametrize("login", [False, True], ids=["api", "login-form"])
def test_a_wrong_token_flood_costs_no_hash_and_the_author_still_gets_in_from_that_address(
    engine: Engine, tmp_path: Path, hashes: list[str], login: bool
) -> None:
    victim = author(engine, "victim")
    victim_id = victim.split("_")[1]
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        result = flood(site, victim_id, source="127.0.0.2", login=login)
        assert hashes == []  # no scrypt: a wrong secret costs a SHA-256
        assert result["statuses"] == {
            "401": throttle.PER_ADDRESS,
            "429": FLOOD - throttle.PER_ADDRESS,
        }
        assert all(value.isdigit() and int(value) >= 1 for value in result["retry_after"])
        # The victim, from the flooding address itself, with the right token: accepted.
        assert submit_status(site, victim, "127.0.0.2") == 400
        assert submit_status(site, victim, "127.0.0.3") == 400
        assert hashes == []


def test_a_flood_sent_all_at_once_is_cut_at_the_limit_too(
    engine: Engine, tmp_path: Path, hashes: list[str]
) -> None:
    """Forty attempts in flight together: each failure is counted before the next is
    judged, so exactly PER_ADDRESS are answered 401."""
    victim = author(engine, "victim")
    victim_id = victim.split("_")[1]
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        result = flood(site, victim_id, source="127.0.0.2", parallel=FLOOD)
        assert hashes == []
        assert result["statuses"] == {
            "401": throttle.PER_ADDRESS,
            "429": FLOOD - throttle.PER_ADDRESS,
        }
        assert submit_status(site, victim, "127.0.0.2") == 400


def test_made_up_token_ids_cost_no_hash_at_all(
    engine: Engine, tmp_path: Path, hashes: list[str]
) -> None:
    victim = author(engine, "victim")
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        result = flood(site, "random", source="127.0.0.2")
        assert hashes == []
        assert result["statuses"] == {
            "401": throttle.PER_ADDRESS,
            "429": FLOOD - throttle.PER_ADDRESS,
        }
        assert submit_status(site, victim, "127.0.0.2") == 400


def test_a_slow_hash_token_flooded_from_many_addresses_is_429_before_hashing(
    engine: Engine, tmp_path: Path, hashes: list[str]
) -> None:
    """A token still stored with scrypt: PER_ADDRESS slow checks per address on its
    id, PER_TOKEN from all addresses together, then 429 for that id before hashing
    (the documented exception: its author waits for the window, until the first
    successful check upgrades the hash); other authors are unaffected."""
    victim, other = legacy_author(engine, "victim"), author(engine, "other")
    victim_id = victim.split("_")[1]
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        per = throttle.PER_ADDRESS
        sources = [f"127.0.1.{k}" for k in range(1, throttle.PER_TOKEN // per + 2)]
        result = flood(site, victim_id, source=sources[0])
        assert result["statuses"] == {"401": per, "429": FLOOD - per}
        assert len(hashes) == per
        for source in sources[1:]:
            flood(site, victim_id, source=source)
        assert len(hashes) == throttle.PER_TOKEN
        assert submit_status(site, victim, "127.0.0.9") == 429
        assert len(hashes) == throttle.PER_TOKEN
        assert submit_status(site, other, "127.0.0.9") == 400
        assert submit_status(site, other, sources[0]) == 400


def test_a_slow_hash_is_upgraded_at_the_first_successful_check(
    engine: Engine, tmp_path: Path, hashes: list[str]
) -> None:
    victim = legacy_author(engine, "victim")
    victim_id = victim.split("_")[1]
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        assert submit_status(site, victim, "127.0.0.2") == 400
        assert len(hashes) == 1
        assert params_of(engine, victim) == "sha256"
        flood(site, victim_id, source="127.0.0.2")
        assert len(hashes) == 1  # the flood hashed nothing more
        assert submit_status(site, victim, "127.0.0.2") == 400


def test_guard_without_the_throttle_every_slow_check_is_hashed(
    engine: Engine, tmp_path: Path, hashes: list[str]
) -> None:
    victim = legacy_author(engine, "victim")
    victim_id = victim.split("_")[1]
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        site.server.throttle.enabled = False  # the old behaviour
        result = flood(site, victim_id, source="127.0.0.2")
        assert result["statuses"] == {"401": FLOOD}
        assert len(hashes) == FLOOD
