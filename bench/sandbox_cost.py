"""What the bot sandbox costs: start-up per bot process and time per decision.

    python -m bench.sandbox_cost [--starts 12] [--matches 12] [--tree-starts 12]
                                 [--single-matches 16]

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
   namespace is gone);
4. a submitted tree (a marked directory: the bot's script, a 1 MiB data file and
   40 small ones): start-up to Health with the tree copied into a fresh tmpfs
   with fixed times (:mod:`referee.runtime.tree_copy`, the default) and bound from the
   host (``copy_trees=False``), interleaved;
5. one match per process (``MatchSpec.single_use``, as checks and rolling
   ladders play): matches per second through one warm pool with every process
   stopped after its match, and with processes reused, interleaved.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import trio

from referee.runtime.launcher import release, start_process
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import BOT_TREE_MARKER, DEFAULT_SANDBOX, NO_SANDBOX, SandboxConfig

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


def make_tree(root: Path) -> BotSpec:
    """A submitted tree as the server unpacks one (read-only, marked) whose script
    serves the random bot."""
    tree = root / "tree"
    (tree / "data").mkdir(parents=True)
    (tree / "bot.py").write_text(
        "from example_bots.liars_dice_random import RandomLiarsDiceBot\n"
        "from sdk import run\n\nrun(RandomLiarsDiceBot)\n"
    )
    (tree / "data" / "table.bin").write_bytes(os.urandom(1 << 20))
    for index in range(40):
        (tree / "data" / f"part{index}.txt").write_text(f"{index}\n" * 50)
    (tree / BOT_TREE_MARKER).write_text("files unpacked by arena submit\n")
    for directory, _dirs, names in os.walk(tree):
        for name in names:
            os.chmod(os.path.join(directory, name), 0o444)
    for directory, _dirs, _names in os.walk(tree, topdown=False):
        os.chmod(directory, 0o555)
    root.chmod(0o755)
    return BotSpec("tree", command=(sys.executable, str(tree / "bot.py")))


async def tree_startup(starts: int) -> dict[str, list[float]]:
    """Start-up to Health of a submitted tree's bot, copied and bound, interleaved."""
    modes = {"copied": DEFAULT_SANDBOX, "bound": replace(DEFAULT_SANDBOX, copy_trees=False)}
    root = Path(tempfile.mkdtemp(prefix="bench-tree-"))
    times: dict[str, list[float]] = {m: [] for m in modes}
    try:
        spec = make_tree(root)
        for _ in range(starts):
            for mode, config in modes.items():
                started = time.perf_counter()
                lease = await start_process(spec, 30.0, sandbox=config)
                times[mode].append(time.perf_counter() - started)
                await release(lease)
    finally:
        for directory, _dirs, _names in os.walk(root):
            os.chmod(directory, 0o755)
        shutil.rmtree(root, ignore_errors=True)
    return times


async def match_rate(single_use: bool, matches: int) -> float:
    """Matches per second of the random bot against itself through one warm pool."""
    pool = WarmPool(sandbox=DEFAULT_SANDBOX)
    started = time.perf_counter()
    try:
        for index in range(matches):
            spec = MatchSpec(
                "liars_dice", (BOT, BOT), match_id=f"bench-{index}", single_use=single_use
            )
            await run_match(spec, Limits(startup_s=30.0), launcher=pool)
    finally:
        await pool.aclose()
    return matches / (time.perf_counter() - started)


async def tree_and_single_use(tree_starts: int, single_matches: int) -> None:
    """Items 4 and 5 of the module docstring."""
    times = await tree_startup(tree_starts)
    copied, bound = (statistics.median(times[m]) * 1000 for m in ("copied", "bound"))
    print(f"submitted tree, start-up to Health, median of {tree_starts}:")
    print(f"  copied      {copied:8.1f} ms\n  bound       {bound:8.1f} ms")
    print(f"  the copy adds {copied - bound:.1f} ms ({copied / bound:.2f}x)")
    rates: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(2):
        for single_use in (True, False):
            rates[single_use].append(await match_rate(single_use, single_matches // 2))
    one, warm = (statistics.mean(rates[s]) for s in (True, False))
    print(f"matches per second through one pool ({single_matches} matches each, one at a time):")
    print(f"  one match per process {one:6.2f}\n  processes reused      {warm:6.2f}")
    print(f"  ratio one match per process / reused: {one / warm:.2f}")


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
    parser.add_argument("--tree-starts", type=int, default=12)
    parser.add_argument("--single-matches", type=int, default=16)
    parser.add_argument("--only-trees", action="store_true", help="measure items 4 and 5 alone")
    options = parser.parse_args()
    if not options.only_trees:
        trio.run(main, options.starts, options.matches)
    trio.run(tree_and_single_use, options.tree_starts, options.single_matches)
