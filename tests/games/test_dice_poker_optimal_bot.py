"""The optimal Dice Poker bot: plays legal whole matches from the solved table,
beats the heuristic bot on average, and falls back to it without a table."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from example_bots import dice_poker_optimal
from example_bots.dice_poker_heuristic import HeuristicDicePokerBot
from example_bots.dice_poker_optimal import (
    TABLES_ENV,
    LastTurnWinDicePokerBot,
    OptimalDicePokerBot,
)
from example_bots.dice_poker_solver import cache_path, dice_poker_spec, load, solve_and_save
from referee.games.dice_poker import Observation, Phase, Reroll, Scorecard
from sdk.local import play_local


@pytest.fixture(scope="module")
def tables(request: pytest.FixtureRequest) -> Iterator[Path]:
    """The solved table of the default rules, kept in pytest's cache between runs
    (its file name is the rules' digest, so a stale table is never used)."""
    directory = Path(request.config.cache.mkdir("dice_poker_tables"))
    if load(dice_poker_spec(), directory) is None:
        solve_and_save(dice_poker_spec(), directory)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(TABLES_ENV, str(directory))
        patch.setattr(dice_poker_optimal, "_POLICIES", {})
        yield directory


@pytest.mark.slow
def test_the_optimal_bot_scores_the_tables_optimum(tables: Path) -> None:
    """150 seeded single-player games: the mean is within 3 standard errors of the
    solved optimum (316.6; standard deviation about 64, so one s.e. is about 5.2), and
    above the heuristic's long-run mean of about 299 (docs/bots.md).

    One-seat games keep this cheap (the heuristic's own planning costs ~1 s per
    game); the 300-match head-to-head against it is in docs/bots.md (``--duel``).
    """
    solver = load(dice_poker_spec(), tables)
    assert solver is not None
    optimum = solver.expected_score()
    scores = [
        play_local("dice_poker", [OptimalDicePokerBot], seed=seed).outcome.scores[0]
        for seed in range(150)
    ]
    mean = statistics.mean(scores)
    standard_error = statistics.stdev(scores) / len(scores) ** 0.5
    assert abs(mean - optimum) < 3 * standard_error, (mean, optimum, standard_error)
    assert mean > 299


def test_the_optimal_bot_plays_whole_matches(tables: Path) -> None:
    for seed in range(20):
        match = play_local("dice_poker", [OptimalDicePokerBot] * 3, seed=seed)
        assert len(match.outcome.scores) == 3  # every action legal (play_local raises)
    exclusive = play_local(
        "dice_poker",
        [OptimalDicePokerBot],
        seed=1,
        rules={"upper_bonus_inclusive": "false"},
    )
    assert exclusive.outcome.scores[0] > 0  # no table for these rules: the heuristic plays


def test_without_a_table_it_plays_the_heuristic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(TABLES_ENV, str(tmp_path))
    monkeypatch.setattr(dice_poker_optimal, "_POLICIES", {})
    optimal = play_local("dice_poker", [OptimalDicePokerBot], seed=5)
    assert "no value table" in capsys.readouterr().err
    heuristic = play_local("dice_poker", [HeuristicDicePokerBot], seed=5)
    assert optimal.events == heuristic.events
    # a damaged table: the same, with the reason on stderr
    cache_path(dice_poker_spec(), tmp_path).write_bytes(b"not a table")
    monkeypatch.setattr(dice_poker_optimal, "_POLICIES", {})
    damaged = play_local("dice_poker", [OptimalDicePokerBot], seed=5)
    assert "cannot load the table" in capsys.readouterr().err
    assert damaged.events == heuristic.events


def test_the_last_seat_plays_for_first_place_on_its_last_turn(tables: Path) -> None:
    """Only Chance left and 28 needed to catch the finished opponent: with 1 1 1 4 5
    and one re-roll, the expected sum says keep 4 5, the chance to win says keep 5."""
    opponent = Scorecard(lines=(0,) * 14 + (28,))
    mine = Scorecard(lines=(0,) * 14 + (None,))
    view = Observation(
        seat=1,
        num_seats=2,
        upper_bonus_inclusive=True,
        phase=Phase.CHOOSE,
        current=1,
        turn=15,
        dice=(1, 1, 1, 4, 5),
        rolls=2,
        reroll_positions=(),
        cards=(opponent, mine),
    )
    assert OptimalDicePokerBot().act(view) == Reroll((0, 1, 2))
    assert LastTurnWinDicePokerBot().act(view) == Reroll((0, 1, 2, 3))
    # not the last to play: the opponent's card is still open, so expected score rules
    unfinished = replace(view, cards=(Scorecard(lines=(0,) * 13 + (None, 28)), mine))
    assert LastTurnWinDicePokerBot().act(unfinished) == Reroll((0, 1, 2))
    for seed in range(3):  # whole matches stay legal
        play_local("dice_poker", [OptimalDicePokerBot, LastTurnWinDicePokerBot], seed=seed)
