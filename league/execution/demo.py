"""The demo league: example bots of every game, registered, played and ranked.

Idempotent: bots already registered and leagues already created are reused, and
a league that is already finished is just shown again.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import trio
from sqlalchemy import Engine

from league.execution.league_run import LeagueRun, ProgressCallback, RunOptions, RunSummary
from league.store.db import session_scope
from league.store.leagues import LeagueSettings, create_league, get_league
from league.store.registry import NotFoundError, ensure_example_bot
from referee.core.catalogue import Roster, entries


def rosters() -> dict[str, Roster]:
    """Per game with example bots: its roster in the catalogue."""
    return {entry.name: entry.roster for entry in entries() if entry.roster is not None}


def example_bots() -> dict[str, tuple[str, ...]]:
    """Per game with a roster in the catalogue: its demo league's example bots."""
    return {game: roster.demo for game, roster in rosters().items()}


def demo_games() -> list[str]:
    """Games that are registered and have their example bots in this checkout."""
    return [
        game
        for game, modules in example_bots().items()
        if all(importlib.util.find_spec(f"example_bots.{m}") is not None for m in modules)
    ]


def prepare_demo(engine: Engine, *, rounds: int, games: list[str]) -> list[str]:
    """Register the example bots and create one league per game; return league names."""
    leagues = []
    with session_scope(engine) as session:
        for game in games:
            roster = rosters()[game]
            names = []
            for module in roster.demo:
                ensure_example_bot(session=session, module=module, game=game)
                names.append(module)
            league = f"demo-{game}"
            try:
                get_league(session=session, name=league)
            except NotFoundError:
                create_league(
                    session=session,
                    name=league,
                    settings=LeagueSettings(
                        game=game,
                        bots=tuple(names),
                        rounds=rounds,
                        table_size=roster.table_size,
                        rules=dict(roster.rules),
                    ),
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
