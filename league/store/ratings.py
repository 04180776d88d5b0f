"""Ratings for bluffing-game leagues: batch Bradley–Terry table, bootstrap, history.

Pure functions over plain dataclasses (standard library only).  See
``docs/ratings.md`` for the reasoning; in short:

* :func:`pair_games` turns each match into weighted two-player games, one per
  pair of seats, each weighted ``1/(n-1)`` for an ``n``-seat match.
* :func:`fit_bradley_terry` is the order-independent maximum-likelihood fit of
  the Bradley–Terry model on the Elo scale over all pair games — the league table.
* :func:`bootstrap` resamples whole duplicate-deal groups to give a confidence
  interval per bot and a likelihood-of-superiority (LOS) matrix.
* :func:`league_table` puts it together.
* :func:`elo_history` is the incremental, order-dependent Elo curve for plots.
* :func:`head_to_head` / :func:`head_to_head_from_results` use the chess-engine
  runner (cutechess-cli) formulas for a single pairing.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "CUTECHESS_Z95",
    "EXACT_Z95",
    "VIRTUAL_DRAW_WEIGHT",
    "Bootstrap",
    "HeadToHead",
    "MatchResult",
    "PairGame",
    "TableRow",
    "bootstrap",
    "elo_history",
    "elo_update",
    "fit_bradley_terry",
    "head_to_head",
    "head_to_head_from_results",
    "league_table",
    "pair_games",
]

#: Total weight of the virtual draw added between every pair of bots when the
#: maximum-likelihood ratings would be infinite or undetermined (see
#: :func:`fit_bradley_terry`).  One real two-player game weighs 1.
VIRTUAL_DRAW_WEIGHT = 0.01

#: Elo points per natural-log unit of strength: 400 / ln 10.
_ELO_PER_NAT = 400.0 / math.log(10.0)
#: Convergence threshold of the fit, in Elo points.
_TOLERANCE_ELO = 1e-10
_MAX_ITERATIONS = 200


def _winitzki_erfinv(x: float) -> float:
    """Winitzki's closed-form approximation of the inverse error function.

    cutechess-cli computes its 95 % quantile with this approximation, so using it
    reproduces the margins that cutechess-cli prints digit for digit.
    """
    a = 8.0 * (math.pi - 3.0) / (3.0 * math.pi * (4.0 - math.pi))
    y = math.log(1.0 - x * x)
    z = 2.0 / (math.pi * a) + y / 2.0
    return math.copysign(math.sqrt(math.sqrt(z * z - y / a) - z), x)


#: The 97.5 % standard-normal quantile as cutechess-cli computes it
#: (``sqrt(2)·erfinv(0.95)`` with Winitzki's approximation): 1.957162, slightly
#: below the exact 1.959964 (:data:`EXACT_Z95`).  The default of :func:`head_to_head`.
CUTECHESS_Z95 = math.sqrt(2.0) * _winitzki_erfinv(0.95)
#: The exact 97.5 % standard-normal quantile.
EXACT_Z95 = 1.959964


# --------------------------------------------------------------------------- types


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The outcome of one match.

    ``bots[i]`` sat in seat ``i`` and finished in ``places[i]`` (1 = best; ties share
    a place, e.g. ``(1, 1, 3)``).  Matches with the same non-empty ``group`` (a
    duplicate deal) are resampled together by :func:`bootstrap`; an empty group
    means the match is a group of its own.
    """

    bots: tuple[str, ...]
    places: tuple[int, ...]
    group: str = ""

    def __post_init__(self) -> None:
        if len(self.bots) != len(self.places):
            raise ValueError(
                f"{len(self.bots)} bots but {len(self.places)} places in {self.bots!r}"
            )
        if len(self.bots) < 2:
            raise ValueError(f"a match needs at least 2 seats, got {self.bots!r}")
        if any(place < 1 for place in self.places):
            raise ValueError(f"places start at 1, got {self.places!r}")


@dataclass(frozen=True, slots=True)
class PairGame:
    """One weighted two-player game derived from a match.

    ``score`` is ``a``'s result against ``b``: 1 (better place), 0.5 (same place)
    or 0 (worse place).  ``weight`` is ``1/(n-1)`` for an ``n``-seat match.
    """

    a: str
    b: str
    score: float
    weight: float


