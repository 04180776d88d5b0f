"""Win rates of the card-game heuristic bots against random bots, in process.

For each card game and table size (2 and 4 seats) it plays ``--matches`` matches
with ``sdk.local.play_local``: one heuristic bot, the other seats random; the
heuristic's seat rotates (match ``i`` puts it in seat ``i % seats``) and every
match has its own seed. It prints the heuristic's win rate (place 1, ties
included), its mean place, the expected values for a seat of no skill, and
matches per second.

    python -m bench.card_games_winrate              # 200 matches per line
    python -m bench.card_games_winrate --matches 50
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

from bench.roster import roster
from league.execution.counters import bot_class
from sdk.bot import Bot
from sdk.local import BotFactory, play_local

CARD_GAMES = ("cockroach_poker", "liars_poker")
"""The games measured; their heuristic and random bots come from the catalogue."""
SEAT_COUNTS = (2, 4)


@dataclass(frozen=True, slots=True)
class Line:
    game: str
    seats: int
    matches: int
    wins: int
    mean_place: float
    seconds: float

    def text(self) -> str:
        baseline_place = (1 + self.seats) / 2
        return (
            f"{self.game:16} {self.seats} seats  {self.matches:4} matches  "
            f"win rate {self.wins / self.matches:6.1%} (random {1 / self.seats:.1%})  "
            f"mean place {self.mean_place:.2f} (random {baseline_place:.2f})  "
            f"{self.matches / self.seconds:7.1f} matches/s"
        )


def measure(game: str, seats: int, matches: int, first_seed: int) -> Line:
    heuristic: type[Bot[Any, Any]] = bot_class(roster(game).heuristic)
    random_bot: type[Bot[Any, Any]] = bot_class(roster(game).random)
    wins = 0
    places = 0
    start = time.perf_counter()
    for index in range(matches):
        hero = index % seats
        bots: list[BotFactory] = [heuristic if s == hero else random_bot for s in range(seats)]
        result = play_local(game, bots, seed=first_seed + index)
        place = result.outcome.places[hero]
        wins += place == 1
        places += place
    return Line(game, seats, matches, wins, places / matches, time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="matches per line")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first match")
    options = parser.parse_args(argv)
    seed = options.seed
    for game in CARD_GAMES:
        for seats in SEAT_COUNTS:
            line = measure(game, seats, options.matches, seed)
            seed += options.matches
            print(line.text(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
