"""Luck-adjusted scores: their means, intervals and sequential test (standard library).

A match's *luck* for a seat is the sum of AIVAT's chance corrections
(:mod:`referee.analysis.luck` computes it from the match's events); the seat's
luck-adjusted score is its score (1 / ½ / 0 against the other seat) minus its luck.
The adjustment has mean zero, so adjusted scores estimate the same expected score with
less variance; a duplicate pair's adjusted score is the mean of NEW's two adjusted
scores. Adjusted scores are continuous (and may leave [0, 1]), so the pentanomial model
does not apply: :class:`LuckSprt` is a GSPRT on the normal model of the adjusted pair
scores (``docs/ratings.md``, luck-adjusted results).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from league.domain.sprt_statistics import hypotheses_problem

Z95 = 1.959964
PRIOR_PAIRS = 2.0
"""Pseudo-pairs of variance :data:`PRIOR_VARIANCE` added to the sample variance of
:class:`LuckSprt`: the first pairs' variance is never near 0 (a test would otherwise
stop on a lucky start, as the pentanomial test's prior prevents)."""
PRIOR_VARIANCE = 0.1
"""A duplicate pair's variance before any pair is seen (raw pair scores of close bots
are near 0.1; the adjustment lowers it, and the prior fades as 1/N)."""


class LuckError(ValueError):
    """Bad input to a luck-adjusted statistic (the message names the value)."""


def adjusted_score(score: float, luck: float) -> float:
    """A seat's luck-adjusted score: its score minus its luck."""
    return score - luck


def adjusted_pair_score(halves: Sequence[tuple[float, float]]) -> float:
    """A duplicate pair's adjusted score: the mean over its games of (score − luck)."""
    if not halves:
        raise LuckError("a pair needs at least one game")
    return math.fsum(score - luck for score, luck in halves) / len(halves)


def fitted_coefficient(scores: Sequence[float], lucks: Sequence[float]) -> float:
    """The least-squares coefficient of the luck term, ``b = Cov(score, luck) /
    Var(luck)``: the ``b`` that minimises ``Var(score − b·luck)`` over the given
    (score, luck) pairs. Any fixed ``b`` keeps the adjusted mean (E[luck] = 0), so it is
    fitted on matches apart from the ones it then adjusts."""
    if len(scores) != len(lucks):
        raise LuckError(f"{len(scores)} scores but {len(lucks)} lucks")
    if len(scores) < 2:
        raise LuckError(f"a coefficient needs at least 2 values, got {len(scores)}")
    mean_score, mean_luck = statistics.fmean(scores), statistics.fmean(lucks)
    spread = math.fsum((luck - mean_luck) ** 2 for luck in lucks)
    if spread == 0.0:
        raise LuckError(f"the luck never varies (always {mean_luck}): no coefficient")
    covariance = math.fsum(
        (score - mean_score) * (luck - mean_luck) for score, luck in zip(scores, lucks, strict=True)
    )
    return covariance / spread


def pair_interval(values: Sequence[float]) -> tuple[float, float]:
    """The normal 95% interval of the mean of independent values (pairs or groups)."""
    if len(values) < 2:
        raise LuckError(f"an interval needs at least 2 values, got {len(values)}")
    mean = statistics.fmean(values)
    margin = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean - margin, mean + margin


@dataclass(frozen=True, slots=True)
class LuckSummary:
    """One bot's luck-adjusted score over its matches: mean and 95% interval."""

    mean: float
    low: float
    high: float
    groups: int
    """Independent units the interval is over (duplicate deals, or single matches)."""

    def text(self) -> str:
        return f"{self.mean:.3f} [{self.low:.3f}, {self.high:.3f}]"


def summarize(groups: Iterable[Sequence[float]]) -> LuckSummary | None:
    """Mean and 95% interval of adjusted scores given as groups (the matches of one
    duplicate deal form a group, resampled together); None with fewer than 2 groups."""
    means = [math.fsum(group) / len(group) for group in groups if group]
    if len(means) < 2:
        return None
    low, high = pair_interval(means)
    return LuckSummary(statistics.fmean(means), low, high, len(means))


def expected_score(elo: float) -> float:
    """The logistic expected score of a bot ``elo`` points stronger."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass(frozen=True, slots=True)
class LuckSprtState:
    """Adjusted pair scores so far: count, sum and sum of squares."""

    count: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, pair_score: float) -> LuckSprtState:
        if not math.isfinite(pair_score):
            raise LuckError(f"an adjusted pair score must be finite, got {pair_score}")
        return LuckSprtState(
            self.count + 1, self.total + pair_score, self.squares + pair_score * pair_score
        )

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.5

    @property
    def variance(self) -> float:
        """The sample variance with :data:`PRIOR_PAIRS` pseudo-pairs at
        :data:`PRIOR_VARIANCE`."""
        spread = max(self.squares - self.count * self.mean * self.mean, 0.0)
        return (spread + PRIOR_PAIRS * PRIOR_VARIANCE) / (self.count + PRIOR_PAIRS)


@dataclass(frozen=True, slots=True)
class LuckSprt:
    """A GSPRT on the normal model of adjusted pair scores.

    H0: NEW's expected score is ``expected_score(elo0)``, H1: ``expected_score(elo1)``
    (logistic Elo: normalized Elo is measured in units of the score's deviation, which
    the adjustment changes). With ``N`` pairs of mean ``x̄`` and variance ``s²``
    (:attr:`LuckSprtState.variance`), ``μ0``, ``μ1`` the two expected scores::

        LLR = N·(μ1 − μ0)·(2x̄ − μ0 − μ1) / (2s²)

    and Wald's bounds ``log(β/(1−α))``, ``log((1−β)/α)``.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        problem = hypotheses_problem(self.elo0, self.elo1, self.alpha, self.beta)
        if problem:
            raise LuckError(problem)

    @property
    def score0(self) -> float:
        return expected_score(self.elo0)

    @property
    def score1(self) -> float:
        return expected_score(self.elo1)

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def start(self) -> LuckSprtState:
        return LuckSprtState()

    def llr(self, state: LuckSprtState) -> float:
        if state.count == 0:
            return 0.0
        mu0, mu1 = self.score0, self.score1
        return state.count * (mu1 - mu0) * (2.0 * state.mean - mu0 - mu1) / (2.0 * state.variance)

    def decision(self, state: LuckSprtState) -> str:
        """``"H1"``, ``"H0"`` or ``"continue"``."""
        value = self.llr(state)
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return "continue"
