"""Head to head, in process: a game's strong bot against its heuristic bot.

Plays ``--matches`` two-seat matches with ``sdk.local.play_local`` (no gRPC, so
five engineers sharing two cores can afford it). The strong bot sits in seat
``i % 2`` of match ``i`` and match ``i`` is dealt from seed ``--seed + i``, so a
run is reproducible and both seats are played equally often. It prints wins,
draws and losses by place, and the Elo difference, 95 % margin and likelihood of
superiority from ``league.domain.ratings.head_to_head`` (the cutechess formulas the
league's head-to-head view uses), plus the strong bot's decision time (median,
p99, max), measured around each ``act`` call.

    python -m bench.strong_vs_heuristic liars_poker_dice --matches 200
    python -m bench.strong_vs_heuristic cockroach_poker --matches 200 --rules max_players=2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Mapping
from typing import Any

from bench.roster import roster
from league.domain.ratings import head_to_head
from league.execution.counters import bot_class
from referee.core.catalogue import entries
from sdk.bot import Bot
from sdk.local import play_local


def strong_games() -> list[str]:
    """The games whose catalogue roster has a strong bot."""
    return [e.name for e in entries() if e.roster is not None and e.roster.strong is not None]


def pair(game: str, opponent: str = "heuristic") -> tuple[type[Bot[Any, Any]], type[Bot[Any, Any]]]:
    """The (strong, opponent) bot classes of ``game``, imported on demand.

    ``opponent`` is ``"heuristic"`` (the acceptance pairing) or ``"random"`` (a
    sanity check that the strong bot's opponent model copes with noise).
    """
    bots = roster(game)
    if bots.strong is None:
        raise ValueError(f"game {game!r} has no strong example bot")
    other = bots.random if opponent == "random" else bots.heuristic
    return bot_class(bots.strong), bot_class(other)


def timed(cls: type[Bot[Any, Any]], sink: list[float]) -> type[Bot[Any, Any]]:
    """A subclass of ``cls`` that appends each ``act`` duration (seconds) to ``sink``."""

    class Timed(cls):  # type: ignore[valid-type,misc]
        def act(self, observation: Any) -> Any:
            start = time.perf_counter()
            action = super().act(observation)
            sink.append(time.perf_counter() - start)
            return action

    return Timed


def evaluate(
    game: str, matches: int, seed: int, rules: Mapping[str, str], opponent: str = "heuristic"
) -> tuple[int, int, int, list[float]]:
    """(wins, draws, losses) of the strong bot, and its decision times."""
    strong, heuristic = pair(game, opponent)
    times: list[float] = []
    hero = timed(strong, times)
    wins = draws = losses = 0
    for index in range(matches):
        seat = index % 2
        bots = [hero, heuristic] if seat == 0 else [heuristic, hero]
        outcome = play_local(game, bots, seed=seed + index, rules=rules).outcome
        mine, theirs = outcome.places[seat], outcome.places[1 - seat]
        if mine < theirs:
            wins += 1
        elif mine == theirs:
            draws += 1
        else:
            losses += 1
    return wins, draws, losses, times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(strong_games()))
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", action="append", default=[], help="option=value")
    parser.add_argument("--opponent", choices=("heuristic", "random"), default="heuristic")
    args = parser.parse_args(argv)
    rules = dict(item.split("=", 1) for item in args.rules)
    start = time.perf_counter()
    try:
        wins, draws, losses, times = evaluate(
            args.game, args.matches, args.seed, rules, args.opponent
        )
    except RuntimeError as error:  # a bot that refuses to play, e.g. a missing value table
        print(f"{args.game}: a bot refused to play: {error}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - start
    h2h = head_to_head(wins, draws, losses)
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))] if times else 0.0
    print(
        f"{args.game}: {args.matches} matches vs {args.opponent},"
        f" strong {wins} W / {draws} D / {losses} L"
        f" (score {h2h.score:.1%}), Elo {h2h.elo:+.0f} ± {h2h.margin:.0f}, LOS {h2h.los:.4%}"
    )
    print(
        f"decisions {len(times)}: median {statistics.median(times) * 1e3:.2f} ms,"
        f" p99 {p99 * 1e3:.2f} ms, max {times[-1] * 1e3:.2f} ms; {elapsed:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
