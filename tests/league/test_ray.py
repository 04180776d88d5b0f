"""``arena league run --executor ray``: each match a Ray task on a local Ray instance
(2 CPUs), results written by the driver. The same standings and games as the local
runner on PostgreSQL; a Ray worker killed mid-league costs nothing (the task runs
again, every match is written once); workers refuse a bot whose files are not the
registered version; the tasks never carry the league secret."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

ray = pytest.importorskip("ray")

from sqlalchemy.engine import Engine  # noqa: E402

import league.execution.ray_executor  # noqa: E402
import league.execution.worker_wire  # noqa: E402
import league.store.registry  # noqa: E402
from league.execution.league_run import LeagueRun, RunOptions  # noqa: E402
from league.execution.ray_executor import (  # noqa: E402
    BotChangedError,
    RayOptions,
    file_hashes,
    shipped_scripts,
)
from league.execution.ray_task import (  # noqa: E402
    BotFilesMismatch,
    close_hosts,
    play_job,
    verify_bot_files,
)
from league.execution.worker_wire import Job, WorkerConfig, encode_config, encode_job  # noqa: E402
from league.store.db import open_database, session_scope  # noqa: E402
from league.store.leagues import get_league, match_deal_key  # noqa: E402
from referee.runtime.match import Limits, MatchSpec  # noqa: E402
from referee.runtime.process import BotSpec  # noqa: E402
from referee.runtime.sandbox import DEFAULT_SANDBOX  # noqa: E402
from tests.e2e.conftest import process_alive  # noqa: E402
from tests.league.test_resume import bots_of, done_count  # noqa: E402
from tests.league.test_workers import (  # noqa: E402
    LEAGUE,
    ROOT,
    assert_each_match_once,
    played_games,
    prepare,
    table,
    wait_for,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def no_bot_outlives_a_test() -> Iterator[None]:
    """Tests that call :func:`play_job` here run its referee loop in this process:
    stop it, and its warm bots with it, as a worker's exit does."""
    yield
    close_hosts()
    assert bots_of(os.getpid()) == []


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray instance of 2 CPUs for the in-process tests of this module."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture
def opened() -> Iterator[Callable[[str], Engine]]:
    """``open_database`` whose engines are disposed when the test ends, passed or
    failed: an engine a failed test left open was reported by the next test on the
    worker as an unclosed PostgreSQL connection (a ResourceWarning, an error)."""
    engines: list[Engine] = []

    def open_(url: str) -> Engine:
        engines.append(open_database(url))
        return engines[-1]

    yield open_
    for engine in engines:
        engine.dispose()


def pg_database(server: str, name: str) -> str:
    from sqlalchemy import text

    from league.store.db import make_engine

    admin = make_engine(server)
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    base, _, query = server.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


# ------------------------------------------------------------------ bot files


def script_bot(tmp_path: Path) -> BotSpec:
    script = tmp_path / "mybot.py"
    script.write_text(
        "from example_bots.liars_dice_random import RandomLiarsDiceBot\n"
        "from sdk import run\n"
        "run(RandomLiarsDiceBot)\n"
    )
    command = (sys.executable, str(script))
    return BotSpec(
        name="mine", command=command, version=league.store.registry.content_version(command)
    )


def test_a_bot_changed_since_registration_is_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    bot = script_bot(tmp_path)
    assert file_hashes([bot]) == {"mine": bot.version}  # guard: unchanged, accepted
    Path(bot.command[1]).write_text(Path(bot.command[1]).read_text() + "# changed\n")
    with pytest.raises(BotChangedError, match=f"registered as version {bot.version}"):
        file_hashes([bot])
    # A labelled version is not a content hash: the current files are what workers check.
    labelled = replace(bot, version="v2-final")
    assert file_hashes([labelled]) == {"mine": league.store.registry.content_version(bot.command)}


def match_with(bot: BotSpec) -> MatchSpec:
    opponent = BotSpec(
        name="random",
        command=(sys.executable, "-m", "example_bots.liars_dice_random"),
        version="x",
    )
    return MatchSpec(
        game="liars_dice",
        bots=(bot, opponent),
        rules={"dice_per_player": "1"},
        match_id="files-1",
        chance_key=b"k" * 32,
    )


