"""Nash averaging: a population view of a league that admits intransitivity.

A Bradley–Terry rating puts every bot on one line, so a bot that beats the leader but
loses to everyone else is averaged away. Nash averaging (Balduzzi, Tuyls, Perolat and
Graepel, "Re-evaluating evaluation", NeurIPS 2018) instead treats the league's
empirical payoff matrix as a symmetric zero-sum game — "pick a bot from the league
to face a bot your opponent picks" — and reports

* **mass**: each bot's weight in the *maximum-entropy* Nash equilibrium of that
  game. Bots in a rock-paper-scissors cycle share mass equally; a "giant-killer"
  that alone beats the strongest bot gets mass although its Elo is low, because
  without it the leader would be unbeatable;
* **value**: each bot's expected payoff against that Nash mixture, in Elo points.
  It is 0 for every bot with mass and negative for the others (how far it is from
  being worth picking).

The payoff of ``a`` against ``b`` is the pair's Elo difference with the table's weak
prior (:func:`pair_payoff`: :data:`~league.domain.ratings.PRIOR_DRAWS` virtual draws, so
a clean sweep is finite); a pair that never met scores 0.

The game has value 0, so its equilibria are ``{p in simplex : A p <= 0}``, a convex
polytope. The maximum-entropy one is unique and found exactly, in three steps (standard
library only; matrices are as small as a league):

1. linear programs (:func:`_simplex`, Bland's rule) find the largest support ``S`` any
   equilibrium uses, and which constraints ``(A p)_j <= 0`` of the bots outside ``S``
   hold with equality on every equilibrium;
2. for each choice of the remaining constraints to hold with equality, the
   maximum-entropy distribution on ``S`` under those equalities is found by Newton's
   method on its convex dual (``p`` is a softmax, :func:`_maxent`);
3. the candidate with the highest entropy that satisfies every constraint is the
   answer: at the optimum, dropping the constraints that are slack changes nothing.
   Candidates are tried by size and supersets of settled ones skipped; with none of
   those constraints binding (the usual case) the first candidate is the answer.

Tolerance: :data:`TOLERANCE` on payoffs scaled to ``[-1, 1]``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from league.domain.ratings import PRIOR_DRAWS, MatchResult, pair_games

__all__ = [
    "TOLERANCE",
    "Population",
    "PopulationError",
    "PopulationRow",
    "max_entropy_nash",
    "nash_averaging",
    "pair_payoff",
    "payoff_matrix",
]

#: Feasibility and convergence tolerance, on payoffs scaled so the largest is 1.
TOLERANCE = 1e-9
#: How many "sometimes slack" constraints the exact search makes equalities at once.
_MAX_SLACK = 12
_ELO_PER_NAT = 400.0 / math.log(10.0)


class PopulationError(ArithmeticError):
    """The equilibrium could not be computed within :data:`TOLERANCE`."""


@dataclass(frozen=True, slots=True)
class PopulationRow:
    """One bot in the population view."""

    bot: str
    mass: float
    """Its probability in the maximum-entropy Nash mixture (0 .. 1)."""
    value: float
    """Its expected payoff against that mixture, in Elo points: 0 with mass, < 0 without."""


@dataclass(frozen=True, slots=True)
class Population:
    """Nash averaging of a league: rows ordered by value, then mass, then name."""

    rows: tuple[PopulationRow, ...]
    payoff: dict[str, dict[str, float]]
    """``payoff[a][b]``: ``a``'s payoff against ``b`` in Elo points (antisymmetric)."""

    def row(self, bot: str) -> PopulationRow | None:
        return next((r for r in self.rows if r.bot == bot), None)


def pair_payoff(score: float, total: float, prior: float = PRIOR_DRAWS) -> float:
    """Elo difference implied by ``score`` points out of ``total`` games with ``prior``
    virtual draws added (as the crosstables' :func:`~league.domain.ratings.pair_elo`):
    ``400·log10(s / (1 − s))`` with ``s = (score + prior/2) / (total + prior)``."""
    if total + prior <= 0:
        return 0.0
    s = (score + prior / 2.0) / (total + prior)
    return _ELO_PER_NAT * math.log(s / (1.0 - s))


