"""Database setup in one place: URL resolution, engine, migrations, sessions.

SQLite file ``arena.db`` in the working directory by default; ``--db URL`` or the
``ARENA_DB`` environment variable choose another (``postgresql+psycopg://...``
for a real deployment). Opening a database brings its schema to the newest
Alembic revision.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, event, inspect
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError, SQLAlchemyError
from sqlmodel import Session, create_engine

DEFAULT_URL = "sqlite:///arena.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
HEAD_REVISION = "0011"
"""The newest migration's revision (``migrations/versions/``; tests/league/test_db.py
checks that it is Alembic's head). A database already there is opened without
loading Alembic, which is a sixth of every database command's start-up."""


class DatabaseError(Exception):
    """The database cannot be opened or used; the message says which and why."""


def resolve_url(url: str | None = None) -> str:
    """``url``, else ``$ARENA_DB``, else the SQLite file ``arena.db`` here."""
    chosen = url or os.environ.get("ARENA_DB") or DEFAULT_URL
    if "://" not in chosen:
        # A bare path means a SQLite file.
        chosen = f"sqlite:///{chosen}"
    return chosen


def redact(url: str) -> str:
    """The URL with any password hidden (for messages)."""
    head, sep, tail = url.partition("://")
    if "@" in tail and ":" in tail.split("@", 1)[0]:
        user = tail.split("@", 1)[0].split(":", 1)[0]
        tail = f"{user}:***@{tail.split('@', 1)[1]}"
    return head + sep + tail


POSTGRES_SCHEMES = ("postgres", "postgresql")
"""Schemes without a driver: SQLAlchemy reads them as psycopg2 (or not at all), but the
project installs psycopg 3, so such a URL gets a hint instead of a driver error."""


def make_engine(url: str) -> Engine:
    scheme, sep, rest = url.partition("://")
    if sep and scheme in POSTGRES_SCHEMES:
        raise DatabaseError(
            f"database URL {redact(url)!r}: write it as"
            f" {redact('postgresql+psycopg://' + rest)!r} (the psycopg driver of"
            " `pip install '.[postgres]'`)"
        )
    try:
        if url.startswith("sqlite"):
            engine = create_engine(url, connect_args={"timeout": sqlite_lock_wait_s()})

            @event.listens_for(engine, "connect")
            def _sqlite_pragmas(dbapi_connection: object, _record: object) -> None:
                cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
                cursor.close()

            return engine
        return create_engine(url, pool_pre_ping=True)
    except (ArgumentError, NoSuchModuleError, ValueError) as error:
        raise DatabaseError(f"bad database URL {redact(url)!r}: {error}") from None


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision.

    On SQLite, foreign keys are off while migrating, as SQLite's own procedure for
    schema changes asks: a migration that changes a table's constraints rebuilds the
    table (copy, ``DROP``, rename), and with keys enforced the ``DROP`` of a table
    other rows refer to fails (``FOREIGN KEY constraint failed``: a populated
    database could not be upgraded). Every key is checked (``PRAGMA
    foreign_key_check``) before the migration commits, and keys are on again after.
    The migration runs in one real transaction (an explicit ``BEGIN``: the driver
    would otherwise run each ``CREATE``/``DROP`` on its own), so one that fails
    half-way leaves the database as it was, not with half a revision applied.
    """
    if _at_head(engine):
        return
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:  # outside any transaction, or SQLite ignores it
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        try:
            with connection.begin():
                if sqlite:
                    connection.exec_driver_sql("BEGIN")
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
                if sqlite:
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise DatabaseError(
                            f"migrating left {len(broken)} row(s) referring to rows that do"
                            f" not exist (first: {tuple(broken[0])}); nothing was changed"
                        )
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


def _at_head(engine: Engine) -> bool:
    """Whether the schema is at :data:`HEAD_REVISION` already; a failed query means
    it is not known to be, and the migration runs (and reports any error) as before."""
    with engine.connect() as connection:  # cannot connect: the caller's error, as before
        try:
            rows = connection.exec_driver_sql("SELECT version_num FROM alembic_version").all()
        except SQLAlchemyError:  # a new database (no such table), or an odd one
            return False
    return [tuple(row) for row in rows] == [(HEAD_REVISION,)]


def open_database(url: str | None = None, *, create: bool = True) -> Engine:
    """An engine for ``url`` with the schema migrated; :class:`DatabaseError` if not.

    With ``create=False`` a SQLite file that does not exist is an error instead
    of being created (read-only commands use this).
    """
    resolved = resolve_url(url)
    if not create and resolved.startswith("sqlite:///"):
        path = resolved.removeprefix("sqlite:///")
        if path and path != ":memory:" and not Path(path).exists():
            raise DatabaseError(f"no database at {path} (create a league first)")
    if resolved.startswith("sqlite:///"):
        _private_sqlite_file(resolved.removeprefix("sqlite:///"))
    engine = make_engine(resolved)
    try:
        migrate(engine)
    except OperationalError as error:
        engine.dispose()
        reason = " ".join(str(error.orig or error).split())  # the driver's lines, as one
        raise DatabaseError(f"cannot open database {redact(resolved)}: {reason}") from None
    except SQLAlchemyError as error:
        engine.dispose()
        reason = " ".join(str(getattr(error, "orig", None) or error).split())
        if resolved.startswith("sqlite") and _is_corrupt(reason):
            raise DatabaseError(
                f"{resolved.removeprefix('sqlite:///')} is not a SQLite database or is"
                f" damaged ({reason}): restore it from a backup, or move it aside to"
                " start a new one (it holds every bot and league), or choose another"
                " with --db"
            ) from None
        raise DatabaseError(f"database {redact(resolved)} failed: {reason}") from None
    return engine


CORRUPTION = ("file is not a database", "database disk image is malformed")
"""SQLite's words for a file that is not (or no longer) a readable database."""