CONFIG = encode_config(WorkerConfig(replace(DEFAULT_SANDBOX, enabled=False)))


def test_a_worker_refuses_a_copy_that_is_not_the_registered_version(tmp_path: Path) -> None:
    bot = script_bot(tmp_path)
    spec = match_with(bot)
    job = encode_job(Job(1, spec, Limits()))
    good = file_hashes(spec.bots)
    answer = play_job(CONFIG, job, good)  # guard: the right copy plays
    assert answer["result"]["record"]["match_id"] == "files-1"
    stale = {**good, "mine": "0" * 12}
    with pytest.raises(BotFilesMismatch, match=r"hash to .* the league's copy to 000000000000"):
        play_job(CONFIG, job, stale)


def test_shipped_scripts_reach_a_worker_without_them_and_are_checked(tmp_path: Path) -> None:
    bot = script_bot(tmp_path)
    spec = match_with(bot)
    good = file_hashes(spec.bots)
    shipped = shipped_scripts(spec.bots)
    assert list(shipped) == ["mine"]  # the module bot comes with the installed packages
    script = Path(bot.command[1])
    script.unlink()  # this "worker" does not share the driver's files
    with pytest.raises(BotFilesMismatch, match=r"cannot read|hash to"):
        play_job(CONFIG, encode_job(Job(1, spec, Limits())), good)  # guard: not shipped
    store = tmp_path / "store"
    scripts = {n: {int(i): base64.b64decode(d) for i, d in s.items()} for n, s in shipped.items()}
    placed = verify_bot_files(spec, good, scripts, store)
    copy = Path(placed.bots[0].command[1])
    assert copy.parent.parent == store and copy.read_text().startswith("from example_bots")
    answer = play_job(CONFIG, encode_job(Job(1, spec, Limits())), good, shipped)
    assert answer["result"]["record"]["reason"] == "completed"
    tampered = {"mine": {"1": base64.b64encode(b"import os  # not the bot\n").decode()}}
    with pytest.raises(BotFilesMismatch, match="hash to"):
        play_job(CONFIG, encode_job(Job(1, spec, Limits())), good, tampered)


# --------------------------------------------------------- same as local, on PG


def test_ray_on_postgresql_gives_the_local_runners_standings(
    tmp_path: Path,
    postgres_server: str,
    local_ray: None,
    monkeypatch: pytest.MonkeyPatch,
    opened: Callable[[str], Engine],
) -> None:
    local = opened(f"sqlite:///{tmp_path / 'local.db'}")
    total = prepare(local, rounds=2)
    remote = opened(pg_database(postgres_server, "ray_league"))
    assert prepare(remote, rounds=2) == total  # same reproducible secret

    sent: list[dict[str, Any]] = []
    original = league.execution.worker_wire.encode_job

    def spy(job: Job) -> dict[str, Any]:
        encoded = original(job)
        sent.append(encoded)
        return encoded

    monkeypatch.setattr(league.execution.ray_executor, "encode_job", spy)
    summary = trio.run(
        lambda: LeagueRun(
            remote,
            LEAGUE,
            RunOptions(concurrency=2, handle_signals=False, ray=RayOptions(max_retries=1)),
        ).play()
    )
    assert (summary.played, summary.remaining, summary.lost) == (total, 0, ())
    assert 1 <= summary.workers <= 2
    assert summary.processes_started + summary.processes_reused == 2 * total
    trio.run(
        lambda: LeagueRun(local, LEAGUE, RunOptions(concurrency=2, handle_signals=False)).play()
    )

    assert played_games(remote) == played_games(local)
    assert table(remote) == table(local)
    assert_each_match_once(remote, total)

    # What crossed to the workers: each match's deal key, never the league secret.
    with session_scope(remote) as session:
        row = get_league(session=session, name=LEAGUE)
        secret = row.secret
        keys = {g: match_deal_key(row, g).hex() for g in {job["deal_group"] for job in sent}}
    assert len(sent) == total
    payload = json.dumps(sent)
    assert secret.hex() not in payload and secret.hex().upper() not in payload
    assert all(job["chance_key"] == keys[job["deal_group"]] for job in sent)


