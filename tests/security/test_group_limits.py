"""A bot is bounded as a whole, not only per process (control groups).

rlimits are per process: four children of 200 MiB each pass a 256 MiB address-
space limit, and four spinning children use every core. The bot's control group
bounds its whole tree: memory in all (the kernel's OOM killer acts inside the
group only), tasks, and CPU bandwidth. Each attack is a real bot process in a real
match; the guards run it with ``cgroup=False`` (rlimits only) and show it works.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.core.faults import FaultKind
from referee.records.record import MatchRecord
from referee.runtime import cgroups
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import SandboxConfig
from tests.conftest import own_cgroups
from tests.e2e.conftest import assert_no_sandboxed_processes, module_bot, process_alive
from tests.security.support import quiet_host

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.serial,  # the guards measure how many cores the children get
    pytest.mark.skipif(
        cgroups.available() is not None,
        reason=f"control groups unavailable here: {cgroups.available()}",
    ),
]

ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits(decision_s=15.0, startup_s=20.0)
RANDOM = BotSpec("random", command=(sys.executable, "-m", "example_bots.liars_dice_random"))


async def hog_match(sandbox: SandboxConfig, *args: str) -> tuple[MatchRecord, dict[str, float]]:
    attacker = module_bot("tests.security.group_hog", *args, name="hog")
    logs: dict[int, bytes] = {}
    record = await run_match(
        MatchSpec("liars_dice", (attacker, RANDOM), seed=5, rules={"roll_off": "false"}),
        LIMITS,
        launcher=FreshLauncher(sandbox=sandbox),
        logs=logs,
    )
    lines = [line for line in logs.get(0, b"").splitlines() if line.startswith(b"HOG ")]
    assert lines, f"the hog reported nothing: {record.faults} {logs.get(0, b'')[-1500:]!r}"
    return record, json.loads(lines[-1][4:])


def assert_only_attacker_faulted(record: MatchRecord) -> None:
    assert all(f.seat == 0 for f in record.faults), record.faults
    assert {f.kind for f in record.faults} <= {FaultKind.CRASH}, record.faults


MEMORY = SandboxConfig(memory_mb=384, max_procs=64)


async def test_children_share_one_memory_limit() -> None:
    record, report = await hog_match(MEMORY, "--attack", "memory", "--children", "4")
    # 4 x 200 MiB > 384 MiB in all: the kernel kills inside the group.
    assert report["ok"] < 4 and report["killed"] + report["refused"] >= 1, report
    assert_only_attacker_faulted(record)
    assert_no_sandboxed_processes()


async def test_guard_children_each_get_the_limit_without_a_group() -> None:
    sandbox = SandboxConfig(memory_mb=384, max_procs=64, cgroup=False)
    record, report = await hog_match(sandbox, "--attack", "memory", "--children", "4")
    assert report["ok"] == 4, report
    assert record.reason == "completed", record.faults
    assert_no_sandboxed_processes()


async def test_children_share_one_cpu_budget() -> None:
    sandbox = SandboxConfig(cpus=0.25)
    record, report = await hog_match(sandbox, "--attack", "cpu", "--children", "4")
    # At most a quarter of a core over the wall time (plus scheduler slack).
    assert report["cpu_s"] <= 0.25 * report["wall_s"] + 0.35, report
    assert_only_attacker_faulted(record)
    assert_no_sandboxed_processes()


async def test_guard_children_use_many_cores_without_a_group() -> None:
    sandbox = SandboxConfig(cpus=0.25, cgroup=False)
    _, report = await hog_match(sandbox, "--attack", "cpu", "--children", "4")
    assert report["cpu_s"] > 2 * (0.25 * report["wall_s"] + 0.35), report
    assert_no_sandboxed_processes()


def test_control_groups_are_removed_with_their_bots() -> None:
    assert own_cgroups() == []


def stale_groups(*owners: str, suffix: str = "") -> list[Path]:
    """Empty bot groups named as if made by each of ``owners``, beside a real one's."""
    group = cgroups.create(memory_mb=64, max_tasks=8, cpus=1.0)
    stale = [
        path.with_name(f"bot-{owner}-feed{suffix}") for owner in owners for path in group.paths
    ]
    group.remove()
    for path in stale:
        path.mkdir()
    return stale


