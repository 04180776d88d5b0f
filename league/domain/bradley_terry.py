"""The Bradley–Terry fit on the Elo scale: the order-independent strengths behind the
league table, with a weak prior so every rating is finite (docs/ratings.md).

Pure functions (standard library only). :func:`fit_bradley_terry` and
:func:`fit_with_sd` are the public face; :func:`fit_strengths` and :func:`aggregate`
are what the bootstrap (:mod:`league.domain.ratings`) refits on each resample.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from league.domain.results import MatchResult, PairGame, pair_games

__all__ = [
    "ELO_PER_NAT",
    "PRIOR_DRAWS",
    "Aggregates",
    "NoEstimateError",
    "aggregate",
    "bots_of",
    "difference_sd",
    "fit_bradley_terry",
    "fit_strengths",
    "fit_with_differences",
    "fit_with_sd",
    "posterior_sd",
    "to_elo",
]

#: The prior of every fit: each bot is credited with this many virtual draws
#: (total weight; one real two-player game weighs 1) against a reference bot
#: fixed at the mean rating.  Weak — worth two games — but proper, so every rating,
#: and every interval, is finite even for a bot that won or lost everything.
PRIOR_DRAWS = 2.0

#: Elo points per natural-log unit of strength: 400 / ln 10.
ELO_PER_NAT = 400.0 / math.log(10.0)
#: Convergence threshold of the fit, in Elo points.
_TOLERANCE_ELO = 1e-10
_MAX_ITERATIONS = 200

#: Per unordered pair ``(i, j)`` with ``i < j`` (bot indices): ``(score of i,
#: score of j)``, each the weighted sum of points; the pair's total weight is the sum.
Aggregates = dict[tuple[int, int], tuple[float, float]]


def _log_sigmoid(x: float) -> float:
    """``log(1 / (1 + exp(-x)))`` without overflow."""
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _strongly_connected(n: int, pairs: Aggregates) -> bool:
    """Whether every bot has (partly) beaten and been beaten along some chain.

    This is Zermelo/Ford's condition for the Bradley–Terry maximum-likelihood
    estimate to exist and be unique: the directed graph with an edge ``i → j``
    whenever ``i`` scored points against ``j`` must be strongly connected.
    """
    if n <= 1:
        return True
    forward: list[list[int]] = [[] for _ in range(n)]
    backward: list[list[int]] = [[] for _ in range(n)]
    for (i, j), (s_i, s_j) in pairs.items():
        if s_i > 0:
            forward[i].append(j)
            backward[j].append(i)
        if s_j > 0:
            forward[j].append(i)
            backward[i].append(j)
    for edges in (forward, backward):
        seen = {0}
        stack = [0]
        while stack:
            for nxt in edges[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        if len(seen) != n:
            return False
    return True


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the matrix is consumed)."""
    n = len(rhs)
    a = [[*row, value] for row, value in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if a[pivot][col] == 0.0:
            raise ArithmeticError("singular system in the Bradley–Terry fit")
        a[col], a[pivot] = a[pivot], a[col]
        top = a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / top[col]
            if factor != 0.0:
                row = a[r]
                for c in range(col, n + 1):
                    row[c] -= factor * top[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        acc = a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))
        x[r] = acc / a[r][r]
    return x


class NoEstimateError(ArithmeticError):
    """The maximum-likelihood ratings (a fit without prior) do not exist for this data."""


def _log_likelihood(theta: list[float], pairs: Aggregates, prior: float) -> float:
    """The log-posterior: the pair games' log-likelihood plus the prior's virtual draws
    (``prior/2`` won and ``prior/2`` lost against the reference at 0)."""
    total = 0.0
    for (i, j), (s_i, s_j) in pairs.items():
        d = theta[i] - theta[j]
        total += s_i * _log_sigmoid(d) + s_j * _log_sigmoid(-d)
    if prior:
        half = prior / 2.0
        total += sum(half * (_log_sigmoid(t) + _log_sigmoid(-t)) for t in theta)
    return total


def _curvature(
    theta: list[float], pairs: Aggregates, prior: float
) -> tuple[list[float], list[list[float]]]:
    """The gradient of :func:`_log_likelihood` and minus its Hessian, plus ``1·1ᵀ``
    without a prior (the Hessian is then a graph Laplacian, singular along the
    all-ones direction; ``1·1ᵀ`` fixes the gauge and leaves contrasts unchanged)."""
    n = len(theta)
    grad = [0.0] * n
    gauge = 0.0 if prior else 1.0
    lap = [[gauge] * n for _ in range(n)]
    for (i, j), (s_i, s_j) in pairs.items():
        p = _sigmoid(theta[i] - theta[j])
        q = _sigmoid(theta[j] - theta[i])
        g = s_i * q - s_j * p  # = s_i - (s_i + s_j)·p, without cancellation
        grad[i] += g
        grad[j] -= g
        w = (s_i + s_j) * p * q
        lap[i][i] += w
        lap[j][j] += w
        lap[i][j] -= w
        lap[j][i] -= w
    if prior:
        for i, t in enumerate(theta):
            p, q = _sigmoid(t), _sigmoid(-t)
            grad[i] += prior / 2.0 * (q - p)
            lap[i][i] += prior * p * q
    return grad, lap


