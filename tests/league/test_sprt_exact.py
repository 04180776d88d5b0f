"""The pentanomial LLR ``arena sprt`` decides on (Fishtest's and OpenBench's exact
GSPRT), against the LLRs Fishtest published for real tests, a general-purpose
optimiser, and the normal approximation where the two must agree."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.domain.sprt_statistics import (
    NELO_PER_T,
    PAIR_SCORES,
    Pentanomial,
    SprtParameters,
    _constrained_mle,
    approximate_llr,
    llr,
)

counts = st.tuples(*(st.integers(min_value=0, max_value=400) for _ in range(5))).filter(
    lambda c: sum(c) > 0
)
elos = st.tuples(
    st.floats(min_value=-40, max_value=40), st.floats(min_value=0.5, max_value=40)
).map(lambda pair: (pair[0], pair[0] + pair[1]))


def test_a_lopsided_sample_gives_the_exact_value_not_the_approximation() -> None:
    """Issue 31's example: [2, 3, 10, 30, 55] at elo1 = 5 is 1.59 by the exact method and
    2.75 by the normal approximation with this project's prior."""
    penta = Pentanomial((2, 3, 10, 30, 55))
    parameters = SprtParameters(0.0, 5.0)
    assert llr(penta, parameters) == pytest.approx(1.5926, abs=1e-4)
    assert approximate_llr(penta, parameters) == pytest.approx(2.7454, abs=1e-4)


# Fishtest's published results: the "LLR: x (-2.94,2.94) <elo0,elo1>" and "Ptnml(0-2)"
# lines that Stockfish's commit messages (github.com/official-stockfish/Stockfish)
# quote from tests.stockfishchess.org, printed to two decimals. Of 2,405 such results
# in its history, 2,401 are matched to ±0.005, two more to ±0.02, and two not at all
# (an LLR and counts that do not belong together). OpenBench's PentanomialSPRT is the
# same computation (OpenBench/stats.py: counts floored at 1e-3, the t-value MLE, "taken
# directly from Fishtest"). Lopsided ones first: there the normal approximation is far off.
PUBLISHED = [
    # (commit, elo0, elo1, ptnml, LLR printed, normal approximation with our prior)
    ("3c04b5c4", -1.75, 0.25, (0, 0, 0, 2, 267), 2.19, 17.38),
    ("3c04b5c4", 0.0, 2.0, (1, 0, 10, 15, 318), 2.70, 10.88),
    ("a169c78b", 0.0, 10.0, (0, 1, 56, 82, 0), 2.95, 5.86),
    ("d5bbc6b6", 0.0, 2.0, (0, 17, 167, 348, 44), 2.81, 5.23),
    ("371b522e", -0.5, 2.5, (32, 125, 358, 278, 79), 2.95, 3.14),
    ("23493de0", 0.0, 2.0, (46, 277, 738, 514, 99), 2.99, 3.10),
    ("fa3b4ef5", 0.5, 2.5, (38, 7553, 22605, 7435, 49), -3.10, -3.10),
    ("a6d055d7", 0.0, 2.0, (881, 22479, 47812, 22585, 835), -2.98, -2.98),
    ("1eff8b03", -1.75, 0.25, (390, 91902, 261789, 90790, 389), -2.97, -2.97),
]


@pytest.mark.parametrize(
    ("commit", "elo0", "elo1", "counts", "published", "approximated"), PUBLISHED
)
def test_the_llr_is_the_one_fishtest_published(
    commit: str,
    elo0: float,
    elo1: float,
    counts: tuple[int, int, int, int, int],
    published: float,
    approximated: float,
) -> None:
    parameters = SprtParameters(elo0, elo1, 0.05, 0.05)
    assert llr(Pentanomial(counts), parameters) == pytest.approx(published, abs=0.005), commit
    assert approximate_llr(Pentanomial(counts), parameters) == pytest.approx(
        approximated, abs=0.005
    )


