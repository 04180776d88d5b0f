"""Helpers for end-to-end tests: real bot processes, real gRPC."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from referee.runtime.process import BotSpec
from referee.runtime.sandbox import referee_uids

EXAMPLE = {
    "random": "example_bots.liars_dice_random",
    "probability": "example_bots.liars_dice_probability",
}


def module_bot(module: str, *args: str, name: str | None = None) -> BotSpec:
    return BotSpec(
        name=name or module.rsplit(".", 1)[-1], command=(sys.executable, "-m", module, *args)
    )


def misbehaving(mode: str, after: int = 1) -> BotSpec:
    return module_bot(
        "tests.bots.misbehaving", "--mode", mode, "--after", str(after), name=f"bad-{mode}"
    )


def process_alive(pid: int) -> bool:
    """True if ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


@pytest.fixture
def pidfile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "pids"
    path.write_text("")
    monkeypatch.setenv("ARENA_TEST_PIDFILE", str(path))
    return path


def recorded_pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()]


def assert_all_gone(path: Path, within_s: float = 5.0) -> None:
    """Every pid the bot recorded is gone, at the latest ``within_s`` after the call:
    a SIGKILL takes effect when the killed process next runs, which on a loaded host
    (the parallel suite) can be after the referee returns."""
    pids = recorded_pids(path)
    assert pids, "the bot never recorded its pid"
    deadline = time.monotonic() + within_s
    while (alive := [pid for pid in pids if process_alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive, f"processes left running: {alive}"
    for pid in pids:
        if process_alive(pid):  # pragma: no cover - cleanup after a failure
            os.kill(pid, 9)


def sandboxed_processes(referee_pid: int | None = None, uids: range | None = None) -> list[int]:
    """Live processes of bots sandboxed by the referee ``referee_pid`` (default: this
    process): processes with the uids it hands out (``uids``, read while it lives:
    a dead referee's block is no longer known), and bwrap processes it started."""
    referee = os.getpid() if referee_pid is None else referee_pid
    uids = referee_uids(referee) if uids is None else uids
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = dict(
                line.split(":", 1) for line in (entry / "status").read_text().splitlines()
            )
        except (OSError, ValueError):
            continue
        uid = int(status.get("Uid", "0").split()[0])
        state = status.get("State", "").strip()[:1]
        ours = status.get("Name", "").strip() == "bwrap" and int(status["PPid"]) == referee
        if (uid in uids or ours) and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def assert_no_sandboxed_processes(referee_pid: int | None = None) -> None:
    left = sandboxed_processes(referee_pid)
    assert not left, f"sandboxed processes left running: {left}"
