"""One benchmark run, one table of ratios (targets from the performance issue).

    python -m bench [--quick] [--json bench/results.json] [--only wire,league,...]

Every number is measured in this run; absolute times are printed next to each ratio
but vary with the machine and its load — the targets are on the ratios. A missed
target prints MISS; something not measurable here prints NOT MEASURED with why.
Sections (``--only``): wire, engine, long, league, memory, startup, ratings, ray, server,
fairness, batched, transports, exploit, luck;
``stream`` is another name for ``wire`` (its rows are labelled "stream").
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import (
    batched,
    cpu_fairness,
    engine,
    exploit_probe,
    league,
    league_db,
    luck,
    server_load,
    startup,
    transports,
    wire,
)
from bench.report import Row, format_table, write_json
from referee.core.catalogue import game_names
from referee.runtime import cgroups
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX

GAMES = game_names()
"""Every game in the catalogue, in listing order."""
SECTIONS = (
    "wire",
    "engine",
    "long",
    "league",
    "memory",
    "startup",
    "ratings",
    "ray",
    "server",
    "fairness",
    "batched",
    "transports",
    "exploit",
    "luck",
)
ALIASES = {"stream": "wire"}
"""The table labels the wire section's rows "stream", so ``--only stream`` means wire."""


@dataclass(frozen=True)
class Sizes:
    wire_matches: int
    engine_s: float
    long_matches: int
    league_instant: dict[int, int]
    league_sleep: dict[int, int]
    fresh_matches: int
    memory_matches: int
    startup_runs: int
    workers_matches: int
    ray_matches: dict[float, int]
    """Matches per bot sleep (ms) for the Ray executor rows."""
    server_clients: int
    server_requests: int
    fairness_matches: int
    """Hog-vs-victim matches for each of the fair-share and the before rows."""
    league_db_matches: int
    league_db_rounds: int
    """A league with its database (``bench/league_db.py``): matches per run, and
    interleaved rounds of each way of writing results."""


FULL = Sizes(
    wire_matches=30,
    engine_s=1.0,
    long_matches=5,
    league_instant={1: 30, 2: 40, 8: 80},
    league_sleep={1: 6, 2: 12, 8: 48},
    fresh_matches=8,
    memory_matches=1000,
    startup_runs=5,
    workers_matches=120,
    ray_matches={20.0: 48, 200.0: 16},
    server_clients=8,
    server_requests=400,
    fairness_matches=8,
    league_db_matches=200,
    league_db_rounds=3,
)
QUICK = Sizes(
    wire_matches=6,
    engine_s=0.3,
    long_matches=2,
    league_instant={1: 10, 2: 10, 8: 16},
    league_sleep={1: 3, 2: 6, 8: 16},
    fresh_matches=3,
    memory_matches=200,
    startup_runs=3,
    workers_matches=40,
    ray_matches={20.0: 12},
    server_clients=4,
    server_requests=100,
    fairness_matches=4,
    league_db_matches=80,
    league_db_rounds=1,
)
SLEEP_MS = 20.0


WIRE_ROUNDS = 3
"""Interleaved rounds per stream row: the ratio is their median, min–max beside it."""


def _spread(values: list[float]) -> str:
    if not values:
        return "no round measured"
    return (
        f"median of {len(values)} interleaved rounds, min–max {min(values):.3g}–{max(values):.3g}"
    )


def _stream_rows(game: str, run: wire.RefereeRun, label: str, setting: str) -> list[Row]:
    assert run.floor_us is not None and run.aio_floor_us is not None
    cpu = (
        f"CPU per decision: referee {run.referee_cpu_us:.0f} µs, its bots"
        f" {run.bot_cpu_us:.0f} µs; floor's bots {run.floor_bot_cpu_us or 0:.0f} µs"
    )
    return [
        Row(
            "stream",
            f"{label}: referee decisions/s ÷ raw gRPC (sync)",
            statistics.median(run.rounds) if run.rounds else None,
            target_op=">=",
            target=0.8,
            detail=f"{_spread(run.rounds)}; referee {1e6 / run.per_decision_us:,.0f}/s"
            f" ({run.per_decision_us:.0f} µs) vs raw {1e6 / run.floor_us:,.0f}/s"
            f" ({run.floor_us:.0f} µs); {cpu}; {run.decisions} decisions, {setting}",
        ),
        Row(
            "stream",
            f"{label}: referee decisions/s ÷ raw grpc.aio",
            statistics.median(run.aio_rounds) if run.aio_rounds else None,
            detail=f"{_spread(run.aio_rounds)}; raw grpc.aio {1e6 / run.aio_floor_us:,.0f}/s"
            f" ({run.aio_floor_us:.0f} µs; sync ÷ aio"
            f" {run.aio_floor_us / run.floor_us:.2f})",
        ),
    ]


