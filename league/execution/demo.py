"""The demo league: example bots of every game, registered, played and ranked.

Idempotent: bots already registered and leagues already created are reused, and
a league that is already finished is just shown again.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import trio
from sqlalchemy import Engine

from league.execution.run import LeagueRun, ProgressCallback, RunOptions, RunSummary
from league.store.db import session_scope
from league.store.leagues import LeagueSettings, create_league, get_league
from league.store.registry import NotFoundError, ensure_example_bot
from referee.games import GAMES

EXAMPLE_BOTS: dict[str, tuple[str, ...]] = {
    "liars_dice": ("liars_dice_random", "liars_dice_counting", "liars_dice_probability"),
    "liars_poker_dice": ("liars_poker_dice_random", "liars_poker_dice_heuristic"),
    "dice_poker": ("dice_poker_random", "dice_poker_heuristic"),
    "cockroach_poker": ("cockroach_poker_random", "cockroach_poker_heuristic"),
    "liars_poker": ("liars_poker_random", "liars_poker_heuristic"),
}


def demo_games() -> list[str]:
    """Games that are registered and have their example bots in this checkout."""
    return [
        game
        for game, modules in EXAMPLE_BOTS.items()
        if game in GAMES
        and all(importlib.util.find_spec(f"example_bots.{m}") is not None for m in modules)
    ]


def prepare_demo(engine: Engine, *, rounds: int, games: list[str]) -> list[str]:
    """Register the example bots and create one league per game; return league names."""
    leagues = []
    with session_scope(engine) as session:
        for game in games:
            names = []
            for module in EXAMPLE_BOTS[game]:
                ensure_example_bot(session=session, module=module, game=game)
                names.append(module)
            league = f"demo-{game}"
            try:
                get_league(session=session, name=league)
            except NotFoundError:
                create_league(
                    session=session,
                    name=league,
                    settings=LeagueSettings(game=game, bots=tuple(names), rounds=rounds),
                )
            leagues.append(league)
    return leagues


def run_demo(
    engine: Engine,
    *,
    rounds: int = 5,
    concurrency: int = 2,
    on_progress: Callable[[str], ProgressCallback | None] | None = None,
) -> list[tuple[str, RunSummary]]:
    leagues = prepare_demo(engine, rounds=rounds, games=demo_games())
    summaries = []
    for league in leagues:
        callback = on_progress(league) if on_progress else None
        run = LeagueRun(engine, league, RunOptions(concurrency=concurrency), on_progress=callback)
        summary = trio.run(run.play)
        summaries.append((league, summary))
    return summaries
