"""A flood of wrong tokens no longer pins a core: after a few failures per client
address (or token id) the server answers 429 before hashing anything, and an author
with the right token, from another address, still gets in.

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
from league.store.authors import add_author
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
def test_a_wrong_token_flood_is_429_before_hashing_and_the_author_still_gets_in(
    engine: Engine, tmp_path: Path, hashes: list[str], login: bool
) -> None:
    victim = author(engine, "victim")
    victim_id = victim.split("_")[1]
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        result = flood(site, victim_id, source="127.0.0.2", login=login)
        # Only the first PER_ADDRESS attempts were hashed, then 429 without hashing.
        assert len(hashes) == throttle.PER_ADDRESS
        assert result["statuses"] == {
            "401": throttle.PER_ADDRESS,
            "429": FLOOD - throttle.PER_ADDRESS,
        }
        assert all(value.isdigit() and int(value) >= 1 for value in result["retry_after"])
        # The victim, from another address, with the right token: accepted.
        assert submit_status(site, victim, "127.0.0.3") == 400
        assert len(hashes) == throttle.PER_ADDRESS + 1


def test_a_flood_sent_all_at_once_is_cut_at_the_limit_too(
    engine: Engine, tmp_path: Path, hashes: list[str]
) -> None:
    """Forty attempts in flight together: each is counted when admitted, before its
    hash, so only the first PER_ADDRESS are hashed (counting refusals only once
    hashed let every attempt that arrived before the first refusal through)."""
    victim = author(engine, "victim")
    victim_id = victim.split("_")[1]
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        result = flood(site, victim_id, source="127.0.0.2", parallel=FLOOD)
        assert len(hashes) == throttle.PER_ADDRESS
        assert result["statuses"] == {
            "401": throttle.PER_ADDRESS,
            "429": FLOOD - throttle.PER_ADDRESS,
        }
        assert submit_status(site, victim, "127.0.0.3") == 400


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
        assert submit_status(site, victim, "127.0.0.3") == 400


def test_a_token_id_flooded_from_many_addresses_is_429_before_hashing(
    engine: Engine, tmp_path: Path, hashes: list[str]
) -> None:
    """Per token id: PER_TOKEN failures from any number of addresses, then 429 for that
    id (documented: the author waits for the window too), other authors unaffected."""
    victim, other = author(engine, "victim"), author(engine, "other")
    victim_id = victim.split("_")[1]
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        per = throttle.PER_ADDRESS
        sources = [f"127.0.1.{k}" for k in range(1, throttle.PER_TOKEN // per + 2)]
        for source in sources:
            flood(site, victim_id, source=source)
        assert len(hashes) == throttle.PER_TOKEN
        assert submit_status(site, victim, "127.0.0.9") == 429
        assert len(hashes) == throttle.PER_TOKEN
        assert submit_status(site, other, "127.0.0.9") == 400


def test_guard_without_the_throttle_every_attempt_is_hashed(
    engine: Engine, tmp_path: Path, hashes: list[str]
) -> None:
    victim = author(engine, "victim")
    victim_id = victim.split("_")[1]
    server_hashes(hashes)
    with live_server(engine, tmp_path / "store") as site:
        site.server.throttle.enabled = False  # the old behaviour
        result = flood(site, victim_id, source="127.0.0.2")
        assert result["statuses"] == {"401": FLOOD}
        assert len(hashes) == FLOOD
