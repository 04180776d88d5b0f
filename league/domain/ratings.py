"""Ratings for bluffing-game leagues: batch Bradley–Terry table, bootstrap, history.

Pure functions over plain dataclasses (standard library only).  See
``docs/ratings.md`` for the reasoning. The match results and their pair games are in
:mod:`league.domain.results`, the fit in :mod:`league.domain.bradley_terry` (both
re-exported here); in short:

* :func:`pair_games` turns each match into weighted two-player games, one per
  pair of seats, each weighted ``1/(n-1)`` for an ``n``-seat match.
* :func:`fit_bradley_terry` is the order-independent fit of the Bradley–Terry
  model on the Elo scale over all pair games, with a weak prior
  (:data:`PRIOR_DRAWS` virtual draws per bot against a reference at the mean) so
  every rating is finite — the league table's "Elo".
* :func:`bootstrap` resamples whole duplicate-deal groups to give a confidence
  interval per bot (never narrower than the posterior's normal approximation) and
  a likelihood-of-superiority (LOS) matrix.
* :func:`league_table` puts it together.
* :func:`elo_history` is the incremental, order-dependent Elo curve for plots.
* :func:`head_to_head` / :func:`head_to_head_from_results` use the chess-engine
  runner (cutechess-cli) formulas for a single pairing; :func:`pair_elo` is the
  finite, prior-regularised Elo difference the crosstables show.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from statistics import NormalDist

from league.domain.bradley_terry import (
    ELO_PER_NAT,
    PRIOR_DRAWS,
    Aggregates,
    NoEstimateError,
    aggregate,
    bots_of,
    fit_bradley_terry,
    fit_strengths,
    fit_with_sd,
    posterior_sd,
    to_elo,
)
from league.domain.results import MatchResult, PairGame, pair_games

__all__ = [
    "CUTECHESS_Z95",
    "EXACT_Z95",
    "PRIOR_DRAWS",
    "Bootstrap",
    "HeadToHead",
    "MatchResult",
    "NoEstimateError",
    "PairElo",
    "PairGame",
    "TableRow",
    "bootstrap",
    "elo_history",
    "elo_update",
    "fit_bradley_terry",
    "fit_with_sd",
    "head_to_head",
    "head_to_head_from_results",
    "league_table",
    "pair_elo",
    "pair_games",
]


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
class Bootstrap:
    """Bootstrap summary of :func:`fit_bradley_terry`.

    ``ratings`` is the fit on the full data; ``intervals[bot]`` the interval
    ``(lo, hi)`` at ``level``: each end the wider of the bootstrap percentile
    (``percentile[bot]``) and the posterior's normal approximation (``rating ± z·sd``,
    ``sd[bot]`` in Elo), so it is finite and never of zero width.  ``los[a][b]`` the
    fraction of resamples in which ``a`` is rated above ``b`` (ties ½), so
    ``los[a][b] + los[b][a] == 1`` and ``los[a][a] == 0.5``.  ``present[bot]`` is
    the number of resamples that contained the bot at all; percentiles and LOS use
    only those resamples.
    """

    ratings: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    los: dict[str, dict[str, float]]
    present: dict[str, int]
    samples: int
    level: float
    seed: int
    percentile: dict[str, tuple[float, float] | None] = field(default_factory=dict)
    """The bootstrap percentile interval alone (None: the bot was in no resample)."""
    sd: dict[str, float] = field(default_factory=dict)
    """The posterior standard deviation of each rating (Laplace approximation), Elo."""
    prior_draws: float = PRIOR_DRAWS


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
    counts: list[int], group_pairs: list[Aggregates], group_bots: list[set[int]]
) -> tuple[list[int], Aggregates]:
    """The bots present in a resample (drawn ``counts[g]`` times each group ``g``) and
    its pair totals, indexed by position among those bots."""
    present = sorted({b for g, c in enumerate(counts) if c for b in group_bots[g]})
    local = {bot: k for k, bot in enumerate(present)}
    pairs: Aggregates = {}
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
    names: list[str],
    draws: list[list[float]],
    level: float,
    ratings: Mapping[str, float],
    sd: Mapping[str, float],
) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float] | None]]:
    """Each bot's interval and its bootstrap percentile interval.

    The interval reaches at least ``z·sd`` either side of the rating: a percentile
    interval alone can be narrow or empty where the resamples cannot vary (a bot
    that won every match wins every resample), though the data say little.
    """
    tail = (1.0 - level) / 2.0
    z = NormalDist().inv_cdf(1.0 - tail)
    intervals: dict[str, tuple[float, float]] = {}
    percentiles: dict[str, tuple[float, float] | None] = {}
    for i, name in enumerate(names):
        values = sorted(draws[i])
        low, high = ratings[name] - z * sd[name], ratings[name] + z * sd[name]
        if values:
            lo, hi = _percentile(values, tail), _percentile(values, 1.0 - tail)
            percentiles[name] = (lo, hi)
            low, high = min(low, lo), max(high, hi)
        else:
            percentiles[name] = None
        intervals[name] = (low, high)
    return intervals, percentiles


def bootstrap(
    results: Iterable[MatchResult],
    *,
    samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    mean: float = 1500.0,
    prior_draws: float = PRIOR_DRAWS,
) -> Bootstrap:
    """Bootstrap the Bradley–Terry fit by resampling whole groups with replacement.

    A group is all matches sharing a non-empty ``group`` id (a duplicate deal), or a
    single match with an empty id.  Each of ``samples`` resamples draws as many
    groups as there are, with replacement, using ``random.Random(seed)``, and refits
    with :func:`fit_bradley_terry` (the same prior); every fit's ratings average
    ``mean`` over the bots present in it.

    ``percentile[bot]`` is the percentile interval: the ``(1-level)/2`` and
    ``(1+level)/2`` quantiles (linear interpolation) of the bot's resampled ratings;
    ``intervals[bot]`` widens it, where needed, to the posterior's normal
    approximation ``rating ± z·sd`` (:func:`_intervals`).  ``los[a][b]`` is the
    fraction of resamples rating ``a`` above ``b``, ties counting ½.  A bot absent
    from a resample is skipped in it (its percentile: None if in none), and a pair
    never present together has LOS 0.5.

    Deterministic for a given ``seed``; also independent of the order of
    ``results``, because groups are put in a canonical order before resampling.
    """
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    matches = list(results)
    names = bots_of(matches)
    index = {name: i for i, name in enumerate(names)}
    full = aggregate(pair_games(matches), index)
    ratings = to_elo(names, fit_strengths(len(names), full, prior_draws), mean)
    sd = dict(zip(names, posterior_sd(len(names), full, prior_draws), strict=True))

    groups = _groups(matches)
    group_pairs = [aggregate(pair_games(group), index) for group in groups]
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
        theta = fit_strengths(len(present), pairs, prior_draws)
        elo = [t * ELO_PER_NAT for t in theta]
        shift = mean - math.fsum(elo) / len(elo)
        for k, bot in enumerate(present):
            draws[bot].append(elo[k] + shift)
        _count_order(present, elo, together, wins2)

    intervals, percentiles = _intervals(names, draws, level, ratings, sd)
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
        percentile=percentiles,
        sd=sd,
        prior_draws=prior_draws,
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


@dataclass(frozen=True, slots=True)
class PairElo:
    """One pairing's Elo difference ± its 95 % margin, as the crosstables show it."""

    elo: float
    margin: float


