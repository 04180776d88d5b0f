"""The statistics of ``arena sprt``: a pentanomial SPRT in normalized Elo (``docs/sprt.md``).

Two bots play duplicate pairs: the same deal twice, seats swapped. NEW scores 1, ½
or 0 in each match against OLD, so a pair scores 0, ½, 1, 1½ or 2 — five outcomes,
the *pentanomial* model of fastchess, OpenBench and fishtest. Counting pairs rather
than games keeps what the two halves of a pair share (a lucky deal helps whoever
holds the lucky seat in both halves, so it cancels), and the variance of a pair's
score is what the test needs.

The hypotheses are in *normalized Elo* (Van den Bergh, "Normalized Elo",
https://hardy.uhasselt.be/Fishtest/normalized_elo_practical.pdf): with ``x`` a pair's
score divided by 2 (in [0, 1]), ``μ`` and ``σ²`` its mean and variance, the
per-game standard deviation is ``σ_g = sqrt(2)·σ`` and ::

    t = (μ - ½) / σ_g            nElo = t · 800 / ln 10

H0 is ``nElo = elo0``, H1 is ``nElo = elo1``; ``t0``, ``t1`` are their ``t``. The
log-likelihood ratio (:func:`llr`) is Fishtest's and OpenBench's: the exact generalized
SPRT (Van den Bergh, "A practical introduction to the GSPRT"). Each hypothesis is the
most likely distribution of the five outcomes whose normalized Elo is exactly ``elo0``
(``elo1``) given the observed frequencies ``p̂``, and ``LLR = N·Σ p̂_i·log(p1_i/p0_i)``,
with every empty outcome counted as 1e-3 pairs (:data:`EXACT_FLOOR`, their
regularization). Wald's bounds: accept H0 when ``LLR ≤ log(β / (1 - α))``, H1 when
``LLR ≥ log((1 - β) / α)``.

:func:`approximate_llr` is the normal approximation, ``N·(t1 - t0)·(2t̂ - t0 - t1)``,
that ``arena sprt`` decided on before: kept, labelled, only as what ``docs/sprt.md``
compares the exact LLR with. It overstates lopsided evidence (Fishtest's published
``[0, 0, 0, 2, 267]`` at <-1.75, 0.25>: 2.19 exactly, 17.4 approximated).

The Elo and nElo estimates shown beside the LLR (:func:`estimate`) add half a pair to
every count (:data:`PRIOR`), so the first pairs show a finite interval; they do not
enter the decision.

Pure functions of the counts; the league that plays the pairs is
:mod:`league.store.sprt_tests`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

NELO_PER_T = 800.0 / math.log(10.0)
"""Normalized Elo per unit of ``t`` (mean excess score over per-game deviation)."""
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A pair's score divided by 2, by outcome index (0: lost both … 4: won both)."""
PRIOR = 0.5
"""Pseudo-pairs added to every outcome count in the Elo and nElo estimates shown (not in
the LLR): a weak prior that keeps the first pairs' variance sane. After two pairs won
2-0 a 1e-3 regularization gives a variance near 0, so nElo read +4000 with a zero-width
Elo interval; with the prior, +151 ± 340 (Elo +166, 95% from -220). Its weight fades
as 1/N."""
Z95 = 1.959964


class SprtError(ValueError):
    """Bad SPRT parameters or outcomes (the message names the value)."""


def hypotheses_problem(elo0: float, elo1: float, alpha: float, beta: float) -> str:
    """What is wrong with a sequential test's hypotheses and error rates ("" if nothing):
    shared by every test the CLI offers."""
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        return f"elo0 and elo1 must be finite, got {elo0} and {elo1}"
    if not elo0 < elo1:
        return f"elo0 must be below elo1, got elo0={elo0} elo1={elo1}"
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < value < 0.5:
            return f"{name} must be between 0 and 0.5, got {value}"
    return ""


@dataclass(frozen=True, slots=True)
class SprtParameters:
    """The test: H0 ``nElo = elo0`` against H1 ``nElo = elo1``, error rates α and β."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        problem = hypotheses_problem(self.elo0, self.elo1, self.alpha, self.beta)
        if problem:
            raise SprtError(problem)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``log(β / (1 - α))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 - β) / α)``."""
        return math.log((1.0 - self.beta) / self.alpha)