def _is_corrupt(reason: str) -> bool:
    return any(words in reason for words in CORRUPTION)


def _private_sqlite_file(path: str) -> None:
    """Create the SQLite file 0600 (it holds league secrets), or tighten an existing one.

    The file is never created through a symbolic link. SQLite gives its journal
    and WAL files the database file's mode.
    """
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        with contextlib.suppress(OSError):
            info = os.stat(path)
            if info.st_uid == os.geteuid() and info.st_mode & 0o077:
                os.chmod(path, 0o600)
        return
    except OSError:
        return  # e.g. no such directory: SQLite reports it with its own words
    os.close(fd)


def table_names(engine: Engine) -> list[str]:
    return sorted(inspect(engine).get_table_names())


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session whose work commits at the end, or rolls back on any error.

    A SQLite file that another process keeps locked for longer than
    :func:`sqlite_lock_wait_s` raises :class:`DatabaseLockedError` (nothing written)."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except OperationalError as error:
            session.rollback()
            if "database is locked" in str(error.orig or error):
                raise DatabaseLockedError(
                    f"the database {engine.url.database} is locked by another process"
                    f" (waited {sqlite_lock_wait_s():g} s; nothing was written): another"
                    " arena command is writing to it; run this again when it is done,"
                    " or use another --db"
                ) from None
            raise
        except BaseException:
            session.rollback()
            raise


class DatabaseLockedError(DatabaseError):
    """Another process held the SQLite file's write lock for the whole wait."""


SQLITE_LOCK_WAIT_S = 30.0
"""How long a write waits for another process's lock on a SQLite file."""


def sqlite_lock_wait_s() -> float:
    """:data:`SQLITE_LOCK_WAIT_S`, or ``ARENA_DB_LOCK_WAIT_S`` when set (seconds)."""
    text = os.environ.get("ARENA_DB_LOCK_WAIT_S", "")
    try:
        value = float(text) if text else SQLITE_LOCK_WAIT_S
    except ValueError:
        raise DatabaseError(f"ARENA_DB_LOCK_WAIT_S={text!r}: not a number of seconds") from None
    if not value > 0:
        raise DatabaseError(f"ARENA_DB_LOCK_WAIT_S={text!r}: must be above 0")
    return value
