"""The demo plays no forced win (issue 43, item 4): two-seat Cockroach Poker under its
default call rule is decided for seat 0 before it starts (docs/rules/cockroach_poker.md,
"Two seats: a forced win for seat 0"), so the demo, which seats two, plays it under
the published call rule; every other game's demo keeps its roster's rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from example_bots.cockroach_poker_heuristic import HeuristicCockroachPokerBot
from example_bots.cockroach_poker_truthful import TruthfulCockroachPokerBot
from league.execution.demo import demo_games, demo_rules, prepare_demo, rosters
from league.store.db import open_database, session_scope
from league.store.leagues import get_league
from sdk.local import play_local

DEALS = range(12)


def seat_zero_wins(rules: dict[str, str]) -> int:
    """Matches of :data:`DEALS` the truthful bot wins from seat 0 against the heuristic."""
    return sum(
        play_local(
            "cockroach_poker",
            [TruthfulCockroachPokerBot, HeuristicCockroachPokerBot],
            seed=seed,
            rules=rules,
        ).outcome.places[0]
        == 1
        for seed in DEALS
    )


def test_the_demo_leagues_play_these_rules(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    try:
        leagues = prepare_demo(engine, rounds=1, games=demo_games())
        with session_scope(engine) as session:
            rules = {
                name: json.loads(get_league(session=session, name=name).rules) for name in leagues
            }
    finally:
        engine.dispose()
    assert "demo-cockroach_poker" in rules
    for game, roster in rosters().items():
        expected = dict(roster.rules)
        if game == "cockroach_poker":
            assert roster.table_size == 2
            expected["call_rule"] = "published"
        assert demo_rules(game, roster) == expected
        stored = rules.get(f"demo-{game}", expected)  # every option, spelled out
        assert {option: stored.get(option) for option in expected} == expected, game


@pytest.mark.parametrize(
    ("rules", "forced"),
    [({}, True), (demo_rules("cockroach_poker", rosters()["cockroach_poker"]), False)],
    ids=["default: a forced win", "the demo's rules"],
)
def test_two_seats_are_a_forced_win_only_under_the_default(
    rules: dict[str, str], forced: bool
) -> None:
    """The argument of docs/rules/cockroach_poker.md, played: the truthful bot wins
    every two-seat deal from seat 0 under the default, not under the demo's rules."""
    wins = seat_zero_wins(rules)
    assert (wins == len(DEALS)) is forced, wins
