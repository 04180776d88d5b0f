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
    on_paired = sprt_pairs.sprt_games(paired, parameters, random.Random(3), 150, 20_000)
    on_unpaired = sprt_pairs.sprt_games(unpaired, parameters, random.Random(3), 150, 20_000)
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


# ------------------------------------------ the error-rate harness (bench.sprt_error_rates)


def test_the_batched_llr_is_the_scalar_one_pair_after_pair() -> None:
    """The simulation decides on the LLR ``arena sprt`` computes: warm-started from each
    test's previous pair, its fits give the scalar ``llr`` to 1e-8 at every step."""
    import numpy as np

    from bench.sprt_error_rates import BASE, PentanomialTest, pentanomial_sampler, tilted
    from league.domain.sprt_statistics import Pentanomial, llr

    for elo1 in (5.0, 100.0):
        parameters = SprtParameters(0.0, elo1)
        batch = PentanomialTest(parameters, screen=False).batch(4)
        draw = pentanomial_sampler(tilted(BASE, elo1 / 2))
        rng = np.random.default_rng(11)
        counts = [[0] * 5 for _ in range(4)]
        for _ in range(60):
            scores = draw(rng, 4)
            values = batch.add(scores)
            for test, score in enumerate(scores):
                counts[test][round(4 * score)] += 1
                expected = llr(Pentanomial(tuple(counts[test])), parameters)  # type: ignore[arg-type]
                assert values[test] == pytest.approx(expected, abs=1e-8)


def test_the_screen_gives_the_verdicts_of_the_exact_llr_and_checks_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bench import sprt_error_rates as rates

    parameters = SprtParameters(0.0, 40.0)
    sampler = rates.pentanomial_sampler(rates.tilted(rates.BASE, 20.0))
    monkeypatch.setattr(rates, "SCREEN_PAIRS", 20)  # screen from the 20th pair on
    monkeypatch.setattr(rates, "SCREEN_CHECK_EVERY", 16)
    screened = rates.simulate(rates.PentanomialTest(parameters), sampler, runs=60, seed=3)
    exact = rates.simulate(
        rates.PentanomialTest(parameters, screen=False), sampler, runs=60, seed=3
    )
    assert screened == exact
    # A screen with no margin must be caught by the periodic full check.
    monkeypatch.setattr(rates, "SCREEN_MARGIN", (0.0, 0.0))
    monkeypatch.setattr(rates, "SCREEN_CHECK_EVERY", 1)
    with pytest.raises(rates.SimulationError, match="the screen is unsafe"):
        rates.simulate(rates.PentanomialTest(parameters), sampler, runs=40, seed=3)


def test_the_harness_runs_any_test_on_any_pair_score_sampler() -> None:
    """A normal-model test on continuous pair scores (as a luck-adjusted one is) through
    the same harness: its rates come out near nominal."""
    import math
    from dataclasses import dataclass

    from bench.sprt_error_rates import ScalarTest, error_rates, normal_sampler

    @dataclass(frozen=True)
    class State:
        n: int = 0
        total: float = 0.0

        def add(self, score: float) -> State:
            return State(self.n + 1, self.total + score)

    @dataclass(frozen=True)
    class KnownVariance:
        """H0 mean 0.5 against H1 mean 0.55, scores of known deviation 0.2."""

        lower: float = math.log(0.05 / 0.95)
        upper: float = math.log(0.95 / 0.05)

        def start(self) -> State:
            return State()

        def llr(self, state: State) -> float:
            return state.n * 0.05 * (2 * state.total / max(state.n, 1) - 1.05) / (2 * 0.04)

    row = error_rates(
        "known variance",
        ScalarTest(KnownVariance()),
        normal_sampler(0.5, 0.2),
        normal_sampler(0.55, 0.2),
        elo1=0.0,
        runs=400,
        seed=5,
    )
    assert row.alpha < 0.1 and row.beta < 0.1  # Wald: at most about α and β
    assert 20 < row.pairs_h0 < 200


@pytest.mark.parametrize("elo1", [100.0])
def test_simulated_error_rates_of_the_cli_test_are_nominal(elo1: float) -> None:
    """2,000 seeded tests per hypothesis at elo1 = 100 (about 40 pairs each, a few
    seconds): both rates within 5% ± 1.5 points, the issue's tolerance. The elo1 = 5
    and 20 rows are in docs/sprt.md (``python -m bench.sprt_error_rates``)."""
    from bench.sprt_error_rates import pentanomial_rates

    row = pentanomial_rates(elo1, runs=2000, seed=1)
    assert abs(row.alpha - 0.05) <= 0.015, row
    assert abs(row.beta - 0.05) <= 0.015, row
