"""A strong bot against chosen opponents in duplicate pairs, with 95 % intervals.

Each deal ``j`` (seed ``--seed + j``) is played twice, the strong bot in seat 0 and
then in seat 1, in process (``sdk.local.play_local``), exactly as
``league.execution.counters.play_rotations`` plays them. The interval is the normal
one over the pairs' mean scores (a win 1, a draw 1/2; the two matches of a deal
are not independent, so the pair is the unit).

    python -m bench.strong_vs_counter liars_poker_dice liars_poker_dice_past_cutoff --matches 400
    python -m bench.strong_vs_counter liars_dice liars_dice_threshold_counter \
        --strong example_bots.liars_dice_posterior:PosteriorLiarsDiceBot

An opponent or ``--strong`` is an ``example_bots`` module name or ``module:Class``
(e.g. a saved older version of a bot on ``PYTHONPATH``, for a before/after). With
``--baseline SPEC`` that bot plays the same deals too, and the table adds the mean
difference of the two bots' pair scores with its 95 % interval (paired: the deals'
luck cancels).
"""

from __future__ import annotations

import argparse
import importlib
import math
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.roster import roster
from league.execution.counters import bot_class
from sdk.bot import Bot
from sdk.local import play_local

Z95 = 1.959964


class StrongVsCounterError(ValueError):
    """A request the measurement cannot run (an odd match count, an unknown bot)."""


@dataclass(frozen=True, slots=True)
class PairScores:
    """The strong bot's score per duplicate pair (0, 1/4, ..., 1) against one opponent."""

    opponent: str
    scores: tuple[float, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores)

    @property
    def interval(self) -> tuple[float, float]:
        """Normal 95 % interval of the mean pair score."""
        if len(self.scores) < 2:
            return (0.0, 1.0)
        half = Z95 * statistics.stdev(self.scores) / math.sqrt(len(self.scores))
        return (max(0.0, self.mean - half), min(1.0, self.mean + half))


def paired_difference(new: Sequence[float], old: Sequence[float]) -> tuple[float, float, float]:
    """Mean of ``new - old`` per pair, with its normal 95 % interval."""
    diffs = [a - b for a, b in zip(new, old, strict=True)]
    mean = statistics.fmean(diffs)
    half = Z95 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 1.0
    return mean, mean - half, mean + half


def load(spec: str) -> type[Bot[Any, Any]]:
    """``module:Class`` or an ``example_bots`` module name."""
    if ":" not in spec:
        return bot_class(spec)
    module, _, name = spec.partition(":")
    found = getattr(importlib.import_module(module), name, None)
    if not (isinstance(found, type) and issubclass(found, Bot)):
        raise StrongVsCounterError(f"{spec!r} is not a Bot class")
    return found


def pair_scores(
    game: str,
    strong: type[Bot[Any, Any]],
    opponent: type[Bot[Any, Any]],
    deals: int,
    seed: int,
    rules: Mapping[str, str],
) -> tuple[float, ...]:
    """The strong bot's mean score over each deal's two seatings."""
    out = []
    for index in range(deals):
        total = 0.0
        for seat in (0, 1):
            bots = [opponent, opponent]
            bots[seat] = strong
            places = play_local(game, bots, seed=seed + index, rules=rules).outcome.places
            mine, theirs = places[seat], places[1 - seat]
            total += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        out.append(total / 2)
    return tuple(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("opponents", nargs="+", metavar="OPPONENT")
    parser.add_argument("--strong", help="default: the game's strong bot")
    parser.add_argument("--baseline", help="another version of the strong bot, same deals")
    parser.add_argument("--matches", type=int, default=400, help="per opponent, even")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", action="append", default=[], help="option=value")
    args = parser.parse_args(argv)
    try:
        if args.matches <= 0 or args.matches % 2:
            raise StrongVsCounterError(f"--matches must be positive and even, got {args.matches}")
        rules = dict(item.split("=", 1) for item in args.rules)
        strong_spec = args.strong or roster(args.game).strong
        if strong_spec is None:
            raise StrongVsCounterError(f"game {args.game!r} has no strong bot")
        strong = load(strong_spec)
        baseline = load(args.baseline) if args.baseline else None
        print(f"{args.game}: {strong_spec}, {args.matches} matches per opponent, seed {args.seed}")
        extra = f" {args.baseline} | difference, 95% interval |" if baseline else ""
        print(f"| opponent | strong win rate | 95% interval |{extra} s |")
        print("|---|---:|---:|" + ("---:|---:|" if baseline else "") + "---:|")
        deals = args.matches // 2
        for spec in args.opponents:
            start = time.perf_counter()
            opponent = load(spec)
            result = PairScores(
                spec, pair_scores(args.game, strong, opponent, deals, args.seed, rules)
            )
            low, high = result.interval
            cells = f"| {spec} | {result.mean:.1%} | [{low:.1%}, {high:.1%}] |"
            if baseline is not None:
                old = pair_scores(args.game, baseline, opponent, deals, args.seed, rules)
                mean, lo, hi = paired_difference(result.scores, old)
                cells += f" {statistics.fmean(old):.1%} | {mean:+.1%} [{lo:+.1%}, {hi:+.1%}] |"
            print(f"{cells} {time.perf_counter() - start:.0f} |", flush=True)
    except StrongVsCounterError as error:
        print(f"bench.strong_vs_counter: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
