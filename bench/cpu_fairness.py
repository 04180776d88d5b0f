"""What a CPU hog costs its opponent: the opponent's decision time with the hog ÷ without.

    python -m bench.cpu_fairness [--matches 4] [--sharing fair|before|pooled]

Real sandboxed matches: ``tests.security.cpu_hog`` (busy loops in 4 processes and 2
threads) against ``tests.security.cpu_victim``, an honest bot that does the same
CPU work (~45 ms on an idle core) every decision. The hog stops its spinners at one
of its turns and resumes them at the next (``--toggle``), so the victim's decisions
alternate between a spinning and a stopped hog and every match measures both,
under the same background load — on a shared machine, separate matches with and
without a hog measure the neighbours more than the hog. A decision counts for the
state the hog was in when it started, unless the hog switched while it ran; its
time is the referee's ``elapsed_ms`` (request sent to answer received).

Windows of the clock (spin in even seconds, sleep in odd ones) were tried first:
the hog answers slowly while its spinners crowd its own core, so the match moved
on mostly in the sleeping windows, and a short match sometimes fell wholly in one.

``--sharing`` (``referee.runtime.cgroups.CPU_SHARING``, test-only) shows what the rule buys:
``before`` makes the groups of before (a bandwidth cap per bot only), ``pooled``
puts every bot's threads in one CPU group (no share per seat).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import statistics
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from referee.records.record import MatchRecord
from referee.runtime import cgroups
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig

WORK = 500_000
"""Loop iterations the victim runs per decision (~45 ms on an idle core here)."""
HOG_PROCESSES = 4
HOG_THREADS = 2
LIMITS = Limits(decision_s=10.0, startup_s=30.0)
VICTIM_SEAT = 1


def hog_bot() -> BotSpec:
    argv = ["-m", "tests.security.cpu_hog", "--processes", str(HOG_PROCESSES)]
    argv += ["--threads", str(HOG_THREADS), "--toggle"]
    return BotSpec("hog", command=(sys.executable, *argv))


def victim_bot(work: int = WORK) -> BotSpec:
    argv = ("-m", "tests.security.cpu_victim", "--work", str(work))
    return BotSpec("victim", command=(sys.executable, *argv))


@dataclass(frozen=True, slots=True)
class Decision:
    """One of the victim's decisions: its own timing and the referee's."""

    start: float
    end: float
    """Host monotonic clock (s) when the victim's work started and ended."""
    wall_ms: float
    cpu_ms: float
    referee_ms: float
    """The referee's ``elapsed_ms``: the request sent to the answer received."""
    cores: tuple[int, ...] = ()
    """The cores the victim could run on."""
    hog_spinning: bool | None = None
    """Whether the hog's spinners ran throughout (None: it switched meanwhile)."""


@dataclass
class Played:
    """Matches played: records, captured output, the victim's decisions per match."""

    records: list[MatchRecord] = field(default_factory=list)
    logs: list[dict[int, bytes]] = field(default_factory=list)
    per_match: list[list[Decision]] = field(default_factory=list)

    @property
    def decisions(self) -> list[Decision]:
        return [decision for match in self.per_match for decision in match]

    def decisions_by_match(self) -> list[list[Decision]]:
        return self.per_match

    @staticmethod
    def hog_report(logs: dict[int, bytes]) -> dict[str, Any]:
        """The ``HOG {json}`` line the hog printed in one match."""
        log = logs.get(1 - VICTIM_SEAT, b"")
        lines = [line for line in log.splitlines() if line.startswith(b"HOG ")]
        if not lines:
            raise ValueError(f"the hog reported nothing; its output ends: {log[-1500:]!r}")
        report: dict[str, Any] = json.loads(lines[-1][4:])
        return report

    def hog_reports(self) -> list[dict[str, Any]]:
        """The hog's report of every match."""
        return [self.hog_report(logs) for logs in self.logs]


