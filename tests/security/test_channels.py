"""No channel between two sandboxes that run at once (issue: trust, round three).

A sender and a receiver (tests/security/channel_bot.py) are the two seats of one real
match, each in a sandbox of the default launcher, started together. Before serving,
they keep the same wall-clock slots: in each, the sender puts one bit on every kernel
object two sandboxes share — locks of each kind on a runtime file, watches on a
runtime directory, a futex in a mapped runtime file, host-wide counters in ``/proc``
and ``sysinfo``, the page cache of a runtime file, System V IPC, abstract unix
sockets — and the receiver reads each.

- The guard turns the protections off (no system-call filter, the host's ``/proc``,
  the host's IPC and network namespaces) and shows that bits get through on every
  channel: the test is not passing by attacking nothing.
- Locks and page-cache eviction are also driven through raw system calls with bit 32
  of the command or advice set (``fcntl_hi``, ``ofd_hi``, ``evict_hi``): the round-three
  filter compared all 64 bits and let them through; the allow list compares the 32
  the kernel reads.
- With the default sandbox, every channel either fails for the receiver (the call is
  refused) or reads the same value in every slot: not one bit crosses, whatever the
  bits were.

Timing channels (CPU contention, a read's latency) are not closed by any of this;
bench/timing_channel.py measures them and docs/security.md gives their rate.
"""

from __future__ import annotations

import json
import random
import secrets
import time
from dataclasses import replace
from typing import Any

import pytest

from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig
from tests.e2e.conftest import module_bot
from tests.security.channel_bot import ACTIONS, CHANNELS, encode_config
from tests.security.support import assert_no_processes_left, reports

pytestmark = pytest.mark.e2e

SLOTS = 24
SLOT_S = 0.5
MIN_SLOTS = 8
"""Slots both sides must have kept to judge a channel (a loaded host makes them late)."""
LEAD_S = 6.0
"""From the match's launch to the first slot: both sandboxes are up by then."""
LIMITS = Limits(decision_s=2.0, startup_s=LEAD_S + SLOTS * SLOT_S + 30.0)
UNPROTECTED = replace(
    DEFAULT_SANDBOX, seccomp=False, close_channels=False, ipc_net_namespaces=False
)
"""The sandbox without the protections this test is about (guard only): no system-call
filter (since round four an allow list, which refuses System V IPC outright as well as
the channel calls), the host's ``/proc``, the host's IPC and network namespaces."""

EXACT = (
    "fcntl",
    "ofd",
    "flock",
    "inotify",
    "futex",
    "nowait",
    "sysv",
    "abstract",
    "fcntl_hi",
    "ofd_hi",
    "evict_hi",
)
"""Channels with nothing else on them: the guard decodes nearly every bit (a loaded
host makes a side late now and then: at least 75% of the slots, measured at load 20)."""
NOISY = ("loadavg", "sysinfo", "file_nr", "meminfo", "stat")
"""Host-wide counters other tests move too: the guard decodes most bits (at least
60% each). Over all channels, at least 85% of the bits get through. Free memory
was the weak one (0.50-0.58 in CI) while the sender freed its block each slot: the
kernel's per-CPU page lists served the next block without MemFree moving. The sender
now keeps its blocks: 24 of 24 slots idle, 3 of 3 runs passed beside four busy loops."""
FALLING = ("meminfo",)
KERNEL_REFUSED = ("cachestat",)
"""Refused by the kernel itself to a bot, protections or not (``cachestat`` on a file
the caller may not write, like ``mincore``): the filter refuses it as well."""
"""Counters a 1 makes smaller."""


