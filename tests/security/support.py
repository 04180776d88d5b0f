"""Helpers for the hostile-bot tests: specs, matches, reports, process checks."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import signal
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from league.store.registry import add_bot
from referee.core.faults import FaultKind
from referee.records.record import MatchRecord
from referee.runtime import cgroups
from referee.runtime.launcher import FreshLauncher, Launcher, Lease, release, start_process
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig, referee_uids
from tests.e2e.conftest import EXAMPLE, assert_no_sandboxed_processes, module_bot, process_alive
from tests.security.hostile_bot import encode_config

LIMITS = Limits(decision_s=2.0, startup_s=20.0)
RULES = {"dice_per_player": "2"}
"""Short matches; the attacker still always gets a turn (seat 0 opens, or answers
the first bid: nobody can challenge before a bid)."""
HOSTILE_MODULE = "tests.security.hostile_bot"
PROJECT = Path(__file__).resolve().parents[2]
HOSTILE_SEAT = 0
VICTIM_SEAT = 1


QUIET_S = 30.0
"""How long a test that needs the host's cores to itself waits for other bots."""


def quiet_host(timeout: float = QUIET_S) -> list[str]:
    """Wait until no other bot group is on this host (at most ``timeout`` s): a test of
    who gets pinned where needs every core free (other referees' groups hold theirs,
    first come, first served). Returns the groups still there."""
    deadline = time.monotonic() + timeout
    while (left := cgroups.live_groups()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def new_token() -> str:
    return secrets.token_hex(6)


def hostile(attack: str, **config: Any) -> BotSpec:
    """The hostile bot running ``attack`` (config: fields of hostile_bot.Options)."""
    return module_bot(
        HOSTILE_MODULE, "--attack", attack, "--config", encode_config(**config), name="hostile"
    )


def victim(token: str, module: str = EXAMPLE["random"]) -> BotSpec:
    """An honest example bot whose command line carries ``token`` (the attacker's needle)."""
    return module_bot(module, f"--victim={token}", name="victim")


def reports(log: bytes) -> list[dict[str, Any]]:
    """Every ``ATTACK {json}`` line in a bot's captured output."""
    found = []
    for line in log.splitlines():
        if line.startswith(b"ATTACK "):
            found.append(json.loads(line[len(b"ATTACK ") :]))
    return found


def final_report(log: bytes) -> dict[str, Any]:
    """The attack's result (the last report; earlier ones announce phases)."""
    found = reports(log)
    assert found, f"the hostile bot reported nothing; its output ends: {log[-2000:]!r}"
    return found[-1]


@dataclass
class Played:
    record: MatchRecord
    logs: dict[int, bytes] = field(default_factory=dict)

    @property
    def report(self) -> dict[str, Any]:
        log = self.logs.get(HOSTILE_SEAT, b"")
        assert reports(log), (
            f"the hostile bot reported nothing (faults: {self.record.faults});"
            f" its output ends: {log[-2000:]!r}"
        )
        return final_report(log)

    def faults_of(self, seat: int) -> set[FaultKind]:
        return {f.kind for f in self.record.faults if f.seat == seat}


async def play(
    attacker: BotSpec,
    token: str,
    *,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
    launcher: Launcher | None = None,
    seed: int = 7,
    group: str = "",
    victim_module: str = EXAMPLE["random"],
    opponent: BotSpec | None = None,
) -> Played:
    """One Liar's Dice match: the attacker in seat 0, an honest example bot in seat 1."""
    logs: dict[int, bytes] = {}
    record = await run_match(
        MatchSpec(
            "liars_dice",
            (attacker, opponent or victim(token, victim_module)),
            seed=seed,
            rules=RULES,
            match_id=f"sec-{new_token()}",
            deal_group=group,
        ),
        LIMITS,
        launcher=launcher or FreshLauncher(sandbox=sandbox),
        logs=logs,
    )
    return Played(record, logs)


def assert_victim_unharmed(played: Played) -> None:
    victim_faults = played.faults_of(VICTIM_SEAT)
    assert not victim_faults, f"the honest bot was faulted: {played.record.faults}"
    assert played.record.seats[VICTIM_SEAT].ready


def assert_attacker_faults(played: Played, allowed: set[FaultKind]) -> None:
    kinds = played.faults_of(HOSTILE_SEAT)
    assert kinds <= allowed, f"attacker faulted {kinds}, allowed {allowed}: {played.record.faults}"


# -- processes ---------------------------------------------------------------------------


def _status(pid: int) -> dict[str, str]:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def own_sandboxed_processes() -> list[int]:
    """Live processes of the bots THIS referee process sandboxed, and its descendants.

    tests.e2e.conftest.sandboxed_processes (the uids this referee hands out, its
    bwrap children) plus every live descendant of this process, at any depth
    (bwrap's init, unsandboxed bots and their children), found by PPid links.
    """
    me = os.getpid()
    uids = referee_uids()
    parents: dict[int, int] = {}
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        status = _status(int(entry.name))
        if not status or status.get("State", "X")[:1] in ("Z", "X"):
            continue
        pid = int(entry.name)
        parents[pid] = int(status.get("PPid", "0"))
        uid = int(status.get("Uid", "0").split()[0])
        if uid in uids:
            found.append(pid)
    for pid in parents:
        ancestor, hops = parents[pid], 0
        while ancestor > 1 and ancestor != me and hops < 64:
            ancestor, hops = parents.get(ancestor, 0), hops + 1
        if ancestor == me and pid not in found:
            found.append(pid)
    return sorted(found)


def assert_no_processes_left() -> None:
    """Nothing the match started is still running (a moment's grace for reaping)."""
    deadline = time.monotonic() + 2.0
    left = own_sandboxed_processes()
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = own_sandboxed_processes()
    details = {pid: _status(pid).get("Name", "?") for pid in left}
    assert not left, f"processes left running after the match: {details}"
    assert_no_sandboxed_processes()


def pids_with(needle: str) -> list[int]:
    """Host processes whose command line contains ``needle`` (not this one)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if needle.encode() in cmdline and process_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5.0
    while any(process_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)


def wait_until(condition: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


# -- a launcher that measures logs ---------------------------------------------------------


class LogMeasuringLauncher:
    """FreshLauncher that, after stopping each bot, records its log file's size."""

    def __init__(self, sandbox: SandboxConfig) -> None:
        self.sandbox = sandbox
        self.log_sizes: dict[str, int] = {}

    @asynccontextmanager
    async def lease(
        self, spec: BotSpec, startup_s: float, *, group: str = "", last_of_deal: bool = True
    ) -> AsyncIterator[Lease]:
        leased = await start_process(spec, startup_s, sandbox=self.sandbox)
        try:
            yield leased
        finally:
            if leased.process is not None:
                await leased.process.stop()
                self.log_sizes[spec.name] = leased.process.log_size()
            await release(leased)


# -- the referee as a subprocess (guards where the referee itself is attacked) --------------


def referee_subprocess_argv(spec_path: Path) -> list[str]:
    return [sys.executable, "-m", "tests.security.referee_child", str(spec_path)]


def write_child_spec(
    path: Path, bots: list[BotSpec], *, record: Path, logs: Path, seed: int = 7
) -> None:
    path.write_text(
        json.dumps(
            {
                "bots": [{"name": b.name, "command": list(b.command)} for b in bots],
                "seed": seed,
                "rules": RULES,
                "record": str(record),
                "logs": str(logs),
                "decision_s": LIMITS.decision_s,
                "startup_s": LIMITS.startup_s,
            }
        )
    )


def add_unchecked(session: Any, spec: BotSpec, game: str) -> None:
    """Register ``spec`` for ``game`` without the pre-entry check (a test that plays it
    in a league of its own, at once)."""
    add_bot(
        session=session,
        name=spec.name,
        command=shlex.join(spec.command),
        games=[game],
    )
