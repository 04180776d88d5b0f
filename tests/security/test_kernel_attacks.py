"""Attacks through the kernel and the sandbox's own plumbing (issue: trust, round two).

Each is a real hostile bot process (tests/security/hostile_bot.py) in a real match.
A guard shows the attack succeeds with the protection off, so none of these passes
by attacking nothing:

- keyring: a key written by a bot in one sandbox is read by a bot with another
  uid in another sandbox, in a later match (the duplicate-deal memory that
  survives every file system);
- syscalls: the calls the filter denies (``unshare -Urm`` gave uid 0 and a tmpfs);
- socketlink: a link planted where the bot's socket belongs, pointing at a host
  socket, so that an accomplice outside the sandbox plays the seat;
- fill: every directory a bot can write, the socket directory included, is capped;
- cmdline: ``/proc/1/cmdline`` inside the sandbox shows nothing of the host;
- a SIGKILLed referee's ``arena-bot-*`` directories are swept by the next one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.core.faults import BotStartupError, FaultKind
from referee.runtime import spawn
from referee.runtime.match import MatchSpec, run_match
from referee.runtime.process import BotProcess, make_workdir
from referee.runtime.sandbox import (
    DEFAULT_SANDBOX,
    NO_SANDBOX,
    SOCKET_DIR_BYTES,
    SOCKET_DIR_INSIDE,
    SandboxConfig,
)
from referee.runtime.seccomp import denied_names
from tests.security.support import (
    HOSTILE_SEAT,
    LIMITS,
    PROJECT,
    RULES,
    assert_attacker_faults,
    assert_no_processes_left,
    assert_victim_unharmed,
    hostile,
    new_token,
    play,
    victim,
)

pytestmark = pytest.mark.e2e

NONE: set[FaultKind] = set()
UNFILTERED = replace(DEFAULT_SANDBOX, seccomp=False, fresh_keyring=False)
"""The sandbox as it was: no system-call filter, the referee's session keyring."""
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="bots get uids of their own as root")


@pytest.fixture
def token() -> str:
    return new_token()


# -- 1. the kernel keyring ------------------------------------------------------------------


