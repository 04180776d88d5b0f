"""A strong bot against simple counter-strategies, in process: its worst case.

A strong bot that beats the heuristic may still lose to a bot that pushes one
habit to the extreme (never challenge, always challenge, always bluff, announce
the truth, a lower challenge threshold). The catalogue lists those bots per game
(``Roster.counter_set``); this plays the game's strong bot against each of them
in duplicate pairs: pair ``j`` deals from seed ``--seed + j`` twice, the strong
bot in seat 0 and then in seat 1, so luck of the deal cancels out. With
``--seats n`` the counter bot fills the other seats and each deal is played ``n``
times, the strong bot once in each seat; a win is then first place alone. The matches
run in process with ``sdk.local.play_local`` (no gRPC and no sandbox: fast, and
the bots' moves are the same as over the wire). It prints the strong bot's win
rate (a draw counts one half) against each counter bot, the worst one, and
whether it reaches ``TARGET``.

The measurement core of ``python -m bench.counters`` (its command line) and of the
ladder's "worst case against counter-strategies" table (``league.execution.ladder``).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.core.catalogue import Roster, entries, get_entry
from sdk.bot import Bot
from sdk.local import play_local

TARGET = 0.60
"""Issue 22: a strong bot wins at least this share against every counter bot."""


class CountersError(ValueError):
    """A request the measurement cannot run (e.g. an odd number of matches)."""


@dataclass(frozen=True, slots=True)
class Score:
    """The strong bot's results against one counter bot (a draw: first place shared)."""

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


def roster(game: str) -> Roster:
    """The catalogue roster of ``game``; :class:`CountersError` if it has none."""
    found = get_entry(game).roster
    if found is None:
        raise CountersError(f"game {game!r} has no example bots")
    return found


def bot_class(module: str) -> type[Bot[Any, Any]]:
    """The :class:`sdk.Bot` subclass defined in ``example_bots.<module>`` (the one whose
    name starts with the module's last word, ``Optimal``, when it defines several)."""
    loaded = importlib.import_module(f"example_bots.{module}")
    classes = [
        value
        for value in vars(loaded).values()
        if inspect.isclass(value)
        and issubclass(value, Bot)
        and value.__module__ == loaded.__name__
        and getattr(value, "game", None)
    ]
    if len(classes) > 1:  # e.g. dice_poker_optimal also defines a last-turn variant
        kind = module.rsplit("_", 1)[-1]
        classes = [c for c in classes if c.__name__.lower().startswith(kind)]
    if len(classes) != 1:
        names = [c.__name__ for c in classes]
        raise CountersError(f"example_bots.{module} defines {len(classes)} bots: {names}")
    return classes[0]


def counter_games() -> list[str]:
    """The games whose roster has a strong bot and a counter set."""
    return [
        e.name
        for e in entries()
        if e.roster is not None and e.roster.strong is not None and e.roster.counter_set
    ]


def play_rotations(
    game: str,
    strong: type[Bot[Any, Any]],
    counter: type[Bot[Any, Any]],
    deals: int,
    seed: int,
    rules: Mapping[str, str],
    seats: int = 2,
) -> tuple[int, int, int]:
    """(wins, draws, losses) of ``strong`` against ``seats - 1`` copies of ``counter``.

    Each of ``deals`` deals is played ``seats`` times, the strong bot in each seat
    once (with two seats: a duplicate pair). A win is first place alone, a draw
    first place shared, anything else a loss.
    """
    wins = draws = losses = 0
    for index in range(deals):
        for seat in range(seats):
            bots = [counter] * seats
            bots[seat] = strong
            places = play_local(game, bots, seed=seed + index, rules=rules).outcome.places
            best_other = min(place for other, place in enumerate(places) if other != seat)
            wins += places[seat] < best_other
            draws += places[seat] == best_other
            losses += places[seat] > best_other
    return wins, draws, losses


def measure(
    game: str,
    matches: int,
    seed: int = 1,
    rules: Mapping[str, str] | None = None,
    seats: int = 2,
    counters: Sequence[str] | None = None,
) -> list[Score]:
    """The strong bot of ``game`` against each bot of its counter set (or of
    ``counters``, e.g. those present in this checkout), ``matches`` each."""
    if seats < 2:
        raise CountersError(f"--seats must be at least 2, got {seats}")
    if matches <= 0 or matches % seats:
        raise CountersError(
            f"--matches must be a positive multiple of --seats {seats}"
            f" (each deal is played once per seat), got {matches}"
        )
    bots = roster(game)
    if bots.strong is None or not bots.counter_set:
        raise CountersError(f"game {game!r} has no strong bot or no counter set")
    strong = bot_class(bots.strong)
    scores = []
    for module in bots.counter_set if counters is None else counters:
        counter = bot_class(module)
        result = play_rotations(game, strong, counter, matches // seats, seed, rules or {}, seats)
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
