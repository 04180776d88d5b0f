"""Poker-dice hands: categories, defining faces and their total order.

Five six-sided dice make one of nine categories, from high to low:

=================  =========  ===============================  ==============
category           example    defining faces                   hands
=================  =========  ===============================  ==============
five of a kind     55555      the face                         6
four of a kind     33331      the face of the four             6
full house         44422      the three's face, the pair's     30
high straight      23456      (none)                           1
low straight       12345      (none)                           1
three of a kind    22241      the face of the three            6
two pair           22114      the higher pair, the lower pair  15
one pair           33541      the face of the pair             6
high card          13456      the highest face (always 6)      1
=================  =========  ===============================  ==============

A :class:`Hand` is a category plus its defining faces; the other dice (kickers)
are never named. Hands order by category, then by their defining faces in the
order given (so "full house 4s over 2s" < "full house 5s over 1s" and "two pair 5s
and 3s" < "two pair 6s and 1s"). Five distinct faces that do not form a straight
always contain the 6, so the only high-card hand is "high card 6": there are 72
hands in all, and :data:`ALL_HANDS` lists them from lowest to highest.

A declared hand is *true* of some dice when the dice's own best hand
(:func:`evaluate`) ranks at least as high (:func:`is_true`).

Standard library only.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache, lru_cache

FACES = (1, 2, 3, 4, 5, 6)
NUM_DICE = 5


class Category(IntEnum):
    """The nine poker-dice categories; a larger value ranks higher."""

    HIGH_CARD = 1
    ONE_PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    LOW_STRAIGHT = 5
    HIGH_STRAIGHT = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    FIVE_OF_A_KIND = 9


CATEGORY_NAMES: dict[Category, str] = {
    Category.HIGH_CARD: "high card",
    Category.ONE_PAIR: "one pair",
    Category.TWO_PAIR: "two pair",
    Category.THREE_OF_A_KIND: "three of a kind",
    Category.LOW_STRAIGHT: "low straight",
    Category.HIGH_STRAIGHT: "high straight",
    Category.FULL_HOUSE: "full house",
    Category.FOUR_OF_A_KIND: "four of a kind",
    Category.FIVE_OF_A_KIND: "five of a kind",
}

_PLURAL = {1: "1s", 2: "2s", 3: "3s", 4: "4s", 5: "5s", 6: "6s"}


@dataclass(frozen=True, slots=True, order=True)
class Hand:
    """A poker-dice hand: a category and its defining faces.

    The dataclass order *is* the ranking (category first, then faces), but only
    for valid hands: check with :func:`is_valid_hand` before trusting one built
    from outside input.
    """

    category: Category
    """The hand's category."""
    faces: tuple[int, ...] = ()
    """The defining faces, in the order of the table in the module docstring."""

    def __str__(self) -> str:
        return describe_hand(self)


def _valid_faces(category: Category) -> list[tuple[int, ...]]:
    if category in (
        Category.FIVE_OF_A_KIND,
        Category.FOUR_OF_A_KIND,
        Category.THREE_OF_A_KIND,
        Category.ONE_PAIR,
    ):
        return [(f,) for f in FACES]
    if category == Category.FULL_HOUSE:
        return [(t, p) for t in FACES for p in FACES if t != p]
    if category == Category.TWO_PAIR:
        return [(h, low) for h in FACES for low in FACES if h > low]
    if category == Category.HIGH_CARD:
        return [(6,)]
    return [()]  # the straights


ALL_HANDS: tuple[Hand, ...] = tuple(
    Hand(category, faces) for category in Category for faces in _valid_faces(category)
)
"""Every hand five dice can show, lowest first (72 of them)."""

HAND_INDEX: dict[Hand, int] = {hand: index for index, hand in enumerate(ALL_HANDS)}
"""The rank of every valid hand: its position in :data:`ALL_HANDS`."""

TOP_HAND: Hand = ALL_HANDS[-1]
"""Five 6s, the highest hand: nothing can be declared above it."""

BOTTOM_HAND: Hand = ALL_HANDS[0]


def is_valid_hand(hand: object) -> bool:
    """Whether ``hand`` is a :class:`Hand` that five dice can actually show."""
    return (
        isinstance(hand, Hand)
        and isinstance(hand.category, Category)
        and isinstance(hand.faces, tuple)
        and all(type(face) is int for face in hand.faces)
        and hand in HAND_INDEX
    )


def rank(hand: Hand) -> int:
    """The hand's position in the total order (0 = lowest); KeyError if invalid."""
    return HAND_INDEX[hand]


def _check_dice(dice: Sequence[int]) -> tuple[int, ...]:
    values = tuple(dice)
    if len(values) != NUM_DICE or any(v not in FACES for v in values):
        raise ValueError(f"{values!r} is not a throw of five six-sided dice")
    return values


