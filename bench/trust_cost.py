"""What round three's protections cost: closing the channels between sandboxes, and
one rotation of a deal alive at a time.

    python -m bench.trust_cost [--starts 10] [--rounds 12] [--repeats 2]

Every figure is measured in this run, the variants interleaved so machine noise hits
them alike; the ratios are what to quote.

1. start-up: a random Liar's Dice bot started in the default sandbox until it answers
   Health, then stopped — with the channels closed (the filter's channel rules and the
   frozen /proc view) and without them;
2. a duplicate league (two random bots, ``--rounds`` deals of two rotations, two matches
   at once, sandboxed, through the warm pool) in matches/s: as landed (a deal's
   rotations one after the other, earlier rotations' processes parked), without parking,
   and with neither (the rotations of a deal in flight together, nothing parked).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import trio

from league.execution import executor
from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import LeagueSettings, create_league
from league.store.registry import add_bot
from referee.runtime.launcher import release, start_process
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig

BOT = BotSpec("random", command=(sys.executable, "-m", "example_bots.liars_dice_random"))
RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"


async def start_stop(sandbox: SandboxConfig) -> float:
    started = time.perf_counter()
    lease = await start_process(BOT, 30.0, sandbox=sandbox)
    ready = time.perf_counter() - started
    await release(lease)
    return ready


def league_rate(rounds: int, *, serial: bool, park: bool) -> tuple[float, int]:
    """Matches/s of one duplicate league, and the processes it started."""
    pools: list[WarmPool] = []

    def make_pool(**kwargs: object) -> WarmPool:
        pools.append(WarmPool(park=park, **kwargs))  # type: ignore[arg-type]
        return pools[-1]

    namespace = vars(executor)  # the pool the league's executor makes
    original = namespace["WarmPool"]
    namespace["WarmPool"] = make_pool
    try:
        with tempfile.TemporaryDirectory() as folder:
            engine = open_database(f"sqlite:///{Path(folder) / 'arena.db'}")
            with session_scope(engine) as session:
                for name in ("one", "two"):
                    add_bot(session=session, name=name, command=RANDOM, games=["liars_dice"])
                create_league(
                    session=session,
                    name="cost",
                    settings=LeagueSettings(
                        "liars_dice",
                        ("one", "two"),
                        rules={"dice_per_player": "3"},
                        rounds=rounds,
                        sandbox=DEFAULT_SANDBOX,
                    ),
                )
            run = LeagueRun(engine, "cost", RunOptions(concurrency=2, handle_signals=False))
            run.one_rotation_at_a_time = serial
            began = time.perf_counter()
            summary = trio.run(run.play)
            elapsed = time.perf_counter() - began
            engine.dispose()
    finally:
        namespace["WarmPool"] = original
    return summary.played / elapsed, sum(pool.started for pool in pools)


async def startups(starts: int) -> dict[str, list[float]]:
    modes = {
        "channels closed": DEFAULT_SANDBOX,
        "channels open": replace(DEFAULT_SANDBOX, close_channels=False, ipc_net_namespaces=False),
    }
    found: dict[str, list[float]] = {mode: [] for mode in modes}
    for _ in range(starts):
        for mode, config in modes.items():
            found[mode].append(await start_stop(config))
    return found


def main(starts: int, rounds: int, repeats: int) -> None:
    started = trio.run(startups, starts)
    print(f"start-up to Health in the sandbox, median of {starts}:")
    for mode, values in started.items():
        print(f"  {mode:<16} {statistics.median(values) * 1000:8.1f} ms")
    closed, opened = (statistics.median(v) for v in started.values())
    per_round = [c / o for c, o in zip(*started.values(), strict=True)]
    print(
        f"  ratio closed / open: {closed / opened:.2f}"
        f" (per interleaved round {min(per_round):.2f}-{max(per_round):.2f})"
    )
    variants = {
        "as landed": functools.partial(league_rate, rounds, serial=True, park=True),
        "no parking": functools.partial(league_rate, rounds, serial=True, park=False),
        "neither": functools.partial(league_rate, rounds, serial=False, park=False),
    }
    rates: dict[str, list[float]] = {name: [] for name in variants}
    processes: dict[str, list[int]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, play in variants.items():
            rate, count = play()
            rates[name].append(rate)
            processes[name].append(count)
    print(f"duplicate league, {rounds} deals x 2 rotations, 2 at once, sandboxed:")
    base = statistics.median(rates["neither"])
    for name in variants:
        rate = statistics.median(rates[name])
        spread = [r / b for r, b in zip(rates[name], rates["neither"], strict=True)]
        print(
            f"  {name:<11} {rate:6.2f} matches/s  ({rate / base:.2f}x neither, per round"
            f" {min(spread):.2f}-{max(spread):.2f}; processes started {processes[name]})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=2)
    options = parser.parse_args()
    main(options.starts, options.rounds, options.repeats)
