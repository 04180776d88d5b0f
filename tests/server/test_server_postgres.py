"""``arena serve`` on PostgreSQL (the deployment database): the watcher's grouped
query, the standings and the event stream, with results written by another process."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from league.store.db import make_engine
from tests.pg import PostgresUnavailable, temporary_postgres
from tests.server.harness import arena, played_league, start_server, stop_server

pytestmark = pytest.mark.e2e


@pytest.fixture
def pg_url() -> Iterator[str]:
    try:
        with temporary_postgres() as server:
            name = f"t_{uuid.uuid4().hex[:12]}"
            admin = make_engine(server)
            with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
            base, _, query = server.partition("?")
            yield f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")
            with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    except PostgresUnavailable as why:
        pytest.skip(f"PostgreSQL tests skipped: no server could be started ({why})")


def test_the_server_follows_a_postgresql_league(pg_url: str, tmp_path: Path) -> None:
    db = played_league(tmp_path, played=2, db=pg_url)
    served = start_server(db, tmp_path / "store", tmp_path / "serve.log")
    try:
        names = [league["name"] for league in served.get("/api/leagues").json()]
        assert names[0] == "cup"
        api = served.get("/api/leagues/cup/standings").json()
        assert api["standings"] == json.loads(arena("league", "standings", "cup", "--json", db=db))
        assert served.get("/leagues/cup").status == 200
        assert served.get("/bots/probability").status == 200
        with served.events("cup") as events:
            assert next(events)["done"] == 2
            arena("league", "run", "cup", "--max-matches", "1", "--no-progress", db=db)
            written = time.monotonic()
            assert next(events)["done"] == 3
            assert time.monotonic() - written < 5
    finally:
        assert stop_server(served) == 0, (tmp_path / "serve.log").read_text()
