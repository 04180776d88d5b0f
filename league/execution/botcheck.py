"""``arena bot check``: play a bot against the example bots before it enters a league.

A league finds a broken bot by forfeiting it, match after match, in front of
everybody. The check plays a handful of matches the way a ladder does (same
warm pool, same sandbox, same referee) against the game's random and heuristic
example bots, in both seats, and turns the records into a verdict with reasons:
faults by kind, decision latency against the time limit, start-up time and peak
memory.

To the checked bot a check match looks like a ladder match (issue 19, §3): a bot
that could tell them apart could play well here and fault in every real match.
So everything the bot is sent has the same shape and distribution: an opaque
match id (the referee's, :func:`referee.core.messages.new_match_token`; ``check-N``
is only the report's name), secret chance (no seed: a seeded deal is a
fingerprint a bot can precompute), the ladder's rules (the game's defaults
unless given) and limits, and its placement pattern: pairs of matches on one
duplicate deal, the bot in seat 0 and then in seat 1, as a ladder seats a new
entry. Each bot process plays one match (``MatchSpec.single_use``), as in a
rolling ladder, so neither a process's match count nor its age tells them apart;
and a submitted tree is a fresh copy with fixed times in both
(:mod:`referee.runtime.tree_copy`). ``vary_rules`` brings back the tour of rule
options for an author's own
use (``arena bot check --vary-rules``), which a bot *can* tell from a ladder.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import trio

from arena.v1 import bot_pb2
from league.execution.bot_measures import (
    DecisionClock,
    DecisionTimer,
    MeasuringPool,
    percentile,
)
from league.store.registry import BotCheckError
from referee.core.catalogue import game_names, get_entry, get_game
from referee.core.chance import new_secret
from referee.core.faults import BotFault, FaultKind, HostUnavailable
from referee.gamekit.base import GameError
from referee.records.record import MatchRecord
from referee.runtime import cgroups
from referee.runtime.channel import BOT_DETAILS
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig

SLOW_FRACTION = 0.75
"""A p99 decision time *of the bot's own* (:meth:`DecisionClock.own_ms`) at or above
this share of the limit fails the check: a bot that close to the limit times out in
a league on a busier machine. Its own time is what a busy machine cannot inflate:
an honest bot is not refused because its author's laptop was busy during the check
(the limit itself is still wall time: a decision over it is a timeout fault)."""


def check_bot(spec: BotSpec, startup_s: float = 15.0) -> bot_pb2.HealthResponse:
    """Start (or dial) the bot and ask Health; :class:`BotCheckError` if it fails."""

    async def probe() -> bot_pb2.HealthResponse:
        async with FreshLauncher().lease(spec, startup_s) as lease:
            assert lease.connection.health is not None
            return lease.connection.health

    try:
        return trio.run(probe)
    except BotFault as fault:
        raise BotCheckError(
            f"bot {spec.name!r} failed its check: {fault.message}" + output_note(fault.output)
        ) from None
    except HostUnavailable as error:
        raise BotCheckError(
            f"bot {spec.name!r} could not be checked: this host cannot start bots now ({error})"
        ) from None


OUTPUT_NOTE_LINES = 15
"""Lines of a bot's output :func:`output_note` shows."""


def output_note(output: bytes) -> str:
    """The last lines a bot wrote before it failed to start, for its author at the
    terminal (``arena bot add``), as lines under the error; "" when it wrote nothing.
    Never in a fault message: those are recorded, and records are public."""
    text = output.decode("utf-8", "replace").rstrip()
    if not text:
        return ""
    lines = text.splitlines()[-OUTPUT_NOTE_LINES:]
    return "\nthe bot's output, last lines:\n" + "\n".join(f"  {line}" for line in lines)


def check_opponents(game_name: str) -> tuple[str, str] | None:
    """The game's random and heuristic example bots (modules of ``example_bots``), from
    its catalogue roster; ``None`` for a game without example bots."""
    roster = get_entry(game_name).roster
    return None if roster is None else roster.check


class BotCheckInputError(ValueError):
    """The check cannot run as asked (unknown game, no matches); the message says why."""


