"""Covert timing channels between two sandboxes: the bit rate they reach here.

    python -m bench.timing_channel [--quick] [--json build/timing_channel.json]

The sandbox closes every channel it can name; what two bots running at the same
time still share is the machine: cores, memory bandwidth and cache, and the page
cache of the read-only files every sandbox sees. This bench starts a sender and a
receiver (``tests/security/timing_bot.py``, an ordinary SDK bot) in two sandboxes of
the default launcher (``referee.runtime.launcher.start_process`` with the default
``SandboxConfig``, so the default CPU plan of ``referee.runtime.cpu_share`` places them),
has the sender send a known preamble and a random bit string on each channel at
several slot lengths, decodes the receiver's measurements, and reports per channel
and placement: the bit error rate, the raw rate (bits sent per second) and the
capacity of a binary symmetric channel with that error rate
(``(1 − H(p)) × raw rate``, counted as nothing when ``p`` ≥ 0.5).

Placements:

- ``apart``: the default CPU plan as it is on this host (with enough free cores,
  each bot is pinned to a core of its own);
- ``shared``: the same plan when the referee has one core (``sched_setaffinity`` of
  the referee while the two bots start): the first bot is pinned to it, the second
  finds no free core and gets the scarce rule's bandwidth cap on the same core —
  what every bot gets on a host whose live bots outnumber its cores.

Decoding: the first ``PREAMBLE`` bits are known; the midpoint of the medians of
the receiver's values for the preamble's ones and zeros is the threshold, and which
side is "1" comes from the preamble too. Errors are counted over the random payload
only. Every number printed is measured in this run; nothing is assumed.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import datetime
import json
import math
import os
import platform
import secrets
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import trio

from referee.runtime import cgroups
from referee.runtime.launcher import Lease, release, start_process
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX

PREAMBLE = "1010011001011010"
"""Known bits sent first on every channel: the receiver's calibration."""
PLACEMENTS = ("apart", "shared")
HAND_DICE = 5
"""Liar's Dice's default dice per player: a hand is ``HAND_DICE × log2(6)`` bits."""
HAND_BITS = HAND_DICE * math.log2(6)
CHANNELS = ("cpu", "membw", "pagecache", "pagecache-fresh", "pagecache-probe")
"""The channels of ``tests/security/timing_bot.py`` (its docstring says what each does)."""


@dataclass(frozen=True, slots=True)
class Sizes:
    payload_bits: int
    """Random bits after the preamble (more when ``least_slots`` needs them)."""
    least_slots: int
    """Slots per experiment at least: a wide page-cache setting sends more bits, so
    that every setting is measured across slot changes (the sender's undoing of
    the previous slot is part of the channel)."""
    quiet_s: float
    """How long each placement waits for other referees' bot groups to go."""
    settings: dict[str, tuple[tuple[float, int], ...]]
    """(slot length in ms, bits per slot) tried per channel. Only the page-cache
    channels carry more than one bit per slot (a page each)."""


FULL = Sizes(
    payload_bits=240,
    least_slots=8,
    quiet_s=30.0,
    settings={
        "cpu": ((50.0, 1), (20.0, 1), (10.0, 1), (5.0, 1)),
        "membw": ((50.0, 1), (20.0, 1), (10.0, 1)),
        "pagecache": ((10.0, 1), (5.0, 1), (2.0, 1), (10.0, 8)),
        "pagecache-fresh": ((10.0, 1), (5.0, 1), (10.0, 4)),
        "pagecache-probe": (
            (5.0, 1),
            (2.0, 1),
            (10.0, 64),
            (5.0, 64),
            (20.0, 256),
            (10.0, 256),
            (10.0, 384),
        ),
    },
)
QUICK = Sizes(
    payload_bits=48,
    least_slots=4,
    quiet_s=2.0,
    settings={
        "cpu": ((20.0, 1),),
        "membw": ((20.0, 1),),
        "pagecache": ((5.0, 1), (10.0, 8)),
        "pagecache-fresh": ((5.0, 1),),
        "pagecache-probe": ((2.0, 1), (10.0, 64)),
    },
)
PAGE_SPACING = 256 << 10
"""The bot's ``FRESH_SPACING``: the shared file needs this many bytes per page used."""
GAP_S = 0.15
"""Pause between two experiments of a schedule."""
START_MARGIN_S = 4.0
"""Time from launching the two bots to slot 0 (both must be up and ready by then)."""
STARTUP_S = 30.0
FILE_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/usr/bin")