def outcome_index(points: float) -> int:
    """The pentanomial outcome of a pair NEW scored ``points`` in (0, ½, 1, 1½ or 2)."""
    index = points * 2.0
    if index != round(index) or not 0 <= index <= 4:
        raise SprtError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, got {points}")
    return round(index)


@dataclass(frozen=True, slots=True)
class Pentanomial:
    """Pairs by outcome: ``counts[i]`` pairs where NEW scored ``i / 2`` points."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def add(self, points: float) -> Pentanomial:
        counts = list(self.counts)
        counts[outcome_index(points)] += 1
        return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))

    def mean_variance(self, prior: float = PRIOR) -> tuple[float, float]:
        """Mean and variance of a pair's score / 2, with ``prior`` pseudo-pairs added
        to every outcome."""
        c0, c1, c2, c3, c4 = self.counts
        total = c0 + c1 + c2 + c3 + c4 + 5 * prior
        first = (0.25 * c1 + 0.5 * c2 + 0.75 * c3 + c4 + 2.5 * prior) / total
        second = (0.0625 * c1 + 0.25 * c2 + 0.5625 * c3 + c4 + 1.875 * prior) / total
        return first, max(second - first * first, 0.0)


def approximate_llr(penta: Pentanomial, parameters: SprtParameters) -> float:
    """The normal approximation of the LLR, with :data:`PRIOR` (0 without pairs).

    **An approximation, not what ``arena sprt`` decides on** (that is :func:`llr`). Kept
    only as the reference ``docs/sprt.md`` compares against: ``N·(t1 − t0)·(2t̂ − t0 − t1)``
    overstates the evidence of lopsided samples (``[2, 3, 10, 30, 55]`` at elo1 = 5:
    2.745 against the exact 1.593)."""
    if penta.pairs == 0:
        return 0.0
    mean, variance = penta.mean_variance()
    t = (mean - 0.5) / math.sqrt(2.0 * variance)
    t0, t1 = parameters.elo0 / NELO_PER_T, parameters.elo1 / NELO_PER_T
    return penta.pairs * (t1 - t0) * (2.0 * t - t0 - t1)


EXACT_FLOOR = 1e-3
"""Fishtest's and OpenBench's regularization for the exact LLR: an empty outcome counts
as 1e-3 pairs (``max(1e-3, count)``), so no outcome has probability 0."""


def llr(penta: Pentanomial, parameters: SprtParameters) -> float:
    """The log-likelihood ratio of H1 against H0 after ``penta`` (0 without pairs), as
    Fishtest and OpenBench compute it: the exact GSPRT. What ``arena sprt`` decides on.

    Each hypothesis is the maximum-likelihood distribution of the five outcomes whose
    normalized Elo is exactly ``elo0`` (``elo1``), given the observed frequencies
    ``p̂`` (Van den Bergh, "A practical introduction to the GSPRT"); the LLR is
    ``N · Σ p̂_i · log(p1_i / p0_i)``. Counts are floored at :data:`EXACT_FLOOR`, as theirs
    are. Fishtest and OpenBench stop the fixed point after 10 iterations (or a change
    below 1e-9); this one runs it to 1e-13, which moves none of 2,405 LLRs published in
    Stockfish's commit messages by more than 1e-10 (``tests/league/test_sprt_exact.py``
    checks nine of them). On large, balanced samples :func:`approximate_llr` agrees to
    three digits; on lopsided ones it overstates the evidence (pairs
    ``[2, 3, 10, 30, 55]`` at elo1 = 5: 1.593 here, 2.745 approximated).
    """
    if penta.pairs == 0:
        return 0.0
    return _exact_llr(penta.counts, parameters.elo0, parameters.elo1)


@functools.lru_cache(maxsize=1024)
def _exact_llr(counts: tuple[int, ...], elo0: float, elo1: float) -> float:
    """:func:`llr` of the counts, remembered: a run asks the same counts again (the
    progress line, the stored state, the decision), and one exact LLR of a lopsided
    sample takes some 60 fixed-point steps."""
    floored = [max(EXACT_FLOOR, float(count)) for count in counts]
    total = sum(floored)
    observed = [count / total for count in floored]
    per_pair = [math.sqrt(2.0) * elo / NELO_PER_T for elo in (elo0, elo1)]
    null, alternative = (_constrained_mle(observed, t) for t in per_pair)
    return total * sum(
        p * math.log(p1 / p0) for p, p0, p1 in zip(observed, null, alternative, strict=True)
    )


def _constrained_mle(observed: list[float], t: float) -> list[float]:
    """The distribution over :data:`PAIR_SCORES` closest in likelihood to ``observed``
    whose ``(μ - ½) / σ`` is ``t``: a fixed point of the Lagrange conditions,
    ``p_i = p̂_i / (1 + x·v_i)`` with ``v_i`` the constraint's gradient at the current
    estimate and ``x`` the root of ``Σ p̂_i v_i / (1 + x v_i) = 0``."""
    estimate = [0.2] * 5
    for _ in range(1000):
        mean = sum(a * p for a, p in zip(PAIR_SCORES, estimate, strict=True))
        sigma = math.sqrt(
            sum(p * (a - mean) ** 2 for a, p in zip(PAIR_SCORES, estimate, strict=True))
        )
        gradient = [
            a - 0.5 - t * sigma * (1.0 + ((mean - a) / sigma) ** 2) / 2.0 for a in PAIR_SCORES
        ]
        x = _secular_root(observed, gradient)
        updated = [p / (1.0 + x * v) for p, v in zip(observed, gradient, strict=True)]
        if max(abs(u - e) for u, e in zip(updated, estimate, strict=True)) < 1e-13:
            return updated
        estimate = updated
    return estimate


def _secular_root(weights: list[float], values: list[float]) -> float:
    """The ``x`` with ``Σ w_i v_i / (1 + x v_i) = 0`` and every ``1 + x v_i > 0``: the
    sum falls as ``x`` grows on that interval, so bisection finds it."""
    top, bottom = max(values), min(values)
    if not bottom < 0.0 < top:
        raise SprtError(f"no distribution on the five outcomes meets the constraint ({values})")
    low, high = -1.0 / top, -1.0 / bottom
    products = [(w * v, v) for w, v in zip(weights, values, strict=True)]
    for _ in range(200):
        middle = (low + high) / 2.0
        if not low < middle < high:  # adjacent floats: every later step changes nothing
            break
        total = sum([product / (1.0 + middle * v) for product, v in products])
        if total > 0.0:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def decision(value: float, parameters: SprtParameters) -> str:
    """``"H1"`` (NEW is at least elo1 better), ``"H0"`` (not elo1 better), or ``"continue"``."""
    if value >= parameters.upper:
        return "H1"
    if value <= parameters.lower:
        return "H0"
    return "continue"


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """NEW's strength over OLD so far, with 95% intervals (normal approximation)."""

    elo: float
    """Logistic Elo of the mean score (±inf never: the score is regularized)."""
    elo_low: float
    elo_high: float
    nelo: float
    """Normalized Elo: the scale the hypotheses are in."""
    nelo_margin: float
    """Half-width of the nElo interval: ``1.96 · 800/ln 10 / sqrt(2N)``."""


def logistic_elo(score: float) -> float:
    """Elo difference whose expected score is ``score`` (clipped into (0, 1))."""
    clipped = min(max(score, 1e-6), 1.0 - 1e-6)
    return -400.0 * math.log10(1.0 / clipped - 1.0)


def estimate(penta: Pentanomial) -> EloEstimate:
    """Elo and nElo of NEW against OLD from the pairs so far.

    Mean and variance carry :data:`PRIOR`. The mean's standard error is
    ``σ / sqrt(N)``; the Elo interval maps the mean's 95% interval through
    :func:`logistic_elo` (so it is not symmetric), the nElo one is ``t``'s,
    whose standard error is ``1 / sqrt(2N)``."""
    mean, variance = penta.mean_variance()
    pairs = max(penta.pairs, 1)
    margin = Z95 * math.sqrt(variance / pairs)
    t = (mean - 0.5) / math.sqrt(2.0 * variance)
    return EloEstimate(
        elo=logistic_elo(mean),
        elo_low=logistic_elo(mean - margin),
        elo_high=logistic_elo(mean + margin),
        nelo=t * NELO_PER_T,
        nelo_margin=Z95 * NELO_PER_T / math.sqrt(2.0 * pairs),
    )