@dataclass(frozen=True, slots=True)
class Bootstrap:
    """Bootstrap summary of :func:`fit_bradley_terry`.

    ``ratings`` is the fit on the full data; ``intervals[bot]`` the percentile
    interval ``(lo, hi)`` at ``level``; ``los[a][b]`` the fraction of resamples
    in which ``a`` is rated above ``b`` (ties ½), so ``los[a][b] + los[b][a] == 1``
    and ``los[a][a] == 0.5``.  ``present[bot]`` is the number of resamples that
    contained the bot at all; intervals and LOS use only those resamples.
    """

    ratings: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    los: dict[str, dict[str, float]]
    present: dict[str, int]
    samples: int
    level: float
    seed: int


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row of :func:`league_table`.

    ``games`` counts seats played (the matches played, unless a bot filled several
    seats of one match), ``wins`` the seats finishing in first place (shared first
    places included) and ``mean_place`` the average place over those seats.
    ``los`` is the bot's row of the likelihood-of-superiority matrix:
    ``row.los[other]`` is the chance this bot is really stronger than ``other``.
    """

    rank: int
    bot: str
    elo: float
    lo: float
    hi: float
    games: int
    wins: int
    mean_place: float
    los: Mapping[str, float]

    @property
    def minus(self) -> float:
        """Distance from the rating down to the interval's lower end."""
        return self.elo - self.lo

    @property
    def plus(self) -> float:
        """Distance from the rating up to the interval's upper end."""
        return self.hi - self.elo

    @property
    def margin(self) -> float:
        """Half the interval width, for a symmetric ``elo ± margin`` display."""
        return (self.hi - self.lo) / 2.0


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """A single pairing summarised with the cutechess-cli formulas.

    ``score`` is the first bot's mean score, ``elo`` the Elo difference it implies
    and ``margin`` the half-width of its 95 % interval.  Conventions for the edge
    cases: with no games ``score``, ``elo`` and ``margin`` are ``None`` (undefined);
    a score of exactly 1 or 0 gives ``elo = ±inf``; whenever an end of the score
    interval reaches 0 or 1 the margin is ``inf``.  ``los`` is 0.5 when there are
    no decisive games.
    """

    wins: int
    draws: int
    losses: int
    score: float | None
    elo: float | None
    margin: float | None
    los: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


# ------------------------------------------------------------------- pair games


def _pair_score(place_a: int, place_b: int) -> float:
    if place_a < place_b:
        return 1.0
    if place_a > place_b:
        return 0.0
    return 0.5


def pair_games(results: Iterable[MatchResult]) -> list[PairGame]:
    """Expand every match into one :class:`PairGame` per pair of seats ``i < j``.

    The first bot of the pair is seat ``i``.  Each pair game of an ``n``-seat match
    weighs ``1/(n-1)``, so every seat contributes total weight 1 per match whatever
    the table size.  Pairs in which both seats are the same bot are skipped (they
    carry no information about relative strength).
    """
    games: list[PairGame] = []
    for match in results:
        weight = 1.0 / (len(match.bots) - 1)
        for i in range(len(match.bots)):
            for j in range(i + 1, len(match.bots)):
                a, b = match.bots[i], match.bots[j]
                if a == b:
                    continue
                games.append(PairGame(a, b, _pair_score(match.places[i], match.places[j]), weight))
    return games


# ------------------------------------------------------------- Bradley–Terry fit

#: Per unordered pair ``(i, j)`` with ``i < j`` (bot indices): ``(score of i,
#: score of j)``, each the weighted sum of points; the pair's total weight is the sum.
_Aggregates = dict[tuple[int, int], tuple[float, float]]


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


def _strongly_connected(n: int, pairs: _Aggregates) -> bool:
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


def _log_likelihood(theta: list[float], pairs: _Aggregates) -> float:
    total = 0.0
    for (i, j), (s_i, s_j) in pairs.items():
        d = theta[i] - theta[j]
        total += s_i * _log_sigmoid(d) + s_j * _log_sigmoid(-d)
    return total


