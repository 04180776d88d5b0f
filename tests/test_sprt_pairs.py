"""``bench.sprt_pairs``: what duplicate pairs save an SPRT, from real outcomes.

The arithmetic on outcomes built by hand (a deal that decides the match is all
pairing removes; independent halves leave nothing to remove), the simulated SPRTs
on both schedules, and the command on a tiny real sample."""

from __future__ import annotations

import random

import pytest

from bench import sprt_pairs
from league.domain.sprt_statistics import SprtParameters
from league.execution.counters import bot_class
from sdk.local import play_local

DEAL_DECIDES = ((1.0, 0.0), (0.0, 1.0)) * 20
"""Whoever holds seat 0 wins: each pair splits, the deal is all the noise."""
INDEPENDENT = ((1.0, 1.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0)) * 10
"""The halves uncorrelated: pairing removes nothing."""


def test_pairing_removes_the_variance_the_deal_puts_in_both_halves() -> None:
    assert sprt_pairs.correlation(DEAL_DECIDES) == pytest.approx(-1.0)
    paired, unpaired = sprt_pairs.variances(DEAL_DECIDES)
    assert paired == 0.0 and unpaired == pytest.approx(0.25)
    assert sprt_pairs.saving(DEAL_DECIDES) == pytest.approx(1.0)
    assert sprt_pairs.correlation(INDEPENDENT) == pytest.approx(0.0)
    assert sprt_pairs.saving(INDEPENDENT) == pytest.approx(0.0)
    assert sprt_pairs.saving(((1.0, 1.0),) * 5) is None  # a sweep has no variance
    low, high = sprt_pairs.saving_interval(INDEPENDENT, random.Random(1)) or (9, 9)
    assert low < 0.0 < high


def test_the_schedules_draw_steps_from_the_real_halves() -> None:
    paired, unpaired = sprt_pairs.schedules(DEAL_DECIDES)
    rng = random.Random(2)
    assert {paired(rng) for _ in range(200)} == {0.5}
    assert {unpaired(rng) for _ in range(200)} == {0.0, 0.5, 1.0}


def test_simulated_sprts_decide_sooner_on_the_quieter_schedule() -> None:
    halves = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 1.0)) * 10  # NEW wins 75%
    paired, unpaired = sprt_pairs.schedules(halves)
    parameters = SprtParameters(0.0, 5.0)
    on_paired = sprt_pairs.sprt_games(paired, parameters, random.Random(3), 300, 20_000)
    on_unpaired = sprt_pairs.sprt_games(unpaired, parameters, random.Random(3), 300, 20_000)
    assert on_paired.h1 == 1.0 and on_unpaired.h1 > 0.95
    assert on_paired.games + 3 * on_paired.error < on_unpaired.games - 3 * on_unpaired.error
    even = ((1.0, 0.0), (0.0, 1.0)) * 10
    draw, _ = sprt_pairs.schedules(even)
    assert sprt_pairs.sprt_games(draw, parameters, random.Random(4), 20, 50).h1 == 0.0


def test_play_deals_scores_new_in_both_seats_of_each_deal() -> None:
    game, new, old = "cockroach_poker", "cockroach_poker_truthful", "cockroach_poker_random"
    measured = sprt_pairs.play_deals(game, new, old, 3, seed=5)
    expected = []
    for deal in range(5, 8):
        bots = bot_class(new), bot_class(old)
        first = play_local(game, list(bots), seed=deal).outcome.places
        second = play_local(game, list(reversed(bots)), seed=deal).outcome.places
        expected.append((sprt_pairs.score(first, 0), sprt_pairs.score(second, 1)))
    assert measured.halves == tuple(expected)
    assert all(a == 1.0 for a, _ in measured.halves)  # the forced win from seat 0


def test_the_command_prints_a_measured_row(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--game", "cockroach_poker", "--pairs", "6", "--runs", "5", "--seed", "2"]
    assert sprt_pairs.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("| game | NEW vs OLD | deals |")
    row = next(line for line in out if line.startswith("| cockroach_poker |"))
    assert "`cockroach_poker_strong` vs `cockroach_poker_heuristic` | 6 |" in row


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "chess"], "no bot pair for 'chess'"),
        (["--pairs", "1"], "--pairs must be at least 2, got 1"),
        (["--elo0", "5", "--elo1", "5"], "elo0 must be below elo1"),
    ],
)
def test_a_bad_request_prints_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sprt_pairs.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