def _sdk_bot_row(game: str, seeds: range) -> Row:
    bots = {
        "sdk": BotSpec("sdk-random", command=(sys.executable, *wire.SDK_BOT)),
        "aio": wire.instant_spec(aio=True),
    }
    cpu = wire.bot_cpu_rounds(game, seeds, bots, WIRE_ROUNDS)
    ratios = [s / a for s, a in zip(cpu["sdk"], cpu["aio"], strict=True)]
    return Row(
        "stream",
        f"{game}: SDK bot's CPU per decision ÷ a bare grpc.aio server",
        statistics.median(ratios),
        target_op="<=",
        target=1.5,
        detail=f"{_spread(ratios)}; {statistics.median(cpu['sdk']):.0f} µs"
        f" ({' '.join(wire.SDK_BOT[1:])}: decodes, picks a legal action, encodes) vs"
        f" {statistics.median(cpu['aio']):.0f} µs (answers prepared bytes), in referee matches",
    )


def wire_rows(sizes: Sizes, floors: dict[str, float]) -> list[Row]:
    rows = []
    seeds = range(sizes.wire_matches)
    for game in GAMES:
        with wire.Floor() as raw:
            run = wire.referee_run(game, seeds, floor=raw, rounds=WIRE_ROUNDS)
        assert run.floor_us is not None
        floors[game] = run.floor_us
        setting = f"{sizes.wire_matches} matches, instant bots, no sandbox"
        rows.extend(_stream_rows(game, run, game, setting))
        if game == GAMES[0]:
            socket_us = wire.socket_floor_us(run.transcripts)
            rows.append(
                Row(
                    "stream",
                    f"{game}: framed unix-socket round trip ÷ raw gRPC (sync)",
                    run.floor_us / socket_us,
                    detail=f"the wire's limit: {socket_us:.0f} µs per round trip (the same"
                    f" requests, length-prefixed, a 24-byte answer from a process that does"
                    f" nothing else) vs {run.floor_us:.0f} µs through gRPC",
                )
            )
    game = GAMES[0]
    rows.append(_sdk_bot_row(game, seeds))
    with wire.Floor() as raw:
        try:
            run = wire.referee_run(
                game, seeds, floor=raw, sandbox=DEFAULT_SANDBOX, rounds=WIRE_ROUNDS
            )
        except Exception as error:  # e.g. no bubblewrap here: say so, keep going
            rows.append(Row("stream", f"{game} in the default sandbox", None, detail=repr(error)))
            return rows
    setting = f"{sizes.wire_matches} matches, floor bots not sandboxed"
    rows.extend(_stream_rows(game, run, f"{game}, bots in the default sandbox", setting))
    return rows


def transport_rows(sizes: Sizes) -> list[Row]:
    """The designs tried for the referee's gRPC path, without its logic
    (:mod:`bench.transports`)."""
    game = GAMES[0]
    transcripts = wire.referee_run(game, range(sizes.wire_matches)).transcripts
    results = transports.compare(transcripts, WIRE_ROUNDS)
    return [
        Row(
            "transports",
            f"{game}: {result.name}: decisions/s ÷ raw gRPC (sync)",
            result.ratio,
            detail=f"{_spread(result.rounds)}; {result.per_decision_us:.0f} µs per round trip,"
            f" the referee's transcripts replayed with no referee logic",
        )
        for result in results
    ]


