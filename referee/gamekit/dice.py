"""Pure helpers for six-sided dice: exact odds as :class:`fractions.Fraction`.

Nothing here knows about one game's rules; the engines and the bots build on it.

* :func:`face_probability` — the chance that one die "shows" a face, 1/6, or 2/6
  when another face is wild and counts as every face.
* :func:`probability_at_least` — the exact binomial tail: the chance that at least
  ``k`` of ``n`` independent dice succeed, each with probability ``p``.
* :func:`count_matching` — how many dice in a hand show a face (wilds included).
* :func:`sum_distribution` / :func:`probability_sum_at_least` — the exact
  distribution of the sum of ``n`` dice.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import comb
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

SIDES = 6
"""Faces of a standard die: 1..6."""

FACES = tuple(range(1, SIDES + 1))
"""Every face of a standard die, in increasing order."""


def face_probability(face: int, wild_face: int | None = None) -> Fraction:
    """The chance that one fair die counts for ``face``.

    1/6 normally; 1/3 when ``wild_face`` is a different face (it also counts).
    A bid on the wild face itself counts only real dice of that face: 1/6.
    """
    from fractions import Fraction  # odds only: a bot's start (the engine) never needs it

    _check_face(face)
    if wild_face is not None:
        _check_face(wild_face)
        if wild_face != face:
            return Fraction(2, SIDES)
    return Fraction(1, SIDES)


def binomial_pmf(i: int, n: int, p: Fraction) -> Fraction:
    """The exact chance that exactly ``i`` of ``n`` trials succeed."""
    from fractions import Fraction  # lazily, as in face_probability

    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not 0 <= p <= 1:
        raise ValueError(f"p must be within 0..1, got {p}")
    if not 0 <= i <= n:
        return Fraction(0)
    return comb(n, i) * p**i * (1 - p) ** (n - i)


def probability_at_least(k: int, n: int, p: Fraction) -> Fraction:
    """The exact chance that at least ``k`` of ``n`` independent trials succeed.

    ``k <= 0`` is certain (1); ``k > n`` is impossible (0).
    """
    from fractions import Fraction  # lazily, as in face_probability

    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not 0 <= p <= 1:
        raise ValueError(f"p must be within 0..1, got {p}")
    if k <= 0:
        return Fraction(1)
    if k > n:
        return Fraction(0)
    return sum((binomial_pmf(i, n, p) for i in range(k, n + 1)), Fraction(0))


def count_matching(dice: Iterable[int], face: int, wild_face: int | None = None) -> int:
    """How many of ``dice`` count for ``face``: real ``face`` dice plus wild dice.

    A die showing ``wild_face`` counts for every other face; for ``face ==
    wild_face`` only the real dice count (the same thing, counted once).
    """
    return sum(1 for die in dice if die == face or (wild_face is not None and die == wild_face))


def sum_distribution(n: int) -> dict[int, Fraction]:
    """The exact distribution of the sum of ``n`` fair dice: ``{sum: probability}``."""
    from fractions import Fraction  # lazily, as in face_probability

    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    ways: dict[int, int] = {0: 1}
    for _ in range(n):
        nxt: dict[int, int] = {}
        for total, count in ways.items():
            for face in FACES:
                nxt[total + face] = nxt.get(total + face, 0) + count
        ways = nxt
    outcomes = SIDES**n
    return {total: Fraction(count, outcomes) for total, count in sorted(ways.items())}


def probability_sum_at_least(target: int, n: int, known: int = 0) -> Fraction:
    """The exact chance that ``known`` plus the sum of ``n`` fair dice is at least ``target``."""
    from fractions import Fraction  # lazily, as in face_probability

    return sum(
        (prob for total, prob in sum_distribution(n).items() if known + total >= target),
        Fraction(0),
    )


def _check_face(face: int) -> None:
    if not 1 <= face <= SIDES:
        raise ValueError(f"face must be within 1..{SIDES}, got {face}")
