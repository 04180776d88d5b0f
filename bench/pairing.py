"""Adaptive pairing against round-robin, on simulated outcomes (``docs/rolling.md``).

The pairing, the fit and the intervals are the real code
(:func:`league.domain.pairing.choose_tables`, :func:`league.domain.ratings.fit_with_sd`,
:func:`league.domain.ratings.head_to_head`); only the match outcomes are drawn from
fixed win probabilities (measured on real bots; see the docs). Each table is a
duplicate group of two matches (both seat rotations), as in a ladder; a simulated
match ignores the seat.

    python -m bench.pairing [--runs 40] [--max-matches 600]
    python -m bench.pairing --tie [--runs 200] [--max-matches 400]

``--tie``: four bots, two of them equal (two copies of the random bot), with the
pairing as it is and as it was before it knew a tie (the module at
:data:`BEFORE_TIES`, read from git): matches until the whole order is found, and the
largest share of one pair once the others have separated.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import subprocess
import sys
import types
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from league.domain import pairing
from league.domain.bradley_terry import fit_with_differences
from league.domain.pairing import MIN_SHARE, SHARE_WINDOW, TIE_ZONE, LadderEntry
from league.domain.ratings import EXACT_Z95, MatchResult, head_to_head

MEASURED = {
    ("counting", "random"): 1.0,
    ("probability", "random"): 1.0,
    ("probability", "counting"): 0.81,
}
"""Liar's Dice (default rules), win rate of the first bot over the second: 200
duplicate-paired matches per pair through ``sdk.local`` (the docs give the run)."""
CLOSE = {
    ("counting", "random"): 0.95,
    ("probability", "random"): 0.97,
    ("probability", "counting"): 0.60,
}
"""A harder case: the upper pair 60/40, the lower one still clear."""
BOTS = ("random", "counting", "probability")
TIE = {
    **MEASURED,
    ("counting", "random-2"): 1.0,
    ("probability", "random-2"): 1.0,
    ("random", "random-2"): 0.5,
}
"""Four bots, two of them equal: :data:`MEASURED` and a second copy of the random bot."""
CLEAR_TIE = {**TIE, ("probability", "counting"): 0.95}
"""As :data:`TIE` with the upper pair clear (95/5): the other pairs separate within a
few dozen matches, as in the league where 384 of 400 matches went to the equal pair."""
TIE_BOTS = ("random", "random-2", "counting", "probability")
TIE_ORDER = (("probability", "counting"), ("counting", "random"), ("counting", "random-2"))
"""The order to find in :data:`TIE`, each pair at LOS 95% in the fit (:func:`_found`);
random v random-2 has none."""
LOS95 = 1.644854
"""The 95% standard-normal quantile (one-sided)."""
BEFORE_TIES = "912b782"
"""The commit whose ``league/domain/pairing.py`` is the pairing before the tie rule."""
BATCH_GROUPS = 4
PLACEMENT = 4


@dataclass(frozen=True, slots=True)
class Run:
    pairs: Counter[frozenset[str]]
    """Matches per pair."""
    seats: Counter[str]
    """Matches per bot."""
    separated_at: int | None
    """Matches played when every target pair first stood at LOS 95% at once."""
    after: Counter[frozenset[str]]
    """Matches per pair after ``separated_at``."""


def win_chance(p: Mapping[tuple[str, str], float], a: str, b: str) -> float:
    return p[(a, b)] if (a, b) in p else 1.0 - p[(b, a)]


def _entries(
    results: Sequence[MatchResult], seats: Counter[str], bots: Sequence[str]
) -> tuple[list[LadderEntry], int, dict[frozenset[str], float], Counter[frozenset[str]]]:
    ratings, sd, differences = fit_with_differences(results) if results else ({}, {}, {})
    window = results[-SHARE_WINDOW:]
    recent = Counter(bot for match in window for bot in match.bots)
    pair_recent = Counter(frozenset(match.bots) for match in window)
    entries = [
        LadderEntry(
            key=bot,
            rating=ratings.get(bot, 1500.0),
            spread=2.0 * EXACT_Z95 * sd.get(bot, 246.0),
            matches=seats[bot],
            order=i,
            recent=recent[bot],
        )
        for i, bot in enumerate(bots)
    ]
    return entries, len(window), differences, pair_recent


def before_ties() -> types.ModuleType:
    """The pairing module at :data:`BEFORE_TIES` (from git), for before/after runs."""
    root = Path(__file__).resolve().parents[1]
    source = subprocess.run(
        ["git", "show", f"{BEFORE_TIES}:league/domain/pairing.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("pairing_before_ties")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, "pairing_before_ties.py", "exec"), module.__dict__)
    return module


def _los(results: Sequence[MatchResult], a: str, b: str) -> float:
    wins = losses = 0
    for match in results:
        if set(match.bots) == {a, b}:
            won = match.places[match.bots.index(a)] == 1
            wins += won
            losses += not won
    return head_to_head(wins, 0, losses).los


def _found(results: Sequence[MatchResult], order: Sequence[tuple[str, str]]) -> bool:
    """Every pair of ``order`` (better, worse) has the better one above at LOS 95% in
    the fit: its rating difference above 1.645 standard deviations of the difference."""
    ratings, _, differences = fit_with_differences(results)
    return all(
        a in ratings
        and b in ratings
        and ratings[a] - ratings[b] > LOS95 * differences[frozenset((a, b))]
        for a, b in order
    )


def simulate(
    probabilities: Mapping[tuple[str, str], float],
    *,
    adaptive: bool,
    max_matches: int,
    seed: int,
    target: tuple[str, str] = ("probability", "counting"),
    targets: Sequence[tuple[str, str]] | None = None,
    bots: Sequence[str] = BOTS,
    min_share: float = MIN_SHARE,
    tie_zone: float = TIE_ZONE,
    module: Any = pairing,
) -> Run:
    """Play batches of duplicate groups until ``max_matches``: chosen by ``module``'s
    ``choose_tables`` (``adaptive``; the fit's pair differences and ``tie_zone`` are
    passed when it takes them) or in round-robin order. The order is found when
    head-to-head ``target`` pair stands at LOS 95%, or with ``targets`` when every
    one of them does in the fit (:func:`_found`)."""
    rng = random.Random(seed)
    results: list[MatchResult] = []
    seats: Counter[str] = Counter()
    pairs: Counter[frozenset[str]] = Counter()
    after: Counter[frozenset[str]] = Counter()
    round_robin = [(a, b) for i, a in enumerate(bots) for b in bots[i + 1 :]]
    knows_ties = hasattr(module, "TIE_ZONE")
    separated: int | None = None
    batch = 0
    while len(results) < max_matches:
        if adaptive:
            entries, recent_total, differences, pair_recent = _entries(results, seats, bots)
            extra: dict[str, object] = (
                {"differences": differences, "tie_zone": tie_zone, "pair_recent": pair_recent}
                if knows_ties
                else {}
            )
            choose: Callable[..., list[tuple[str, ...]]] = module.choose_tables
            tables = choose(
                entries,
                groups=BATCH_GROUPS,
                placement_matches=PLACEMENT,
                min_share=min_share,
                recent_total=recent_total,
                **extra,
            )
        else:
            tables = [
                round_robin[(batch * BATCH_GROUPS + g) % len(round_robin)]
                for g in range(BATCH_GROUPS)
            ]
        for t, (a, b) in enumerate(tables):
            for rotation in range(2):
                first, second = (a, b) if rotation == 0 else (b, a)
                won = rng.random() < win_chance(probabilities, first, second)
                places = (1, 2) if won else (2, 1)
                results.append(MatchResult((first, second), places, f"r{batch}-t{t}"))
                seats.update((a, b))
                pairs[frozenset((a, b))] += 1
                if separated is not None:
                    after[frozenset((a, b))] += 1
        batch += 1
        if separated is None and (
            _found(results, targets) if targets is not None else _los(results, *target) >= 0.95
        ):
            separated = len(results)
    return Run(pairs, seats, separated, after)


def _interval(values: Sequence[float]) -> str:
    """Mean ± 1.96 standard errors."""
    mean = statistics.fmean(values)
    half = EXACT_Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:.0f} [{mean - half:.0f}, {mean + half:.0f}]"


def tie_report(runs: int, max_matches: int, tie_zone: float = TIE_ZONE) -> None:
    """Four bots, two equal: before (the pairing at :data:`BEFORE_TIES`) and now."""
    tied_pair = frozenset(("random", "random-2"))
    before = before_ties()
    for (label, module), (case, probabilities) in itertools.product(
        (("before", before), ("now", pairing)), (("measured", TIE), ("clear", CLEAR_TIE))
    ):
        played = [
            simulate(
                probabilities,
                adaptive=True,
                max_matches=max_matches,
                seed=s,
                targets=TIE_ORDER,
                bots=TIE_BOTS,
                tie_zone=tie_zone,
                module=module,
            )
            for s in range(runs)
        ]
        found = [r.separated_at for r in played if r.separated_at is not None]
        times = sorted(found)
        whole = [r.pairs[tied_pair] / sum(r.pairs.values()) for r in played]
        later = [
            max(r.after.values()) / sum(r.after.values()) for r in played if sum(r.after.values())
        ]
        print(
            f"{case:9} {label:7} tied pair {statistics.fmean(whole):5.1%} of all matches;"
            f" largest pair share after the order is found: mean {statistics.fmean(later):5.1%},"
            f" worst {max(later):5.1%}, above 40% in {sum(x > 0.4 for x in later)}"
            f" of {len(later)} runs;"
            f" matches to the order: mean {_interval(found)},"
            f" median {times[len(times) // 2]}, 90th pct {times[int(len(times) * 0.9)]}"
            f" ({runs - len(found)} of {runs} not by {max_matches})"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--max-matches", type=int, default=600)
    parser.add_argument("--tie", action="store_true", help="four bots, two equal: before/now")
    parser.add_argument("--tie-zone", type=float, default=TIE_ZONE)
    args = parser.parse_args(argv)
    if args.tie:
        tie_report(args.runs, args.max_matches, args.tie_zone)
        return
    before = before_ties()
    for label, probabilities in (("measured", MEASURED), ("close", CLOSE)):
        for name, adaptive, module in (
            ("before", True, before),
            ("adaptive", True, pairing),
            ("round-robin", False, pairing),
        ):
            runs = [
                simulate(
                    probabilities,
                    adaptive=adaptive,
                    max_matches=args.max_matches,
                    seed=s,
                    module=module,
                )
                for s in range(args.runs)
            ]
            total = sum(sum(r.pairs.values()) for r in runs)
            target = sum(r.pairs[frozenset(("probability", "counting"))] for r in runs)
            least = min(min(r.seats[b] for b in BOTS) / sum(r.pairs.values()) for r in runs)
            times = sorted(r.separated_at or args.max_matches + 1 for r in runs)
            print(
                f"{label:9} {name:12}"
                f" uncertain pair {target / total:5.1%}  least share {least:5.1%}"
                f"  matches to LOS 95%: mean {_interval(times)}, median {times[len(times) // 2]},"
                f" 90th pct {times[int(len(times) * 0.9)]}"
                f" ({sum(r.separated_at is None for r in runs)} of {len(runs)} not by"
                f" {args.max_matches})"
            )


if __name__ == "__main__":
    main()