def exploit_rows(sizes: Sizes, floors: dict[str, float]) -> list[Row]:
    """``arena exploit``'s questions per second against the raw gRPC floor."""
    game = exploit_probe.GAME
    floor_us = floors.get(game)
    if floor_us is None:
        with wire.Floor() as raw:
            floor_us = wire.referee_run(game, range(3), floor=raw).floor_us
    assert floor_us is not None
    seconds = 10 * sizes.engine_s
    rate = exploit_probe.question_rate(seconds)
    return [
        Row(
            "exploit",
            f"{game}: `arena exploit` questions/s ÷ raw gRPC (sync)",
            rate.per_s * floor_us / 1e6,
            target_op=">=",
            target=0.5,
            detail=f"{rate.per_s:,.0f} questions/s ({rate.questions:,} in {rate.seconds:.1f} s,"
            f" {rate.matches:,} matches, {rate.questions / max(1, rate.matches):.1f} per match;"
            f" the random bot, one die, the probe's defaults, no sandbox) vs raw"
            f" {1e6 / floor_us:,.0f}/s",
        )
    ]


ENGINE_ROUNDS = 5
"""Interleaved rounds of the OpenSpiel and sdk.local rows (3 for the per-game rows)."""


def engine_rows(sizes: Sizes, floors: dict[str, float]) -> list[Row]:
    rows = []
    for game in GAMES:
        cost = engine.engine_cost(game, sizes.engine_s)
        floor = floors.get(game)
        rows.append(
            Row(
                "engine",
                f"{game}: engine per decision ÷ raw round trip",
                cost.per_decision_us / floor if floor else None,
                target_op="<=",
                target=0.05,
                detail=f"engine {cost.per_decision_us:.0f} µs (median, observe+check_action"
                f"+transition, {cost.decisions} decisions)"
                + (
                    f" vs raw {floor:.0f} µs" if floor else "; raw round trip not measured (--only)"
                ),
            )
        )
    rows.extend(_openspiel_rows(sizes))
    for game in GAMES:
        rows.append(_in_process_row(game, sizes))
    return rows


def _openspiel_rows(sizes: Sizes) -> list[Row]:
    """Raw engine ÷ pyspiel and sdk.local ÷ raw engine on OpenSpiel's liars_dice rules,
    interleaved: raw, OpenSpiel, sdk.local, raw, OpenSpiel, ..."""
    rules = engine.MATCHING_LIARS_DICE
    budget = sizes.engine_s / 2
    loops: dict[str, Callable[[int], engine.Speed]] = {
        "raw": lambda seed: engine.raw_loop("liars_dice", rules, budget, seed=seed)
    }
    spiel = engine.openspiel_available()
    if spiel:
        loops["openspiel"] = lambda seed: engine.openspiel_loop(budget, seed=seed)
    loops["local"] = lambda seed: engine.local_loop("liars_dice", rules, budget, seed=seed)
    runs = engine.interleaved(loops, ENGINE_ROUNDS)
    raw, local = engine.median_speed(runs["raw"]), engine.median_speed(runs["local"])
    setting = (
        f"OpenSpiel's liars_dice rules ({engine.OPENSPIEL_DICE} dice each, one round, 6s wild"
        " and kept, reset-face raises), random legal actions, player moves only"
    )
    rows = []
    if not spiel:
        rows.append(
            Row(
                "engine",
                "liars_dice raw engine ÷ OpenSpiel, decisions/s",
                None,
                detail="not installed (import pyspiel fails; pip install open_spiel)",
            )
        )
    else:
        theirs = engine.median_speed(runs["openspiel"])
        by_decisions = engine.ratio(runs["raw"], runs["openspiel"])
        by_matches = engine.ratio(runs["raw"], runs["openspiel"], per="matches")
        rows.append(
            Row(
                "engine",
                "liars_dice raw engine ÷ OpenSpiel, decisions/s",
                by_decisions.median,
                target_op=">=",
                target=0.25,
                detail=f"ours {raw.decisions_per_s:,.0f}/s vs pyspiel"
                f" {theirs.decisions_per_s:,.0f}/s (medians); "
                + _spread(engine.per_round(runs["raw"], runs["openspiel"]))
                + f"; {setting}; ours: new_game, FastChance, observe, legal_actions,"
                " transition, outcome; OpenSpiel is C++ (chance steps sampled, not counted)",
            )
        )
        rows.append(
            Row(
                "engine",
                "liars_dice raw engine ÷ OpenSpiel, matches/s",
                by_matches.median,
                detail=f"ours {raw.matches_per_s:,.0f} vs pyspiel {theirs.matches_per_s:,.0f}"
                f" matches/s; min–max {by_matches.low:.3g}–{by_matches.high:.3g}; decisions"
                f" per match {raw.decisions / raw.matches:.2f}"
                f" vs {theirs.decisions / theirs.matches:.2f}",
            )
        )
    rows.append(
        Row(
            "engine",
            "liars_dice sdk.local ÷ raw engine loop, decisions/s",
            engine.ratio(runs["local"], runs["raw"]).median,
            target_op=">=",
            target=0.8,
            detail=f"sdk.local {local.decisions_per_s:,.0f}/s vs raw {raw.decisions_per_s:,.0f}/s;"
            + " "
            + _spread(engine.per_round(runs["local"], runs["raw"]))
            + "; play_callables(fast_chance=True), a random policy over"
            " sdk.liars_dice.legal_actions (the driver checks every action and records the"
            " events); same rules",
        )
    )
    return rows