def _maximise(n: int, pairs: Aggregates, prior: float) -> list[float]:
    """The log-strengths (natural units) maximising :func:`_log_likelihood`.

    Damped Newton–Raphson on the concave log-posterior; steps are halved until it
    does not decrease.  With ``prior > 0`` it is strictly concave, so the maximum
    is unique and finite whatever the data; with ``prior == 0`` (the plain
    maximum-likelihood fit) the data must satisfy Zermelo/Ford's condition.
    """
    if not prior and not _strongly_connected(n, pairs):
        raise NoEstimateError(
            "the maximum-likelihood ratings are infinite or undetermined (a bot won or"
            " lost every game, or groups never met): fit with a prior"
        )
    theta = [0.0] * n
    if n == 0 or (n == 1 and not prior):
        return theta
    tolerance = _TOLERANCE_ELO / ELO_PER_NAT
    current = _log_likelihood(theta, pairs, prior)
    previous_step = math.inf
    for _ in range(_MAX_ITERATIONS):
        grad, lap = _curvature(theta, pairs, prior)
        step = _solve(lap, grad)
        scale = 1.0
        while True:
            candidate = [t + scale * d for t, d in zip(theta, step, strict=True)]
            value = _log_likelihood(candidate, pairs, prior)
            if value >= current - 1e-12 * abs(current) or scale < 1e-9:
                break
            scale /= 2.0
        theta, current = candidate, value
        size = scale * max(abs(d) for d in step)
        if size < tolerance:
            break
        # At the floating-point noise floor the step stops shrinking: stop there.
        if size < 1e3 * tolerance and size >= previous_step:
            break
        previous_step = size
    else:
        raise ArithmeticError("the Bradley–Terry fit did not converge")
    return theta


