"""``arena league run --workers N``: referee worker processes play the matches, the
runner writes them. Same records and standings as one process; a killed worker
loses only its running matches; Ctrl-C saves running matches and leaves nothing
running."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from sqlalchemy import Engine
from sqlmodel import col, select

import league.execution.workers
from league.execution.league_run import LeagueRun, RunOptions, WorkersError, worker_count
from league.execution.worker_wire import (
    Counters,
    FrameReader,
    Job,
    JobResult,
    WorkerConfig,
    WorkerWireError,
    decode_config,
    decode_job,
    decode_result,
    encode_config,
    encode_frame,
    encode_job,
    encode_result,
)
from league.execution.workers import WorkerStartError, shares
from league.store.db import open_database, session_scope
from league.store.leagues import LeagueSettings, create_league, decompress_record, get_league
from league.store.models import MatchLogRow, MatchRow, SeatRow
from league.store.registry import add_bot
from league.store.standings import standings
from referee.core.chance import ChanceStream, new_secret
from referee.records.record import MatchRecord
from referee.runtime.match import Limits, MatchSpec
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX
from tests.e2e.conftest import process_alive
from tests.league.test_resume import bots_of, done_count, worker_pids
from tests.test_chance_records import engine_record

ROOT = Path(__file__).resolve().parents[2]
BOTS = {
    "random": f"{sys.executable} -m example_bots.liars_dice_random",
    "probability": f"{sys.executable} -m example_bots.liars_dice_probability",
    "random-b": f"{sys.executable} -m example_bots.liars_dice_random",
}
LEAGUE = "wk"


def prepare(engine: Engine, rounds: int) -> int:
    """A league of ``6 * rounds`` matches with a reproducible secret."""
    with session_scope(engine) as session:
        for name, command in BOTS.items():
            add_bot(session=session, name=name, command=command, games=["liars_dice"])
        create_league(
            session=session,
            name=LEAGUE,
            settings=LeagueSettings(
                "liars_dice",
                tuple(BOTS),
                rounds=rounds,
                reproducible_seed=11,
                rules={"dice_per_player": "2"},
            ),
        )
    return 6 * rounds


def game_of(record: MatchRecord) -> dict[str, Any]:
    """What a deterministic match must repeat exactly (not its timings or hashes)."""
    return {
        "match_id": record.match_id,
        "seats": [(s.bot, s.command) for s in record.seats],
        "events": [(e.seat, e.outcome, e.action, e.turn, e.obs, e.state) for e in record.events],
        "faults": [(f.seat, f.kind, f.at_event) for f in record.faults],
        "reason": record.reason,
        "places": record.places,
        "scores": record.scores,
    }


def played_games(engine: Engine) -> dict[int, dict[str, Any]]:
    with session_scope(engine) as session:
        rows = session.exec(select(MatchRow).order_by(col(MatchRow.position))).all()
        assert all(row.status == "done" and row.record is not None for row in rows)
        return {row.position: game_of(decompress_record(row.record or b"")) for row in rows}


def table(engine: Engine) -> list[dict[str, object]]:
    """Standings without the incremental Elo (it follows completion order)."""
    with session_scope(engine) as session:
        rows = standings(session=session, league=get_league(session=session, name=LEAGUE))
    return [{k: v for k, v in row.as_json().items() if k != "incremental_elo"} for row in rows]


def assert_each_match_once(engine: Engine, total: int) -> None:
    with session_scope(engine) as session:
        matches = session.exec(select(MatchRow)).all()
        assert sorted(m.position for m in matches) == list(range(total))
        assert all(m.status == "done" and m.record is not None for m in matches)
        seats = session.exec(select(SeatRow)).all()
        assert len(seats) == 2 * total and all(s.place is not None for s in seats)
        logs = session.exec(select(MatchLogRow)).all()
        assert len({(log.match_id, log.seat) for log in logs}) == len(logs) <= 2 * total


# ------------------------------------------------------------------ no processes


def test_worker_count_defaults_to_cores_and_is_clamped() -> None:
    assert worker_count(None, 256, 1000) == (os.cpu_count() or 1)
    assert worker_count(8, 3, 1000) == 3
    assert worker_count(8, 8, 2) == 2
    assert worker_count(4, 8, 0) == 1
    with pytest.raises(WorkersError, match="got 0"):
        worker_count(0, 4, 10)
    assert shares(5, 2) == [3, 2]
    assert shares(2, 2) == [1, 1]
    with pytest.raises(ValueError, match="concurrency 1 over 2"):
        shares(1, 2)


async def test_messages_round_trip_and_a_garbled_frame_is_named() -> None:
    spec = MatchSpec(
        "liars_dice",
        (BotSpec("a", command=("python", "-m", "x")), BotSpec("b", address="unix:/s")),
        rules={"dice_per_player": "2"},
        match_id="L-3",
        deal_group="g1",
        chance_key=bytes(range(32)),
    )
    job = Job(7, spec, Limits(decision_s=0.5, startup_s=3.0))
    config = WorkerConfig(replace(DEFAULT_SANDBOX, protect=("/db",), cpus=0.5), 1, 2)
    send, receive = trio.testing.memory_stream_pair()
    for message in (encode_job(job), encode_config(config)):
        await send.send_all(encode_frame(message))
    await send.send_all(encode_frame({"type": "x"})[:7])
    await send.aclose()
    reader = FrameReader(receive)
    assert decode_job(await reader.receive() or {}) == job
    assert decode_config(await reader.receive() or {}) == config
    with pytest.raises(WorkerWireError, match="ended inside a frame"):
        await reader.receive()


def test_an_altered_record_is_refused() -> None:
    record = engine_record(ChanceStream(new_secret()), seed=None)
    message = encode_result(JobResult(1, record, {0: b"out"}, Counters(2, 1)))
    assert decode_result(message).logs == {0: b"out"}
    message["record"]["places"] = list(reversed(message["record"]["places"]))
    with pytest.raises(WorkerWireError, match="altered"):
        decode_result(message)


def test_a_worker_that_does_not_start_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    prepare(engine, rounds=1)
    monkeypatch.setattr(
        league.execution.workers,
        "WORKER_COMMAND",
        (sys.executable, "-c", "import sys; sys.exit(3)"),
    )
    with pytest.raises(WorkerStartError, match="exited with code 3"):
        trio.run(
            lambda: LeagueRun(
                engine, LEAGUE, RunOptions(concurrency=2, workers=2, handle_signals=False)
            ).play()
        )
    assert done_count(engine) == 0
    engine.dispose()


# ------------------------------------------------------------ real worker processes


@pytest.mark.e2e
def test_two_workers_play_the_same_matches_as_one(tmp_path: Path) -> None:
    one = open_database(f"sqlite:///{tmp_path / 'one.db'}")
    total = prepare(one, rounds=2)
    one.dispose()
    shutil.copy(tmp_path / "one.db", tmp_path / "two.db")
    one = open_database(f"sqlite:///{tmp_path / 'one.db'}")
    two = open_database(f"sqlite:///{tmp_path / 'two.db'}")

    seen: list[int] = []
    summary = trio.run(
        lambda: LeagueRun(
            two,
            LEAGUE,
            RunOptions(concurrency=3, workers=2, handle_signals=False),
            on_progress=lambda p: seen.append(p.done),
        ).play()
    )
    assert (summary.workers, summary.played, summary.remaining) == (2, total, 0)
    assert not summary.interrupted and not summary.lost and not summary.lost_workers
    assert (
        summary.processes_started >= 3
        and summary.processes_started + summary.processes_reused == 2 * total
    )
    assert seen == list(range(total + 1))
    reference = trio.run(
        lambda: LeagueRun(one, LEAGUE, RunOptions(concurrency=3, handle_signals=False)).play()
    )
    assert reference.workers == 1 and reference.remaining == 0

    assert played_games(two) == played_games(one)
    assert table(two) == table(one)
    assert_each_match_once(two, total)
    one.dispose()
    two.dispose()


def start_run(url: str, *args: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "league.cli", "--db", url, "league", "run", LEAGUE]
    return subprocess.Popen(
        [*command, "--no-progress", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition: Any, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def assert_nothing_left(runner: int, workers: list[int]) -> None:
    assert workers and not any(process_alive(pid) for pid in workers)
    deadline = time.monotonic() + 10  # sandboxed bots of a killed worker die with it
    while any(bots_of(pid) for pid in [runner, *workers]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [bots_of(pid) for pid in [runner, *workers]] == [[] for _ in range(len(workers) + 1)]


@pytest.mark.e2e
def test_a_killed_worker_loses_only_its_running_matches(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'kill.db'}"
    engine = open_database(url)
    total = prepare(engine, rounds=4)
    runner = start_run(url, "--concurrency", "2", "--workers", "2")
    wait_for(lambda: done_count(engine) >= 2, "two matches")
    workers = worker_pids(runner.pid)
    assert len(workers) == 2
    wait_for(lambda: bots_of(workers[0]), "a bot of the first worker")
    os.kill(workers[0], signal.SIGKILL)
    out, err = runner.communicate(timeout=120)
    assert runner.returncode == 4, (out, err)
    assert f"referee worker 0 (pid {workers[0]})" in err and "SIGKILL" in err, err
    played = int(out.split("played ")[1].split(" ")[0])
    remaining = int(out.split(", ")[1].split(" ")[0])
    assert done_count(engine) == played == total - remaining
    assert remaining <= 1, out  # at most the one match the killed worker was playing
    assert_nothing_left(runner.pid, workers)

    again = start_run(url, "--concurrency", "2", "--workers", "2")
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, (out, err)
    assert f"played {remaining} matches" in out
    assert_each_match_once(engine, total)
    engine.dispose()


@pytest.mark.e2e
def test_first_ctrl_c_saves_running_matches_and_stops_every_worker(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'stop.db'}"
    engine = open_database(url)
    total = prepare(engine, rounds=4)
    runner = start_run(url, "--concurrency", "2", "--workers", "2")
    wait_for(lambda: done_count(engine) >= 2, "two matches")
    workers = worker_pids(runner.pid)
    assert len(workers) == 2
    wait_for(lambda: all(bots_of(pid) for pid in workers), "bots on both workers")
    at_signal = done_count(engine)
    # As a terminal would (the workers run in their own session, and ignore it anyway).
    for pid in [runner.pid, *workers]:
        os.kill(pid, signal.SIGINT)
    out, err = runner.communicate(timeout=60)
    assert runner.returncode == 130, (out, err)
    played = int(out.split("interrupted: played ")[1].split(" ")[0])
    # Both running matches (one per slot: a slot is never idle at a checkpoint) were
    # finished and saved; nothing new was started.
    assert done_count(engine) == played >= at_signal + 2
    assert played < total
    with session_scope(engine) as session:
        for match in session.exec(select(MatchRow).where(MatchRow.status == "done")):
            seats = session.exec(select(SeatRow).where(SeatRow.match_id == match.id)).all()
            assert match.record is not None and all(s.place is not None for s in seats)
    assert_nothing_left(runner.pid, workers)
    engine.dispose()