def _in_process_row(game: str, sizes: Sizes) -> Row:
    """A game's in-process decisions/s through sdk.local, default rules, two seats."""
    budget = sizes.engine_s / 4
    runs = engine.interleaved(
        {
            "local": lambda seed: engine.local_loop(game, {}, budget, seed=seed),
            "raw": lambda seed: engine.raw_loop(game, {}, budget, seed=seed),
            "keyed": lambda seed: engine.local_loop(game, {}, budget, seed=seed, fast_chance=False),
        },
        3,
    )
    local, raw, keyed = (engine.median_speed(runs[name]) for name in ("local", "raw", "keyed"))
    return Row(
        "engine",
        f"{game}: in-process decisions/s (sdk.local)",
        local.decisions_per_s,
        unit="/s",
        detail=f"play_callables(fast_chance=True) {local.decisions_per_s:,.0f}/s"
        f" ({local.matches_per_s:,.0f} matches/s); with the referee's keyed chance"
        f" {keyed.decisions_per_s:,.0f}/s; raw engine loop {raw.decisions_per_s:,.0f}/s;"
        " medians of 3 interleaved rounds, default rules, 2 seats, random legal actions",
    )


def long_rows(sizes: Sizes) -> list[Row]:
    result = engine.long_match(sizes.long_matches)
    parts = ", ".join(f"{name} {us:,.0f} µs" for name, us in result.late_parts.items())
    return [
        Row(
            "long match",
            f"referee work per event at ~{result.late_at} ÷ at ~{result.early_at}",
            result.late_us / result.early_us,
            target_op="<=",
            target=1.5,
            detail=f"{result.late_us:,.0f} µs vs {result.early_us:,.0f} µs per event"
            f" ({engine.LONG_GAME} {dict(engine.LONG_RULES)}, {result.matches} matches,"
            f" in-process); per action at ~{result.late_at}: {parts}",
        )
    ]