def pair_elo(
    h2h: HeadToHead, *, prior_draws: float = PRIOR_DRAWS, z: float = EXACT_Z95
) -> PairElo | None:
    """The Elo difference of one pairing, finite for every score; None without games.

    :func:`head_to_head`'s cutechess-cli numbers are infinite for a pairing one side
    won every game of.  Here, as in the league table's fit, ``prior_draws`` virtual
    draws are added to the pairing first.  With ``n' = w + d + l + p`` and the score
    ``s = (w + (d + p)/2) / n'``: ``elo = −400·log10(1/s − 1)``, and the margin is the
    delta method on the logit, ``z · (400/ln 10) · σ / (s(1 − s))`` with ``σ`` the
    standard error of ``s`` as in :func:`head_to_head` (the virtual draws counted as
    draws), so it stays finite where cutechess-cli's score interval reaches 0 or 1.
    """
    draws = h2h.draws + prior_draws
    n = h2h.wins + draws + h2h.losses
    if h2h.games == 0 or n <= 0:
        return None
    s = (h2h.wins + draws / 2.0) / n
    if not 0.0 < s < 1.0:  # only without a prior
        raise NoEstimateError(f"a score of {s} has no finite Elo difference: use a prior")
    variance = (h2h.wins * (1.0 - s) ** 2 + draws * (0.5 - s) ** 2 + h2h.losses * s**2) / n
    stdev = math.sqrt(variance / n)
    return PairElo(_elo_of_score(s), z * ELO_PER_NAT * stdev / (s * (1.0 - s)))
