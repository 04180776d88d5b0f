"""A throwaway PostgreSQL server for the tests.

``ARENA_TEST_PG_URL`` names an existing server to use. Otherwise the fixture
looks for PostgreSQL's ``initdb``/``pg_ctl``, creates a cluster in a temporary
directory (as the ``postgres`` user when running as root), starts it on a unix
socket only, and removes it afterwards. If neither works the PostgreSQL tests
are skipped with the reason.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class PostgresUnavailable(Exception):
    pass


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    if candidates:
        return candidates[0]
    raise PostgresUnavailable(
        f"{name} not found (install PostgreSQL, e.g. apt-get install postgresql)"
    )


def _runner() -> tuple[list[str], str | None]:
    """Command prefix to run server tools (root must switch to the postgres user)."""
    if os.geteuid() != 0:
        return [], None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailable("running as root and there is no postgres user") from None
    runuser = shutil.which("runuser")
    if not runuser:
        raise PostgresUnavailable("running as root and runuser is missing")
    return [runuser, "-u", "postgres", "--"], "postgres"


@contextmanager
def temporary_postgres() -> Iterator[str]:
    """Yield a SQLAlchemy URL of a fresh, empty database on a private server."""
    url = os.environ.get("ARENA_TEST_PG_URL")
    if url:
        yield url
        return
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    prefix, owner = _runner()
    root = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    data = root / "data"
    try:
        if owner:
            shutil.chown(root, owner)
        root.chmod(0o700)
        result = subprocess.run(
            [*prefix, initdb, "-D", str(data), "-U", "arena", "--auth=trust", "-E", "UTF8"],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {result.stderr.strip()[-400:]}")
        options = f"-c listen_addresses='' -k {root} -c fsync=off -c full_page_writes=off"
        result = subprocess.run(
            [
                *prefix,
                pg_ctl,
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(root / "log"),
                "-w",
                "-t",
                "30",
                "start",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            log = (root / "log").read_text() if (root / "log").exists() else ""
            raise PostgresUnavailable(f"pg_ctl start failed: {result.stderr.strip()} {log[-400:]}")
        try:
            yield f"postgresql+psycopg://arena@/postgres?host={root}"
        finally:
            subprocess.run(
                [*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"],
                capture_output=True,
                check=False,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