def league_rows(sizes: Sizes) -> list[Row]:
    rows = []
    runs: dict[tuple[str, int], league.LeagueRun] = {}
    for label, sleep_ms, counts in (
        ("instant", 0.0, sizes.league_instant),
        (f"sleep {SLEEP_MS:g} ms", SLEEP_MS, sizes.league_sleep),
    ):
        for concurrency, matches in counts.items():
            run = league.league_run(matches, concurrency, sleep_ms=sleep_ms)
            runs[label, concurrency] = run
            rows.append(
                Row(
                    "league",
                    f"{label} bots, warm pool, concurrency {concurrency}",
                    run.matches_per_s,
                    unit="matches/s",
                    detail=f"{matches} matches in {run.wall_s:.2f} s,"
                    f" {run.decisions / matches:.0f} decisions/match ({league.GAME}),"
                    f" {run.per_decision_s * 1e3:.2f} ms/decision",
                )
            )
    sleepy = f"sleep {SLEEP_MS:g} ms"
    c1, c8 = runs[sleepy, 1], runs[sleepy, 8]
    rows.append(
        Row(
            "league",
            f"{sleepy} bots: concurrency 8 ÷ concurrency 1",
            c8.matches_per_s / c1.matches_per_s,
            target_op=">=",
            target=6,
            detail=f"{c8.matches_per_s:.2f} vs {c1.matches_per_s:.2f} matches/s",
        )
    )
    instant = runs["instant", 1]
    rows.append(
        Row(
            "league",
            "instant bots: concurrency 8 ÷ concurrency 1",
            runs["instant", 8].matches_per_s / instant.matches_per_s,
            detail=f"{runs['instant', 8].matches_per_s:.1f} vs {instant.matches_per_s:.1f}"
            f" matches/s (CPU-bound: {os.cpu_count()} cores)",
        )
    )
    for label in ("instant", sleepy):
        run = runs[label, 1]
        twenty = 20 * run.per_decision_s
        rows.append(
            Row(
                "league",
                f"{label} bots: per-match overhead ÷ a 20-decision match",
                run.overhead_s / twenty,
                target_op="<=",
                target=0.05,
                detail=f"{run.overhead_s * 1e3:.1f} ms per match beyond decisions vs 20 ×"
                f" {run.per_decision_s * 1e3:.2f} ms (warm pool, concurrency 1)",
            )
        )
    fresh_rows = []
    for name, sandbox in (("no sandbox", None), ("default sandbox", DEFAULT_SANDBOX)):
        try:
            if sandbox is None:
                fresh = league.league_run(sizes.fresh_matches, 1, warm=False)
            else:
                fresh = league.league_run(sizes.fresh_matches, 1, warm=False, sandbox=sandbox)
        except Exception as error:  # e.g. no bubblewrap here: say so, keep going
            fresh_rows.append(
                Row("league", f"instant bots, process per match ({name})", None, detail=repr(error))
            )
            continue
        fresh_rows.append(
            Row(
                "league",
                f"warm pool ÷ process per match ({name}), concurrency 1",
                instant.matches_per_s / fresh.matches_per_s,
                detail=f"{instant.matches_per_s:.1f} vs {fresh.matches_per_s:.2f} matches/s;"
                f" fresh: {fresh.overhead_s * 1e3:.0f} ms per match beyond decisions",
            )
        )
    rows.extend(fresh_rows)
    rows.append(workers_row(sizes))
    rows.extend(league_db_rows(sizes))
    return rows


def league_db_rows(sizes: Sizes) -> list[Row]:
    """A league with its SQLite database, through the league runner, at concurrency 8:
    results written by the writer (batched, off the event loop's thread) and, as
    before it, committed one by one on the event loop's thread."""
    concurrency = 8
    runs = league_db.compare(sizes.league_db_matches, concurrency, sizes.league_db_rounds)
    rates = {
        label: statistics.median(run.matches_per_s for run in done) for label, done in runs.items()
    }
    rows = []
    for label, done in runs.items():
        rows.append(
            Row(
                "league",
                f"instant bots, league run with SQLite, concurrency {concurrency}: {label}",
                rates[label],
                unit="matches/s",
                detail=f"median of {len(done)} interleaved rounds"
                f" ({', '.join(f'{run.matches_per_s:.1f}' for run in done)});"
                f" {sizes.league_db_matches} matches each, rate after the first {concurrency}"
                f" were written; {statistics.median(run.batches for run in done):.0f}"
                " transactions; the event loop held by writes"
                f" {statistics.median(run.loop_write_ms for run in done):.2f} ms per match",
            )
        )
    writer, before = rates["writer"], rates["commit per match"]
    rows.append(
        Row(
            "league",
            f"instant bots, league run with SQLite, concurrency {concurrency}:"
            " result writer ÷ commit per match",
            writer / before if before else None,
            detail=f"{writer:.1f} vs {before:.1f} matches/s (bench/league_db.py; before the"
            " writer, each result was committed on the event loop's thread)",
        )
    )
    return rows


WORKERS_CONCURRENCY = 4


def workers_row(sizes: Sizes) -> Row:
    """``--workers 2`` ÷ ``--workers 1`` at the same concurrency, instant bots."""
    runs = {
        workers: league.workers_run(sizes.workers_matches, WORKERS_CONCURRENCY, workers)
        for workers in (1, 2)
    }
    one, two = runs[1], runs[2]
    return Row(
        "league",
        f"instant bots, concurrency {WORKERS_CONCURRENCY}: --workers 2 ÷ --workers 1",
        two.run.matches_per_s / one.run.matches_per_s,
        detail=f"{two.run.matches_per_s:.1f} vs {one.run.matches_per_s:.1f} matches/s,"
        f" {sizes.workers_matches} matches each, runner slots without the database;"
        f" runner CPU {two.runner_cpu_per_match_ms:.1f} vs {one.runner_cpu_per_match_ms:.1f}"
        f" ms/match; {os.cpu_count()} cores shared by runner, workers and bots",
    )


