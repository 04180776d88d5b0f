"""A wrong database URL or a damaged SQLite file gets one line saying what to do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from league.store.db import DatabaseError, open_database


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "league.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_a_postgres_url_without_the_driver_gets_the_psycopg_spelling(
    scheme: str, tmp_path: Path
) -> None:
    run = arena("--db", f"{scheme}://ann:pw@db.example/arena", "bot", "list", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert "'postgresql+psycopg://ann:***@db.example/arena'" in run.stderr
    assert "pw" not in run.stderr  # the password stays hidden


@pytest.mark.parametrize(
    "content", [b"not a database at all\n", b"SQLite format 3\0" + b"\1" * 200]
)
def test_a_damaged_sqlite_file_says_how_to_recover(content: bytes, tmp_path: Path) -> None:
    (tmp_path / "arena.db").write_bytes(content)
    run = arena("bot", "list", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert "arena.db is not a SQLite database or is damaged" in run.stderr
    assert "restore it from a backup, or move it aside" in run.stderr
    with pytest.raises(DatabaseError, match="move it aside"):
        open_database(f"sqlite:///{tmp_path / 'arena.db'}")
