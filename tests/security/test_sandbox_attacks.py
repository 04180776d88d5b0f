"""Hostile bots as real processes: each attack fails under the sandbox, and a guard
shows the same attack succeeds without it (so no test passes by attacking nothing).

The attacker (tests/security/hostile_bot.py) plays seat 0 of a real Liar's Dice
match against an honest example bot in seat 1, attacks once, and prints what it
achieved on stderr; the referee's captured log carries that report to the test.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.core.faults import FaultKind
from referee.records.record import MatchRecord
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, NO_SANDBOX, SandboxConfig
from tests.e2e.conftest import process_alive
from tests.security.hostile_bot import MARKER_PREFIX
from tests.security.support import (
    HOSTILE_SEAT,
    PROJECT,
    VICTIM_SEAT,
    LogMeasuringLauncher,
    Played,
    assert_attacker_faults,
    assert_no_processes_left,
    assert_victim_unharmed,
    final_report,
    hostile,
    kill_all,
    new_token,
    pids_with,
    play,
    referee_subprocess_argv,
    reports,
    victim,
    wait_until,
    write_child_spec,
)

pytestmark = pytest.mark.e2e

NONE: set[FaultKind] = set()
CRASH = {FaultKind.CRASH}


@pytest.fixture
def token() -> str:
    return new_token()


def chdir_keeping_imports(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    """Move the referee to ``directory``; unsandboxed ``python -m`` bots then need
    the project on PYTHONPATH (the sandbox sets it itself)."""
    monkeypatch.chdir(directory)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(PROJECT), os.environ.get("PYTHONPATH")]))
    )


def assert_contained(played: Played, allowed: set[FaultKind] = NONE) -> None:
    """What every sandbox test checks besides its attack: the honest bot was not
    harmed, the attacker got only the faults it earned, nothing is left running."""
    assert_victim_unharmed(played)
    assert_attacker_faults(played, allowed)
    assert_no_processes_left()


# -- 1. network --------------------------------------------------------------------------


def host_address() -> str | None:
    """This machine's non-loopback IPv4 address, if it has a route anywhere."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))  # UDP: no packet is sent
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") else address


class Listeners:
    """A TCP listener on every IPv4 address and one on an abstract unix name."""

    def __init__(self, token: str) -> None:
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("0.0.0.0", 0))
        self.tcp.listen(8)
        self.tcp.setblocking(False)
        self.port = int(self.tcp.getsockname()[1])
        self.abstract_name = f"arena-hostile-{token}"
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind("\0" + self.abstract_name)
        self.unix.listen(8)
        self.unix.setblocking(False)
        address = host_address()
        self.hosts = [address] if address else []

    def accepted(self) -> list[bytes]:
        """What each queued connection (TCP, then unix) sent."""
        received = []
        for server in (self.tcp, self.unix):
            while True:
                try:
                    connection, _ = server.accept()
                except BlockingIOError:
                    break
                with connection:
                    connection.settimeout(2.0)
                    received.append(connection.recv(100))
        return received

    def close(self) -> None:
        self.tcp.close()
        self.unix.close()


@pytest.fixture
def listeners(token: str) -> Iterator[Listeners]:
    opened = Listeners(token)
    yield opened
    opened.close()


def network_attack(listeners: Listeners) -> BotSpec:
    return hostile(
        "network", port=listeners.port, hosts=listeners.hosts, abstract=listeners.abstract_name
    )


async def test_network_sandbox_reaches_no_host_listener(listeners: Listeners, token: str) -> None:
    played = await play(network_attack(listeners), token)
    targets = played.report["targets"]
    assert set(targets) == {"127.0.0.1", *listeners.hosts, "abstract"}, targets
    assert "connected" not in targets.values(), targets
    assert listeners.accepted() == []
    assert_contained(played)


async def test_network_guard_connects_without_sandbox(listeners: Listeners, token: str) -> None:
    played = await play(network_attack(listeners), token, sandbox=NO_SANDBOX)
    targets = played.report["targets"]
    assert set(targets.values()) == {"connected"}, targets
    expected = len(listeners.hosts) + 2
    assert listeners.accepted() == [b"hostile bot was here\n"] * expected
    assert_victim_unharmed(played)
    assert_no_processes_left()


# -- 2. process cap ----------------------------------------------------------------------

PROCESS_CAP = 32


