"""Schema, migrations and connection errors, on SQLite and PostgreSQL."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine
from sqlmodel import SQLModel

from league.store.db import (
    HEAD_REVISION,
    MIGRATIONS,
    DatabaseError,
    open_database,
    resolve_url,
    table_names,
)

MODEL_TABLES = {
    "author",
    "bot",
    "exploit_result",
    "league",
    "league_entry",
    "match",
    "match_log",
    "match_mixed",
    "match_seat",
    "submission",
}


def test_migrations_create_exactly_the_model_schema(engine: Engine) -> None:
    assert set(table_names(engine)) == MODEL_TABLES | {"alembic_version"}
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
    assert diff == [], f"models and migrations disagree: {diff}"


def test_the_known_head_is_alembics_head() -> None:
    """A database at ``HEAD_REVISION`` opens without running Alembic: a new migration
    that forgot to move it would be skipped on every database already there."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_current_head() == HEAD_REVISION


def test_opening_twice_is_harmless(db_url: str) -> None:
    first = open_database(db_url)
    first.dispose()
    second = open_database(db_url)
    assert set(table_names(second)) >= MODEL_TABLES
    second.dispose()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql+psycopg://nobody@/arena?host=/nonexistent-socket-dir", "cannot open database"),
        ("nosuchdialect://x/y", "bad database URL"),
        ("sqlite:////nonexistent-dir/deeper/arena.db", "cannot open database"),
    ],
)
def test_unusable_database_is_a_clear_error(url: str, message: str) -> None:
    with pytest.raises(DatabaseError, match=message):
        open_database(url)


def test_url_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_DB", raising=False)
    assert resolve_url(None) == "sqlite:///arena.db"
    assert resolve_url("x.db") == "sqlite:///x.db"
    monkeypatch.setenv("ARENA_DB", "sqlite:///env.db")
    assert resolve_url(None) == "sqlite:///env.db"
    assert resolve_url("sqlite:///flag.db") == "sqlite:///flag.db"


def test_read_only_commands_do_not_create_a_sqlite_file(tmp_path: object) -> None:
    with pytest.raises(DatabaseError, match="no database at"):
        open_database(f"sqlite:///{tmp_path}/missing.db", create=False)


def test_sqlite_file_is_private(tmp_path: Path) -> None:
    path = tmp_path / "private.db"
    open_database(f"sqlite:///{path}").dispose()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    loose = tmp_path / "loose.db"
    loose.touch(mode=0o644)
    loose.chmod(0o644)
    open_database(f"sqlite:///{loose}").dispose()
    assert stat.S_IMODE(loose.stat().st_mode) == 0o600
