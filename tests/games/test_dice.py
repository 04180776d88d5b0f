"""Exact dice odds, checked by hand and against enumeration of every outcome."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from referee.gamekit.dice import (
    FACES,
    binomial_pmf,
    count_matching,
    face_probability,
    probability_at_least,
    probability_sum_at_least,
    sum_distribution,
)

WILDS: tuple[int | None, ...] = (None, 1, 6)


def brute_force_at_least(k: int, n: int, face: int, wild: int | None) -> Fraction:
    hits = sum(1 for roll in product(FACES, repeat=n) if count_matching(roll, face, wild) >= k)
    return Fraction(hits, 6**n)


def test_face_probability() -> None:
    assert face_probability(3) == Fraction(1, 6)
    assert face_probability(3, 1) == Fraction(1, 3)
    assert face_probability(1, 1) == Fraction(1, 6)
    assert face_probability(6, 6) == Fraction(1, 6)
    assert face_probability(1, 6) == Fraction(1, 3)
    with pytest.raises(ValueError, match="7"):
        face_probability(7)


def test_hand_checked_values() -> None:
    sixth, third = Fraction(1, 6), Fraction(1, 3)
    assert probability_at_least(1, 1, sixth) == Fraction(1, 6)
    assert probability_at_least(1, 2, sixth) == Fraction(11, 36)
    assert probability_at_least(2, 2, sixth) == Fraction(1, 36)
    assert probability_at_least(1, 5, sixth) == 1 - Fraction(5, 6) ** 5 == Fraction(4651, 7776)
    # Two of three with wilds: 3 * (1/3)^2 * (2/3) + (1/3)^3 = 6/27 + 1/27.
    assert probability_at_least(2, 3, third) == Fraction(7, 27)
    # Ten dice, at least a third of them a given face with wild ones.
    assert probability_at_least(0, 10, third) == 1
    assert probability_at_least(-3, 10, third) == 1
    assert probability_at_least(11, 10, third) == 0
    assert probability_at_least(10, 10, sixth) == Fraction(1, 6**10)
    assert probability_at_least(0, 0, sixth) == 1
    assert probability_at_least(1, 0, sixth) == 0


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("wild", WILDS)
def test_matches_enumeration_of_all_outcomes(n: int, wild: int | None) -> None:
    for face in FACES:
        p = face_probability(face, wild)
        for k in range(-1, n + 2):
            assert probability_at_least(k, n, p) == brute_force_at_least(k, n, face, wild), (
                k,
                n,
                face,
                wild,
            )


def test_pmf_sums_to_one_and_matches_tail() -> None:
    p = Fraction(1, 3)
    assert sum(binomial_pmf(i, 7, p) for i in range(8)) == 1
    assert binomial_pmf(8, 7, p) == 0
    assert binomial_pmf(-1, 7, p) == 0
    for k in range(8):
        assert probability_at_least(k, 7, p) - probability_at_least(k + 1, 7, p) == (
            binomial_pmf(k, 7, p)
        )


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="-1"):
        probability_at_least(1, -1, Fraction(1, 6))
    with pytest.raises(ValueError, match="3/2"):
        probability_at_least(1, 2, Fraction(3, 2))


def test_count_matching() -> None:
    dice = (1, 1, 3, 4, 6)
    assert count_matching(dice, 3) == 1
    assert count_matching(dice, 3, 1) == 3
    assert count_matching(dice, 1, 1) == 2  # the wild face counts only real dice
    assert count_matching(dice, 3, 6) == 2
    assert count_matching(dice, 2) == 0


def test_sum_distribution() -> None:
    two = sum_distribution(2)
    assert two[7] == Fraction(6, 36)
    assert two[2] == two[12] == Fraction(1, 36)
    assert sum(two.values()) == 1
    for n in range(4):
        counts: dict[int, int] = {}
        for roll in product(FACES, repeat=n):
            counts[sum(roll)] = counts.get(sum(roll), 0) + 1
        assert sum_distribution(n) == {s: Fraction(c, 6**n) for s, c in sorted(counts.items())}


def test_probability_sum_at_least() -> None:
    # Own die 3, one unknown die: the sum is at least 7 when the other shows 4, 5 or 6.
    assert probability_sum_at_least(7, 1, known=3) == Fraction(1, 2)
    assert probability_sum_at_least(2, 1, known=1) == 1
    assert probability_sum_at_least(13, 1, known=6) == 0
    assert probability_sum_at_least(7, 2) == Fraction(21, 36)
