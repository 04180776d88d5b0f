"""A strong bot against simple counter-strategies, in process: its worst case.

The command line over :mod:`league.execution.counters` (the measurement, shared with
``make ladder``'s "worst case against counter-strategies" table): pair ``j`` deals
from seed ``--seed + j`` once per seat, the strong bot in each seat in turn, the
counter bot in the others; matches run in process (``sdk.local.play_local``).

    python -m bench.counters                       # every game with a counter set
    python -m bench.counters liars_poker --matches 200
    python -m bench.counters cockroach_poker --seats 3
"""

from __future__ import annotations

import argparse
import sys
import time

from league.execution.counters import CountersError, counter_games, measure, report
from referee.gamekit.base import RulesError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    known = counter_games()
    parser.add_argument(
        "games", nargs="*", metavar="GAME", help=f"default: all ({', '.join(known)})"
    )
    parser.add_argument(
        "--matches",
        type=int,
        default=200,
        help="per counter bot, a multiple of --seats (default 200)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", action="append", default=[], help="option=value")
    parser.add_argument(
        "--seats", type=int, default=2, help="table size; the counter bot fills the other seats"
    )
    args = parser.parse_args(argv)
    try:
        rules = dict(_option(item) for item in args.rules)
        unknown = [game for game in args.games if game not in known]
        if unknown:
            raise CountersError(f"no counter set for {unknown[0]!r} (known: {', '.join(known)})")
        for game in args.games or counter_games():
            start = time.perf_counter()
            scores = measure(game, args.matches, args.seed, rules, args.seats)
            print(report(game, scores))
            print(
                f"({args.matches} matches per counter bot, {time.perf_counter() - start:.0f} s)\n"
            )
    except (CountersError, RulesError) as error:
        print(f"bench.counters: {error}", file=sys.stderr)
        return 2
    return 0


def _option(item: str) -> tuple[str, str]:
    option, equals, value = item.partition("=")
    if not equals:
        raise CountersError(f"--rules takes option=value, got {item!r}")
    return option, value


if __name__ == "__main__":
    raise SystemExit(main())
