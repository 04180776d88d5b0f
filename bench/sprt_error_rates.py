"""Simulated error rates of the sequential tests ``arena sprt`` offers (``docs/sprt.md``).

    python -m bench.sprt_error_rates [--elo1 5,20,100] [--runs 2000] [--seed 1] [--json PATH]

For each ``--elo1`` (``--elo0`` 0, α = β = 0.05) it runs ``--runs`` tests whose pairs
are drawn at exactly ``elo0`` (every H1 verdict is a false positive: α̂) and as many at
exactly ``elo1`` (every H0 verdict is a false negative: β̂), each checked after every
pair as ``arena sprt`` checks it, and prints both rates with their 95% Wilson
intervals and the mean pairs per test.

The harness takes any test and any pair-score sampler:

* a test is a :class:`BatchTest`: ``batch(runs)`` gives a :class:`Batch` of that many
  tests run side by side, whose ``add(scores)`` takes one pair score per running test
  and returns their LLRs, and whose ``keep(mask)`` drops the decided ones. The
  pentanomial test (:class:`PentanomialTest`) computes the exact LLR of
  :func:`league.domain.sprt_statistics.llr` for all tests at once in numpy (the same
  fixed point, warm-started from each test's previous pair); any test with
  ``start()``, ``state.add(score)`` and ``llr(state)`` (``league.domain.luck.LuckSprt``
  as it is) runs through :class:`ScalarTest`, one Python call per pair and test;
* a sampler (:data:`Sampler`) draws ``n`` pair scores (a pair's score / 2, in [0, 1]):
  :func:`pentanomial_sampler` from five outcome probabilities (:func:`tilted` makes
  them exactly ``nElo``), :func:`normal_sampler` continuous scores for a test on
  luck-adjusted pair scores.

So a new test is simulated with ``error_rates(name, test, sampler_at_h0, sampler_at_h1,
...)``; the test on luck-adjusted pair scores, for instance, as
``error_rates("luck", ScalarTest(LuckSprt(0, 20)), normal_sampler(expected_score(0), s),
normal_sampler(expected_score(20), s), elo1=20, runs=2000, seed=1)``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from league.domain.sprt_statistics import (
    EXACT_FLOOR,
    NELO_PER_T,
    PAIR_SCORES,
    SprtParameters,
)

Floats = NDArray[np.float64]
Sampler = Callable[[np.random.Generator, int], Floats]
"""``sampler(rng, n)``: ``n`` independent pair scores (a pair's score / 2)."""
Z95 = 1.959964
BASE = (0.05, 0.20, 0.50, 0.20, 0.05)
"""The pentanomial the simulated pairs are tilted from: draws and win–loss pairs
dominate, as in play."""
SCORES = np.array(PAIR_SCORES)
TOLERANCE = 1e-10
"""The constrained fit stops when no probability moves by more (Fishtest and OpenBench
stop at 1e-9): the LLRs then agree with :func:`league.domain.sprt_statistics.llr` to
about 1e-9 (``tests/test_sprt_pairs.py``). 1e-12 reaches rounding noise and costs 8×."""


class Batch(Protocol):
    def add(self, scores: Floats) -> Floats:
        """One more pair for each running test (``scores[i]`` to the i-th); their LLRs."""
        ...

    def keep(self, mask: NDArray[np.bool_]) -> None:
        """Keep only the running tests where ``mask`` is true (in order)."""
        ...


class BatchTest(Protocol):
    @property
    def lower(self) -> float: ...
    @property
    def upper(self) -> float: ...
    def batch(self, runs: int) -> Batch: ...


# ----------------------------------------------------------- the pentanomial test


def _secular_roots(weights: Floats, values: Floats, start: Floats) -> Floats:
    """Per row, the ``x`` with ``Σ w v / (1 + x v) = 0`` and every ``1 + x v > 0``:
    Newton's method from ``start``, kept inside the bracket by bisection (the sum falls
    as ``x`` grows), each row until its step is below 1e-15 of its bracket."""
    low = -1.0 / values.max(axis=1)
    high = -1.0 / values.min(axis=1)
    width = high - low
    x = np.clip(start, low + 1e-12 * width, high - 1e-12 * width)
    rows = np.arange(len(x))
    for _ in range(100):
        w, v, lo, hi, at = weights[rows], values[rows], low[rows], high[rows], x[rows]
        denominator = 1.0 + at[:, None] * v
        total = (w * v / denominator).sum(axis=1)
        slope = -(w * v * v / denominator**2).sum(axis=1)
        lo, hi = np.where(total > 0, at, lo), np.where(total > 0, hi, at)
        newton = at - total / np.where(slope < 0, slope, -np.inf)
        updated = np.where((newton > lo) & (newton < hi), newton, (lo + hi) / 2)
        low[rows], high[rows], x[rows] = lo, hi, updated
        moving = np.abs(updated - at) > 1e-15 * width[rows]
        if not moving.any():
            break
        rows = rows[moving]
    return x


def constrained_mle(observed: Floats, t: float, start: Floats, roots: Floats) -> Floats:
    """Row by row what :func:`league.domain.sprt_statistics._constrained_mle` computes:
    the distribution nearest ``observed`` in likelihood whose ``(μ − ½)/σ`` is ``t``,
    iterated from ``start`` (and secular roots from ``roots``, updated in place) until
    no probability moves by :data:`TOLERANCE`."""
    estimate = start.copy()
    rows = np.arange(len(estimate))
    for _ in range(1000):
        current, seen = estimate[rows], observed[rows]
        mean = current @ SCORES
        deviation = SCORES[None, :] - mean[:, None]
        sigma = np.sqrt((current * deviation**2).sum(axis=1))[:, None]
        gradient = (
            deviation - 0.5 + mean[:, None] - t * sigma * (1.0 + (deviation / sigma) ** 2) / 2.0
        )
        roots[rows] = _secular_roots(seen, gradient, roots[rows])
        updated = seen / (1.0 + roots[rows][:, None] * gradient)
        estimate[rows] = updated
        moving = np.abs(updated - current).max(axis=1) >= TOLERANCE
        if not moving.any():
            break
        rows = rows[moving]
    return estimate


def exact_llrs(counts: Floats, parameters: SprtParameters) -> Floats:
    """:func:`league.domain.sprt_statistics.llr` of every row of ``counts`` (R × 5)."""
    return _PentanomialBatch(parameters, len(counts), counts.astype(float)).llrs()


class SimulationError(RuntimeError):
    """The screened simulation's check failed (the message has the rows' values)."""


SCREEN_PAIRS = 200
"""Tests with fewer pairs always get the exact LLR."""
SCREEN_MARGIN = (0.25, 0.1)
"""Beyond :data:`SCREEN_PAIRS`, a test that has seen every outcome gets the exact LLR
only when its normal approximation is within ``0.25 + 10%`` of its value of a bound
(else it cannot have crossed: checked, see :class:`_PentanomialBatch`)."""
SCREEN_CHECK_EVERY = 64


class _PentanomialBatch:
    """Counts, fits and LLRs of many tests.

    With ``screen``, the exact LLR (costly: a fixed point per test and hypothesis) is
    computed only for the tests that could be near a bound: fewer than
    :data:`SCREEN_PAIRS` pairs, an outcome never seen (lopsided counts, where the
    approximation is far off), or a normal approximation within :data:`SCREEN_MARGIN`
    of a bound. The others keep the approximation, which cannot decide them. Every
    :data:`SCREEN_CHECK_EVERY` pairs every test gets the exact LLR and the batch raises
    :class:`SimulationError` if any screened one differed from its approximation by the
    margin or more; so a decision is always the exact LLR's."""

    def __init__(
        self,
        parameters: SprtParameters,
        runs: int,
        counts: Floats | None = None,
        *,
        screen: bool = False,
    ) -> None:
        self.parameters = parameters
        self.counts = np.zeros((runs, 5)) if counts is None else counts
        self.t = [math.sqrt(2.0) * e / NELO_PER_T for e in (parameters.elo0, parameters.elo1)]
        self.fits = [np.full((runs, 5), 0.2) for _ in self.t]
        self.roots = [np.zeros(runs) for _ in self.t]
        self.screen = screen
        self.steps = 0

    def _exact(self, rows: NDArray[np.intp]) -> Floats:
        floored = np.maximum(self.counts[rows], EXACT_FLOOR)
        total = floored.sum(axis=1)
        observed = floored / total[:, None]
        for index, t in enumerate(self.t):
            roots = self.roots[index][rows]
            fit = constrained_mle(observed, t, self.fits[index][rows], roots)
            self.fits[index][rows], self.roots[index][rows] = fit, roots
        null, alternative = (fit[rows] for fit in self.fits)
        values = total * (observed * np.log(alternative / null)).sum(axis=1)
        return np.where(self.counts[rows].sum(axis=1) > 0, values, 0.0)

    def _approximate(self) -> Floats:
        """The normal approximation on the same floored counts (no prior)."""
        floored = np.maximum(self.counts, EXACT_FLOOR)
        total = floored.sum(axis=1)
        observed = floored / total[:, None]
        mean = observed @ SCORES
        variance = (observed * (SCORES[None, :] - mean[:, None]) ** 2).sum(axis=1)
        t = (mean - 0.5) / np.sqrt(2.0 * variance)
        t0, t1 = (e / NELO_PER_T for e in (self.parameters.elo0, self.parameters.elo1))
        approximated: Floats = total * (t1 - t0) * (2.0 * t - t0 - t1)
        return approximated

    def llrs(self) -> Floats:
        everything = np.arange(len(self.counts))
        if not self.screen:
            return self._exact(everything)
        self.steps += 1
        values = self._approximate()
        absolute, relative = SCREEN_MARGIN
        margin = absolute + relative * np.abs(values)
        near = (
            (self.counts.sum(axis=1) < SCREEN_PAIRS)
            | (self.counts == 0).any(axis=1)
            | (np.abs(values - self.parameters.lower) < margin)
            | (np.abs(values - self.parameters.upper) < margin)
        )
        if self.steps % SCREEN_CHECK_EVERY == 0:
            exact = self._exact(everything)
            off = ~near & (np.abs(exact - values) >= margin)
            if off.any():
                row = int(np.flatnonzero(off)[0])
                raise SimulationError(
                    f"the screen is unsafe: counts {self.counts[row].tolist()} have LLR"
                    f" {exact[row]:.4f}, approximation {values[row]:.4f} (margin {SCREEN_MARGIN})"
                )
            return exact
        rows = np.flatnonzero(near)
        values[rows] = self._exact(rows)
        return values

    def add(self, scores: Floats) -> Floats:
        outcomes = np.rint(scores * 4).astype(int)
        self.counts[np.arange(len(outcomes)), outcomes] += 1
        return self.llrs()

    def keep(self, mask: NDArray[np.bool_]) -> None:
        self.counts = self.counts[mask]
        self.fits = [fit[mask] for fit in self.fits]
        self.roots = [root[mask] for root in self.roots]


@dataclass(frozen=True, slots=True)
class PentanomialTest:
    """``arena sprt``'s test: the exact pentanomial GSPRT in normalized Elo."""

    parameters: SprtParameters
    screen: bool = True
    """Exact LLRs only near a bound (:class:`_PentanomialBatch`): the same verdicts,
    several times faster at small ``elo1``."""

    @property
    def lower(self) -> float:
        return self.parameters.lower

    @property
    def upper(self) -> float:
        return self.parameters.upper

    def batch(self, runs: int) -> Batch:
        return _PentanomialBatch(self.parameters, runs, screen=self.screen)


# ------------------------------------------------------------- any scalar test


class ScalarState(Protocol):
    def add(self, score: float, /) -> Any:
        """The state after one more pair scoring ``score``."""
        ...


class ScalarSequentialTest(Protocol):
    """A test with immutable states, as ``league.domain.luck.LuckSprt`` is: ``start()``
    gives a state, ``state.add(score)`` the next one, ``llr(state)`` its LLR, and
    Wald's bounds ``lower``/``upper``."""

    @property
    def lower(self) -> float: ...
    @property
    def upper(self) -> float: ...
    def start(self) -> Any: ...
    def llr(self, state: Any, /) -> float: ...


class _ScalarBatch:
    def __init__(self, test: ScalarSequentialTest, runs: int) -> None:
        self.test = test
        self.states: list[ScalarState] = [test.start() for _ in range(runs)]

    def add(self, scores: Floats) -> Floats:
        self.states = [
            state.add(float(score)) for state, score in zip(self.states, scores, strict=True)
        ]
        return np.array([self.test.llr(state) for state in self.states])

    def keep(self, mask: NDArray[np.bool_]) -> None:
        self.states = [state for state, kept in zip(self.states, mask, strict=True) if kept]


@dataclass(frozen=True, slots=True)
class ScalarTest:
    """Any :class:`ScalarSequentialTest` as a :class:`BatchTest` (a Python call per pair
    and test: fine for a normal-model test, too slow for the exact pentanomial one)."""

    test: ScalarSequentialTest

    @property
    def lower(self) -> float:
        return self.test.lower

    @property
    def upper(self) -> float:
        return self.test.upper

    def batch(self, runs: int) -> Batch:
        return _ScalarBatch(self.test, runs)


# -------------------------------------------------------------------- samplers


def tilted(base: Sequence[float], nelo: float) -> list[float]:
    """``base`` exponentially tilted (``p_i ∝ base_i·e^(λ·x_i)``) until its nElo is
    ``nelo``: the closest pentanomial to ``base`` with exactly that strength."""

    def at(lam: float) -> tuple[float, list[float]]:
        weights = [b * math.exp(lam * x) for b, x in zip(base, PAIR_SCORES, strict=True)]
        p = [w / sum(weights) for w in weights]
        mean = sum(q * x for q, x in zip(p, PAIR_SCORES, strict=True))
        var = sum(q * (x - mean) ** 2 for q, x in zip(p, PAIR_SCORES, strict=True))
        return (mean - 0.5) / math.sqrt(2 * var) * NELO_PER_T, p

    low, high = -20.0, 20.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if at(middle)[0] < nelo else (low, middle)
    return at(low)[1]


def pentanomial_sampler(probabilities: Sequence[float]) -> Sampler:
    """Pair scores 0, ¼, ½, ¾, 1 with these probabilities."""
    p = np.array(probabilities) / sum(probabilities)

    def draw(rng: np.random.Generator, n: int) -> Floats:
        return SCORES[rng.choice(5, size=n, p=p)]

    return draw


def normal_sampler(mean: float, deviation: float) -> Sampler:
    """Continuous pair scores, normal around ``mean`` (luck-adjusted scores are not
    bounded to [0, 1])."""

    def draw(rng: np.random.Generator, n: int) -> Floats:
        return rng.normal(mean, deviation, size=n)

    return draw


# ---------------------------------------------------------------- the harness


@dataclass(frozen=True, slots=True)
class Outcome:
    """Verdicts of ``runs`` simulated tests."""

    runs: int
    h1: int
    h0: int
    undecided: int
    mean_pairs: float
    """Pairs per test (an undecided test counts ``max_pairs``)."""
    pairs_deviation: float
    """Their standard deviation."""


def simulate(
    test: BatchTest, sampler: Sampler, *, runs: int, seed: int, max_pairs: int = 200_000
) -> Outcome:
    """``runs`` tests on pairs from ``sampler``, each checked after every pair."""
    rng = np.random.default_rng(seed)
    batch = test.batch(runs)
    running = np.arange(runs)
    verdicts = np.zeros(runs, dtype=int)
    lengths = np.full(runs, max_pairs)
    for pair in range(1, max_pairs + 1):
        llrs = batch.add(sampler(rng, len(running)))
        up, down = llrs >= test.upper, llrs <= test.lower
        decided = up | down
        if decided.any():
            verdicts[running[up]] = 1
            verdicts[running[down]] = -1
            lengths[running[decided]] = pair
            batch.keep(~decided)
            running = running[~decided]
        if not len(running):
            break
    return Outcome(
        runs=runs,
        h1=int((verdicts == 1).sum()),
        h0=int((verdicts == -1).sum()),
        undecided=int((verdicts == 0).sum()),
        mean_pairs=float(lengths.mean()),
        pairs_deviation=float(lengths.std(ddof=1)) if runs > 1 else 0.0,
    )


def wilson(successes: int, n: int) -> tuple[float, float]:
    """95% Wilson interval of a proportion."""
    p = successes / n
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    return centre - half, centre + half


@dataclass(frozen=True, slots=True)
class RateRow:
    test: str
    elo1: float
    runs: int
    alpha: float
    alpha_interval: tuple[float, float]
    beta: float
    beta_interval: tuple[float, float]
    pairs_h0: float
    pairs_h1: float
    seconds: float

    def within(self, nominal: float = 0.05, tolerance: float = 0.015) -> bool:
        return abs(self.alpha - nominal) <= tolerance and abs(self.beta - nominal) <= tolerance

    def text(self) -> str:
        def rate(value: float, interval: tuple[float, float]) -> str:
            return f"{100 * value:4.1f}% [{100 * interval[0]:4.1f}, {100 * interval[1]:4.1f}]"

        alpha, beta = rate(self.alpha, self.alpha_interval), rate(self.beta, self.beta_interval)
        return (
            f"| {self.test} | {self.elo1:g} | {self.runs} | {alpha} | {beta}"
            f" | {self.pairs_h0:,.0f} | {self.pairs_h1:,.0f} | {'yes' if self.within() else 'NO'} |"
        )


def error_rates(
    name: str,
    test: BatchTest,
    at_h0: Sampler,
    at_h1: Sampler,
    *,
    elo1: float,
    runs: int,
    seed: int,
) -> RateRow:
    """α̂ (H1 under ``at_h0``) and β̂ (H0 under ``at_h1``) of ``test``."""
    began = time.perf_counter()
    null = simulate(test, at_h0, runs=runs, seed=seed)
    alternative = simulate(test, at_h1, runs=runs, seed=seed + 1)
    return RateRow(
        test=name,
        elo1=elo1,
        runs=runs,
        alpha=null.h1 / runs,
        alpha_interval=wilson(null.h1, runs),
        beta=alternative.h0 / runs,
        beta_interval=wilson(alternative.h0, runs),
        pairs_h0=null.mean_pairs,
        pairs_h1=alternative.mean_pairs,
        seconds=time.perf_counter() - began,
    )


def pentanomial_rates(elo1: float, *, runs: int, seed: int, elo0: float = 0.0) -> RateRow:
    """``arena sprt``'s test at ``elo0``/``elo1``, α = β = 0.05, on tilted pentanomials."""
    parameters = SprtParameters(elo0, elo1, 0.05, 0.05)
    return error_rates(
        "pentanomial (exact)",
        PentanomialTest(parameters),
        pentanomial_sampler(tilted(BASE, elo0)),
        pentanomial_sampler(tilted(BASE, elo1)),
        elo1=elo1,
        runs=runs,
        seed=seed,
    )


HEADER = (
    "| test | elo1 | runs per hypothesis | α̂ (H1 at elo0) [95%] | β̂ (H0 at elo1) [95%]"
    " | pairs per test at elo0 | at elo1 | both within 5% ± 1.5 |\n"
    "|---|---:|---:|---|---|---:|---:|---|"
)


def main(argv: list[str] | None = None) -> list[RateRow]:
    parser = argparse.ArgumentParser(
        prog="python -m bench.sprt_error_rates", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--elo1", default="5,20,100", help="comma-separated H1 nElo values")
    parser.add_argument("--runs", type=int, default=2000, help="tests per hypothesis")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="save the rows here")
    options = parser.parse_args(argv)
    rows = []
    print(HEADER)
    for elo1 in (float(e) for e in options.elo1.split(",")):
        rows.append(pentanomial_rates(elo1, runs=options.runs, seed=options.seed))
        print(rows[-1].text(), f"({rows[-1].seconds:.0f} s)", flush=True)
    if options.json is not None:
        command = " ".join(["python -m bench.sprt_error_rates", *(argv or sys.argv[1:])])
        data = {"command": command, "rows": [asdict(row) for row in rows]}
        options.json.write_text(json.dumps(data, indent=2) + "\n")
    return rows


if __name__ == "__main__":
    main()
