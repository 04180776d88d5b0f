"""A league run killed with SIGKILL resumes to exactly the scheduled matches, each
once, with the same standings as an uninterrupted run (deterministic bots) — whether
it referees in-process or in ``--workers`` processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from sqlalchemy import Engine, func
from sqlmodel import select

from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import LeagueSettings, create_league, get_league
from league.store.models import MatchRow, SeatRow
from league.store.registry import add_bot
from league.store.standings import standings
from referee.runtime.sandbox import referee_uids
from tests.e2e.conftest import process_alive, sandboxed_processes

pytestmark = pytest.mark.e2e

BOTS = {
    "random": f"{sys.executable} -m example_bots.liars_dice_random",
    "probability": f"{sys.executable} -m example_bots.liars_dice_probability",
    "random-b": f"{sys.executable} -m example_bots.liars_dice_random",
}
ROOT = Path(__file__).resolve().parents[2]


def prepare(engine: Engine) -> None:
    with session_scope(engine) as session:
        for name, command in BOTS.items():
            add_bot(session=session, name=name, command=command, games=["liars_dice"])
        create_league(
            session=session,
            name="resume",
            settings=LeagueSettings(
                "liars_dice",
                tuple(BOTS),
                rounds=4,
                reproducible_seed=3,
                rules={"dice_per_player": "3"},
            ),
        )


def done_count(engine: Engine) -> int:
    with session_scope(engine) as session:
        return session.exec(
            select(func.count()).select_from(MatchRow).where(MatchRow.status == "done")
        ).one()


def bots_of(referee_pid: int, uids: range | None = None) -> list[int]:
    """Live bot processes started by the referee ``referee_pid``: sandboxed ones by
    the uids that referee hands out (``uids``, read while it lives), unsandboxed
    ones by their environment."""
    found = sandboxed_processes(referee_pid, uids)
    marker = f"ARENA_REFEREE_PID={referee_pid}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker in environ.split(b"\0") and process_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def describe(pid: int) -> str:
    """What a process is, for a failure message: name, uids, parent, command line."""
    try:
        status = dict(
            line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        )
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except (OSError, ValueError):
        return f"{pid} (gone)"
    fields = " ".join(f"{k}={status.get(k, '?').strip()}" for k in ("Name", "Uid", "PPid", "State"))
    return f"{pid} {fields} {command[:160]}"


def worker_pids(runner: int) -> list[int]:
    """The referee worker processes (``--workers``) of the runner ``runner``."""
    found = []
    for task in Path(f"/proc/{runner}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"league.execution.worker" in command:
                found.append(child)
    return sorted(found)


def kill_run_after(url: str, engine: Engine, done_at_least: int, workers: int) -> None:
    runner = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "league.cli",
            "--db",
            url,
            "league",
            "run",
            "resume",
            "--concurrency",
            "2",
            "--workers",
            str(workers),
            "--no-progress",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while done_count(engine) < done_at_least and time.monotonic() < deadline:
        assert runner.poll() is None, "the run ended before it could be killed"
        time.sleep(0.02)
    # Let it get into the middle of the next matches.
    time.sleep(0.05)
    # Some bots are running (else the check after the kill would mean nothing); with
    # --workers they are the workers' children.
    expected = 1 + (workers if workers > 1 else 0)
    referees = [runner.pid]
    while time.monotonic() < deadline:
        assert runner.poll() is None, "the run ended before it could be killed"
        referees = [runner.pid, *worker_pids(runner.pid)]
        if len(referees) == expected and any(bots_of(pid) for pid in referees):
            break
        time.sleep(0.01)
    assert len(referees) == expected, referees
    assert any(bots_of(pid) for pid in referees), "no bot found while the league runs"
    # The workers share the runner's uid block (they hold its lock too).
    uids = referee_uids(runner.pid)
    assert all(referee_uids(pid) == uids for pid in referees)
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    # Sandboxed bots die with their referee (--die-with-parent); a worker sees the end
    # of its input, stops its bots and exits.
    deadline = time.monotonic() + 10
    while (
        any(bots_of(pid, uids) or process_alive(pid) for pid in referees[1:])
        or bots_of(runner.pid, uids)
    ) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = sorted({pid for referee in referees for pid in bots_of(referee, uids)})
    assert not left, f"bots outlived their referee: {[describe(pid) for pid in left]}"
    assert not any(process_alive(pid) for pid in referees[1:]), "a worker outlived its runner"


def comparable(engine: Engine) -> list[dict[str, object]]:
    with session_scope(engine) as session:
        league = get_league(session=session, name="resume")
        rows = standings(session=session, league=league, samples=200)
    return [{k: v for k, v in row.as_json().items() if k != "incremental_elo"} for row in rows]


def test_sigkilled_runs_resume_to_the_uninterrupted_result(db_url: str, tmp_path: Path) -> None:
    reference = open_database(f"sqlite:///{tmp_path / 'reference.db'}")
    prepare(reference)
    trio.run(
        lambda: LeagueRun(
            reference, "resume", RunOptions(concurrency=2, handle_signals=False)
        ).play()
    )

    engine = open_database(db_url)
    try:
        prepare(engine)
        total = 24
        for point, workers in ((0, 1), (5, 2), (10, 1)):
            kill_run_after(db_url, engine, point, workers)
            assert done_count(engine) < total
        summary = trio.run(
            lambda: LeagueRun(
                engine, "resume", RunOptions(concurrency=2, handle_signals=False)
            ).play()
        )
        assert summary.remaining == 0
        with session_scope(engine) as session:
            matches = session.exec(select(MatchRow)).all()
            assert len(matches) == total
            assert all(m.status == "done" and m.record is not None for m in matches)
            assert sorted(m.position for m in matches) == list(range(total))
            seats = session.exec(select(SeatRow)).all()
            assert len(seats) == 2 * total and all(s.place is not None for s in seats)
        assert comparable(engine) == comparable(reference)
    finally:  # a failure leaves no open connection for a later test to trip on
        engine.dispose()
        reference.dispose()


def test_ctrl_c_finishes_running_matches_and_stops(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'stop.db'}"
    engine = open_database(url)
    prepare(engine)
    runner = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "league.cli",
            "--db",
            url,
            "league",
            "run",
            "resume",
            "--concurrency",
            "2",
            "--workers",
            "1",
            "--no-progress",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while done_count(engine) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    runner.send_signal(signal.SIGINT)
    out, err = runner.communicate(timeout=60)
    assert runner.returncode == 130, err
    assert "interrupted: played" in out
    played = int(out.split("played ")[1].split(" ")[0])
    assert done_count(engine) == played < 24
    # Every written match is whole: a result for each of its seats.
    with session_scope(engine) as session:
        for match in session.exec(select(MatchRow).where(MatchRow.status == "done")):
            seats = session.exec(select(SeatRow).where(SeatRow.match_id == match.id)).all()
            assert match.record is not None and all(s.place is not None for s in seats)
    assert bots_of(runner.pid) == []
    engine.dispose()