@dataclass(frozen=True, slots=True)
class CheckedMatch:
    """One match of the check, from the checked bot's point of view."""

    match_id: str
    opponent: str
    seat: int
    rules: dict[str, str]
    reason: str
    place: int
    fault: str | None
    fault_message: str | None


OUTPUT_AT_TERMINAL = "above this report"
"""Where the author of a checked bot reads its output (a crash's traceback), as the
check's reasons say at the terminal; the server's check says its own
(:func:`check_bot_matches`' ``output_where``)."""
OUTPUT_KINDS = frozenset({FaultKind.CRASH, FaultKind.STARTUP})
"""Faults whose explanation is in the bot's own output (a traceback, what it printed
before it failed to start): their reason says where the author reads it."""


def short_fault(message: str) -> str:
    """A fault message for the check's one line on it: without the referee's note that
    the bot's own words were kept out of the record (the reason says where its author
    reads them instead)."""
    return message.replace(f" ({BOT_DETAILS})", "").strip()


@dataclass(slots=True)
class CheckReport:
    """The verdict and what it rests on (also the ``--json`` output)."""

    bot: str
    game: str
    verdict: str = "PASS"
    reasons: list[str] = field(default_factory=list)
    faults: dict[str, int] = field(default_factory=dict)
    illegal_actions: int = 0
    decisions: int = 0
    latency_median_ms: float | None = None
    latency_p99_ms: float | None = None
    """Wall time per decision, as the referee timed it (the limit's clock)."""
    own_median_ms: float | None = None
    own_p99_ms: float | None = None
    """The bot's own time per decision (:meth:`DecisionClock.own_ms`): what the
    speed rule judges."""
    cpu_p99_ms: float | None = None
    waited_p99_ms: float | None = None
    """CPU per decision and time it waited for a CPU others held (p99 of each;
    None where /proc did not show the bot)."""
    time_limit_ms: float = 0.0
    startup_ms: float | None = None
    peak_rss_kb: int | None = None
    peak_rss_note: str = ""
    refused_calls: dict[str, int] = field(default_factory=dict)
    """System calls the sandbox refused the bot (off its allow list): name -> in how
    many of the matches. Not a reason to fail: the bot got ENOSYS and may cope."""
    matches: list[CheckedMatch] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        """The human-readable report."""

        def ms(value: float | None) -> str:
            return "n/a" if value is None else f"{value:.1f} ms"

        out = [f"{self.verdict}: {self.bot} playing {self.game} ({len(self.matches)} matches)"]
        out += [f"  - {reason}" for reason in self.reasons]
        faults = ", ".join(f"{k} {v}" for k, v in sorted(self.faults.items())) or "none"
        out.append(f"faults: {faults}; illegal actions: {self.illegal_actions}")
        out.append(
            f"decisions: {self.decisions}, median {ms(self.latency_median_ms)},"
            f" p99 {ms(self.latency_p99_ms)} (limit {self.time_limit_ms:.0f} ms)"
        )
        if self.cpu_p99_ms is not None and self.own_p99_ms is not None:
            out.append(
                f"  its own: median {ms(self.own_median_ms)}, p99 {ms(self.own_p99_ms)}"
                f" (not counting waits for a busy CPU: p99 {ms(self.waited_p99_ms)};"
                f" CPU p99 {ms(self.cpu_p99_ms)})"
            )
        elif self.decisions:
            out.append("  its own: not measured (/proc did not show the bot): wall time judged")
        out.append(f"start-up (to Health): {ms(self.startup_ms)}")
        if self.refused_calls:
            calls = ", ".join(
                f"{name} (in {count} of {len(self.matches)} matches)"
                for name, count in sorted(self.refused_calls.items())
            )
            out.append(
                f"refused system calls: {calls} — answered ENOSYS: not on the sandbox's"
                " allow list (docs/security.md, 'System calls: the allow list')"
            )
        rss = "n/a" if self.peak_rss_kb is None else f"{self.peak_rss_kb / 1024:.1f} MiB"
        out.append(
            f"peak memory (RSS): {rss}" + (f" ({self.peak_rss_note})" if self.peak_rss_note else "")
        )
        told: dict[str, str | None] = {}  # fault kind -> the message its reason quotes
        for m in self.matches:
            rules = ",".join(f"{k}={v}" for k, v in sorted(m.rules.items())) or "default rules"
            what = f"{m.reason}, place {m.place}"
            if m.fault:
                # The reasons above quote each kind's first message: a match repeats
                # it only when its own differs.
                first = told.setdefault(m.fault, m.fault_message)
                what = f"fault {m.fault}"
                if m.fault_message and m.fault_message != first:
                    what += f": {short_fault(m.fault_message)}"
            out.append(f"  match {m.match_id} vs {m.opponent} seat {m.seat} [{rules}]: {what}")
        return out