def hog_states(log: bytes) -> list[tuple[float, bool]]:
    """The hog's ``HOGSTATE`` lines: (when, spinning from then on), in order."""
    states = []
    for line in log.splitlines():
        if line.startswith(b"HOGSTATE "):
            state = json.loads(line[9:])
            states.append((float(state["t"]), bool(state["spinning"])))
    return states


def hog_state_during(states: Sequence[tuple[float, bool]], start: float, end: float) -> bool | None:
    """The hog's state from ``start`` to ``end``: None if it switched in between or
    had said nothing yet."""
    before = [spinning for when, spinning in states if when <= start]
    if not before or any(start < when <= end for when, _ in states):
        return None
    return before[-1]


def victim_decisions(record: MatchRecord, logs: dict[int, bytes]) -> list[Decision]:
    """The victim's ``DECISION`` lines paired, in order, with its recorded answers and
    the hog's state meanwhile."""
    log = logs.get(VICTIM_SEAT, b"")
    lines = [json.loads(line[9:]) for line in log.splitlines() if line.startswith(b"DECISION ")]
    answers = [e.elapsed_ms for e in record.events if e.seat == VICTIM_SEAT]
    if len(lines) == len(answers) + 1 and record.fault_of(VICTIM_SEAT) is not None:
        # Starved past its limit (the guard's pooled CPU, beside busy cores): it
        # finished the decision it stalled on, after the referee had stopped waiting.
        lines = lines[:-1]
    if len(lines) != len(answers):
        raise ValueError(
            f"the victim reported {len(lines)} decisions but the record has {len(answers)}"
        )
    states = hog_states(logs.get(1 - VICTIM_SEAT, b""))
    return [
        Decision(
            line["start"],
            line["end"],
            line["wall_ms"],
            line["cpu_ms"],
            elapsed or 0.0,
            tuple(line.get("cores", ())),
            hog_state_during(states, line["start"], line["end"]),
        )
        for line, elapsed in zip(lines, answers, strict=True)
    ]


def split_by_hog(decisions: Sequence[Decision]) -> tuple[list[Decision], list[Decision]]:
    """(decisions while the hog spun, decisions while it was stopped); the others dropped."""
    spinning = [decision for decision in decisions if decision.hog_spinning is True]
    idle = [decision for decision in decisions if decision.hog_spinning is False]
    return spinning, idle


SHARING_LABELS: dict[cgroups.CpuSharing, str] = {
    "fair": "fair share",
    "before": "groups of before (a cap per bot only)",
    "pooled": "no CPU group per seat (every bot's threads in one pool)",
}


@contextlib.contextmanager
def cpu_sharing(sharing: cgroups.CpuSharing) -> Iterator[None]:
    """Bot groups made meanwhile share CPU as ``sharing`` says (guards: not fairly)."""
    before = cgroups.CPU_SHARING
    cgroups.CPU_SHARING = sharing
    try:
        yield
    finally:
        cgroups.CPU_SHARING = before


async def play(
    matches: int,
    *,
    sharing: cgroups.CpuSharing = "fair",
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
    work: int = WORK,
    into: Played | None = None,
    first_seed: int = 0,
) -> Played:
    """``matches`` Liar's Dice matches, the hog in seat 0 and the victim in seat 1
    (added to ``into`` if given)."""
    played = Played() if into is None else into
    for seed in range(first_seed, first_seed + matches):
        logs: dict[int, bytes] = {}
        with cpu_sharing(sharing):
            record = await run_match(
                MatchSpec("liars_dice", (hog_bot(), victim_bot(work)), seed=seed),
                LIMITS,
                launcher=FreshLauncher(sandbox=sandbox),
                logs=logs,
            )
        played.records.append(record)
        played.logs.append(logs)
        played.per_match.append(victim_decisions(record, logs))
    return played