# ------------------------------------------------------------ a killed worker


def parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        pid = parent_of(pid)
    return False


def ray_workers_with_bots(under: int | None = None) -> list[int]:
    """Ray worker processes (``ray::...`` titles) that have live bots; with
    ``under``, only those descending from that process (a driver's own Ray: the
    module's in-process Ray instance keeps warm workers of its own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        pid = int(entry.name)
        ours = under is None or descends_from(pid, under)
        if command.startswith(b"ray::") and ours and bots_of(pid):
            found.append(pid)
    return found


def test_a_killed_ray_worker_costs_no_match(
    tmp_path: Path, postgres_server: str, opened: Callable[[str], Engine]
) -> None:
    url = pg_database(postgres_server, "ray_kill")
    engine = opened(url)
    total = prepare(engine, rounds=4)
    runner = subprocess.Popen(
        [
            *(sys.executable, "-m", "league.cli", "--db", url, "league", "run", LEAGUE),
            *("--executor", "ray", "--concurrency", "2", "--no-progress"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: done_count(engine) >= 2, "two matches", timeout=180)
        victims: list[int] = []

        def found() -> bool:
            victims[:] = ray_workers_with_bots(under=runner.pid)
            return bool(victims)

        wait_for(found, "a Ray worker with bots")
        os.kill(victims[0], signal.SIGKILL)
        out, err = runner.communicate(timeout=300)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode == 0, (
        f"exit {runner.returncode}\nstdout:\n{out[-4000:]}\nstderr:\n{err[-4000:]}"
    )
    assert f"played {total} matches" in out and "0 remaining" in out, out
    assert not process_alive(victims[0])
    assert_each_match_once(engine, total)
    deadline = time.monotonic() + 10
    while bots_of(victims[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert bots_of(victims[0]) == []


def test_ray_needs_the_extra_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(league.execution.ray_executor.RayUnavailableError, match=r"pip install"):
        league.execution.ray_executor._ray()


def test_first_ctrl_c_saves_running_matches_and_leaves_nothing_running(
    tmp_path: Path, opened: Callable[[str], Engine]
) -> None:
    url = f"sqlite:///{tmp_path / 'stop.db'}"
    engine = opened(url)
    total = prepare(engine, rounds=20)
    runner = subprocess.Popen(
        [
            *(sys.executable, "-m", "league.cli", "--db", url, "league", "run", LEAGUE),
            *("--executor", "ray", "--concurrency", "2", "--no-progress"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's job would be
    )
    try:
        wait_for(lambda: done_count(engine) >= 2, "two matches", timeout=180)
        workers: list[int] = []

        def found() -> bool:
            workers[:] = ray_workers_with_bots(under=runner.pid)
            return bool(workers)

        wait_for(found, "a Ray worker with bots")
        os.killpg(runner.pid, signal.SIGINT)  # what Ctrl-C does: the whole job
        out, err = runner.communicate(timeout=120)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode == 130, (out, err)
    played = int(out.split("interrupted: played ")[1].split(" ")[0])
    assert 2 <= done_count(engine) == played < total
    assert_each_match_once_so_far(engine)
    deadline = time.monotonic() + 15  # Ray stops its workers; their bots die with them
    while time.monotonic() < deadline and (
        any(process_alive(pid) for pid in workers) or any(bots_of(pid) for pid in workers)
    ):
        time.sleep(0.1)
    assert not any(process_alive(pid) for pid in workers)
    assert [bots_of(pid) for pid in workers] == [[] for _ in workers]


def assert_each_match_once_so_far(engine: Any) -> None:
    from sqlmodel import select

    from league.store.models import MatchRow, SeatRow

    with session_scope(engine) as session:
        done = session.exec(select(MatchRow).where(MatchRow.status == "done")).all()
        for match in done:
            seats = session.exec(select(SeatRow).where(SeatRow.match_id == match.id)).all()
            assert match.record is not None and len(seats) == 2
            assert all(seat.place is not None for seat in seats)
