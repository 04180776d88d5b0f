"""The optimal Dice Poker bot: plays legal whole matches from the solved table,
beats the heuristic bot on average, and refuses to play without a table (never
the heuristic's moves under its name)."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from example_bots import dice_poker_optimal
from example_bots.dice_poker_optimal import (
    TABLES_ENV,
    LastTurnWinDicePokerBot,
    MissingTableError,
    OptimalDicePokerBot,
)
from example_bots.dice_poker_solver import cache_path, dice_poker_spec, load, solve_and_save
from referee.games.dice_poker.engine import Observation, Phase, Reroll, Scorecard
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
    # No table for these rules (only the default one is solved here): it refuses,
    # naming the command that builds the missing table.
    with pytest.raises(MissingTableError, match=r"dice_poker_exclusive .*--solve --exclusive"):
        play_local(
            "dice_poker", [OptimalDicePokerBot], seed=1, rules={"upper_bonus_inclusive": "false"}
        )


def test_without_a_table_it_refuses_to_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(TABLES_ENV, str(tmp_path))
    monkeypatch.setattr(dice_poker_optimal, "_POLICIES", {})
    with pytest.raises(MissingTableError) as missing:
        play_local("dice_poker", [OptimalDicePokerBot], seed=5)
    message = str(missing.value)
    assert "is not there" in message and "make dice-poker-table" in message
    assert str(tmp_path) in message and "\n" not in message
    assert capsys.readouterr().err.strip() == message  # the bot's log says it too
    # a damaged table: the same, with the reason
    cache_path(dice_poker_spec(), tmp_path).write_bytes(b"not a table")
    with pytest.raises(MissingTableError, match=r"cannot load .*make dice-poker-table"):
        play_local("dice_poker", [OptimalDicePokerBot], seed=5)


def test_a_process_without_any_table_exits_before_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--tables`` names an empty directory: one line on stderr, exit code 2, no
    traceback, and the bot never starts serving (so the referee sees a startup fault)."""
    monkeypatch.setattr(dice_poker_optimal, "_POLICIES", {})
    monkeypatch.setattr(dice_poker_optimal, "run", lambda *args: pytest.fail("served"))
    try:
        with pytest.raises(SystemExit) as exit_:
            dice_poker_optimal.main(["--tables", str(tmp_path), "--listen", "unix:/nowhere"])
    finally:
        dice_poker_optimal.use_tables(None)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"in {tmp_path} " in err and "make dice-poker-table" in err


def test_a_process_with_one_rules_table_serves(
    tables: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the default rules' table: the process serves (a match with other rules
    then fails at MatchStart, above), and it loaded the table before serving."""
    loaded_when_served: list[set[str]] = []

    def serve(*args: object) -> None:
        loaded_when_served.append(set(dice_poker_optimal._POLICIES))

    monkeypatch.setattr(dice_poker_optimal, "run", serve)
    try:
        dice_poker_optimal.main(["--tables", str(tables)])
    finally:
        dice_poker_optimal.use_tables(None)
    assert loaded_when_served == [{dice_poker_spec().key()}]
    assert capsys.readouterr().err == ""


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