def payoff_matrix(
    results: Iterable[MatchResult], prior: float = PRIOR_DRAWS
) -> tuple[list[str], list[list[float]]]:
    """Bots in name order and the antisymmetric payoff matrix over them (Elo points),
    from every pair of seats of every match, weighted as the table weighs them."""
    totals: dict[tuple[str, str], list[float]] = {}
    for game in pair_games(results):
        a, b, score = game.a, game.b, game.score
        if a > b:
            a, b, score = b, a, 1.0 - score
        entry = totals.setdefault((a, b), [0.0, 0.0])
        entry[0] += score * game.weight
        entry[1] += game.weight
    bots = sorted({bot for pair in totals for bot in pair})
    index = {bot: i for i, bot in enumerate(bots)}
    matrix = [[0.0] * len(bots) for _ in bots]
    for (a, b), (score, total) in totals.items():
        value = pair_payoff(score, total, prior)
        matrix[index[a]][index[b]] = value
        matrix[index[b]][index[a]] = -value
    return bots, matrix


def nash_averaging(results: Iterable[MatchResult], prior: float = PRIOR_DRAWS) -> Population:
    """The population view of ``results``: see the module's docstring."""
    bots, matrix = payoff_matrix(results, prior)
    mass = max_entropy_nash(matrix)
    values = [sum(a * p for a, p in zip(row, mass, strict=True)) for row in matrix]
    rows = [
        PopulationRow(bot, 0.0 if m < TOLERANCE else m, 0.0 if abs(v) < 1e-6 else v)
        for bot, m, v in zip(bots, mass, values, strict=True)
    ]
    rows.sort(key=lambda r: (-round(r.value, 6), -round(r.mass, 9), r.bot))
    payoff = {
        a: {b: matrix[i][j] for j, b in enumerate(bots) if j != i} for i, a in enumerate(bots)
    }
    return Population(tuple(rows), payoff)


# ---------------------------------------------------------------- the equilibrium


def max_entropy_nash(matrix: Sequence[Sequence[float]]) -> list[float]:
    """The maximum-entropy Nash equilibrium of the symmetric zero-sum game with the
    antisymmetric payoff ``matrix`` (row player's payoff): a probability per row."""
    n = len(matrix)
    if n == 0:
        return []
    scale = max((abs(x) for row in matrix for x in row), default=0.0)
    if scale == 0.0:
        return [1.0 / n] * n
    a = [[x / scale for x in row] for row in matrix]
    # Bot i is in the support if some equilibrium gives it mass. Every equilibrium a
    # program returns settles the bots it gives mass at once, and the bots it leaves
    # strictly worse off: (A p)_j < 0 at one equilibrium means j has no mass in any
    # (for q and p equilibria, q·A p = 0 with every (A p)_j <= 0).
    found: set[int] = set()
    excluded: set[int] = set()
    points: list[list[float]] = []
    for i in range(n):
        if i not in found and i not in excluded:
            _, p = _extreme(a, objective=_unit(n, i))
            points.append(p)
            found |= {k for k in range(n) if p[k] > TOLERANCE}
            excluded |= {k for k in range(n) if _payoff(a, k, p) < -TOLERANCE}
    support = sorted(found)
    if not support:
        raise PopulationError(f"no equilibrium found for the payoff matrix {matrix!r}")
    outside = [j for j in range(n) if j not in found]
    # A constraint (A p)_j <= 0 that no equilibrium leaves slack is an equality.
    slack_seen = {j for j in outside for p in points if _payoff(a, j, p) < -TOLERANCE}
    tight = []
    for j in outside:
        if j not in slack_seen:
            value, p = _extreme(a, objective=[-x for x in a[j]])
            if value < TOLERANCE:
                tight.append(j)
            slack_seen |= {k for k in outside if _payoff(a, k, p) < -TOLERANCE}
    slack = [j for j in outside if j not in tight]
    best: list[float] | None = None
    best_entropy = -math.inf
    # Candidates K (slack constraints made equalities) by size. Region(K') is inside
    # Region(K) for K' ⊇ K, so once K is settled — feasible (its entropy bounds every
    # superset's) or without a full-support solution (so is every superset) — its
    # supersets are skipped. Every equilibrium satisfies the equalities of K = ∅, so
    # if that candidate is feasible it is the answer (the usual case).
    settled: list[frozenset[int]] = []
    for size in range(len(slack) + 1):
        open_candidates = 0  # tried at this size and neither feasible nor hopeless
        for chosen in itertools.combinations(slack, size):
            if any(done <= set(chosen) for done in settled):
                continue
            if size > _MAX_SLACK:
                raise PopulationError(
                    f"more than {_MAX_SLACK} constraints of bots outside the equilibrium's"
                    " support bind at once; the exact search stops there"
                )
            candidate = _maxent(a, [*support, *tight, *chosen], support)
            if candidate is None:
                settled.append(frozenset(chosen))
                continue
            if any(_payoff(a, j, candidate) > math.sqrt(TOLERANCE) for j in range(n)):
                open_candidates += 1
                continue
            settled.append(frozenset(chosen))
            entropy = -sum(candidate[i] * math.log(candidate[i]) for i in support)
            if entropy > best_entropy + TOLERANCE:
                best, best_entropy = candidate, entropy
        if open_candidates == 0:
            break  # every larger candidate is a superset of a settled one
    if best is None:
        raise PopulationError(f"no maximum-entropy equilibrium found for {matrix!r}")
    return best


