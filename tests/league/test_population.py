"""Nash averaging (league/domain/population.py): cycles, giant-killers, clones, ties."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from league.domain.population import (
    TOLERANCE,
    max_entropy_nash,
    nash_averaging,
    pair_payoff,
    payoff_matrix,
)
from league.domain.ratings import MatchResult, league_table


def duels(winner: str, loser: str, n: int) -> list[MatchResult]:
    return [MatchResult((winner, loser), (1, 2), f"{winner}-{loser}-{k}") for k in range(n)]


def is_equilibrium(matrix: list[list[float]], p: list[float]) -> bool:
    scale = max(abs(x) for row in matrix for x in row) or 1.0
    return (
        abs(sum(p) - 1) < 1e-9
        and min(p) >= 0
        and all(sum(a * q for a, q in zip(row, p, strict=True)) <= 1e-6 * scale for row in matrix)
    )


def entropy(p: list[float]) -> float:
    return -sum(x * math.log(x) for x in p if x > 0)


def test_rock_paper_scissors_gets_equal_mass() -> None:
    results = duels("rock", "scissors", 10) + duels("scissors", "paper", 10)
    results += duels("paper", "rock", 10)
    population = nash_averaging(results)
    for row in population.rows:
        assert row.mass == pytest.approx(1 / 3, abs=1e-9)
        assert row.value == 0.0


def test_a_giant_killer_gets_mass_while_its_elo_is_lowest() -> None:
    results = duels("top", "x", 20) + duels("top", "y", 20) + duels("x", "y", 14)
    results += duels("y", "x", 6) + duels("killer", "top", 20)
    results += duels("x", "killer", 20) + duels("y", "killer", 20)
    elo = {row.bot: row.elo for row in league_table(results, samples=20)}
    assert min(elo, key=lambda bot: elo[bot]) == "killer"
    population = nash_averaging(results)
    killer = population.row("killer")
    assert killer is not None and killer.mass > 0.2 and killer.value == 0.0
    # y is beaten by x and never beats the leader: no mass, a negative value.
    y = population.row("y")
    assert y is not None and y.mass == 0.0 and y.value < 0
    assert population.rows[-1].bot == "y"


def test_a_transitive_league_puts_all_mass_on_the_best() -> None:
    results = duels("a", "b", 10) + duels("b", "c", 10) + duels("a", "c", 10)
    population = nash_averaging(results)
    assert (population.rows[0].bot, population.rows[0].mass) == ("a", 1.0)
    assert all(r.value < 0 for r in population.rows[1:])


def test_clones_and_null_bots_share_mass_by_maximum_entropy() -> None:
    # Two copies of the best bot: every split between them is an equilibrium.
    assert max_entropy_nash([[0, 0, 1], [0, 0, 1], [-1, -1, 0]]) == pytest.approx([0.5, 0.5, 0])
    # Rock-paper-scissors plus a bot that draws with all: a whole segment of equilibria.
    rps_null = [[0, 1, -1, 0], [-1, 0, 1, 0], [1, -1, 0, 0], [0, 0, 0, 0]]
    assert max_entropy_nash(rps_null) == pytest.approx([0.25] * 4)
    assert max_entropy_nash([[0.0, 0.0], [0.0, 0.0]]) == [0.5, 0.5]


def test_a_slack_constraint_that_binds_at_the_maximum() -> None:
    # a and b are clones of rock; d beats b by 1 and loses to a by 0.5. Maximum
    # entropy alone would split rock's third evenly, but then d would profit:
    # d's constraint binds at b = a/2, so a = 2/9, b = 1/9.
    matrix: list[list[float]] = [
        [0, 0, 1, -1, 0.5],
        [0, 0, 1, -1, -1],
        [-1, -1, 0, 1, 0],
        [1, 1, -1, 0, 0],
        [-0.5, 1, 0, 0, 0],
    ]
    p = max_entropy_nash(matrix)
    assert p == pytest.approx([2 / 9, 1 / 9, 1 / 3, 1 / 3, 0], abs=1e-8)
    # Brute force over a grid of the simplex that holds the answer.
    n = 18
    grid = (
        [*(x / n for x in c), (n - sum(c)) / n]
        for c in itertools.product(range(n + 1), repeat=4)
        if sum(c) <= n
    )
    best = max(entropy(q) for q in grid if is_equilibrium(matrix, q))
    assert entropy(p) == pytest.approx(best, abs=1e-7)


@pytest.mark.parametrize("seed", range(20))
def test_random_payoffs_give_an_equilibrium(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 8)
    matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            value = rng.choice([0.0, rng.uniform(-400, 400), 200.0, -200.0])
            matrix[i][j], matrix[j][i] = value, -value
    p = max_entropy_nash(matrix)
    assert is_equilibrium(matrix, p), (matrix, p)
    # No equilibrium mixing p with a pure strategy has more entropy.
    for i in range(n):
        for t in (1e-3, 1e-2):
            q = [(1 - t) * x + (t if k == i else 0.0) for k, x in enumerate(p)]
            if is_equilibrium(matrix, q):
                assert entropy(q) <= entropy(p) + 1e-9


def test_payoffs_are_the_finite_pair_elo_and_antisymmetric() -> None:
    bots, matrix = payoff_matrix(duels("a", "b", 10) + duels("c", "a", 1))
    assert bots == ["a", "b", "c"]
    assert matrix[0][1] == pytest.approx(400 * math.log10(11 / 1))
    assert matrix[1][2] == 0.0  # never met
    assert all(matrix[i][j] == -matrix[j][i] for i in range(3) for j in range(3))
    assert pair_payoff(0, 0) == 0.0
    assert TOLERANCE < 1e-6


def test_multi_seat_matches_count_every_pair() -> None:
    results = [MatchResult(("a", "b", "c"), (1, 2, 3), "g")] * 4
    population = nash_averaging(results)
    assert population.rows[0].bot == "a" and population.rows[0].mass == 1.0
    assert population.payoff["b"]["c"] > 0


def test_a_large_league_stays_polynomial() -> None:
    # 40 bots, mostly dominated: the slack constraints do not bind, so the search stops
    # at its first candidate instead of enumerating subsets of 30-odd constraints.
    rng = random.Random(40)
    n = 40
    matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            value = rng.uniform(-300, 300) - 20 * (i - j)
            matrix[i][j], matrix[j][i] = value, -value
    p = max_entropy_nash(matrix)
    assert is_equilibrium(matrix, p) and sum(x > 0 for x in p) < n
