"""Every test: no bot process this test process started may outlive the test,
nor any kernel key of its bots' uids, control group or private directory.

A leaked bot is a bug (a pool not closed, a lease lost on cancellation), and left
alone it fails whichever later test checks for leftover processes, far from its
cause. So each test is checked when it ends: its leftovers are named (with their
command lines) against the test that left them, and killed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.runtime import cgroups, owners
from referee.runtime.sandbox import referee_uids
from referee.runtime.seccomp_notify import JOURNAL_VARIABLE
from tests import game_plugins

EXPECTED_S = {"slow": 20.0, "e2e": 4.0}
"""A rough cost per test by its marks (else :data:`UNMARKED_S`), to order the files."""
UNMARKED_S = 0.2


_GAMES_SITE: list[Path] = []


def pytest_configure(config: pytest.Config) -> None:
    """Install the toy games of tests/game_plugins for this session, as entry points
    (:func:`tests.game_plugins.install`), before anything lists the games."""
    site = Path(tempfile.mkdtemp(prefix="arena-test-games-"))
    os.chmod(site, 0o755)  # sandboxed bots, other users, read it
    _GAMES_SITE.append(game_plugins.install(site))
    # Every call the sandbox refuses a bot by default is noted here too, by this
    # process and the arena commands and servers it starts (no_refused_calls).
    journal = Path(tempfile.mkdtemp(prefix="arena-test-refusals-")) / "journal"
    os.environ[JOURNAL_VARIABLE] = str(journal)
    _GAMES_SITE.append(journal.parent)


def pytest_unconfigure(config: pytest.Config) -> None:
    for site in _GAMES_SITE:
        shutil.rmtree(site, ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The costliest files first (by :data:`EXPECTED_S`), each file's tests in their order.

    ``make pytest`` hands whole files to its workers in collection order
    (``--dist loadfile --no-loadscope-reorder``). By default pytest-xdist orders them
    by their number of tests, which put the many-test unit files first and the long
    end-to-end files (the README, the exploitability tests) last, where one worker
    played them for minutes while the other had nothing left."""
    cost: dict[str, float] = {}
    for item in items:
        name = item.nodeid.split("::", 1)[0]
        each = next(
            (s for mark, s in EXPECTED_S.items() if item.get_closest_marker(mark)), UNMARKED_S
        )
        cost[name] = cost.get(name, 0.0) + each
    items.sort(key=lambda item: -cost[item.nodeid.split("::", 1)[0]])


def own_bots() -> dict[int, str]:
    """Live bots of this process: unsandboxed ones by the referee pid in their
    environment, sandboxed ones by the uids this process hands out."""
    me = os.getpid()
    marker = f"ARENA_REFEREE_PID={me}".encode()
    uids = referee_uids(me)
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            status = (entry / "status").read_text()
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            if fields.get("State", "").strip()[:1] in ("Z", "X"):
                continue
            uid = int(fields.get("Uid", "0").split()[0])
            ours = uid in uids
            if not ours:
                ours = marker in (entry / "environ").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if ours:
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                command = "?"
            found[int(entry.name)] = command.strip()[:200]
    return found


def own_keys() -> dict[int, int]:
    """Uid -> number of kernel keys, for the uids this process gives its bots
    (``/proc/key-users``: one line per uid holding keys)."""
    uids = referee_uids(os.getpid())
    found: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/key-users").read_text().splitlines():
            uid, _, rest = line.partition(":")
            fields = rest.split()
            if uid.strip().isdigit() and int(uid) in uids and len(fields) >= 2:
                keys = int(fields[1].split("/")[0])
                if keys:
                    found[int(uid)] = keys
    return found


def own_cgroups() -> list[str]:
    """This process's bot control groups (``bot-PID.START-*``) still in the hierarchy."""
    parents = [cgroups.ROOT / cgroups.GROUP]
    parents += [cgroups.ROOT / c / cgroups.GROUP for c in ("memory", "pids", "cpu", "cpuset")]
    found: list[str] = []
    for parent in parents:
        with contextlib.suppress(OSError):
            found += [str(p) for p in parent.glob(f"bot-{owners.own_tag()}-*") if p.is_dir()]
    return sorted(found)


def own_workdirs() -> list[str]:
    """This process's bot directories (``arena-bot-PID.START-*``) still on disk (not
    its view of /proc, ``-view-``, which lives as long as the referee process)."""
    base = Path(tempfile.gettempdir())
    found = base.glob(f"arena-bot-{os.getpid()}.*")
    return sorted(str(p) for p in found if "-view-" not in p.name)


def _journal_size() -> int:
    try:
        return Path(os.environ[JOURNAL_VARIABLE]).stat().st_size
    except (KeyError, OSError):
        return 0


@pytest.fixture(autouse=True)
def no_refused_calls(request: pytest.FixtureRequest) -> Iterator[None]:
    """No bot of a test met a system call the sandbox refuses by default (the allow
    list covers every bot the suite runs), unless the test is marked ``refused_calls``
    (its bot makes such calls on purpose)."""
    start = _journal_size()
    yield
    if request.node.get_closest_marker("refused_calls") is not None:
        return
    if _journal_size() > start:
        with open(os.environ[JOURNAL_VARIABLE], "rb") as journal:
            journal.seek(start)
            notes = journal.read().decode(errors="replace")
        pytest.fail(f"{request.node.nodeid}: the sandbox refused a bot's calls:\n{notes}")


@pytest.fixture(autouse=True)
def no_bot_outlives_its_test(request: pytest.FixtureRequest) -> Iterator[None]:
    keys_before = own_keys()  # a uid's user keyrings, once made, outlive every process
    yield
    deadline = time.monotonic() + 5.0  # bots being stopped get a moment to go
    left = own_bots()
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = own_bots()
    if left:
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        pytest.fail(f"{request.node.nodeid} left bot processes running: {left}")

    def new_keys() -> dict[int, int]:
        return {u: n for u, n in own_keys().items() if n > keys_before.get(u, 0)}

    keys = new_keys()
    while keys and time.monotonic() < deadline + 5.0:  # the key collector runs apart
        time.sleep(0.1)
        keys = new_keys()
    if keys:
        pytest.fail(f"{request.node.nodeid} left kernel keys of bot uids (uid: keys): {keys}")
    groups = own_cgroups()
    if groups:
        for path in groups:
            with contextlib.suppress(OSError):
                os.rmdir(path)
        pytest.fail(f"{request.node.nodeid} left bot control groups: {groups}")
    workdirs = own_workdirs()
    if workdirs:
        for path in workdirs:
            shutil.rmtree(path, ignore_errors=True)
        pytest.fail(f"{request.node.nodeid} left bot directories: {workdirs}")