@dataclass(frozen=True, slots=True)
class Fairness:
    """The victim's median decision times beside a spinning and a stopped hog."""

    with_hog_ms: float
    without_hog_ms: float
    with_wall_ms: float
    without_wall_ms: float
    without_cpu_ms: float
    """The victim's median CPU time per decision beside a stopped hog (its work)."""
    counted: tuple[int, int]
    """Decisions counted (with the hog spinning, with it stopped)."""
    matches: int
    sharing: cgroups.CpuSharing

    @property
    def ratio(self) -> float:
        """Median decision time with the hog spinning ÷ with it stopped (referee's)."""
        return self.with_hog_ms / self.without_hog_ms

    @property
    def wall_ratio(self) -> float:
        """The same from the victim's own timing of its work."""
        return self.with_wall_ms / self.without_wall_ms

    def describe(self) -> str:
        return (
            f"median {self.with_hog_ms:.1f} ms with the hog spinning vs"
            f" {self.without_hog_ms:.1f} ms with it stopped ({self.counted[0]} and"
            f" {self.counted[1]} decisions, {self.matches} matches, referee-measured;"
            f" the victim's own timing {self.with_wall_ms:.1f} vs {self.without_wall_ms:.1f}"
            f" ms for {self.without_cpu_ms:.1f} ms of CPU);"
            f" hog {HOG_PROCESSES} processes × {HOG_THREADS} threads,"
            f" {SHARING_LABELS[self.sharing]}"
        )


class NotEnoughDecisions(Exception):
    """Too few of the victim's decisions in one of the hog's states to compare medians."""


def summarize(played: Played, *, sharing: cgroups.CpuSharing, least: int = 5) -> Fairness:
    spinning, idle = split_by_hog(played.decisions)
    if len(spinning) < least or len(idle) < least:
        raise NotEnoughDecisions(
            f"{len(spinning)} decisions beside a spinning hog and {len(idle)} beside a"
            f" stopped one (of {len(played.decisions)}); need {least} of each"
        )
    return Fairness(
        with_hog_ms=statistics.median(d.referee_ms for d in spinning),
        without_hog_ms=statistics.median(d.referee_ms for d in idle),
        with_wall_ms=statistics.median(d.wall_ms for d in spinning),
        without_wall_ms=statistics.median(d.wall_ms for d in idle),
        without_cpu_ms=statistics.median(d.cpu_ms for d in idle),
        counted=(len(spinning), len(idle)),
        matches=len(played.records),
        sharing=sharing,
    )


def measure(matches: int = 4, *, sharing: cgroups.CpuSharing = "fair") -> Fairness:
    """Play ``matches`` hog-vs-victim matches (CPU shared as ``sharing``) and compare."""
    played = trio.run(functools.partial(play, matches, sharing=sharing))
    return summarize(played, sharing=sharing)


def measure_alternating(
    matches: int, sharings: Sequence[cgroups.CpuSharing]
) -> dict[cgroups.CpuSharing, Fairness | NotEnoughDecisions]:
    """``matches`` matches for each way of sharing, played in turn (one of each,
    then again), so that every row sees the same minutes of background load."""

    async def play_all() -> dict[cgroups.CpuSharing, Played]:
        played: dict[cgroups.CpuSharing, Played] = {sharing: Played() for sharing in sharings}
        for seed in range(matches):
            for sharing in sharings:
                await play(1, sharing=sharing, into=played[sharing], first_seed=seed)
        return played

    results: dict[cgroups.CpuSharing, Fairness | NotEnoughDecisions] = {}
    for sharing, played in trio.run(play_all).items():
        try:
            results[sharing] = summarize(played, sharing=sharing)
        except NotEnoughDecisions as error:
            results[sharing] = error
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--sharing", choices=sorted(SHARING_LABELS), default="fair")
    options = parser.parse_args()
    if why := cgroups.available():
        parser.exit(1, f"control groups unavailable here: {why}\n")
    result = measure(options.matches, sharing=options.sharing)
    print(f"with hog ÷ without: {result.ratio:.2f} x (target ≤ 1.2)")
    print(result.describe())


if __name__ == "__main__":
    main()
