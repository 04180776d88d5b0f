"""The demo league: example bots of every game, registered, played and ranked.

Idempotent: bots already registered and leagues already created are reused, and
a league that is already finished is just shown again.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Final

import trio
from sqlalchemy import Engine

from league.execution.league_run import LeagueRun, ProgressCallback, RunOptions, RunSummary
from league.store.db import session_scope
from league.store.leagues import LeagueSettings, create_league, get_league
from league.store.registry import NotFoundError, ensure_example_bot
from referee.core.catalogue import Roster, entries

NOT_FORCED: Final[dict[tuple[str, int], tuple[tuple[str, str], ...]]] = {
    # Two-seat Cockroach Poker under its default call rule (simplified) is a forced
    # win for seat 0: a true claim always ends in front of the target, so seat 0
    # passes four of a kind it must hold (docs/rules/cockroach_poker.md, "Two seats:
    # a forced win for seat 0"). The demo seats two, so it plays the published call
    # rule, under which a target that calls a true claim "true" sends it back.
    ("cockroach_poker", 2): (("call_rule", "published"),),
}
"""(game, seats) -> rule options the demo plays over its roster's, where the roster's
rules at that table size decide every match before it starts."""


def demo_rules(game: str, roster: Roster) -> dict[str, str]:
    """The rules of ``game``'s demo league: its roster's, except where they would make
    the demo's table a forced win (:data:`NOT_FORCED`)."""
    return {**dict(roster.rules), **dict(NOT_FORCED.get((game, roster.table_size), ()))}


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
                        rules=demo_rules(game, roster),
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