def _payoff(a: list[list[float]], j: int, p: list[float]) -> float:
    return sum(x * q for x, q in zip(a[j], p, strict=True))


def _unit(n: int, i: int) -> list[float]:
    return [1.0 if k == i else 0.0 for k in range(n)]


def _extreme(a: list[list[float]], objective: list[float]) -> tuple[float, list[float]]:
    """``max objective·p`` over the equilibria ``{p >= 0, sum p = 1, A p <= 0}``, and
    an equilibrium ``p`` that attains it."""
    n = len(a)
    # Variables: p (n), then one slack s_j per row of A p + s = 0.
    rows = [[*a[j], *_unit(n, j)] for j in range(n)]
    rows.append([1.0] * n + [0.0] * n)
    rhs = [0.0] * n + [1.0]
    value, x = _simplex([*objective, *([0.0] * n)], rows, rhs)
    return value, x[:n]


def _simplex(
    cost: list[float], rows: list[list[float]], rhs: list[float]
) -> tuple[float, list[float]]:
    """``max cost·x`` subject to ``rows·x = rhs``, ``x >= 0`` (``rhs >= 0``, feasible,
    bounded), and an optimal ``x``: two-phase tableau simplex with Bland's rule (no
    cycling)."""
    m, n = len(rows), len(cost)
    # Tableau: constraint rows with one artificial variable each, then the objective.
    table = [[*row, *_unit(m, k), b] for k, (row, b) in enumerate(zip(rows, rhs, strict=True))]
    basis = [n + k for k in range(m)]
    phase1 = [0.0] * n + [-1.0] * m
    _optimise(table, basis, phase1, allowed=n + m)
    if any(table[k][-1] > TOLERANCE for k in range(m) if basis[k] >= n):
        raise PopulationError("the equilibrium program is infeasible")
    for k in range(m):  # drive zero artificials out of the basis where possible
        if basis[k] >= n:
            col = next((c for c in range(n) if abs(table[k][c]) > TOLERANCE), None)
            if col is not None:
                _pivot(table, basis, k, col)
    value = _optimise(table, basis, [*cost, *([0.0] * m)], allowed=n)
    x = [0.0] * n
    for k, column in enumerate(basis):
        if column < n:
            x[column] = table[k][-1]
    return value, x