def _fit_strengths(n: int, pairs: _Aggregates) -> list[float]:
    """Maximum-likelihood log-strengths (natural units, summing to zero).

    Damped Newton–Raphson on the concave log-likelihood.  The Hessian is minus a
    weighted graph Laplacian, singular along the all-ones direction; adding
    ``1·1ᵀ`` to it fixes the gauge (the gradient sums to zero, so every step does
    too).  Steps are halved until the likelihood does not decrease.
    """
    if not _strongly_connected(n, pairs):
        half = VIRTUAL_DRAW_WEIGHT / 2.0
        regularised: _Aggregates = {}
        for i in range(n):
            for j in range(i + 1, n):
                s_i, s_j = pairs.get((i, j), (0.0, 0.0))
                regularised[i, j] = (s_i + half, s_j + half)
        pairs = regularised
    theta = [0.0] * n
    if n <= 1:
        return theta
    tolerance = _TOLERANCE_ELO / _ELO_PER_NAT
    current = _log_likelihood(theta, pairs)
    previous_step = math.inf
    for _ in range(_MAX_ITERATIONS):
        grad = [0.0] * n
        lap = [[1.0] * n for _ in range(n)]
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
        step = _solve(lap, grad)
        scale = 1.0
        while True:
            candidate = [t + scale * d for t, d in zip(theta, step, strict=True)]
            value = _log_likelihood(candidate, pairs)
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
    shift = math.fsum(theta) / n
    return [t - shift for t in theta]


def _to_elo(names: list[str], theta: list[float], mean: float) -> dict[str, float]:
    elo = [t * _ELO_PER_NAT for t in theta]
    shift = mean - math.fsum(elo) / len(elo) if elo else 0.0
    return {name: r + shift for name, r in zip(names, elo, strict=True)}


def _bots_of(results: Iterable[MatchResult]) -> list[str]:
    return sorted({bot for match in results for bot in match.bots})


def _aggregate(games: Iterable[PairGame], index: Mapping[str, int]) -> _Aggregates:
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


def fit_bradley_terry(results: Iterable[MatchResult], *, mean: float = 1500.0) -> dict[str, float]:
    """Batch Bradley–Terry maximum-likelihood ratings on the Elo scale.

    The model is ``P(a beats b) = 1 / (1 + 10 ** ((R_b - R_a) / 400))``, fitted to
    all :func:`pair_games` at once with their weights; a tie counts as half a win
    for each side.  The result depends only on the multiset of matches, not on
    their order (pair totals are summed exactly and bots are processed in name
    order).  Ratings are shifted so their average is ``mean``; every bot that
    appears in ``results`` gets a rating.

    Method: damped Newton–Raphson on the log-likelihood, iterated until the largest
    update is below 1e-10 Elo (quadratic convergence makes that a handful of steps).

    Regularisation: the maximum-likelihood estimate is finite and unique exactly
    when the "scored points against" graph is strongly connected (Zermelo/Ford).
    When it is not — a bot that won or lost every game, groups of bots that never
    met, a bot that only ever played itself — a virtual draw of total weight
    :data:`VIRTUAL_DRAW_WEIGHT` (0.01 of one two-player game) is added between
    *every* pair of bots, and only then.  Data that already has a finite estimate is
    fitted exactly, unregularised.  The virtual draws make every rating finite and
    keep the order of the real results (a bot with a perfect score against ten
    games ends roughly ``400·log10(10/0.005) ≈ 1300`` Elo above), but gaps between
    such bots reflect the prior, not measured strength.
    """
    matches = list(results)
    names = _bots_of(matches)
    index = {name: i for i, name in enumerate(names)}
    pairs = _aggregate(pair_games(matches), index)
    return _to_elo(names, _fit_strengths(len(names), pairs), mean)


# -------------------------------------------------------------------- bootstrap