def memory_rows(sizes: Sizes) -> list[Row]:
    result = league.memory_run(sizes.memory_matches)
    return [
        Row(
            "memory",
            f"runner RSS after {result.large} matches ÷ after {result.small}",
            result.rss_large_kb / result.rss_small_kb,
            target_op="<=",
            target=1.1,
            detail=f"{result.rss_large_kb / 1024:.1f} MiB vs {result.rss_small_kb / 1024:.1f} MiB"
            f" (peak {result.peak_kb / 1024:.1f} MiB); issue asks 10k vs 1k, smaller N here;"
            " instant bots, warm pool, records dropped",
        )
    ]


def startup_rows(sizes: Sizes) -> list[Row]:
    """Each ratio per round (medians of ``startup_runs`` launches of each side, in turn),
    then the median of the rounds: one slow launch of either side moves one round."""
    helps = [startup.cli_help(sizes.startup_runs) for _ in range(WIRE_ROUNDS)]
    healths = [startup.health_times(sizes.startup_runs) for _ in range(WIRE_ROUNDS)]
    endings = [startup.cli_ending(sizes.startup_runs) for _ in range(WIRE_ROUNDS)]
    rows = []
    for name, target, rounds, what in (
        ("`arena --help` ÷ `python -c 'import typer'`", 2.0, helps, ""),
        (
            "SDK bot to Health ÷ bare grpcio server",
            1.5,
            healths,
            "example_bots.liars_dice_random, ",
        ),
        (
            "`arena league list` CPU: quick ending ÷ interpreter teardown",
            1.0,
            endings,
            "CPU seconds, not wall; ",
        ),
    ):
        ratios = [ours / theirs for ours, theirs in rounds]
        ours_ms = statistics.median(ours for ours, _ in rounds) * 1e3
        theirs_ms = statistics.median(theirs for _, theirs in rounds) * 1e3
        rows.append(
            Row(
                "start-up",
                name,
                statistics.median(ratios),
                target_op="<=",
                target=target,
                detail=f"{_spread(ratios)}; {ours_ms:.0f} ms vs {theirs_ms:.0f} ms ({what}each"
                f" round the median of {sizes.startup_runs} launches of each, in turn)",
            )
        )
    return rows


def ratings_rows() -> list[Row]:
    small, large = startup.ratings_fit(50, 10_000, 100_000)
    return [
        Row(
            "ratings",
            "batch fit, 50 bots: 100k matches ÷ 10k",
            large / small,
            target_op="<=",
            target=12,
            detail=f"{large * 1e3:.0f} ms vs {small * 1e3:.0f} ms (fit_bradley_terry, synthetic)",
        )
    ]


def server_rows(sizes: Sizes) -> list[Row]:
    """Pages/s of the leaderboard and its JSON under a bounded loopback load while a
    league plays (``bench/server_load.py``); informational, no target in the issue."""
    try:
        loads = server_load.server_load(sizes.server_clients, sizes.server_requests)
    except Exception as error:  # e.g. the server extra is not installed: say so
        return [Row("server", "arena serve under load", None, detail=repr(error))]
    return [
        Row(
            "server",
            f"GET {load.path} while a league plays",
            load.pages_per_s,
            unit="pages/s",
            detail=server_load.describe(load),
        )
        for load in loads
    ]


def fairness_rows(sizes: Sizes) -> list[Row]:
    """A CPU hog's cost to its opponent (``bench/cpu_fairness.py``): the opponent's
    median decision time beside a spinning hog ÷ beside a stopped one, with fair
    share, and (informational) with the groups of before and with no CPU group per
    seat."""
    name = "opponent's median decision time: hog spinning ÷ hog stopped"
    if why := cgroups.available():
        return [Row("fairness", name, None, detail=f"no control groups here: {why}")]
    try:
        results = cpu_fairness.measure_alternating(
            sizes.fairness_matches, ("fair", "before", "pooled")
        )
    except Exception as error:  # e.g. no bubblewrap here: say so, keep going
        return [Row("fairness", name, None, detail=repr(error))]
    rows = []
    for sharing, result in results.items():
        fair = sharing == "fair"
        label = name if fair else f"{name}: {cpu_fairness.SHARING_LABELS[sharing]}"
        if isinstance(result, Exception):
            rows.append(Row("fairness", label, None, detail=str(result)))
            continue
        rows.append(
            Row(
                "fairness",
                label,
                result.ratio,
                target_op="<=" if fair else "",
                target=1.2 if fair else None,
                detail=f"{result.describe()}; {os.cpu_count()} cores, the three rows'"
                " matches played in turn",
            )
        )
    return rows