def fit_strengths(n: int, pairs: Aggregates, prior: float = PRIOR_DRAWS) -> list[float]:
    """:func:`_maximise`'s log-strengths, shifted to sum to zero."""
    theta = _maximise(n, pairs, prior)
    shift = math.fsum(theta) / n if n else 0.0
    return [t - shift for t in theta]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss–Jordan inverse with partial pivoting (the matrix is not changed)."""
    n = len(matrix)
    a = [[*row, *(1.0 if c == r else 0.0 for c in range(n))] for r, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if a[pivot][col] == 0.0:
            raise ArithmeticError("singular curvature in the Bradley–Terry fit")
        a[col], a[pivot] = a[pivot], a[col]
        top = a[col]
        scale = top[col]
        for c in range(2 * n):
            top[c] /= scale
        for r in range(n):
            factor = a[r][col]
            if r != col and factor != 0.0:
                row = a[r]
                for c in range(col, 2 * n):
                    row[c] -= factor * top[c]
    return [row[n:] for row in a]


def posterior_sd(n: int, pairs: Aggregates, prior: float) -> list[float]:
    """Each centred rating's standard deviation, in Elo, under the normal (Laplace)
    approximation of the posterior at its maximum: ``sqrt(cᵢᵀ H⁻¹ cᵢ)`` with ``H``
    minus the Hessian of the log-posterior and ``cᵢ = eᵢ − 1/n`` (a rating is
    relative to the mean of all ratings)."""
    if n == 0 or (n == 1 and not prior):
        return [0.0] * n
    theta = _maximise(n, pairs, prior)
    cov = _inverse(_curvature(theta, pairs, prior)[1])
    rows = [math.fsum(row) for row in cov]
    total = math.fsum(rows)
    return [
        math.sqrt(max(0.0, cov[i][i] - 2.0 * rows[i] / n + total / (n * n))) * ELO_PER_NAT
        for i in range(n)
    ]


def difference_sd(n: int, pairs: Aggregates, prior: float) -> list[list[float]]:
    """The standard deviation, in Elo, of every difference of two ratings under the same
    normal approximation as :func:`posterior_sd`: ``sqrt(Hᵢᵢ⁻¹ + Hⱼⱼ⁻¹ − 2·Hᵢⱼ⁻¹)``, the
    pair's own covariance included (two bots that met the same opponents are
    correlated, so this is not the two marginal intervals combined)."""
    if n == 0 or (n == 1 and not prior):
        return [[0.0] * n for _ in range(n)]
    theta = _maximise(n, pairs, prior)
    cov = _inverse(_curvature(theta, pairs, prior)[1])
    return [
        [
            math.sqrt(max(0.0, cov[i][i] + cov[j][j] - 2.0 * cov[i][j])) * ELO_PER_NAT
            for j in range(n)
        ]
        for i in range(n)
    ]


def to_elo(names: list[str], theta: list[float], mean: float) -> dict[str, float]:
    elo = [t * ELO_PER_NAT for t in theta]
    shift = mean - math.fsum(elo) / len(elo) if elo else 0.0
    return {name: r + shift for name, r in zip(names, elo, strict=True)}


def bots_of(results: Iterable[MatchResult]) -> list[str]:
    return sorted({bot for match in results for bot in match.bots})


def aggregate(games: Iterable[PairGame], index: Mapping[str, int]) -> Aggregates:
    """Sum the pair games per unordered pair, exactly (``math.fsum``), keyed in
    sorted order, so the totals and their order do not depend on the game order."""
    parts: dict[tuple[int, int], tuple[list[float], list[float]]] = {}
    for game in games:
        i, j = index[game.a], index[game.b]
        s_i, s_j = game.score * game.weight, (1.0 - game.score) * game.weight
        if i > j:
            i, j, s_i, s_j = j, i, s_j, s_i
        first, second = parts.setdefault((i, j), ([], []))
        first.append(s_i)
        second.append(s_j)
    return {key: (math.fsum(parts[key][0]), math.fsum(parts[key][1])) for key in sorted(parts)}


def fit_bradley_terry(
    results: Iterable[MatchResult], *, mean: float = 1500.0, prior_draws: float = PRIOR_DRAWS
) -> dict[str, float]:
    """Batch Bradley–Terry ratings on the Elo scale, with a weak prior.

    The model is ``P(a beats b) = 1 / (1 + 10 ** ((R_b - R_a) / 400))``, fitted to
    all :func:`pair_games` at once with their weights; a tie counts as half a win
    for each side.  The result depends only on the multiset of matches, not on
    their order (pair totals are summed exactly and bots are processed in name
    order).  Ratings are shifted so their average is ``mean``; every bot that
    appears in ``results`` gets a rating.

    The prior: every bot is credited with ``prior_draws`` virtual draws (total
    weight) against a reference bot fixed at rating 0 before the shift — the
    maximum a posteriori estimate.  It keeps every rating finite and unique (a bot
    that won every game, groups of bots that never met) and barely moves ratings
    backed by many games.  ``prior_draws=0`` is the plain maximum-likelihood fit,
    which exists only when the "scored points against" graph is strongly connected
    (Zermelo/Ford); otherwise :class:`NoEstimateError`.

    Method: damped Newton–Raphson on the log-posterior, iterated until the largest
    update is below 1e-10 Elo (quadratic convergence makes that a handful of steps).
    """
    if prior_draws < 0:
        raise ValueError(f"prior_draws must not be negative, got {prior_draws}")
    matches = list(results)
    names = bots_of(matches)
    index = {name: i for i, name in enumerate(names)}
    pairs = aggregate(pair_games(matches), index)
    return to_elo(names, fit_strengths(len(names), pairs, prior_draws), mean)


def fit_with_sd(
    results: Iterable[MatchResult], *, mean: float = 1500.0, prior_draws: float = PRIOR_DRAWS
) -> tuple[dict[str, float], dict[str, float]]:
    """:func:`fit_bradley_terry`'s ratings and each one's posterior standard deviation
    (Elo, the normal approximation :func:`bootstrap` widens its intervals to).

    The cheap interval (one fit, no resampling) for code that refits often, such as
    the rolling ladder's pairing (:mod:`league.domain.pairing`).
    """
    _, _, ratings, sd = _fit_and_sd(results, mean, prior_draws)
    return ratings, sd


def fit_with_differences(
    results: Iterable[MatchResult], *, mean: float = 1500.0, prior_draws: float = PRIOR_DRAWS
) -> tuple[dict[str, float], dict[str, float], dict[frozenset[str], float]]:
    """:func:`fit_with_sd`, plus the standard deviation (Elo) of every pair's rating
    difference (:func:`difference_sd`): what adaptive pairing asks of a pair
    (:mod:`league.domain.pairing`)."""
    names, pairs, ratings, sd = _fit_and_sd(results, mean, prior_draws)
    table = difference_sd(len(names), pairs, prior_draws)
    differences = {
        frozenset((a, b)): table[i][j]
        for i, a in enumerate(names)
        for j, b in enumerate(names)
        if i < j
    }
    return ratings, sd, differences


def _fit_and_sd(
    results: Iterable[MatchResult], mean: float, prior_draws: float
) -> tuple[list[str], Aggregates, dict[str, float], dict[str, float]]:
    """The bots, their aggregated pair games, Elo ratings and posterior sds."""
    if prior_draws < 0:
        raise ValueError(f"prior_draws must not be negative, got {prior_draws}")
    matches = list(results)
    names = bots_of(matches)
    index = {name: i for i, name in enumerate(names)}
    pairs = aggregate(pair_games(matches), index)
    ratings = to_elo(names, fit_strengths(len(names), pairs, prior_draws), mean)
    sd = dict(zip(names, posterior_sd(len(names), pairs, prior_draws), strict=True))
    return names, pairs, ratings, sd