def test_empty_outcomes_count_as_a_thousandth_of_a_pair() -> None:
    """Fishtest's regularize() and OpenBench's max(1e-3, x): only empty counts move."""
    parameters = SprtParameters(-1.75, 0.25)
    floored = Pentanomial((0, 0, 0, 2, 267))
    by_hand = [1e-3, 1e-3, 1e-3, 2.0, 267.0]
    total = sum(by_hand)
    observed = [c / total for c in by_hand]
    null, alternative = (
        _constrained_mle(observed, math.sqrt(2) * e / NELO_PER_T) for e in (-1.75, 0.25)
    )
    expected = total * sum(
        p * math.log(a / n) for p, n, a in zip(observed, null, alternative, strict=True)
    )
    assert llr(floored, parameters) == pytest.approx(expected, rel=1e-12)


def test_on_a_large_balanced_sample_both_methods_agree() -> None:
    penta = Pentanomial((1000, 3000, 8000, 3200, 1100))
    parameters = SprtParameters(0.0, 2.0)
    assert llr(penta, parameters) == pytest.approx(approximate_llr(penta, parameters), rel=1e-3)


def test_no_pairs_is_no_evidence() -> None:
    assert llr(Pentanomial(), SprtParameters()) == 0.0


def _t(distribution: list[float]) -> float:
    mean = sum(a * p for a, p in zip(PAIR_SCORES, distribution, strict=True))
    variance = sum(p * (a - mean) ** 2 for a, p in zip(PAIR_SCORES, distribution, strict=True))
    return (mean - 0.5) / math.sqrt(variance)


@settings(max_examples=60, deadline=None)
@given(counts, st.floats(min_value=-0.6, max_value=0.6))
def test_the_hypothesis_distribution_meets_its_constraint(
    sample: tuple[int, ...], t: float
) -> None:
    floored = [max(1e-3, float(c)) for c in sample]
    observed = [c / sum(floored) for c in floored]
    fitted = _constrained_mle(observed, t)
    assert sum(fitted) == pytest.approx(1.0, abs=1e-9)
    assert min(fitted) > 0.0
    assert _t(fitted) == pytest.approx(t, abs=1e-7)


@settings(max_examples=25, deadline=None)
@given(counts, st.floats(min_value=-0.4, max_value=0.4))
def test_no_other_distribution_meeting_the_constraint_is_more_likely(
    sample: tuple[int, ...], t: float
) -> None:
    """An independent optimiser (scipy's SLSQP on the same likelihood and constraint)
    finds no higher likelihood than the fixed point."""
    optimize = pytest.importorskip("scipy.optimize")
    floored = [max(1e-3, float(c)) for c in sample]
    observed = [c / sum(floored) for c in floored]

    def loglik(p: list[float]) -> float:
        return sum(o * math.log(max(q, 1e-300)) for o, q in zip(observed, p, strict=True))

    fitted = _constrained_mle(observed, t)
    found = optimize.minimize(
        lambda p: -loglik(list(p)),
        x0=fitted,
        method="SLSQP",
        bounds=[(1e-12, 1.0)] * 5,
        constraints=[
            {"type": "eq", "fun": lambda p: sum(p) - 1.0},
            {"type": "eq", "fun": lambda p: _t(list(p)) - t},
        ],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    if found.success and abs(_t(list(found.x)) - t) < 1e-7 and abs(sum(found.x) - 1) < 1e-9:
        assert loglik(fitted) >= loglik(list(found.x)) - 1e-9


@settings(max_examples=60, deadline=None)
@given(counts, elos)
def test_mirroring_the_outcomes_and_the_hypotheses_negates_the_llr(
    sample: tuple[int, int, int, int, int], hypotheses: tuple[float, float]
) -> None:
    elo0, elo1 = hypotheses
    forward = llr(Pentanomial(sample), SprtParameters(elo0, elo1))
    mirrored = (sample[4], sample[3], sample[2], sample[1], sample[0])
    backward = llr(Pentanomial(mirrored), SprtParameters(-elo1, -elo0))
    assert backward == pytest.approx(-forward, rel=1e-6, abs=1e-6)


def test_evidence_points_the_right_way() -> None:
    parameters = SprtParameters(0.0, 10.0)
    strong = Pentanomial((10, 40, 100, 60, 20))  # clearly above elo1
    weak = Pentanomial((20, 60, 100, 40, 10))  # clearly below elo0
    assert llr(strong, parameters) > 0 > llr(weak, parameters)
    assert pytest.approx(347.44, abs=0.01) == NELO_PER_T