RAY_CONCURRENCY = 4


def ray_rows(sizes: Sizes) -> list[Row]:
    """The Ray executor against the local runner on this machine, sleeping bots,
    the same concurrency: what distributing costs where it cannot pay."""
    try:
        import ray  # noqa: F401
    except ImportError as error:
        return [Row("ray", "Ray executor ÷ local runner", None, detail=repr(error))]
    rows = []
    for sleep_ms, matches in sizes.ray_matches.items():
        local = league.ray_run(matches, RAY_CONCURRENCY, sleep_ms, ray=False).run
        remote = league.ray_run(matches, RAY_CONCURRENCY, sleep_ms, ray=True).run
        # Wall time a match holds a slot: concurrency ÷ throughput.
        extra_ms = RAY_CONCURRENCY / remote.matches_per_s - RAY_CONCURRENCY / local.matches_per_s
        match_s = RAY_CONCURRENCY / local.matches_per_s
        rows.append(
            Row(
                "ray",
                f"sleep {sleep_ms:g} ms bots, concurrency {RAY_CONCURRENCY}:"
                " Ray executor ÷ local runner (matches/s)",
                remote.matches_per_s / local.matches_per_s,
                detail=f"{remote.matches_per_s:.2f} vs {local.matches_per_s:.2f} matches/s,"
                f" {matches} matches each, {remote.decisions / matches:.0f} decisions/match;"
                f" Ray adds {extra_ms * 1e3:.0f} ms to a {match_s:.2f} s match (local Ray"
                f" instance, {RAY_CONCURRENCY} logical CPUs on {os.cpu_count()} cores, warm"
                " workers; no database)",
            )
        )
    return rows


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer matches and runs (~1.5 min)")
    parser.add_argument("--json", type=Path, default=Path("bench/results.json"))
    parser.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections")
    options = parser.parse_args(argv)
    chosen = [ALIASES.get(s.strip(), s.strip()) for s in options.only.split(",") if s.strip()]
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}; choose from {', '.join(SECTIONS)}")
    # Bot processes run `python -m bench.instant_bot` from their own directory.
    root = str(Path(__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH", "")) if p
    )
    sizes = QUICK if options.quick else FULL
    floors: dict[str, float] = {}
    steps: dict[str, Callable[[], list[Row]]] = {
        "wire": lambda: wire_rows(sizes, floors),
        "engine": lambda: engine_rows(sizes, floors),
        "long": lambda: long_rows(sizes),
        "league": lambda: league_rows(sizes),
        "memory": lambda: memory_rows(sizes),
        "startup": lambda: startup_rows(sizes),
        "ratings": ratings_rows,
        "ray": lambda: ray_rows(sizes),
        "server": lambda: server_rows(sizes),
        "fairness": lambda: fairness_rows(sizes),
        "batched": lambda: batched.batched_rows(sizes.engine_s),
        "transports": lambda: transport_rows(sizes),
        "exploit": lambda: exploit_rows(sizes, floors),
        "luck": lambda: luck.section_rows(quick=options.quick),
    }
    meta: dict[str, object] = {
        "command": " ".join(["python -m bench", *(argv if argv is not None else sys.argv[1:])]),
        "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "load_before": _load(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "commit": _commit(),
    }
    rows: list[Row] = []
    began = time.perf_counter()
    for section in SECTIONS:
        if section not in chosen:
            continue
        section_began = time.perf_counter()
        rows.extend(steps[section]())
        print(f"[{section}: {time.perf_counter() - section_began:.1f} s]", file=sys.stderr)
    meta["load_after"] = _load()
    meta["seconds"] = round(time.perf_counter() - began, 1)
    print(format_table(rows))
    print(
        f"\n{meta['started']}  load {meta['load_before']} -> {meta['load_after']}"
        f"  {meta['cpus']} cpus  python {meta['python']}  commit {meta['commit']}"
        f"  {meta['seconds']} s"
    )
    write_json(options.json, rows, meta)
    print(f"written {options.json}")


if __name__ == "__main__":
    main()
