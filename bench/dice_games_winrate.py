"""Win rates of the heuristic bots against the random bots in the two dice games.

    python -m bench.dice_games_winrate [--matches 200] [--seed 0] [--game NAME]

Run it from the repository root. For ``liars_poker_dice`` and ``dice_poker`` it
plays heuristic vs random in-process (``sdk.local.play_local``), alternating seats,
one distinct seed per match, and prints the heuristic bot's measured win rate (a
shared first place counts as a tie, not a win), its mean score and matches/second.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bench.roster import roster
from league.execution.counters import bot_class
from sdk.local import BotFactory, play_local

DICE_GAMES = ("liars_poker_dice", "dice_poker")
"""The games measured; their heuristic and random bots come from the catalogue."""


@dataclass(frozen=True, slots=True)
class Result:
    game: str
    matches: int
    wins: int
    ties: int
    heuristic_score: float
    random_score: float
    seconds: float


def measure(game: str, matches: int, seed: int) -> Result:
    """Play ``matches`` two-seat matches of ``game``, heuristic vs random."""
    heuristic: BotFactory = bot_class(roster(game).heuristic)
    random_bot: BotFactory = bot_class(roster(game).random)
    wins = ties = 0
    scores = [0.0, 0.0]
    started = time.perf_counter()
    for index in range(matches):
        smart = index % 2
        bots: list[BotFactory] = [random_bot, random_bot]
        bots[smart] = heuristic
        match_seed = seed + index
        outcome = play_local(
            game, bots, seed=match_seed, match_id=f"bench-{game}-{match_seed}"
        ).outcome
        if outcome.places[smart] == 1:
            if outcome.places[1 - smart] == 1:
                ties += 1
            else:
                wins += 1
        scores[0] += outcome.scores[smart]
        scores[1] += outcome.scores[1 - smart]
    return Result(
        game,
        matches,
        wins,
        ties,
        scores[0] / matches,
        scores[1] / matches,
        time.perf_counter() - started,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="matches per game (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first match")
    parser.add_argument(
        "--game", choices=sorted(DICE_GAMES), action="append", help="only this game (repeatable)"
    )
    options = parser.parse_args(argv)
    if options.matches < 1:
        parser.error("--matches must be at least 1")
    for game in options.game or list(DICE_GAMES):
        r = measure(game, options.matches, options.seed)
        print(
            f"{r.game}: heuristic vs random: {r.wins}/{r.matches} wins, {r.ties} ties"
            f" = {r.wins / r.matches:.1%} win rate; mean score {r.heuristic_score:.1f}"
            f" vs {r.random_score:.1f}; {r.matches / r.seconds:.1f} matches/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