def balanced_bits(rng: random.Random) -> list[int]:
    bits = [1] * (SLOTS // 2) + [0] * (SLOTS - SLOTS // 2)
    rng.shuffle(bits)
    return bits


async def channel_session(sandbox: SandboxConfig) -> tuple[dict[str, list[int]], dict[str, Any]]:
    """One session: the bits sent per action, and the receiver's report."""
    token = secrets.token_hex(6)
    rng = random.Random(token)
    bits = {action: balanced_bits(rng) for action in ACTIONS}
    common = {"token": token, "start": time.time() + LEAD_S, "slot_s": SLOT_S, "slots": SLOTS}
    sender = module_bot(
        "tests.security.channel_bot",
        "--config",
        encode_config(role="send", bits=bits, **common),
        name="sender",
    )
    receiver = module_bot(
        "tests.security.channel_bot",
        "--config",
        encode_config(role="receive", **common),
        name="receiver",
    )
    logs: dict[int, bytes] = {}
    record = await run_match(
        MatchSpec(
            "liars_dice",
            (sender, receiver),
            seed=3,
            rules={"dice_per_player": "1"},
            match_id=f"chan-{token}",
        ),
        LIMITS,
        launcher=FreshLauncher(sandbox=sandbox),
        logs=logs,
    )
    assert not record.faults, f"a channel bot was faulted: {record.faults}"
    sent, received = (_report(logs.get(seat, b"")) for seat in (0, 1))
    assert "crash" not in sent and "crash" not in received, (sent, received)
    assert len(sent["slots"]) >= MIN_SLOTS, f"the sender missed most slots: {sent}"
    received["sent_slots"] = sent["slots"]
    received["sender_errors"] = sent["errors"]
    return bits, received


def _report(log: bytes) -> dict[str, Any]:
    found = reports(log)
    assert found, f"a channel bot reported nothing; its output ends: {log[-2000:]!r}"
    return found[-1]


def decode(channel: str, seen: list[list[Any]]) -> dict[int, int]:
    """The receiver's bit per slot: a flag as it is, a count ranked (the upper half
    of the values, or the lower half for a falling counter, are ones)."""
    values = {int(slot): value for slot, value in seen}
    if channel in EXACT or channel == "cachestat":
        return {slot: int(bool(value)) for slot, value in values.items()}
    ranked = sorted(values.values())
    if not ranked:
        return {}
    median = ranked[len(ranked) // 2]
    if channel in FALLING:
        return {slot: int(value < median) for slot, value in values.items()}
    return {slot: int(value >= median) for slot, value in values.items()}


def accuracy(bits: list[int], decoded: dict[int, int], slots: list[int]) -> tuple[float, int]:
    common = [slot for slot in slots if slot in decoded]
    if not common:
        return 0.0, 0
    right = sum(decoded[slot] == bits[slot] for slot in common)
    return right / len(common), len(common)


def summary(bits: dict[str, list[int]], received: dict[str, Any]) -> dict[str, Any]:
    rows = {}
    for channel, action in CHANNELS.items():
        seen = received["seen"][channel]
        score, count = accuracy(bits[action], decode(channel, seen), received["sent_slots"])
        rows[channel] = {
            "accuracy": round(score, 2),
            "slots": count,
            "distinct": len({json.dumps(value) for _, value in seen}),
            "error": received["errors"].get(channel),
        }
    return rows


@pytest.mark.serial  # reads shared counters: other tests' load was noise enough to fail it
async def test_channels_guard_bits_cross_without_the_protections() -> None:
    bits, received = await channel_session(UNPROTECTED)
    rows = summary(bits, received)
    failed = {}
    for channel in CHANNELS:
        row = rows[channel]
        if channel in KERNEL_REFUSED and row["error"] == "EPERM" and row["slots"] == 0:
            continue
        needed = 0.75 if channel in EXACT else 0.6
        if row["slots"] < MIN_SLOTS or row["accuracy"] < needed:
            failed[channel] = row
    assert not failed, f"channels that did not carry bits unprotected: {failed}; all: {rows}"
    carried = [rows[c]["accuracy"] for c in CHANNELS if c not in KERNEL_REFUSED]
    assert sum(carried) / len(carried) >= 0.85, f"too few bits got through: {rows}"
    assert_no_processes_left()


@pytest.mark.refused_calls  # System V IPC, asked for by the sender, is on no allow list
async def test_channels_carry_nothing_between_default_sandboxes() -> None:
    bits, received = await channel_session(DEFAULT_SANDBOX)
    rows = summary(bits, received)
    leaking = {}
    for channel in CHANNELS:
        row = rows[channel]
        if row["error"] is not None and row["slots"] == 0:
            continue  # refused: the receiver learns nothing
        if row["slots"] < MIN_SLOTS:
            leaking[channel] = {**row, "why": "too few slots read to judge"}
        elif row["distinct"] > 1:
            leaking[channel] = {**row, "why": "the value moved"}
    assert not leaking, f"channels that moved between sandboxes: {leaking}; all: {rows}"
    assert_no_processes_left()