DEAD_PID = 2**22 + 12345
"""Above pid_max on any default kernel: never a live process."""
REUSED = f"{os.getpid()}.1"
"""A dead referee whose pid this test process now has (it did not start at tick 1)."""


def test_groups_of_dead_referees_are_swept() -> None:
    stale = stale_groups(str(DEAD_PID), f"{DEAD_PID}.77", REUSED)
    try:
        assert cgroups.sweep_stale() >= len(stale)
        assert not any(path.exists() for path in stale), stale
    finally:
        for path in stale:
            if path.exists():
                path.rmdir()


def test_a_dead_referees_pinned_group_holds_no_core() -> None:
    """A killed referee's pinned group whose pid a live process now has (pids wrap at
    32768 here) would keep every later bot off that core: it is stale, not live."""
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        pytest.skip("pinning needs two cores")
    if others := quiet_host():
        pytest.skip(f"other referees' bots hold cores on this host: {others}")
    stale = stale_groups(REUSED, suffix=cgroups.PIN_MARK + "_".join(map(str, usable)))
    groups = []
    try:
        groups = [cgroups.create(memory_mb=64, max_tasks=8, cpus=1.0) for _ in usable]
        names = [path.name for group in groups for path in group.paths]
        pinned = [n.rpartition(cgroups.PIN_MARK)[2] for n in names if cgroups.PIN_MARK in n]
        assert sorted(set(pinned)) == [str(core) for core in usable], names
    finally:
        for group in groups:
            group.remove()
        for path in stale:
            if path.exists():
                path.rmdir()


FAKE_REFEREE = """
import subprocess, sys
from referee.runtime import cgroups
group = cgroups.create(memory_mb=64, max_tasks=8, cpus=1.0)
orphan = subprocess.Popen(["sleep", "300"], start_new_session=True, stdout=subprocess.DEVNULL)
group.add(orphan.pid)
print(orphan.pid, flush=True)
sys.stdin.read()
"""


def test_what_a_dead_referees_group_still_holds_is_ended() -> None:
    """A sandbox whose referee died before either death signal or the lifeline's
    watcher was in place (bubblewrap's namespace init, still waiting for its parent)
    outlives it. Its group says whose it was: the next referee to make a group kills
    what it holds, so it neither runs on nor keeps a core."""
    referee = subprocess.Popen(
        [sys.executable, "-c", FAKE_REFEREE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert referee.stdout is not None
    orphan = int(referee.stdout.readline())
    referee.kill()
    referee.communicate()
    try:
        time.sleep(0.2)
        assert process_alive(orphan), "guard: nothing else ends it"
        cgroups.create(memory_mb=64, max_tasks=8, cpus=1.0).remove()
        deadline = time.monotonic() + 10
        while process_alive(orphan) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not process_alive(orphan)
        cgroups.sweep_stale()
        assert not [p for p in own_cgroups_of(referee.pid)], own_cgroups_of(referee.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(orphan, signal.SIGKILL)


def own_cgroups_of(pid: int) -> list[str]:
    """Bot groups (any hierarchy) that the referee ``pid`` made."""
    tag = f"bot-{pid}."
    found = []
    for parent in [cgroups.ROOT / cgroups.GROUP] + [
        cgroups.ROOT / c / cgroups.GROUP for c in ("memory", "pids", "cpu", "cpuset")
    ]:
        with contextlib.suppress(OSError):
            found += [str(p) for p in parent.iterdir() if p.name.startswith(tag)]
    return found