@lru_cache(maxsize=512)
def _evaluate_sorted(values: tuple[int, ...]) -> Hand:
    counts = Counter(values)
    by_count = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = tuple(count for _, count in by_count)
    if shape == (5,):
        return Hand(Category.FIVE_OF_A_KIND, (by_count[0][0],))
    if shape == (4, 1):
        return Hand(Category.FOUR_OF_A_KIND, (by_count[0][0],))
    if shape == (3, 2):
        return Hand(Category.FULL_HOUSE, (by_count[0][0], by_count[1][0]))
    if shape == (3, 1, 1):
        return Hand(Category.THREE_OF_A_KIND, (by_count[0][0],))
    if shape == (2, 2, 1):
        return Hand(Category.TWO_PAIR, (by_count[0][0], by_count[1][0]))
    if shape == (2, 1, 1, 1):
        return Hand(Category.ONE_PAIR, (by_count[0][0],))
    if values == (2, 3, 4, 5, 6):
        return Hand(Category.HIGH_STRAIGHT)
    if values == (1, 2, 3, 4, 5):
        return Hand(Category.LOW_STRAIGHT)
    return Hand(Category.HIGH_CARD, (max(values),))


def evaluate(dice: Sequence[int]) -> Hand:
    """The best hand five dice show; ValueError unless they are five dice 1..6."""
    return _evaluate_sorted(tuple(sorted(_check_dice(dice))))


def is_true(declared: Hand, dice: Sequence[int]) -> bool:
    """Whether a declaration of ``declared`` is true of ``dice``."""
    return rank(evaluate(dice)) >= rank(declared)


def hands_above(hand: Hand | None) -> tuple[Hand, ...]:
    """Every hand strictly higher than ``hand`` (all hands for ``None``)."""
    start = 0 if hand is None else rank(hand) + 1
    return ALL_HANDS[start:]


def describe_hand(hand: Hand) -> str:
    """A short English name: ``"three 4s"``, ``"full house 4s over 2s"``, ..."""
    c, f = hand.category, hand.faces
    try:
        if c == Category.FIVE_OF_A_KIND:
            return f"five {_PLURAL[f[0]]}"
        if c == Category.FOUR_OF_A_KIND:
            return f"four {_PLURAL[f[0]]}"
        if c == Category.FULL_HOUSE:
            return f"full house {_PLURAL[f[0]]} over {_PLURAL[f[1]]}"
        if c == Category.THREE_OF_A_KIND:
            return f"three {_PLURAL[f[0]]}"
        if c == Category.TWO_PAIR:
            return f"two pair {_PLURAL[f[0]]} and {_PLURAL[f[1]]}"
        if c == Category.ONE_PAIR:
            return f"pair of {_PLURAL[f[0]]}"
        if c == Category.HIGH_CARD:
            return f"high card {f[0]}"
    except (IndexError, KeyError, TypeError):
        return f"invalid hand {hand!r}"
    return CATEGORY_NAMES.get(c, f"invalid hand {hand!r}")


# ---------------------------------------------------------------------------
# Probabilities (used by the SDK helpers and the example bots)


@cache
def _roll_outcomes(count: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every sorted outcome of ``count`` dice with its probability."""
    weights: Counter[tuple[int, ...]] = Counter(
        tuple(sorted(roll)) for roll in itertools.product(FACES, repeat=count)
    )
    total = 6**count
    return tuple((roll, n / total) for roll, n in sorted(weights.items()))


def roll_outcomes(count: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """The distribution of ``count`` fair dice as sorted tuples with probabilities."""
    if not 0 <= count <= NUM_DICE:
        raise ValueError(f"cannot roll {count} dice")
    return _roll_outcomes(count)


@cache
def _rank_distribution(kept: tuple[int, ...]) -> tuple[float, ...]:
    probs = [0.0] * len(ALL_HANDS)
    for roll, p in roll_outcomes(NUM_DICE - len(kept)):
        probs[rank(_evaluate_sorted(tuple(sorted(kept + roll))))] += p
    return tuple(probs)


def rank_distribution(kept: Iterable[int]) -> tuple[float, ...]:
    """P(best hand has rank r) for r in 0..71, keeping ``kept`` and rolling the rest."""
    values = tuple(sorted(kept))
    if len(values) > NUM_DICE or any(v not in FACES for v in values):
        raise ValueError(f"{values!r} is not a set of kept dice")
    return _rank_distribution(values)


def probability_at_least(kept: Iterable[int], hand: Hand) -> float:
    """P(the dice show ``hand`` or better) keeping ``kept`` and rolling the rest."""
    return sum(rank_distribution(kept)[rank(hand) :])
