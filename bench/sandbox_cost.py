"""What the bot sandbox costs: start-up per bot process and time per decision.

    python -m bench.sandbox_cost [--starts 12] [--matches 12]

Every figure is measured in this run, sandboxed and unsandboxed interleaved so
machine noise hits both alike; the ratios are what to quote.

1. start-up: a random Liar's Dice bot (the SDK, grpcio) started by the referee
   until it answers Health, then stopped and reaped — in the sandbox (bubblewrap,
   prlimit, setpriv) and without it;
   — and in the sandbox without its system-call filter and fresh keyring, to
   show what those cost;
2. per decision: median of the referee's measured round trip (``elapsed_ms`` in
   the record) over real matches between random-bot processes, both ways;
3. stop: time to stop and reap a bot (the sandbox waits until its whole PID
   namespace is gone).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace

import trio

from referee.launcher import release, start_process
from referee.match import Limits, MatchSpec, run_match
from referee.pool import WarmPool
from referee.process import BotSpec
from referee.sandbox import DEFAULT_SANDBOX, NO_SANDBOX, SandboxConfig

BOT = BotSpec("random", command=(sys.executable, "-m", "example_bots.liars_dice_random"))


async def start_stop(sandbox: SandboxConfig) -> tuple[float, float]:
    """Seconds to start and answer Health; seconds to stop and reap."""
    started = time.perf_counter()
    lease = await start_process(BOT, 30.0, sandbox=sandbox)
    ready = time.perf_counter()
    await release(lease)
    return ready - started, time.perf_counter() - ready


async def decisions(sandbox: SandboxConfig, matches: int) -> list[float]:
    """Per-decision round trips (ms) in ``matches`` matches through one warm pool."""
    pool = WarmPool(sandbox=sandbox)
    elapsed: list[float] = []
    try:
        for index in range(matches):
            spec = MatchSpec(
                "liars_dice",
                (BOT, BOT),
                seed=index,
                match_id=f"bench-{index}",
                rules={"dice_per_player": "5"},
            )
            record = await run_match(spec, Limits(startup_s=30.0), launcher=pool)
            elapsed += [e.elapsed_ms for e in record.events if e.elapsed_ms is not None]
    finally:
        await pool.aclose()
    return elapsed


async def main(starts: int, matches: int) -> None:
    modes = {
        "sandbox": DEFAULT_SANDBOX,
        "no filter": replace(DEFAULT_SANDBOX, seccomp=False, fresh_keyring=False),
        "no sandbox": NO_SANDBOX,
    }
    startup: dict[str, list[float]] = {m: [] for m in modes}
    stop: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(starts):
        for mode, config in modes.items():
            up, down = await start_stop(config)
            startup[mode].append(up)
            stop[mode].append(down)
    per_decision: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(2):
        for mode, config in modes.items():
            per_decision[mode] += await decisions(config, matches // 2)

    def median_ms(values: list[float], scale: float = 1000.0) -> float:
        return statistics.median(values) * scale

    print(f"start-up to Health, median of {starts}:")
    for mode in modes:
        print(f"  {mode:<11} {median_ms(startup[mode]):8.1f} ms")
    print(
        f"  ratio sandbox / no sandbox: "
        f"{median_ms(startup['sandbox']) / median_ms(startup['no sandbox']):.2f};"
        f" sandbox / sandbox without its system-call filter and fresh keyring:"
        f" {median_ms(startup['sandbox']) / median_ms(startup['no filter']):.2f}"
    )
    print(f"stop and reap, median of {starts}:")
    for mode in modes:
        print(f"  {mode:<11} {median_ms(stop[mode]):8.1f} ms")
    print("per decision (referee round trip), median:")
    for mode in modes:
        print(
            f"  {mode:<11} {statistics.median(per_decision[mode]) * 1000:8.0f} µs"
            f"  ({len(per_decision[mode])} decisions)"
        )
    ratio = statistics.median(per_decision["sandbox"]) / statistics.median(
        per_decision["no sandbox"]
    )
    filtered = statistics.median(per_decision["sandbox"]) / statistics.median(
        per_decision["no filter"]
    )
    print(f"  ratio sandbox / no sandbox: {ratio:.2f}; sandbox / no filter: {filtered:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--starts", type=int, default=12)
    parser.add_argument("--matches", type=int, default=12)
    options = parser.parse_args()
    trio.run(main, options.starts, options.matches)
