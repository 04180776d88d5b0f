"""Upgrading a database that already holds leagues (not only an empty one).

On SQLite a migration that changes a table's constraints rebuilds the table (copy,
``DROP``, rename). With foreign keys enforced — every connection turns them on —
dropping ``bot`` while matches refer to it failed, so a database made before
migration 0005 (every ``arena.db`` from ``make demo``) could not be opened by
``arena serve`` or any other command. Found by opening such a database with the
server.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import text

from league.store.db import MIGRATIONS, DatabaseError, make_engine, open_database, session_scope
from league.store.leagues import LeagueSettings, create_league, list_matches
from league.store.registry import add_bot
from referee.runtime.sandbox import SandboxConfig


def _at_revision(url: str, revision: str) -> None:
    engine = make_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
    engine.dispose()


@pytest.mark.parametrize("revision", ["0003", "0004"])
def test_a_populated_sqlite_database_upgrades_to_head(tmp_path: Path, revision: str) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    _at_revision(url, revision)
    engine = make_engine(url)
    python = sys.executable
    with engine.begin() as connection:  # rows as the old schema had them
        for index, name in enumerate(("a", "b"), start=1):
            connection.execute(
                text(
                    "INSERT INTO bot (id, name, version, games, command, address, retired,"
                    " created_at, token_env, token_file, tls_ca) VALUES (:id, :name, 'v1',"
                    " 'liars_dice', :command, '', 0, '2026-01-01 00:00:00', '', '', '')"
                    if revision >= "0004"
                    else "INSERT INTO bot (id, name, version, games, command, address, retired,"
                    " created_at) VALUES (:id, :name, 'v1', 'liars_dice', :command, '', 0,"
                    " '2026-01-01 00:00:00')"
                ),
                {"id": index, "name": name, "command": f"{python} -m example_bots.x"},
            )
        connection.execute(
            text(
                "INSERT INTO league (id, name, game, rules, table_size, rounds, secret,"
                " commitment, decision_s, startup_s, k_factor, sandbox, created_at) VALUES"
                " (1, 'cup', 'liars_dice', '{}', 2, 1, :secret, 'c', 2.0, 15.0, 16.0, '{}',"
                " '2026-01-01 00:00:00')"
            ),
            {"secret": b"\0" * 32},
        )
        connection.execute(text("INSERT INTO league_entry VALUES (1, 1, 1, 1500.0)"))
        connection.execute(text("INSERT INTO league_entry VALUES (2, 1, 2, 1500.0)"))
        connection.execute(
            text(
                'INSERT INTO match (id, league_id, position, round, "table", rotation,'
                " group_key, status, reason, duration_ms) VALUES"
                " (1, 1, 0, 0, 0, 0, 'r0-t0', 'pending', '', 0.0)"
            )
        )
        for seat in (0, 1):
            connection.execute(
                text("INSERT INTO match_seat (id, match_id, seat, bot_id, fault) VALUES"
                     " (:id, 1, :seat, :bot, '')"),
                {"id": seat + 1, "seat": seat, "bot": seat + 1},
            )  # fmt: skip
    engine.dispose()

    upgraded = open_database(url)  # to head: failed with "FOREIGN KEY constraint failed"
    with session_scope(upgraded) as session:
        from league.store.leagues import get_league

        league = get_league(session=session, name="cup")
        assert [m.bots for m in list_matches(session=session, league=league)] == [("a", "b")]
        add_bot(session=session, name="c", command=f"{python} -m x", games=["liars_dice"])
        create_league(
            session=session,
            name="cup2",
            settings=LeagueSettings(
                game="liars_dice", bots=("a", "c"), sandbox=SandboxConfig(enabled=False)
            ),
        )
    with upgraded.connect() as connection:  # keys are enforced again afterwards
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall() == []
    upgraded.dispose()


def test_a_migration_that_fails_half_way_changes_nothing(tmp_path: Path) -> None:
    """Revision 0005 creates ``author`` first; if it then fails, ``author`` must not stay
    behind (it did: every later attempt then failed with "table author already exists")."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    _at_revision(url, "0004")
    engine = make_engine(url)
    with engine.begin() as connection:  # makes 0005's submission table collide
        connection.execute(text("CREATE TABLE submission (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    with pytest.raises(DatabaseError, match="submission"):
        open_database(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        tables = {row[0] for row in connection.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}  # fmt: skip
        assert "author" not in tables
        assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == (
            "0004"
        )
    engine.dispose()
