"""Database fixtures: every DB test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, text

from league.store.db import make_engine, open_database
from tests.pg import PostgresUnavailable, temporary_postgres


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    try:
        with temporary_postgres() as url:
            yield url
    except PostgresUnavailable as why:
        pytest.skip(f"PostgreSQL tests skipped: no server could be started ({why})")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A URL of a fresh, empty database of each kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'arena.db'}"
        return
    server: str = request.getfixturevalue("postgres_server")
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = make_engine(server)
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    base, _, query = server.partition("?")
    yield f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = open_database(db_url)
    yield engine
    engine.dispose()
