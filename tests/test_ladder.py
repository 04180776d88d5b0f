"""The ladder: its Markdown table from synthetic rows, and a tiny real ladder
(two bots, one round, sandboxed gRPC) through its command line with a temporary DB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app as arena_app
from league.execution import ladder
from league.execution.counters import Score
from league.execution.ladder import (
    GameLadder,
    LadderRow,
    WorstCase,
    app,
    available,
    ladder_bots,
    percentile,
    render_markdown,
    rosters,
    worst_case,
)
from referee.core.catalogue import Roster

runner = CliRunner()


def row(rank: int, bot: str, elo: float, los: float | None) -> LadderRow:
    return LadderRow(
        rank=rank,
        bot=bot,
        elo=elo,
        lo=elo - 50,
        hi=elo + 50,
        matches=4,
        wins=2,
        los_next=los,
        decisions=10,
        median_ms=1.234,
        p99_ms=9.5,
    )


def test_render_markdown_tables_and_skipped_bots() -> None:
    ladders = [
        GameLadder(
            "liars_dice",
            "ladder-liars_dice",
            3,
            (row(1, "strong", 1700, 0.995), row(2, "weak", 1300, None)),
            ("liars_dice_missing",),
        ),
        GameLadder("dice_poker", "", 3, (), ()),
    ]
    text = render_markdown(ladders, command="make ladder")
    assert "Reproduce with `make ladder`." in text
    assert "### liars_dice" in text and "### dice_poker" in text
    assert "| 1 | `strong` | 1700 | 1650 .. 1750 | 99.5% | 4 | 2 | 10 | 1.23 | 9.50 | - |" in text
    assert "| 2 | `weak` | 1300 | 1250 .. 1350 | - |" in text
    assert "4 two-seat matches" in text
    assert "`example_bots.liars_dice_missing`" in text
    assert "fewer than two ladder bots" in text


def test_cockroach_poker_ladder_plays_three_seats_and_says_so() -> None:
    # Two seats are a forced win for seat 0 under the default rules
    # (docs/rules/cockroach_poker.md): the ladder seats three.
    roster = rosters()["cockroach_poker"]
    assert roster.ladder_seats == 3 and roster.table_size == 2
    assert Roster("r", "h").ladder_seats == 2
    ladder = GameLadder(
        "cockroach_poker", "ladder-cockroach_poker", 1, (row(1, "a", 1600, None),), (), 3
    )
    assert "1 round(s) of the round-robin, 1 three-seat matches." in render_markdown([ladder])


def test_the_worst_case_table_names_the_worst_counter_and_the_target() -> None:
    case = WorstCase(
        strong="liars_dice_posterior",
        seats=2,
        matches=200,
        seed=5,
        scores=(
            Score("liars_dice_truthful", 180, 0, 20),
            Score("liars_dice_probability_05", 110, 2, 88),
        ),
        missing=("liars_dice_gone",),
    )
    game = GameLadder(
        "liars_dice", "ladder-liars_dice", 3, (row(1, "s", 1700, None),), (), worst_case=case
    )
    text = render_markdown([game], exploitability={"liars_dice_posterior": "0.123 ± 0.004"})
    assert "#### Worst case against counter-strategies" in text
    assert "200 matches each (100 deals" in text and "seed 5 + j" in text
    assert "| strong bot | truthful | probability_05 | worst | ≥ 60% | exploitability |" in text
    assert (
        "| `liars_dice_posterior` | 90.0% | 55.5% | 55.5% (probability_05) | **no**"
        " | 0.123 ± 0.004 |" in text
    )
    assert "`example_bots.liars_dice_gone`" in text
    assert "Below the target: docs/bots.md" in text
    # Without an exploitability mapping the column stays, empty.
    assert "| 55.5% (probability_05) | **no** | - |" in render_markdown([game])
    meets = WorstCase("s", 2, 2, 1, (Score("liars_dice_truthful", 2, 0, 0),))
    text = render_markdown([GameLadder("liars_dice", "x", 1, (), (), worst_case=meets)])
    assert "| `s` | 100.0% | 100.0% (truthful) | yes | - |" in text
    assert "Below the target" not in text


def test_worst_case_plays_the_strong_bot_against_each_counter_present(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counters = ladder.rosters()["liars_poker_dice"].counter_set
    gone = counters[-1]
    real = ladder.module_exists
    monkeypatch.setattr(ladder, "module_exists", lambda module: module != gone and real(module))
    case = worst_case("liars_poker_dice", matches=3, seed=4)
    assert case is not None and case.strong == "liars_poker_dice_strong"
    assert case.matches == 4  # rounded up to whole deals of two seats
    assert [score.counter for score in case.scores] == list(counters[:-1])
    assert all(score.matches == 4 for score in case.scores)
    assert case.missing == (gone,)
    assert worst_case("dice_poker", matches=2, seed=1) is None  # no counter set


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.99) == 99.0
    assert percentile(values, 0.5) == 50.0
    assert percentile([3.0], 0.99) == 3.0


def test_every_game_has_its_random_and_heuristic_bots() -> None:
    for game in ladder_bots():
        present, _ = available(game)
        assert len(present) >= 2, game


@pytest.mark.e2e
def test_tiny_ladder_through_the_real_league(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ladder.db'}"
    out = tmp_path / "ladder.md"
    result = runner.invoke(
        app,
        [
            "--game",
            "liars_dice",
            "--bot",
            "liars_dice_random",
            "--bot",
            "liars_dice_posterior",
            "--rounds",
            "1",
            "--samples",
            "20",
            "--concurrency",
            "2",
            "--db",
            db,
            "--out",
            str(out),
            "--counter-matches",
            "2",
            "--exploit-samples",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "python -m league.execution.ladder --rounds 1 --game liars_dice" in text
    assert "--counter-matches 2" in text
    elo, worst = text.split("#### Worst case against counter-strategies")
    lines = [line for line in elo.splitlines() if line.startswith("| ")]
    assert len(lines) == 3  # header and two bots
    assert "| `liars_dice_posterior` |" in worst and "2 matches each" in worst
    # Its exploitability, measured on the enumerable one-die variant (K=1: no interval).
    (row,) = [line for line in worst.splitlines() if line.startswith("| `liars_dice_posterior`")]
    exploit = row.split("|")[-2]
    assert "K=1 sampled; dice_per_player=1" in exploit
    assert 0.0 < float(exploit.split(",")[0]) <= 1.0
    assert "`liars_dice_posterior`" in text and "`liars_dice_random`" in text
    body = [line.split("|") for line in lines[1:]]
    assert all(int(cells[8]) > 0 for cells in body)  # decisions were measured
    # The league stays in the given database, as any league would.
    status = runner.invoke(
        arena_app, ["--db", db, "league", "status", "ladder-liars_dice", "--json"]
    )
    assert json.loads(status.output)["done"] == 2
