"""Adaptive pairing against round-robin, on simulated outcomes (``docs/rolling.md``).

The pairing, the fit and the intervals are the real code
(:func:`league.domain.pairing.choose_tables`, :func:`league.domain.ratings.fit_with_sd`,
:func:`league.domain.ratings.head_to_head`); only the match outcomes are drawn from
fixed win probabilities (measured on real bots; see the docs). Each table is a
duplicate group of two matches (both seat rotations), as in a ladder; a simulated
match ignores the seat.

    python -m bench.pairing [--runs 40] [--max-matches 600]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from league.domain.pairing import MIN_SHARE, SHARE_WINDOW, LadderEntry, choose_tables
from league.domain.ratings import EXACT_Z95, MatchResult, fit_with_sd, head_to_head

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
BATCH_GROUPS = 4
PLACEMENT = 4


@dataclass(frozen=True, slots=True)
class Run:
    pairs: Counter[frozenset[str]]
    """Matches per pair."""
    seats: Counter[str]
    """Matches per bot."""
    separated_at: int | None
    """Matches played when the adjacent pair (the target) first reached LOS 95%."""


def win_chance(p: Mapping[tuple[str, str], float], a: str, b: str) -> float:
    return p[(a, b)] if (a, b) in p else 1.0 - p[(b, a)]


def _entries(results: Sequence[MatchResult], seats: Counter[str]) -> tuple[list[LadderEntry], int]:
    ratings, sd = fit_with_sd(results) if results else ({}, {})
    window = results[-SHARE_WINDOW:]
    recent = Counter(bot for match in window for bot in match.bots)
    return [
        LadderEntry(
            key=bot,
            rating=ratings.get(bot, 1500.0),
            spread=2.0 * EXACT_Z95 * sd.get(bot, 246.0),
            matches=seats[bot],
            order=i,
            recent=recent[bot],
        )
        for i, bot in enumerate(BOTS)
    ], len(window)


def _los(results: Sequence[MatchResult], a: str, b: str) -> float:
    wins = losses = 0
    for match in results:
        if set(match.bots) == {a, b}:
            won = match.places[match.bots.index(a)] == 1
            wins += won
            losses += not won
    return head_to_head(wins, 0, losses).los


def simulate(
    probabilities: Mapping[tuple[str, str], float],
    *,
    adaptive: bool,
    max_matches: int,
    seed: int,
    target: tuple[str, str] = ("probability", "counting"),
    min_share: float = MIN_SHARE,
) -> Run:
    """Play batches of duplicate groups until ``max_matches``: chosen by
    :func:`choose_tables` (``adaptive``) or in round-robin order."""
    rng = random.Random(seed)
    results: list[MatchResult] = []
    seats: Counter[str] = Counter()
    pairs: Counter[frozenset[str]] = Counter()
    round_robin = [(a, b) for i, a in enumerate(BOTS) for b in BOTS[i + 1 :]]
    separated: int | None = None
    batch = 0
    while len(results) < max_matches:
        if adaptive:
            entries, recent_total = _entries(results, seats)
            tables = choose_tables(
                entries,
                groups=BATCH_GROUPS,
                placement_matches=PLACEMENT,
                min_share=min_share,
                recent_total=recent_total,
            )
        else:
            tables = [round_robin[(batch * BATCH_GROUPS + g) % 3] for g in range(BATCH_GROUPS)]
        for t, (a, b) in enumerate(tables):
            for rotation in range(2):
                first, second = (a, b) if rotation == 0 else (b, a)
                won = rng.random() < win_chance(probabilities, first, second)
                places = (1, 2) if won else (2, 1)
                results.append(MatchResult((first, second), places, f"r{batch}-t{t}"))
                seats.update((a, b))
                pairs[frozenset((a, b))] += 1
        batch += 1
        if separated is None and _los(results, *target) >= 0.95:
            separated = len(results)
    return Run(pairs, seats, separated)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--max-matches", type=int, default=600)
    args = parser.parse_args(argv)
    for label, probabilities in (("measured", MEASURED), ("close", CLOSE)):
        for adaptive in (True, False):
            runs = [
                simulate(probabilities, adaptive=adaptive, max_matches=args.max_matches, seed=s)
                for s in range(args.runs)
            ]
            total = sum(sum(r.pairs.values()) for r in runs)
            target = sum(r.pairs[frozenset(("probability", "counting"))] for r in runs)
            least = min(min(r.seats[b] for b in BOTS) / sum(r.pairs.values()) for r in runs)
            times = sorted(r.separated_at or args.max_matches + 1 for r in runs)
            print(
                f"{label:9} {'adaptive' if adaptive else 'round-robin':12}"
                f" uncertain pair {target / total:5.1%}  least share {least:5.1%}"
                f"  matches to LOS 95%: median {times[len(times) // 2]},"
                f" 90th pct {times[int(len(times) * 0.9)]}"
                f" ({sum(r.separated_at is None for r in runs)} of {len(runs)} not by"
                f" {args.max_matches})"
            )


if __name__ == "__main__":
    main()
