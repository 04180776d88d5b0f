"""One process plays a league at a time.

Two runners on one league (two `arena league run`, or `arena rolling run` beside a
server playing the same ladder) would both take the same pending matches: twice
the bot time, and on PostgreSQL two transactions could both find a match pending
and both write it. So a run holds a lock for its league from start to end:

- PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``) on a
  connection the run keeps open;
- SQLite: ``flock`` on a file beside the database (``<db>.league-<id>.lock``),
  removed when the run ends so that no lock file is left in the user's directory
  (only a killed run leaves one; the next run reuses and removes it).

Both are released by the server or the kernel when the holder dies, however it
dies (SIGKILL included), so a killed run never blocks the next one.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, text

from league.store.models import LeagueRow
from league.store.registry import LeagueError


class LeagueBusyError(LeagueError):
    """Another process is playing this league now."""


def lock_key(league_id: int) -> int:
    """The advisory lock's 64-bit key for a league (signed, as PostgreSQL wants)."""
    digest = hashlib.sha256(f"bluff-arena league {league_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _busy(league: LeagueRow) -> LeagueBusyError:
    return LeagueBusyError(
        f"league {league.name!r} is being played by another process (an `arena league run`,"
        " `arena rolling run` or `arena serve` on this database); let it finish or stop it"
        " first — two runners would play the same matches"
    )


@contextmanager
def league_lock(engine: Engine, league: LeagueRow) -> Iterator[None]:
    """Hold the league's run lock while inside; :class:`LeagueBusyError` at once if
    another process holds it."""
    assert league.id is not None
    backend = engine.url.get_backend_name()
    if backend == "postgresql":
        with _advisory_lock(engine, league):
            yield
    elif backend == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        with _file_lock(Path(str(engine.url.database)), league):
            yield
    else:  # an in-memory database lives in this process only
        yield


@contextmanager
def _advisory_lock(engine: Engine, league: LeagueRow) -> Iterator[None]:
    assert league.id is not None
    key = lock_key(league.id)
    connection = engine.connect()
    try:
        got = connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key}).scalar()
        connection.commit()
        if not got:
            raise _busy(league)
        try:
            yield
        finally:
            with contextlib.suppress(Exception):  # closing the connection frees it anyway
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                connection.commit()
    finally:
        connection.close()


@contextmanager
def _file_lock(database: Path, league: LeagueRow) -> Iterator[None]:
    path = database.with_name(f"{database.name}.league-{league.id}.lock")
    fd = _locked_file(path, league)
    try:
        yield
    finally:
        # Unlink while still holding the lock: a process that opened the old file
        # meanwhile gets its lock only after this and then sees the path gone or
        # replaced (_locked_file), so it never runs beside a newer holder.
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _locked_file(path: Path, league: LeagueRow) -> int:
    """Open and ``flock`` the lock file at ``path``; :class:`LeagueBusyError` if held.

    A lock taken on a file that its holder removed meanwhile is no lock at all, so
    the path is opened again until the locked file is the one the path names.
    """
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _busy(league) from None
        try:
            current = os.stat(path)
        except FileNotFoundError:
            current = None
        if current is not None and current.st_ino == os.fstat(fd).st_ino:
            return fd
        os.close(fd)  # the holder removed it after we opened it: try the new file
