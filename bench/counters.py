"""A strong bot against simple counter-strategies, in process: its worst case.

A strong bot that beats the heuristic may still lose to a bot that pushes one
habit to the extreme (never challenge, always challenge, always bluff, announce
the truth, a lower challenge threshold). The catalogue lists those bots per game
(``Roster.counter_set``); this plays the game's strong bot against each of them
in duplicate pairs: pair ``j`` deals from seed ``--seed + j`` twice, the strong
bot in seat 0 and then in seat 1, so luck of the deal cancels out. The matches
run in process with ``sdk.local.play_local`` (no gRPC and no sandbox: fast, and
the bots' moves are the same as over the wire). It prints the strong bot's win
rate (a draw counts one half) against each counter bot, the worst one, and
whether it reaches ``TARGET``.

    python -m bench.counters                       # every game with a counter set
    python -m bench.counters liars_poker --matches 200
    python -m bench.counters cockroach_poker --rules max_players=2
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.roster import bot_class, roster
from referee.core.catalogue import entries
from referee.games.base import RulesError
from sdk.bot import Bot
from sdk.local import play_local

TARGET = 0.60
"""Issue 22: a strong bot wins at least this share against every counter bot."""


class CountersError(ValueError):
    """A request the measurement cannot run (e.g. an odd number of matches)."""


@dataclass(frozen=True, slots=True)
class Score:
    """The strong bot's results against one counter bot."""

    counter: str
    wins: int
    draws: int
    losses: int

    @property
    def matches(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def rate(self) -> float:
        """The strong bot's win rate, a draw counting one half."""
        return (self.wins + 0.5 * self.draws) / self.matches if self.matches else 0.0


def counter_games() -> list[str]:
    """The games whose roster has a strong bot and a counter set."""
    return [
        e.name
        for e in entries()
        if e.roster is not None and e.roster.strong is not None and e.roster.counter_set
    ]


def play_pairs(
    game: str,
    strong: type[Bot[Any, Any]],
    counter: type[Bot[Any, Any]],
    pairs: int,
    seed: int,
    rules: Mapping[str, str],
) -> tuple[int, int, int]:
    """(wins, draws, losses) of ``strong`` in ``pairs`` duplicate pairs of two-seat matches."""
    wins = draws = losses = 0
    for index in range(pairs):
        for seat in (0, 1):
            bots = [strong, counter] if seat == 0 else [counter, strong]
            places = play_local(game, bots, seed=seed + index, rules=rules).outcome.places
            mine, theirs = places[seat], places[1 - seat]
            wins += mine < theirs
            draws += mine == theirs
            losses += mine > theirs
    return wins, draws, losses


def measure(
    game: str, matches: int, seed: int = 1, rules: Mapping[str, str] | None = None
) -> list[Score]:
    """The strong bot of ``game`` against each bot of its counter set, ``matches`` each."""
    if matches <= 0 or matches % 2:
        raise CountersError(
            f"--matches must be a positive even number (duplicate pairs), got {matches}"
        )
    bots = roster(game)
    if bots.strong is None or not bots.counter_set:
        raise CountersError(f"game {game!r} has no strong bot or no counter set")
    strong = bot_class(bots.strong)
    scores = []
    for module in bots.counter_set:
        result = play_pairs(game, strong, bot_class(module), matches // 2, seed, rules or {})
        scores.append(Score(module, *result))
    return scores


def worst(scores: Sequence[Score]) -> Score:
    """The counter bot the strong bot scores least against."""
    return min(scores, key=lambda score: score.rate)


def report(game: str, scores: Sequence[Score]) -> str:
    """A Markdown table of ``scores`` and a line naming the worst case."""
    strong = roster(game).strong
    lines = [
        f"{game}: {strong} against its counter set",
        "",
        "| counter bot | W | D | L | strong win rate |",
        "|---|---:|---:|---:|---:|",
    ]
    for score in scores:
        mark = "" if score.rate >= TARGET else " (below 60 %)"
        lines.append(
            f"| {score.counter} | {score.wins} | {score.draws} | {score.losses}"
            f" | {score.rate:.1%}{mark} |"
        )
    low = worst(scores)
    verdict = "meets" if low.rate >= TARGET else "MISSES"
    lines += ["", f"worst case: {low.rate:.1%} against {low.counter} ({verdict} {TARGET:.0%})"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    known = counter_games()
    parser.add_argument(
        "games", nargs="*", metavar="GAME", help=f"default: all ({', '.join(known)})"
    )
    parser.add_argument("--matches", type=int, default=200, help="per counter bot (even)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", action="append", default=[], help="option=value")
    args = parser.parse_args(argv)
    try:
        rules = dict(_option(item) for item in args.rules)
        unknown = [game for game in args.games if game not in known]
        if unknown:
            raise CountersError(f"no counter set for {unknown[0]!r} (known: {', '.join(known)})")
        for game in args.games or counter_games():
            start = time.perf_counter()
            scores = measure(game, args.matches, args.seed, rules)
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