async def test_fork_bomb_stops_at_the_process_cap(token: str) -> None:
    played = await play(
        hostile("fork", count=2 * PROCESS_CAP),
        token,
        sandbox=SandboxConfig(max_procs=PROCESS_CAP),
    )
    result = played.report
    assert result["forks"] < PROCESS_CAP, result
    assert "Resource temporarily unavailable" in result["error"], result
    assert_contained(played)


async def test_fork_guard_exceeds_the_cap_without_sandbox(token: str) -> None:
    played = await play(hostile("fork", count=2 * PROCESS_CAP), token, sandbox=NO_SANDBOX)
    assert played.report["forks"] == 2 * PROCESS_CAP, played.report
    assert_victim_unharmed(played)
    assert_no_processes_left()


async def test_fork_bomb_during_a_turn_harms_only_the_attacker(token: str) -> None:
    """With gRPC's threads running, hitting the cap may break the attacker's own
    server (it cannot start threads): a fault against it, never the other seat."""
    played = await play(
        hostile("fork", count=2 * PROCESS_CAP, when="turn"),
        token,
        sandbox=SandboxConfig(max_procs=PROCESS_CAP),
    )
    results = reports(played.logs[HOSTILE_SEAT])
    if results:
        assert results[-1]["forks"] < PROCESS_CAP, results
    assert_contained(played, {FaultKind.STALL, FaultKind.TIMEOUT, FaultKind.CRASH})


async def test_fork_during_a_turn_guard_exceeds_the_cap_without_sandbox(token: str) -> None:
    played = await play(
        hostile("fork", count=2 * PROCESS_CAP, when="turn"), token, sandbox=NO_SANDBOX
    )
    assert played.report["forks"] == 2 * PROCESS_CAP, played.report
    assert_victim_unharmed(played)
    assert_no_processes_left()


# -- 3. memory cap -----------------------------------------------------------------------

MEMORY_CAP_MB = 256