def rule_variants(game_name: str, count: int) -> list[dict[str, str]]:
    """``count`` rule settings that give every boolean and choice option each of its
    values at least once (when ``count`` allows), the first being the defaults.

    Match ``k`` sets every such option to its ``k``-th value (cycling), so few
    matches cover all values; a combination the game refuses falls back to the
    defaults with only the first option that varies changed.
    """
    game = get_game(game_name)
    values: dict[str, list[str]] = {}
    for option in game.options:
        if isinstance(option.default, bool):
            others: list[bool | int | str] = [not option.default]
        elif isinstance(option.default, str) and option.choices:
            others = [c for c in option.choices if c != option.default]
        else:
            continue
        values[option.name] = [option.format(v) for v in [option.default, *others]]
    variants: list[dict[str, str]] = []
    for k in range(count):
        rules = {name: vals[k % len(vals)] for name, vals in values.items()}
        try:
            game.parse_rules(dict(rules))
        except GameError:
            rules = {}
            for name, vals in values.items():
                if vals[k % len(vals)] != vals[0]:
                    rules = {name: vals[k % len(vals)]}
                    break
        variants.append(rules)
    return variants


def _check_setup(
    game_name: str, matches: int, rules: dict[str, str] | None, vary_rules: bool
) -> tuple[list[BotSpec], list[dict[str, str]]]:
    """The check's opponents (the game's example bots) and each match's rules; a bad
    game, count or rule option fails here, before anything is started."""
    if game_name not in game_names():
        known = ", ".join(sorted(game_names()))
        raise BotCheckInputError(f"unknown game {game_name!r} (known: {known})")
    modules = check_opponents(game_name)
    if modules is None:
        raise BotCheckInputError(f"game {game_name!r} has no example bots to check against")
    if matches < 1:
        raise BotCheckInputError(f"matches must be at least 1, got {matches}")
    opponents = [
        BotSpec(name=module, command=(sys.executable, "-m", f"example_bots.{module}"))
        for module in modules
    ]
    if vary_rules:
        variants = rule_variants(game_name, matches)
    else:
        get_game(game_name).parse_rules(dict(rules or {}))  # a bad option fails here
        variants = [dict(rules or {}) for _ in range(matches)]
    return opponents, variants


def check_bot_matches(
    spec: BotSpec,
    game_name: str,
    *,
    matches: int = 6,
    decision_s: float = 2.0,
    startup_s: float = 15.0,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
    rules: dict[str, str] | None = None,
    vary_rules: bool = False,
    logs: list[bytes] | None = None,
    budget_s: float | None = None,
    min_protocol: int = 1,
    on_match: Callable[[int, int, str], None] | None = None,
    output_where: str = OUTPUT_AT_TERMINAL,
) -> CheckReport:
    """Play ``matches`` matches of ``spec`` against the game's example bots and judge.

    ``decision_s``, ``startup_s`` and ``rules`` should be those of the ladder the
    bot is checked for (the defaults are a default ladder's). ``vary_rules``: tour
    the game's rule options instead (:func:`rule_variants`), which makes check
    matches distinguishable from ladder matches. ``logs``, if given, receives what
    the checked bot printed in each match. ``budget_s``: the whole check's time
    limit (the server's check queue sets it); a check still playing then is
    stopped, its bots ended, and it fails saying so. ``min_protocol``: the lowest
    protocol version the bot may announce (a server's ``--min-protocol``); a bot
    announcing less faults at start-up in every match, saying why. ``on_match`` is
    told each finished match as (matches done, matches in all, one line on it).
    ``output_where``: where the bot's author reads its output (a crash's traceback),
    for the reason of such a fault (default: above the report at the terminal).

    Speed is judged by the bot's own time per decision (:meth:`DecisionClock.own_ms`),
    which a busy machine does not inflate; the limit itself stays wall time.
    """
    opponents, variants = _check_setup(game_name, matches, rules, vary_rules)
    limits = Limits(decision_s=decision_s, startup_s=startup_s, min_protocol=min_protocol)
    pool, records, over_budget = trio.run(
        _play_checks,
        spec,
        opponents,
        game_name,
        variants,
        limits,
        sandbox,
        (budget_s, logs, on_match),
    )
    report = CheckReport(bot=spec.name, game=game_name, time_limit_ms=decision_s * 1000)
    report.refused_calls = pool.refused_calls
    report.startup_ms = pool.startup_ms
    report.peak_rss_kb = pool.peak_rss_kb
    if pool.peak_rss_kb is not None:
        report.peak_rss_note = "largest process of the bot, VmHWM from /proc"
    else:
        report.peak_rss_note = "not available: /proc did not show the bot's processes"
    _judge(
        report,
        records,
        variants,
        matches=matches,
        decision_s=decision_s,
        over_budget=over_budget,
        budget_s=budget_s,
        cores=bot_cores(sandbox),
        output_where=output_where,
    )
    report.verdict = "FAIL" if report.reasons else "PASS"
    return report