async def keyring_round_trip(
    token: str, sandbox: SandboxConfig
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A writer bot in one match, then a reader bot (another uid, another sandbox)
    in the next one: what each achieved."""
    secret = f"dice-{token}"
    write = await play(
        hostile("keyring", phase="write", token=token, payload=secret), token, sandbox=sandbox
    )
    read = await play(hostile("keyring", phase="read", token=token), token, sandbox=sandbox)
    for played in (write, read):
        assert_victim_unharmed(played)
        assert_attacker_faults(played, NONE)
    return write.report, read.report


async def _spawner_joins_a_new_keyring() -> None:
    await (await spawn.spawn(["true"], fresh_keyring=True)).wait()


@pytest.fixture
async def referee_keyring() -> AsyncIterator[None]:
    """The referee runs in a session with a keyring of its own, as a login or a
    service does (else a bot's ``@s`` is its uid's own user session keyring).
    Afterwards the spawner moves on to another, dropping the one a guard filled."""
    await _spawner_joins_a_new_keyring()
    yield
    await _spawner_joins_a_new_keyring()


@needs_root
async def test_keyring_guard_a_key_crosses_sandboxes_without_the_filter(
    token: str, referee_keyring: None
) -> None:
    wrote, read = await keyring_round_trip(token, UNFILTERED)
    assert wrote["written"] is True, wrote
    assert read["found"] is True and read["payload"] == f"dice-{token}", read
    assert_no_processes_left()


@needs_root
async def test_keyring_is_closed_to_bots(token: str, referee_keyring: None) -> None:
    wrote, read = await keyring_round_trip(token, DEFAULT_SANDBOX)
    assert wrote["written"] is False and wrote["error"] == "EPERM", wrote
    assert read["found"] is False and read["error"] == "EPERM", read
    assert_no_processes_left()


async def test_keyring_guard_fresh_keyring_alone_keeps_bots_apart(token: str) -> None:
    """Without the filter but with a fresh session keyring per bot, the writer's
    key dies with it: the reader finds nothing (each protection holds alone)."""
    alone = replace(DEFAULT_SANDBOX, seccomp=False)
    wrote, read = await keyring_round_trip(token, alone)
    assert wrote["written"] is True, wrote
    assert read["found"] is False, read
    assert_no_processes_left()


# -- 2. denied system calls -------------------------------------------------------------------


async def test_denied_system_calls_are_refused(token: str) -> None:
    played = await play(hostile("syscalls"), token)
    calls = played.report["calls"]
    for name, answer in calls.items():
        expected = "ENOSYS" if name == "clone3" else "EPERM"
        assert answer == expected, (name, answer)
    assert set(calls) - {"clone3", "request_key"} <= set(denied_names()) | {"clone3"}
    unshare = played.report["unshare"]
    assert unshare["code"] != 0 and "0" not in unshare["out"], unshare
    assert "mounted" not in unshare["out"]
    assert_victim_unharmed(played)
    assert_attacker_faults(played, NONE)
    assert_no_processes_left()


@needs_root
async def test_syscalls_guard_unshare_gives_root_and_a_mount_without_the_filter(
    token: str, referee_keyring: None
) -> None:
    played = await play(hostile("syscalls"), token, sandbox=UNFILTERED)
    unshare = played.report["unshare"]
    if "Operation not permitted" in unshare["err"] and unshare["out"] == []:
        pytest.skip(f"this kernel refuses user namespaces to everyone: {unshare['err']}")
    assert unshare["out"] == ["0", "mounted"], unshare
    answers = played.report["calls"]
    assert answers["add_key"].startswith("ok"), answers
    assert answers["keyctl"].startswith("ok"), answers
    assert_victim_unharmed(played)
    assert_no_processes_left()


# -- 3. a link where the socket belongs ---------------------------------------------------------


class Accomplice:
    """A unix socket on the host that counts who connects to it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.connections = 0
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        os.chmod(path, 0o777)
        self.listener.listen(8)
        self.listener.settimeout(0.2)
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while self.running:
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            connection.close()

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.listener.close()


@pytest.fixture
def accomplice(tmp_path: Path) -> Iterator[Accomplice]:
    tmp_path.chmod(0o755)
    server = Accomplice(tmp_path / "host.sock")
    try:
        yield server
    finally:
        server.close()


async def test_socket_link_guard_a_naive_referee_reaches_the_host_socket(
    accomplice: Accomplice,
) -> None:
    """Connecting by path through the sandbox's root follows the bot's link
    out to the host: what the referee did when the socket directory was a host
    directory, and what any path-based connect still does."""
    workdir = make_workdir()
    process = await BotProcess.spawn(
        hostile("socketlink", paths=[str(accomplice.path)]), workdir, DEFAULT_SANDBOX
    )
    try:
        inside = f"{SOCKET_DIR_INSIDE}/bot.sock"
        path = ""
        with trio.move_on_after(15):
            while not path:
                path = next(iter(_linked_paths(process.process.pid, inside)), "")
                await trio.sleep(0.05)
        assert path, "the bot never planted its link"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as naive:
            naive.connect(path)
        await trio.sleep(0.5)
        assert accomplice.connections == 1
        with pytest.raises(BotStartupError, match="symbolic link"):
            process.locate_socket()
        assert accomplice.connections == 1
    finally:
        await process.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    assert_no_processes_left()


def _linked_paths(bwrap_pid: int, inside: str) -> list[str]:
    """``/proc/<init>/root/<inside>`` for the sandbox's processes where it is a link."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        path = f"/proc/{entry}/root{inside}"
        with contextlib.suppress(OSError):
            if os.path.islink(path) and _descends(int(entry), bwrap_pid):
                found.append(path)
    return found


def _descends(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False


async def test_socket_link_is_refused_and_the_seat_is_the_attackers_fault(
    accomplice: Accomplice, token: str
) -> None:
    played = await play(hostile("socketlink", paths=[str(accomplice.path)]), token)
    assert played.faults_of(HOSTILE_SEAT) == {FaultKind.STARTUP}, played.record.faults
    assert any("symbolic link" in f.message for f in played.record.faults)
    assert accomplice.connections == 0
    assert_victim_unharmed(played)
    assert_no_processes_left()


# -- 4. disk caps -----------------------------------------------------------------------------


FILL_MB = 96
"""More than every cap (the private /tmp is 64 MiB, the socket directory 1 MiB)."""


async def test_every_writable_place_is_capped(token: str) -> None:
    played = await play(hostile("fill", mb=FILL_MB), token)
    places = played.report["places"]
    caps = {SOCKET_DIR_INSIDE: SOCKET_DIR_BYTES, "/tmp": DEFAULT_SANDBOX.tmp_mb << 20}
    assert SOCKET_DIR_INSIDE in places and "/tmp" in places, places
    for place, result in places.items():
        cap = caps.get(place, 0)
        assert result["bytes"] <= cap, (place, result)
        assert result["bytes"] < FILL_MB << 20, (place, result)
    assert places[SOCKET_DIR_INSIDE]["bytes"] > 0  # it is writable: the bot serves there
    assert_victim_unharmed(played)
    assert_attacker_faults(played, NONE)
    assert_no_processes_left()


async def test_fill_guard_the_host_socket_directory_takes_everything(token: str) -> None:
    played = await play(hostile("fill", mb=8, target="socket"), token, sandbox=NO_SANDBOX)
    places = played.report["places"]
    socket_dir = next(iter(places))  # the first place is where the socket lives
    assert "arena-bot-" in socket_dir, places
    assert places[socket_dir]["bytes"] == 8 << 20 > SOCKET_DIR_BYTES, places
    assert_victim_unharmed(played)
    assert_no_processes_left()


# -- 5. the sandbox's init shows nothing of the host ---------------------------------------------


async def test_init_command_line_shows_nothing_of_the_host(token: str) -> None:
    played = await play(hostile("cmdline"), token)
    report = played.report
    init = report["init"]
    own = report["all"][str(report["self"])]
    # The probe works: it reads command lines, its own names its module.
    assert init and init.split()[0].endswith("bwrap"), report
    assert "hostile_bot" in own
    needles = [str(PROJECT), "hostile_bot", "arena-bot-", "prlimit", "setpriv", "--reuid"]
    needles.append(str(os.getpid()))  # the referee's pid
    if os.geteuid() == 0:
        needles.append(str(_uid_of(report)))
    for needle in needles:
        assert needle not in init, (needle, init)
    for pid, line in report["all"].items():
        if pid != str(report["self"]) and line:
            for needle in needles[:1] + needles[2:]:
                assert needle not in line, (pid, needle, line)
    assert_victim_unharmed(played)
    assert_no_processes_left()


def _uid_of(report: dict[str, Any]) -> int:
    return int(report.get("uid", -1))


# -- 6. directories of a SIGKILLed referee ---------------------------------------------------------

MAKE_AND_DIE = (
    "import os, signal\n"
    "from referee.runtime.process import make_workdir\n"
    "print(make_workdir(), flush=True)\n"
    "os.kill(os.getpid(), signal.SIGKILL)\n"
)
MAKE_AND_LIVE = (
    "from referee.runtime.process import make_workdir\nprint(make_workdir(), flush=True)\n"
)


def _python(code: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT, env=env, capture_output=True, text=True
    )


def test_a_killed_referees_directories_are_swept_by_the_next(tmp_path: Path) -> None:
    dead = _python(MAKE_AND_DIE, tmp_path)
    assert dead.returncode == -signal.SIGKILL
    left = Path(dead.stdout.strip())
    # Guard: nothing removed it (a SIGKILLed referee cannot clean up).
    assert left.is_dir() and left.parent == tmp_path
    mine = _python(MAKE_AND_LIVE, tmp_path)  # the next referee's first bot
    made = Path(mine.stdout.strip())
    assert not left.exists(), "the dead referee's directory is still there"
    assert made.is_dir()  # its own (its referee exited normally: swept next time)
    again = _python(MAKE_AND_LIVE, tmp_path)
    assert not made.exists() and Path(again.stdout.strip()).is_dir()


async def test_a_live_referees_directories_are_left_alone(tmp_path: Path) -> None:
    from referee.runtime import process

    ours = process.make_workdir()
    try:
        process.sweep_workdirs(ours.parent)
        assert ours.is_dir()
    finally:
        ours.rmdir()


@pytest.fixture(autouse=True)
def _no_fill_left() -> Iterator[None]:
    yield
    assert not list(Path("/tmp").glob(".arena-fill-*"))


async def test_unrelated_match_still_plays_under_the_filter(token: str) -> None:
    """An honest pair of bots plays a whole match under the filter."""
    record = await run_match(
        MatchSpec("liars_dice", (victim(token), victim(token)), seed=3, rules=RULES, match_id="k"),
        LIMITS,
    )
    assert not record.faults and record.outcome is not None
