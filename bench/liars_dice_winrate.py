"""Win rate of the probability bot against the random bot in two-player Liar's Dice.

    python -m bench.liars_dice_winrate [--matches 200] [--seed 0] [--rule name=value ...]
    python bench/liars_dice_winrate.py --matches 200

Plays in-process (``sdk.local.play_local``),
alternating seats, one distinct seed per match, and prints the probability bot's
measured win rate and matches/second.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from example_bots.liars_dice_random import RandomLiarsDiceBot
from sdk.local import BotFactory, play_local


def measure(matches: int, seed: int, rules: dict[str, str]) -> tuple[int, float]:
    """Play ``matches`` matches; return the probability bot's wins and the elapsed seconds."""
    wins = 0
    started = time.perf_counter()
    for index in range(matches):
        smart_seat = index % 2
        bots: list[BotFactory] = [RandomLiarsDiceBot, RandomLiarsDiceBot]
        bots[smart_seat] = ProbabilityLiarsDiceBot
        result = play_local(
            "liars_dice",
            bots,
            seed=seed + index,
            rules=rules,
            match_id=f"bench-{seed + index}",
        )
        if result.outcome.places[smart_seat] == 1:
            wins += 1
    return wins, time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="matches to play (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first match")
    parser.add_argument(
        "--rule", action="append", default=[], metavar="NAME=VALUE", help="a rule option"
    )
    options = parser.parse_args(argv)
    if options.matches < 1:
        parser.error("--matches must be at least 1")
    rules = dict(item.split("=", 1) for item in options.rule)
    wins, elapsed = measure(options.matches, options.seed, rules)
    rate = wins / options.matches
    print(
        f"probability bot vs random bot: {wins}/{options.matches} wins"
        f" = {rate:.1%} win rate; {options.matches / elapsed:.1f} matches/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