@dataclass(frozen=True, slots=True)
class CheckedRecord:
    """A finished check match: its record, the checked bot's seat, its opponent, and
    what each of the bot's decisions cost it (:attr:`DecisionTimer.spent`)."""

    record: MatchRecord
    seat: int
    opponent: str
    spent: list[tuple[float, float] | None] = field(default_factory=list)


def bot_cores(sandbox: SandboxConfig) -> float:
    """How many cores a bot may use at once: the sandbox's CPU cap where a control
    group enforces it, else every core of the machine."""
    if sandbox.enabled and sandbox.cgroup and cgroups.available() is None:
        return sandbox.cpus
    return float(os.cpu_count() or 1)


async def _play_checks(
    spec: BotSpec,
    opponents: list[BotSpec],
    game_name: str,
    variants: list[dict[str, str]],
    limits: Limits,
    sandbox: SandboxConfig,
    extras: tuple[float | None, list[bytes] | None, Callable[[int, int, str], None] | None],
) -> tuple[MeasuringPool, list[CheckedRecord], bool]:
    """Play one check match per rule variant, the bot taking each seat against each
    opponent in turn; return the pool (its measurements), a :class:`CheckedRecord`
    per finished match, and whether ``budget_s`` ran out first."""
    budget_s, logs, on_match = extras
    records: list[CheckedRecord] = []
    pool = MeasuringPool(WarmPool(sandbox=sandbox), spec)
    try:
        with trio.move_on_after(math.inf if budget_s is None else budget_s) as budget:
            deal = new_secret()
            for k in range(len(variants)):
                opponent = opponents[(k // 2) % len(opponents)]
                seat = k % 2
                if seat == 0:
                    deal = new_secret()  # one secret deal per pair, as a ladder's rotations
                bots = (spec, opponent) if seat == 0 else (opponent, spec)
                match = MatchSpec(
                    game=game_name,
                    bots=bots,
                    rules=variants[k],
                    match_id=f"check-{k + 1}",  # the report's name; the bot gets a token
                    deal_group=f"check-{k // 2}",
                    chance_key=deal,
                    single_use=True,  # one match per process, as in a rolling ladder
                )
                seat_logs: dict[int, bytes] = {}
                timer = DecisionTimer(pool, seat)
                record = await run_match(
                    match,
                    limits,
                    launcher=pool,
                    logs=seat_logs,
                    observer=timer,
                    on_event=timer.on_event,
                )
                records.append(CheckedRecord(record, seat, opponent.name, timer.spent))
                if logs is not None:
                    logs.append(seat_logs.get(seat, b""))
                if on_match is not None:
                    fault = record.fault_of(seat)
                    what = f"fault {fault.kind}" if fault else f"place {record.places[seat]}"
                    line = f"match {k + 1} vs {opponent.name}, seat {seat}: {what}"
                    on_match(k + 1, len(variants), line)
        over_budget = budget.cancelled_caught
    finally:
        await pool.pool.aclose()
    return pool, records, over_budget


def _judge(
    report: CheckReport,
    records: list[CheckedRecord],
    variants: list[dict[str, str]],
    *,
    matches: int,
    decision_s: float,
    over_budget: bool,
    budget_s: float | None,
    cores: float = 1.0,
    output_where: str = OUTPUT_AT_TERMINAL,
) -> None:
    """Fill ``report`` from the check's records: faults, decision times, each match,
    and the reasons it fails. ``cores``: how many cores the bot may use at once
    (:meth:`DecisionClock.own_ms`); ``output_where``: where its author reads its
    output, for the reason of a fault explained there."""
    clocks: list[DecisionClock] = []
    for checked in records:
        record, seat = checked.record, checked.seat
        fault = record.fault_of(seat)
        if fault is not None:
            report.faults[str(fault.kind)] = report.faults.get(str(fault.kind), 0) + 1
            if fault.kind == FaultKind.ILLEGAL_ACTION:
                report.illegal_actions += 1
        walls = [e.elapsed_ms for e in record.events if e.seat == seat and e.elapsed_ms is not None]
        for index, wall in enumerate(walls):
            spent = checked.spent[index] if index < len(checked.spent) else None
            clocks.append(DecisionClock(wall, *spent) if spent else DecisionClock(wall))
        report.matches.append(
            CheckedMatch(
                match_id=record.match_id,
                opponent=checked.opponent,
                seat=seat,
                rules=dict(variants[len(report.matches)]),
                reason=record.reason,
                place=record.places[seat],
                fault=str(fault.kind) if fault else None,
                fault_message=fault.message if fault else None,
            )
        )
    judge_speed(report, clocks, cores)
    for kind, count in sorted(report.faults.items()):
        first = next(m for m in report.matches if m.fault == kind)
        where = (
            f" — the bot's output (its traceback): {output_where}" if kind in OUTPUT_KINDS else ""
        )
        report.reasons.append(
            f"{kind} in {count} of {matches} matches: {short_fault(first.fault_message or '')}"
            + where
        )
    slow = slow_reason(report, decision_s * 1000)
    if slow:
        report.reasons.append(slow)
    if over_budget:
        report.reasons.append(
            f"the check took longer than its {budget_s:.0f} s budget"
            f" ({len(records)} of {matches} matches finished)"
        )
    elif not clocks and not report.faults:
        report.reasons.append("made no decision in any match")


def slow_reason(report: CheckReport, limit_ms: float) -> str | None:
    """The speed rule: why the bot is too slow for ``limit_ms``, or None. It judges
    the bot's own p99 (:meth:`DecisionClock.own_ms`), so a busy machine does not make
    an honest bot slow."""
    if report.own_p99_ms is None or report.own_p99_ms < SLOW_FRACTION * limit_ms:
        return None
    measured = report.cpu_p99_ms is not None
    basis = " of its own (not counting waits for a busy CPU)" if measured else ""
    return (
        f"slow: p99 decision time {report.own_p99_ms:.0f} ms{basis} is at least"
        f" {SLOW_FRACTION:.0%} of the {limit_ms:.0f} ms limit"
    )


def judge_speed(report: CheckReport, clocks: list[DecisionClock], cores: float) -> None:
    """The report's decision times: wall (the limit's clock), the bot's own (what the
    speed rule judges), and its CPU and waits where every decision was measured."""
    report.decisions = len(clocks)
    if not clocks:
        return
    walls = [c.wall_ms for c in clocks]
    own = [c.own_ms(cores) for c in clocks]
    report.latency_median_ms = statistics.median(walls)
    report.latency_p99_ms = percentile(walls, 0.99)
    report.own_median_ms = statistics.median(own)
    report.own_p99_ms = percentile(own, 0.99)
    cpu = [c.cpu_ms for c in clocks if c.cpu_ms is not None]
    waited = [c.waited_ms for c in clocks if c.waited_ms is not None]
    if len(cpu) == len(clocks) and len(waited) == len(clocks):
        report.cpu_p99_ms = percentile(cpu, 0.99)
        report.waited_p99_ms = percentile(waited, 0.99)