def _optimise(table: list[list[float]], basis: list[int], cost: list[float], allowed: int) -> float:
    """Maximise ``cost·x`` from the tableau's basic solution, entering only the first
    ``allowed`` columns; returns the optimum."""
    while True:
        reduced = [
            cost[c] - sum(cost[basis[k]] * table[k][c] for k in range(len(table)))
            for c in range(allowed)
        ]
        col = next((c for c in range(allowed) if reduced[c] > TOLERANCE and c not in basis), None)
        if col is None:
            return sum(cost[basis[k]] * table[k][-1] for k in range(len(table)))
        candidates = [
            (table[k][-1] / table[k][col], basis[k], k)
            for k in range(len(table))
            if table[k][col] > TOLERANCE
        ]
        if not candidates:
            raise PopulationError("the equilibrium program is unbounded")
        _, _, row = min(candidates)
        _pivot(table, basis, row, col)


def _pivot(table: list[list[float]], basis: list[int], row: int, col: int) -> None:
    pivot = table[row][col]
    table[row] = [x / pivot for x in table[row]]
    for k, other in enumerate(table):
        if k != row and other[col] != 0.0:
            factor = other[col]
            table[k] = [x - factor * y for x, y in zip(other, table[row], strict=True)]
    basis[row] = col


def _maxent(a: list[list[float]], rows: list[int], support: list[int]) -> list[float] | None:
    """The maximum-entropy distribution on ``support`` with ``(A p)_j = 0`` for ``j`` in
    ``rows``, or None if there is none with full support. Newton's method on the dual
    ``min_y log Σ_i exp((Bᵀy)_i)`` (``B`` = those rows of ``A`` on ``support``), whose
    minimiser gives ``p = softmax(Bᵀy)``; damped for a rank-deficient ``B``."""
    b = [[a[j][i] for i in support] for j in rows]
    y = [0.0] * len(rows)

    def distribution(y: list[float]) -> tuple[float, list[float]]:
        z = [sum(b[r][i] * y[r] for r in range(len(rows))) for i in range(len(support))]
        top = max(z)
        w = [math.exp(v - top) for v in z]
        total = math.fsum(w)
        return top + math.log(total), [v / total for v in w]

    phi, q = distribution(y)
    for _ in range(100):
        grad = [sum(b[r][i] * q[i] for i in range(len(support))) for r in range(len(rows))]
        if max(map(abs, grad), default=0.0) < TOLERANCE:
            p = [0.0] * len(a)
            for i, mass in zip(support, q, strict=True):
                p[i] = mass
            return p
        mean = grad
        hess = [
            [
                sum(b[r][i] * b[s][i] * q[i] for i in range(len(support)))
                - mean[r] * mean[s]
                + (1e-12 if r == s else 0.0)
                for s in range(len(rows))
            ]
            for r in range(len(rows))
        ]
        step = _solve(hess, [-g for g in grad])
        slope = sum(g * d for g, d in zip(grad, step, strict=True))
        t = 1.0
        while t > 1e-12:
            trial = [v + t * d for v, d in zip(y, step, strict=True)]
            phi_trial, q_trial = distribution(trial)
            if phi_trial <= phi + 1e-4 * t * slope:
                break
            t /= 2.0
        else:
            return None
        y, phi, q = trial, phi_trial, q_trial
    return None


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting; a (numerically) singular direction
    gets a zero step."""
    n = len(rhs)
    m = [[*row, v] for row, v in zip(matrix, rhs, strict=True)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[pivot] = m[pivot], m[c]
        if abs(m[c][c]) < 1e-300:
            continue
        for r in range(c + 1, n):
            factor = m[r][c] / m[c][c]
            m[r] = [x - factor * y for x, y in zip(m[r], m[c], strict=True)]
    x = [0.0] * n
    for c in reversed(range(n)):
        if abs(m[c][c]) < 1e-300:
            continue
        x[c] = (m[c][n] - sum(m[c][k] * x[k] for k in range(c + 1, n))) / m[c][c]
    return x