async def test_memory_beyond_the_cap_is_refused(token: str) -> None:
    played = await play(
        hostile("memory", mb=MEMORY_CAP_MB * 3 // 2),
        token,
        sandbox=SandboxConfig(memory_mb=MEMORY_CAP_MB),
    )
    if played.faults_of(HOSTILE_SEAT):  # died of it: that is a crash, its own
        assert played.faults_of(HOSTILE_SEAT) == CRASH
    else:
        assert played.report["allocated"] is False, played.report
        assert played.report["error"].startswith("MemoryError"), played.report
    assert_contained(played, CRASH)


async def test_memory_guard_allocates_without_sandbox(token: str) -> None:
    played = await play(hostile("memory", mb=MEMORY_CAP_MB * 3 // 2), token, sandbox=NO_SANDBOX)
    assert played.report["allocated"] is True, played.report
    assert played.report["bytes"] == (MEMORY_CAP_MB * 3 // 2) << 20
    assert_victim_unharmed(played)
    assert_no_processes_left()


# -- 4. log cap --------------------------------------------------------------------------

LOG_CAP_MB = 1


async def test_log_flood_stops_at_the_log_cap(token: str) -> None:
    sandbox = SandboxConfig(file_mb=LOG_CAP_MB)
    launcher = LogMeasuringLauncher(sandbox)
    played = await play(hostile("log", mb=3 * LOG_CAP_MB), token, launcher=launcher)
    cap = LOG_CAP_MB << 20
    size = launcher.log_sizes["hostile"]
    # It flooded (the file reached the cap) but not one byte past it.
    assert cap // 2 < size <= cap, size
    assert len(played.logs[HOSTILE_SEAT]) <= cap
    assert b"x" * 1000 in played.logs[HOSTILE_SEAT]
    # Python ignores SIGXFSZ, so the write fails (EFBIG), the SDK breaks the
    # stream: a crash of its own. A bot that survives the failed write may play on.
    assert_contained(played, CRASH)


async def test_log_guard_floods_without_sandbox(token: str) -> None:
    launcher = LogMeasuringLauncher(NO_SANDBOX)
    played = await play(hostile("log", mb=3 * LOG_CAP_MB), token, launcher=launcher)
    assert launcher.log_sizes["hostile"] >= 3 * LOG_CAP_MB << 20
    assert_victim_unharmed(played)
    assert_no_processes_left()
    assert_attacker_faults(played, NONE)


# -- 5. persistence across the rotations of one deal ---------------------------------------


@pytest.fixture
def host_markers(token: str) -> Iterator[list[Path]]:
    """Where the marker lands on the host without a sandbox (removed afterwards)."""
    name = MARKER_PREFIX + token
    places = ("/tmp", "/dev/shm", "/var/tmp", Path(__file__).resolve().parent)
    paths = [Path(place) / name for place in places]
    yield paths
    for path in paths:
        path.unlink(missing_ok=True)


async def play_twice(
    token: str, pool: WarmPool, group: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two matches of ``group`` through ``pool``; the attacker's two reports."""
    results = []
    try:
        for _ in range(2):
            played = await play(hostile("persist", token=token), token, launcher=pool, group=group)
            assert_victim_unharmed(played)
            assert_attacker_faults(played, NONE)
            results.append(played.report)
    finally:
        await pool.aclose()
    return results[0], results[1]


async def test_nothing_survives_into_the_next_rotation_of_a_deal(
    token: str, host_markers: list[Path]
) -> None:
    pool = WarmPool(sandbox=DEFAULT_SANDBOX)
    first, second = await play_twice(token, pool, group="g1")
    # It could write only in its private /tmp (also cwd and HOME) and socket dir
    # (not its own files, /dev/shm, /var/tmp), and the next rotation found nothing.
    name = MARKER_PREFIX + token
    assert set(first["written"]) == {f"/tmp/{name}", f"/run/arena/{name}"}, first
    assert first["found"] == {} and second["found"] == {}, second
    assert second["remembered"] == [], second
    assert second["token"] != first["token"]  # a different process played it
    assert pool.started == 4 and pool.reused == 0
    assert not any(path.exists() for path in host_markers)
    assert_no_processes_left()


async def test_persist_guard_markers_survive_without_sandbox(
    token: str,
    host_markers: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Same deal group (a new process per rotation), no sandbox: the files stay."""
    (tmp_path / "cwd").mkdir()
    (tmp_path / "home").mkdir()
    chdir_keeping_imports(monkeypatch, tmp_path / "cwd")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    pool = WarmPool(sandbox=NO_SANDBOX)
    first, second = await play_twice(token, pool, group="g1")
    assert pool.started == 4 and pool.reused == 0
    assert second["token"] != first["token"]
    found = second["found"]
    assert isinstance(found, dict)
    name = MARKER_PREFIX + token
    for where in (tmp_path / "cwd", tmp_path / "home", *(p.parent for p in host_markers)):
        assert str(where / name) in found, (where, found)
    assert all(first["token"] in text for text in found.values())


async def test_persist_guard_a_reused_process_remembers(token: str) -> None:
    """Sandbox on, but no deal group: the pool reuses the process, which remembers."""
    pool = WarmPool(sandbox=DEFAULT_SANDBOX)
    first, second = await play_twice(token, pool, group="")
    assert pool.reused >= 1
    assert second["token"] == first["token"]
    assert second["remembered"] == [first["match_id"]]
    assert "/tmp/" + MARKER_PREFIX + token in second["found"]
    assert_no_processes_left()


# -- 6. /proc ---------------------------------------------------------------------------


def own_cmdline() -> str:
    return Path("/proc/self/cmdline").read_bytes().replace(b"\0", b" ").decode()


async def test_proc_shows_neither_referee_nor_opponent(token: str) -> None:
    played = await play(hostile("proc", needle=token), token)
    result = played.report
    # The sandbox's init, the bot, and the lifeline's watcher (root: out of its reach).
    assert len(result["pids"]) <= 3 and max(result["pids"]) <= 8, result["pids"]
    assert result["opponent"] == [], result
    assert result["ppid"] != os.getpid()
    cmdline = result["ppid_cmdline"] or ""
    assert "pytest" not in cmdline and own_cmdline() not in cmdline, cmdline
    assert result["ppid_environ_bytes"] is None, result
    assert result["ppid_memory"]["mem"] == 0, result
    assert_contained(played)


async def test_proc_guard_reads_referee_and_finds_opponent(token: str) -> None:
    played = await play(hostile("proc", needle=token), token, sandbox=NO_SANDBOX)
    result = played.report
    assert result["ppid"] == os.getpid()
    assert result["ppid_cmdline"] and own_cmdline().startswith(result["ppid_cmdline"])
    assert result["ppid_environ_bytes"] > 0
    if os.geteuid() == 0:
        assert result["ppid_memory"]["mem"] > 0, result
    assert len(result["opponent"]) == 1, result
    assert_victim_unharmed(played)
    assert_no_processes_left()


async def test_other_seat_service_is_unreachable(token: str) -> None:
    played = await play(hostile("socket", needle=token), token)
    result = played.report
    assert result["opponents"] == [] and result["answered"] == {}, result
    assert result["visible_bot_sockets"] == 0, result
    assert_contained(played)


async def test_socket_guard_calls_the_other_seat_without_sandbox(token: str) -> None:
    """Unsandboxed, a bot can read the other seat's socket from its environment and
    talk to it as if it were the referee."""
    played = await play(hostile("socket", needle=token), token, sandbox=NO_SANDBOX)
    result = played.report
    assert len(result["opponents"]) == 1, result
    assert list(result["answered"].values()) == ["answered: liars-dice-random"], result
    assert_victim_unharmed(played)
    assert_no_processes_left()


# -- 7. signals --------------------------------------------------------------------------


async def test_signals_reach_neither_opponent_nor_referee(token: str) -> None:
    played = await play(hostile("signal", needle=token, pids=[os.getpid()]), token)
    result = played.report
    assert result["targets"]["opponent"] == [], result
    assert os.getpid() in result["targets"]["referee"]
    for target, outcome in result["sent"].items():
        assert "sent" not in outcome.values(), (target, outcome)
    assert played.record.reason == "completed"
    assert_contained(played)


@dataclass
class RefereeRun:
    pid: int
    returncode: int
    stderr: bytes
    record: Path
    logs: Path
    report: Path


def run_referee_subprocess(tmp_path: Path, attacker_target: str, token: str) -> RefereeRun:
    """One match refereed (without sandbox) by a child process of the test."""
    report = tmp_path / "report.txt"
    record, logs, spec = tmp_path / "record.json", tmp_path / "logs.json", tmp_path / "spec.json"
    attacker = hostile("signal", needle=token, target=attacker_target, report=str(report))
    write_child_spec(spec, [attacker, victim(token)], record=record, logs=logs)
    referee = subprocess.Popen(
        referee_subprocess_argv(spec),
        cwd=PROJECT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _, stderr = referee.communicate(timeout=60)
    finally:
        referee.kill()
        referee.wait()
        kill_all(pids_with(token))  # the victim, if the referee left it behind
    return RefereeRun(referee.pid, referee.returncode, stderr, record, logs, report)


async def test_signal_guard_kills_the_opponent_without_sandbox(tmp_path: Path, token: str) -> None:
    run = await trio.to_thread.run_sync(run_referee_subprocess, tmp_path, "opponent", token)
    assert run.returncode == 0, run.stderr[-3000:]
    record = MatchRecord.from_json(run.record.read_text())
    logs = {int(k): bytes.fromhex(v) for k, v in json.loads(run.logs.read_text()).items()}
    result = final_report(logs[HOSTILE_SEAT])
    assert len(result["targets"]["opponent"]) == 1, result
    assert record.fault_of(VICTIM_SEAT) is not None, record.faults
    assert record.fault_of(VICTIM_SEAT).kind == FaultKind.CRASH  # type: ignore[union-attr]
    assert record.fault_of(HOSTILE_SEAT) is None


async def test_signal_guard_kills_the_referee_without_sandbox(tmp_path: Path, token: str) -> None:
    run = await trio.to_thread.run_sync(run_referee_subprocess, tmp_path, "referee", token)
    aimed = reports(run.report.read_bytes())
    kill_all([int(line["pid"]) for line in aimed])  # if the orphaned attacker lingers
    assert aimed and aimed[0]["phase"] == "aiming", aimed
    assert aimed[0]["targets"]["referee"] == [run.pid], aimed
    assert run.returncode == -signal.SIGKILL, (run.returncode, run.stderr[-3000:])
    assert not run.record.exists()  # the referee died mid-match: no record at all


# -- 8. escape ---------------------------------------------------------------------------


async def test_escaped_child_dies_with_the_sandbox(token: str, tmp_path: Path) -> None:
    witness = tmp_path / "escaped.txt"
    played = await play(hostile("escape", paths=[str(witness)], delay=0.5), token)
    assert played.report["forked"] is True, played.report
    assert_contained(played)
    await trio.sleep(1.0)  # past the child's delay: it would have written by now
    assert not witness.exists()


async def test_escape_guard_child_outlives_the_match_without_sandbox(
    token: str, tmp_path: Path
) -> None:
    witness = tmp_path / "escaped.txt"
    played = await play(
        hostile("escape", paths=[str(witness)], delay=0.5), token, sandbox=NO_SANDBOX
    )
    child = int(played.report["child"])
    try:
        assert played.report["escaped"] is True, dict(played.report)
        assert process_alive(child), "the escaped child should outlive the match without sandbox"
        assert await trio.to_thread.run_sync(wait_until, witness.exists, 10.0)
        assert witness.read_text() == f"escaped {child}\n"
    finally:
        # Its own session and group (setsid): the shell and the sleep it runs.
        with contextlib.suppress(OSError):
            os.killpg(child, signal.SIGKILL)
        kill_all([child])
    assert_victim_unharmed(played)
    assert_no_processes_left()


# -- 9. files ----------------------------------------------------------------------------

PROJECT_FILES = [
    str(PROJECT / "pyproject.toml"),
    str(PROJECT / "league" / "store" / "db.py"),
    str(PROJECT / ".git" / "HEAD"),
]


@pytest.fixture
def referee_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The referee runs in a directory holding its database."""
    directory = tmp_path / "referee"
    directory.mkdir()
    (directory / "arena.db").write_bytes(b"precious")
    chdir_keeping_imports(monkeypatch, directory)
    return directory


async def test_files_of_the_referee_are_out_of_reach(referee_dir: Path, token: str) -> None:
    database = referee_dir / "arena.db"
    played = await play(
        hostile("files", paths=[str(database)], reads=PROJECT_FILES), token, sandbox=DEFAULT_SANDBOX
    )
    result = played.report
    assert result["cwd"] == "/tmp"
    assert all(outcome != "written" for outcome in result["write"].values()), result["write"]
    assert database.read_bytes() == b"precious"
    assert set(result["read"].values()) == {"unreadable"}, result["read"]
    assert_contained(played)


async def test_files_guard_writes_and_reads_without_sandbox(referee_dir: Path, token: str) -> None:
    database = referee_dir / "arena.db"
    played = await play(
        hostile("files", paths=[str(database)], reads=PROJECT_FILES), token, sandbox=NO_SANDBOX
    )
    result = played.report
    assert Path(result["cwd"]) == referee_dir
    assert result["write"] == {"arena.db": "written", str(database): "written"}
    assert database.read_bytes() == b"precious" + b"hostile bot was here\n" * 2
    assert set(result["read"].values()) == {"read"}, result["read"]
    assert_victim_unharmed(played)
    assert_no_processes_left()


async def test_a_file_argument_does_not_expose_its_directory(tmp_path: Path, token: str) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(tmp_path, 0o755)
    (shared / "weights.bin").write_bytes(b"w")
    (shared / "arena.db").write_bytes(b"secret")
    for path in (shared / "weights.bin", shared / "arena.db"):
        path.chmod(0o644)
    base = hostile("files", reads=[str(shared / "arena.db")])
    attacker = type(base)(name=base.name, command=(*base.command, str(shared / "weights.bin")))
    played = await play(attacker, token)
    assert_contained(played)
    # The argument's file alone is bound (since 9de4410), not its directory.
    assert played.report["read"] == {str(shared / "arena.db"): "unreadable"}


@pytest.fixture
def private_bot(tmp_path: Path, token: str) -> BotSpec:
    """Another author's bot: a script of its own outside every shared directory."""
    source = (PROJECT / "example_bots" / "liars_dice_random.py").read_text()
    directory = tmp_path / "alice"
    directory.mkdir()
    script = directory / "secret_bot.py"
    script.write_text(source.replace('"liars-dice-random"', '"alice-secret"'))
    for path in (tmp_path, directory):
        path.chmod(0o755)
    script.chmod(0o644)
    return BotSpec(name="victim", command=(sys.executable, str(script), f"--victim={token}"))


async def test_other_bots_source_is_private(private_bot: BotSpec, token: str) -> None:
    played = await play(
        hostile("files", reads=[private_bot.command[1]]), token, opponent=private_bot
    )
    assert played.report["read"] == {private_bot.command[1]: "unreadable"}, played.report
    assert_contained(played)


async def test_other_bots_source_guard_readable_without_sandbox(
    private_bot: BotSpec, token: str
) -> None:
    played = await play(
        hostile("files", reads=[private_bot.command[1]]),
        token,
        opponent=private_bot,
        sandbox=NO_SANDBOX,
    )
    assert played.report["read"] == {private_bot.command[1]: "read"}, played.report
    assert_victim_unharmed(played)
    assert_no_processes_left()


async def test_a_long_argument_does_not_break_the_launch(token: str) -> None:
    base = hostile("network", port=1)
    attacker = type(base)(name=base.name, command=(*base.command, "n" * 300))
    played = await play(attacker, token)
    assert played.record.reason == "completed", played.record.faults