def shared_file(least: int) -> str:
    """The largest regular file directly in a standard system directory (every
    sandbox sees ``/usr`` read-only, the same inodes as the host): ``""`` if none
    has ``least`` bytes."""
    best, size = "", least - 1
    for directory in FILE_DIRS:
        with contextlib.suppress(OSError), os.scandir(directory) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.is_file(follow_symlinks=False) and entry.stat().st_size > size:
                        best, size = entry.path, entry.stat().st_size
    return best


def evict(path: str) -> None:
    """Drop ``path``'s clean pages from the page cache (from the host, before the
    ``pagecache-fresh`` experiments: a file nobody has read lately)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def binary_entropy(p: float) -> float:
    if p <= 0 or p >= 1:
        return 0.0
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


@dataclass(frozen=True, slots=True)
class Result:
    placement: str
    channel: str
    slot_ms: float
    width: int
    payload_bits: int
    errors: int | None
    """None: not measured (``why`` says why)."""
    late_slots: int = 0
    one_median: float | None = None
    zero_median: float | None = None
    why: str = ""

    @property
    def raw_bps(self) -> float:
        return self.width * 1000.0 / self.slot_ms

    @property
    def ber(self) -> float | None:
        return None if self.errors is None else self.errors / self.payload_bits

    @property
    def capacity_bps(self) -> float | None:
        """``(1 − H(p)) × raw rate``; nothing when the decoder got half or more wrong
        (a receiver cannot know that its calibration flipped, so it gains nothing)."""
        ber = self.ber
        if ber is None:
            return None
        return (1 - binary_entropy(ber)) * self.raw_bps if ber < 0.5 else 0.0

    def to_json(self) -> dict[str, Any]:
        extra = {"raw_bps": self.raw_bps, "ber": self.ber, "capacity_bps": self.capacity_bps}
        return {**asdict(self), **extra}


DETRENDED = ("cpu", "membw")
"""Channels whose values drift with the machine's other load: each value is taken
relative to the median of the ``WINDOW`` values around it before the threshold."""
WINDOW = 16


def detrend(values: Sequence[float]) -> list[float]:
    half = WINDOW // 2
    return [
        value - statistics.median(values[max(0, i - half) : i + half + 1])
        for i, value in enumerate(values)
    ]


def decode(values: Sequence[float]) -> tuple[list[int], float, float]:
    """Bits from the receiver's values, calibrated on the preamble: (bits, median of
    the preamble's ones, of its zeros)."""
    ones = [v for v, bit in zip(values, PREAMBLE, strict=False) if bit == "1"]
    zeros = [v for v, bit in zip(values, PREAMBLE, strict=False) if bit == "0"]
    high, low = statistics.median(ones), statistics.median(zeros)
    threshold = (high + low) / 2
    return [int((value > threshold) == (high > low)) for value in values], high, low


def score(placement: str, sent: str, report: dict[str, Any], sender_late: int) -> Result:
    """The receiver's report of one experiment against the bits sent."""
    channel, slot_ms, width = str(report["channel"]), float(report["slot_ms"]), report["width"]
    payload = len(sent) - len(PREAMBLE)
    if "error" in report or "values" not in report:
        why = str(report.get("error"))
        return Result(placement, channel, slot_ms, width, payload, None, why=why)
    values = report["values"]
    bits, high, low = decode(detrend(values) if channel in DETRENDED else values)
    errors = sum(
        int(bit != int(want))
        for bit, want in zip(bits[len(PREAMBLE) :], sent[len(PREAMBLE) :], strict=True)
    )
    late = int(report.get("late", 0)) + sender_late
    return Result(placement, channel, slot_ms, width, payload, errors, late, high, low)


