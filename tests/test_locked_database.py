"""A SQLite database that another process keeps locked: after a bounded wait, one
``error:`` line that names the lock and what to do, exit 2, nothing written (issue 32).

Before, the command waited 30 s and then printed about 80 lines of SQLAlchemy
traceback with exit 1.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.test_no_tracebacks import ARENA

RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
HOLD_LOCK = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1])
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(60)
"""


def arena(db: Path, *args: str, wait_s: str = "1") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARENA_DB": f"sqlite:///{db}", "ARENA_DB_LOCK_WAIT_S": wait_s}
    return subprocess.run(
        [ARENA, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_locked_database_is_one_error_line_and_nothing_written(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    assert arena(db, "bot", "list").returncode == 0  # the database exists
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(db)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        add = ("bot", "add", "r", "--cmd", RANDOM, "-g", "liars_dice", "--no-check")
        done = arena(db, *add)
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the database"), done.stderr
    assert "locked by another process (waited 1 s; nothing was written)" in lines[0]
    assert "run this again when it is done, or use another --db" in lines[0]
    connection = sqlite3.connect(db)
    try:
        assert connection.execute("SELECT count(*) FROM bot").fetchone() == (0,)
    finally:
        connection.close()


def test_the_wait_must_be_a_positive_number(tmp_path: Path) -> None:
    done = arena(tmp_path / "arena.db", "bot", "list", wait_s="soon")
    assert done.returncode == 2 and "ARENA_DB_LOCK_WAIT_S='soon'" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