def _percentile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolation percentile (NumPy's default method)."""
    position = q * (len(sorted_values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    fraction = position - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction


def _groups(matches: list[MatchResult]) -> list[list[MatchResult]]:
    """Resampling units in a canonical order (so resampling ignores input order)."""
    by_group: dict[str, list[MatchResult]] = {}
    singles: list[list[MatchResult]] = []
    for match in matches:
        if match.group:
            by_group.setdefault(match.group, []).append(match)
        else:
            singles.append([match])

    def key(group: list[MatchResult]) -> tuple[str, list[tuple[tuple[str, ...], tuple[int, ...]]]]:
        return group[0].group, sorted((m.bots, m.places) for m in group)

    return sorted([*by_group.values(), *singles], key=key)


def _resampled(
    counts: list[int], group_pairs: list[_Aggregates], group_bots: list[set[int]]
) -> tuple[list[int], _Aggregates]:
    """The bots present in a resample (drawn ``counts[g]`` times each group ``g``) and
    its pair totals, indexed by position among those bots."""
    present = sorted({b for g, c in enumerate(counts) if c for b in group_bots[g]})
    local = {bot: k for k, bot in enumerate(present)}
    pairs: _Aggregates = {}
    for g, c in enumerate(counts):
        if not c:
            continue
        for (i, j), (s_i, s_j) in group_pairs[g].items():
            key = (local[i], local[j])
            old = pairs.get(key, (0.0, 0.0))
            pairs[key] = (old[0] + c * s_i, old[1] + c * s_j)
    return present, pairs


def _count_order(
    present: list[int], elo: list[float], together: list[list[int]], wins2: list[list[int]]
) -> None:
    """Add one resample's order of each pair present: ``wins2[a][b]`` gets 2 when ``a``
    is rated above ``b``, 1 each on a tie."""
    for x, a in enumerate(present):
        for y in range(x + 1, len(present)):
            b = present[y]
            together[a][b] += 1
            together[b][a] += 1
            if elo[x] > elo[y]:
                wins2[a][b] += 2
            elif elo[x] < elo[y]:
                wins2[b][a] += 2
            else:
                wins2[a][b] += 1
                wins2[b][a] += 1


def _intervals(
    names: list[str], draws: list[list[float]], level: float
) -> dict[str, tuple[float, float]]:
    """Each bot's percentile interval over its resampled ratings; ``(-inf, inf)`` for a
    bot in no resample."""
    tail = (1.0 - level) / 2.0
    intervals: dict[str, tuple[float, float]] = {}
    for i, name in enumerate(names):
        values = sorted(draws[i])
        if values:
            intervals[name] = (_percentile(values, tail), _percentile(values, 1.0 - tail))
        else:
            intervals[name] = (-math.inf, math.inf)
    return intervals


def bootstrap(
    results: Iterable[MatchResult],
    *,
    samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    mean: float = 1500.0,
) -> Bootstrap:
    """Bootstrap the Bradley–Terry fit by resampling whole groups with replacement.

    A group is all matches sharing a non-empty ``group`` id (a duplicate deal), or a
    single match with an empty id.  Each of ``samples`` resamples draws as many
    groups as there are, with replacement, using ``random.Random(seed)``, and refits
    with :func:`fit_bradley_terry` (regularised the same way when needed); every
    fit's ratings average ``mean`` over the bots present in it.

    ``intervals[bot]`` is the percentile interval: the ``(1-level)/2`` and
    ``(1+level)/2`` quantiles (linear interpolation) of the bot's resampled ratings.
    ``los[a][b]`` is the fraction of resamples rating ``a`` above ``b``, ties
    counting ½.  A bot absent from a resample is skipped in it: its interval uses
    the resamples it appears in (``(-inf, inf)`` if none), and a pair never present
    together has LOS 0.5.

    Deterministic for a given ``seed``; also independent of the order of
    ``results``, because groups are put in a canonical order before resampling.
    """
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    matches = list(results)
    names = _bots_of(matches)
    index = {name: i for i, name in enumerate(names)}
    full = _aggregate(pair_games(matches), index)
    ratings = _to_elo(names, _fit_strengths(len(names), full), mean)

    groups = _groups(matches)
    group_pairs = [_aggregate(pair_games(group), index) for group in groups]
    group_bots = [{index[bot] for m in group for bot in m.bots} for group in groups]
    rng = random.Random(seed)

    draws: list[list[float]] = [[] for _ in names]
    # wins2[a][b] counts resamples with a above b twice, plus ties once.
    wins2 = [[0] * len(names) for _ in names]
    together = [[0] * len(names) for _ in names]
    for _ in range(samples):
        counts = [0] * len(groups)
        for _ in range(len(groups)):
            counts[rng.randrange(len(groups))] += 1
        present, pairs = _resampled(counts, group_pairs, group_bots)
        theta = _fit_strengths(len(present), pairs)
        elo = [t * _ELO_PER_NAT for t in theta]
        shift = mean - math.fsum(elo) / len(elo)
        for k, bot in enumerate(present):
            draws[bot].append(elo[k] + shift)
        _count_order(present, elo, together, wins2)

    intervals = _intervals(names, draws, level)
    los = {
        a: {
            b: (wins2[i][j] / (2 * together[i][j]) if together[i][j] else 0.5)
            for j, b in enumerate(names)
        }
        for i, a in enumerate(names)
    }
    return Bootstrap(
        ratings=ratings,
        intervals=intervals,
        los=los,
        present={name: len(draws[i]) for i, name in enumerate(names)},
        samples=samples,
        level=level,
        seed=seed,
    )


# ------------------------------------------------------------------ league table


def league_table(
    results: Iterable[MatchResult], *, samples: int = 1000, seed: int = 0, mean: float = 1500.0
) -> list[TableRow]:
    """The league table: batch Bradley–Terry ratings with 95 % bootstrap intervals.

    Ratings average ``mean``.  Rows are sorted by rating, best first (ties by
    name), ranked 1, 2, 3, ...; see :class:`TableRow` for the columns.  The
    likelihood-of-superiority matrix is ``{row.bot: row.los for row in table}``.
    """
    matches = list(results)
    boot = bootstrap(matches, samples=samples, seed=seed, level=0.95, mean=mean)
    seats: dict[str, list[int]] = {}
    for match in matches:
        for bot, place in zip(match.bots, match.places, strict=True):
            seats.setdefault(bot, []).append(place)
    order = sorted(boot.ratings, key=lambda bot: (-boot.ratings[bot], bot))
    return [
        TableRow(
            rank=rank,
            bot=bot,
            elo=boot.ratings[bot],
            lo=boot.intervals[bot][0],
            hi=boot.intervals[bot][1],
            games=len(seats[bot]),
            wins=sum(1 for place in seats[bot] if place == 1),
            mean_place=sum(seats[bot]) / len(seats[bot]),
            los=boot.los[bot],
        )
        for rank, bot in enumerate(order, start=1)
    ]


# ---------------------------------------------------------------- rating history


def elo_update(
    ratings: Mapping[str, float],
    match: MatchResult,
    *,
    k: float = 16.0,
    initial: float = 1500.0,
) -> dict[str, float]:
    """One incremental Elo step: the ratings after ``match`` (a new dict).

    Bots of the match missing from ``ratings`` start at ``initial``.  Every pair of
    seats (different bots) is scored as in :func:`pair_games`, and each seat's
    rating moves by ``k/(n-1) · (score - expected)`` summed over its pairs, where
    ``expected = 1/(1 + 10**((R_opp - R)/400))`` uses the ratings from *before* the
    match (all pairs of one match update simultaneously).  Bots not in the match
    are copied unchanged.  This is the step :func:`elo_history` repeats; it is
    order-dependent and is not the league table.
    """
    before = dict(ratings)
    for bot in match.bots:
        before.setdefault(bot, initial)
    after = dict(before)
    scale = k / (len(match.bots) - 1)
    for game in pair_games([match]):
        expected = 1.0 / (1.0 + 10.0 ** ((before[game.b] - before[game.a]) / 400.0))
        delta = scale * (game.score - expected)
        after[game.a] += delta
        after[game.b] -= delta
    return after


def elo_history(
    results_in_order: Iterable[MatchResult],
    *,
    k: float = 16.0,
    initial: float = 1500.0,
    start: Mapping[str, float] | None = None,
) -> list[dict[str, float]]:
    """Incremental Elo ratings after each match, for rating-over-time plots.

    Every bot starts at ``initial`` when first seen (or at its rating in ``start``,
    to continue an earlier history), and each match applies
    :func:`elo_update`: every pair of seats (different bots) is scored as in
    :func:`pair_games`, and each seat's rating moves by ``k/(n-1) · (score -
    expected)`` summed over its pairs, with expected scores from the ratings
    before the match.

    This is order-dependent — the same matches in another order give other numbers —
    and it is NOT the league table: use :func:`fit_bradley_terry` /
    :func:`league_table` for standings.  Returns one snapshot dict (all bots seen so
    far, plus those in ``start``) per match, in order.
    """
    ratings: dict[str, float] = dict(start or {})
    history: list[dict[str, float]] = []
    for match in results_in_order:
        ratings = elo_update(ratings, match, k=k, initial=initial)
        history.append(dict(ratings))
    return history


# ------------------------------------------------------------------ head to head


def _elo_of_score(score: float) -> float:
    """Elo difference implied by a mean score; ±inf at 1 and 0."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def head_to_head(wins: int, draws: int, losses: int, *, z: float = CUTECHESS_Z95) -> HeadToHead:
    """Elo difference, 95 % margin and LOS of one pairing (cutechess-cli formulas).

    With ``n = w + d + l`` and score ``s = (w + d/2)/n``:

    * ``elo = -400·log10(1/s - 1)``;
    * ``stdev = sqrt((w(1-s)² + d(0.5-s)² + l(0-s)²)/n) / sqrt(n)`` and
      ``margin = (elo(s + z·stdev) - elo(s - z·stdev)) / 2``;
    * ``los = 0.5·(1 + erf((w - l)/sqrt(2(w + l))))``.

    ``z`` defaults to :data:`CUTECHESS_Z95` (1.957162), the quantile cutechess-cli
    actually uses, so the margin matches its output (``99-104-97`` → ``2.3 ± 31.8``);
    pass ``z=EXACT_Z95`` (1.959964) for the textbook quantile (``± 31.9``).

    Edge cases (see :class:`HeadToHead`): ``n = 0`` gives ``score``, ``elo`` and
    ``margin`` of ``None``; ``s = 1`` or ``0`` gives ``elo = ±inf``; a margin whose
    score interval reaches 0 or 1 is ``inf``; ``w + l = 0`` gives ``los = 0.5``.
    """
    if min(wins, draws, losses) < 0:
        raise ValueError(f"counts must not be negative: {wins}, {draws}, {losses}")
    decisive = wins + losses
    los = 0.5
    if decisive:
        los = 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * decisive)))
    n = wins + draws + losses
    if n == 0:
        return HeadToHead(wins, draws, losses, None, None, None, los)
    score = (wins + draws / 2.0) / n
    variance = (wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / n
    stdev = math.sqrt(variance) / math.sqrt(n)
    low, high = score - z * stdev, score + z * stdev
    margin = math.inf
    if low > 0.0 and high < 1.0:
        margin = (_elo_of_score(high) - _elo_of_score(low)) / 2.0
    return HeadToHead(wins, draws, losses, score, _elo_of_score(score), margin, los)


def head_to_head_from_results(results: Iterable[MatchResult], a: str, b: str) -> HeadToHead:
    """:func:`head_to_head` of ``a`` against ``b`` over the matches they both played.

    Every seat of ``a`` is compared with every seat of ``b`` in the same match by
    place: better is a win, equal a draw, worse a loss.  Each comparison counts as
    one whole game (no ``1/(n-1)`` weighting: the cutechess formulas need counts),
    so a multiplayer match contributes one game to the pairing, like a duel.
    """
    if a == b:
        raise ValueError(f"head to head needs two different bots, got {a!r} twice")
    wins = draws = losses = 0
    for match in results:
        for place_a in (p for bot, p in zip(match.bots, match.places, strict=True) if bot == a):
            for place_b in (p for bot, p in zip(match.bots, match.places, strict=True) if bot == b):
                if place_a < place_b:
                    wins += 1
                elif place_a > place_b:
                    losses += 1
                else:
                    draws += 1
    return head_to_head(wins, draws, losses)