@dataclass
class Schedule:
    """What both ends run: experiments back to back from a common start."""

    start: float
    file: str
    seed: int
    experiments: list[dict[str, Any]] = field(default_factory=list)
    bits: list[str] = field(default_factory=list)

    @property
    def end(self) -> float:
        last = self.experiments[-1]
        return float(last["start"] + last["slot_s"] * last["slots"])

    def plan(self, role: str) -> dict[str, Any]:
        experiments = [
            {**experiment, "bits": bits if role == "sender" else ""}
            for experiment, bits in zip(self.experiments, self.bits, strict=True)
        ]
        return {"file": self.file, "seed": self.seed, "experiments": experiments}


def make_schedule(sizes: Sizes, start: float, file: str) -> Schedule:
    seed = secrets.randbits(32)
    schedule = Schedule(start, file, seed)
    at = start
    for channel in CHANNELS:
        if channel.startswith("pagecache") and not file:
            continue
        for slot_ms, width in sizes.settings.get(channel, ()):
            slots = max(sizes.least_slots, -(-(len(PREAMBLE) + sizes.payload_bits) // width))
            payload = "".join(secrets.choice("01") for _ in range(slots * width - len(PREAMBLE)))
            slot_s = slot_ms / 1000
            schedule.experiments.append(
                {
                    "channel": channel,
                    "start": at,
                    "slot_s": slot_s,
                    "slots": slots,
                    "width": width,
                    "page_seed": secrets.randbits(32),
                }
            )
            schedule.bits.append(PREAMBLE + payload)
            at += slot_s * slots + GAP_S
    return schedule


def encode_plan(plan: dict[str, Any]) -> str:
    """A plan as one command-line word (the bot decodes it)."""
    return base64.urlsafe_b64encode(json.dumps(plan).encode()).decode()


def timing_bot(role: str, plan: dict[str, Any]) -> BotSpec:
    argv = ("-m", "tests.security.timing_bot", "--role", role, "--plan", encode_plan(plan))
    return BotSpec(f"timing-{role}", command=(sys.executable, *argv))


def lines(log: bytes, kind: str) -> list[dict[str, Any]]:
    prefix = kind.encode() + b" "
    return [json.loads(line[len(prefix) :]) for line in log.splitlines() if line.startswith(prefix)]


@contextlib.contextmanager
def referee_on_one_core(placement: str) -> Iterator[None]:
    """For ``shared``: the referee has one core while its bots' groups are made."""
    if placement != "shared":
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


async def quiet_host(timeout: float) -> int:
    """Wait (at most ``timeout`` s) until no other bot group is on this host (they
    hold cores, first come, first served: ``apart`` needs two free ones); how many
    are left."""
    deadline = time.monotonic() + timeout
    while (left := len(cgroups.live_groups())) and time.monotonic() < deadline:
        await trio.sleep(0.2)
    return left


def cpu_of(lease: Lease) -> str:
    """Where the bot's control group lets it run and its bandwidth cap (host side)."""
    group = lease.process.cgroup if lease.process else None
    if group is None:
        return "no control group"
    cores, quota = "all", "none"
    for path in group.paths:
        for name in ("cpuset.cpus",):
            with contextlib.suppress(OSError):
                cores = (path / name).read_text().strip() or cores
        with contextlib.suppress(OSError, ValueError):
            quota = f"{int((path / 'cpu.cfs_quota_us').read_text()) / cgroups.CFS_PERIOD_US:g}"
        with contextlib.suppress(OSError, ValueError):
            limit, period = (path / "cpu.max").read_text().split()
            quota = f"{int(limit) / int(period):g}" if limit != "max" else "none"
    return f"core {cores}, cap {quota}"


@dataclass
class PlacementRun:
    placement: str
    results: list[Result]
    cpu: dict[str, str]
    caps: dict[str, Any]
    cores_inside: dict[str, list[int]]
    ready_late_s: float
    others: int
    """Other referees' bot groups still on the host when the bots started."""


async def run_placement(placement: str, sizes: Sizes, file: str) -> PlacementRun:
    """Start receiver then sender (the receiver's group is made first), run the
    schedule, collect and score."""
    others = await quiet_host(sizes.quiet_s)
    schedule = make_schedule(sizes, time.time() + START_MARGIN_S, file)
    if file:
        evict(file)
    leases: dict[str, Lease] = {}
    try:
        with referee_on_one_core(placement):
            for role in ("receiver", "sender"):
                spec = timing_bot(role, schedule.plan(role))
                leases[role] = await start_process(spec, STARTUP_S, sandbox=DEFAULT_SANDBOX)
        deadline = schedule.end + 20.0
        while time.time() < deadline:
            if all(lines(lease.log(), "TIMING-DONE") for lease in leases.values()):
                break
            if any(lease.has_exited() for lease in leases.values()):
                break
            await trio.sleep(0.2)
        logs = {role: lease.log(1 << 22) for role, lease in leases.items()}
        cpu = {role: cpu_of(lease) for role, lease in leases.items()}
    finally:
        for lease in leases.values():
            await release(lease)
    for role, log in logs.items():
        if not lines(log, "TIMING-DONE"):
            raise RuntimeError(f"the {role} did not finish; its output ends: {log[-1500:]!r}")
    # A bot ready after slot 0 (a very loaded host) reaches its first slots late:
    # they are counted as late, and decoded like the others.
    ready = [line["at"] for log in logs.values() for line in lines(log, "TIMING-READY")]
    ready_late_s = max(0.0, max(ready) - schedule.start)
    received = lines(logs["receiver"], "TIMING")
    sent = lines(logs["sender"], "TIMING")
    if len(received) != len(schedule.experiments) or len(sent) != len(received):
        raise RuntimeError(
            f"{len(schedule.experiments)} experiments planned, the receiver reported"
            f" {len(received)} and the sender {len(sent)}"
        )
    results = [
        score(placement, bits, report, int(sender.get("late", 0)))
        for bits, report, sender in zip(schedule.bits, received, sent, strict=True)
    ]
    caps = (lines(logs["receiver"], "TIMING-CAPS") or [{}])[0]
    inside = {role: lines(log, "TIMING-DONE")[0]["cores"] for role, log in logs.items()}
    return PlacementRun(placement, results, cpu, caps, inside, ready_late_s, others)


def best(results: Sequence[Result]) -> dict[tuple[str, str], Result]:
    """The slot length of highest capacity per (placement, channel)."""
    chosen: dict[tuple[str, str], Result] = {}
    for result in results:
        if result.capacity_bps is None:
            continue
        key = (result.placement, result.channel)
        held = chosen.get(key)
        if held is None or (held.capacity_bps or 0) < result.capacity_bps:
            chosen[key] = result
    return chosen


def _number(value: float | None, digits: str = ".3g") -> str:
    return "—" if value is None else format(value, digits)


def format_results(results: Sequence[Result]) -> str:
    headers = (
        "placement",
        "channel",
        "slot ms",
        "bits/slot",
        "raw bit/s",
        "errors",
        "BER",
        "capacity bit/s",
        "late",
        "median 1 / 0",
    )
    rows = [
        (
            r.placement,
            r.channel,
            f"{r.slot_ms:g}",
            str(r.width),
            f"{r.raw_bps:g}",
            "—" if r.errors is None else f"{r.errors}/{r.payload_bits}",
            _number(r.ber, ".3f"),
            _number(r.capacity_bps, ".1f"),
            str(r.late_slots),
            r.why or f"{_number(r.one_median)} / {_number(r.zero_median)}",
        )
        for r in results
    ]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(out)


def load() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return "unknown"


def measure(sizes: Sizes, placements: Sequence[str] = PLACEMENTS) -> dict[str, Any]:
    """Run every placement; the results and what the run saw, as JSON-ready data."""
    fresh = max((w for _, w in sizes.settings.get("pagecache-fresh", ())), default=0)
    widest = max(w for settings in sizes.settings.values() for _, w in settings)
    fresh_bits = max(len(PREAMBLE) + sizes.payload_bits + fresh, sizes.least_slots * fresh)
    pages = max(fresh_bits, widest) + 2
    file = shared_file(least=pages * PAGE_SPACING)
    meta: dict[str, Any] = {
        "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "load_before": load(),
        "cpus": os.cpu_count(),
        "affinity": sorted(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "kernel": platform.release(),
        "file": file,
        "cgroups": cgroups.available() or "available",
    }
    runs = [trio.run(run_placement, placement, sizes, file) for placement in placements]
    meta["load_after"] = load()
    results = [result for run in runs for result in run.results]
    return {
        "meta": meta,
        "placements": {
            run.placement: {
                "cpu": run.cpu,
                "cores_inside": run.cores_inside,
                "ready_late_s": run.ready_late_s,
                "other_bot_groups": run.others,
            }
            for run in runs
        },
        "caps": next((run.caps for run in runs if run.caps), {}),
        "results": results,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.timing_channel", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="fewer bits and slot lengths")
    parser.add_argument("--placements", default=",".join(PLACEMENTS))
    parser.add_argument("--json", type=Path, default=Path("build/timing_channel.json"))
    options = parser.parse_args(argv)
    placements = [p.strip() for p in options.placements.split(",") if p.strip()]
    if unknown := set(placements) - set(PLACEMENTS):
        parser.error(f"unknown placements {sorted(unknown)}; choose from {PLACEMENTS}")
    # The bots run `python -m tests.security.timing_bot` from the checkout.
    root = str(Path(__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH", "")) if p
    )
    began = time.perf_counter()
    measured = measure(QUICK if options.quick else FULL, placements)
    meta, results = measured["meta"], measured["results"]
    meta["command"] = " ".join(["python -m bench.timing_channel", *(argv or sys.argv[1:])])
    meta["seconds"] = round(time.perf_counter() - began, 1)
    print(format_results(results))
    print("\nbest slot length per channel and placement (capacity):")
    print(format_results(list(best(results).values())))
    for placement, where in measured["placements"].items():
        late = f"; ready {where['ready_late_s']:.2f} s late" if where["ready_late_s"] else ""
        late += f"; {where['other_bot_groups']} other bot groups on the host"
        print(
            f"{placement}: "
            + "; ".join(f"{role} {cpu}" for role, cpu in where["cpu"].items())
            + late
        )
    top = max(results, key=lambda r: r.capacity_bps or 0.0, default=None)
    if top is not None and top.capacity_bps is not None:
        hand = (
            f"a Liar's Dice hand of {HAND_DICE} dice ({HAND_BITS:.1f} bits) in"
            f" {HAND_BITS / top.capacity_bps * 1e3:.1f} ms"
            if top.capacity_bps
            else "nothing gets through"
        )
        print(f"best: {top.channel} ({top.placement}), {top.capacity_bps:.0f} bit/s: {hand}")
    print(f"page-cache primitives in the sandbox: {json.dumps(measured['caps'])}")
    print(
        f"\n{meta['started']}  load {meta['load_before']} -> {meta['load_after']}"
        f"  {meta['cpus']} cpus  kernel {meta['kernel']}  {meta['seconds']} s"
    )
    options.json.parent.mkdir(parents=True, exist_ok=True)
    options.json.write_text(
        json.dumps({**measured, "results": [r.to_json() for r in results]}, indent=2) + "\n"
    )
    print(f"written {options.json}")


if __name__ == "__main__":
    main()
