"""Poker hands with jokers: announcements, their total order, containment, evaluation.

An :class:`Announcement` is what a Liar's Poker player says: a :class:`Category` and
the ranks that define it, optionally followed by further named cards (kickers):

================== =============================== ===================================
category           ``ranks``                       example
================== =============================== ===================================
``HIGH_CARD``      ``(h, k1, ..)``, 0..4 kickers   ``(13, 9)``: "king, with a 9"
                   strictly falling, all below h
``PAIR``           ``(p, k1, ..)``, 0..3 kickers   ``(9, 6)``: "pair of 9s and a 6"
``TWO_PAIR``       ``(p, q, k?)``, p > q, 0..1     ``(12, 4)``: "queens and 4s"
``THREE_OF_A_KIND````(t, k1, ..)``, 0..2 kickers   ``(7,)``: "three 7s"
``STRAIGHT``       ``(top,)``, top 5..14           ``(5,)``: "straight to the 5" (A-2-3-4-5)
``FLUSH``          ``(top,)``, top 6..14           ``(13,)``: "king-high flush"
``FULL_HOUSE``     ``(t, p)``, t != p              ``(3, 14)``: "3s full of aces"
``FOUR_OF_A_KIND`` ``(q, k?)``, 0..1 kicker        ``(2, 14)``: "four 2s and an ace"
``STRAIGHT_FLUSH`` ``(top,)``, top 5..14           ``(14,)``: "royal flush"
``FIVE_OF_A_KIND`` ``(r,)`` (needs a joker)        ``(14,)``: "five aces"
================== =============================== ===================================

Kickers are distinct, strictly falling and differ from the defining ranks.

**Order**: by category, then by ``ranks`` compared position by position, where a
missing (unnamed) card counts lower than any rank. That is exactly Python's tuple
order, so ``Announcement`` is ``order=True``: "pair of 9s" < "pair of 9s and 2" <
"pair of 9s and A" < "pair of 10s".

**Containment** (:func:`contains`): five cards *contain* an announcement when they
can show its category using every named rank, each joker standing for any card at
all (even one already in the hand, which is how five of a kind happens). For the
rank categories that means the hand holds the named ranks with the named
multiplicities; a straight needs its five ranks; a flush needs all five cards in one
suit with ``top`` as the highest; a straight flush needs exactly its five cards.
A stronger hand that holds the announced cards contains a weaker announcement.

**Evaluation** (:func:`best_announcement`): the highest announcement five cards
contain. Its category is the hand's ordinary poker category (jokers chosen for the
best result). Rank-pattern results are cached per (ranks, jokers), so evaluating
all 2,598,960 hands takes seconds.

Standard library only.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from typing import TYPE_CHECKING, Final

from referee.gamekit.cards import ACE, JOKER_RANK, RANKS, Card, rank_label


class Category(IntEnum):
    """Poker categories, low to high."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    FIVE_OF_A_KIND = 9

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


# For each category: (number of defining ranks, maximum number of kickers).
SHAPES: Final[dict[Category, tuple[int, int]]] = {
    Category.HIGH_CARD: (1, 4),
    Category.PAIR: (1, 3),
    Category.TWO_PAIR: (2, 1),
    Category.THREE_OF_A_KIND: (1, 2),
    Category.STRAIGHT: (1, 0),
    Category.FLUSH: (1, 0),
    Category.FULL_HOUSE: (2, 0),
    Category.FOUR_OF_A_KIND: (1, 1),
    Category.STRAIGHT_FLUSH: (1, 0),
    Category.FIVE_OF_A_KIND: (1, 0),
}
# How many cards each defining rank stands for, for the rank-count categories.
_MULTIPLICITY: Final[dict[Category, tuple[int, ...]]] = {
    Category.HIGH_CARD: (1,),
    Category.PAIR: (2,),
    Category.TWO_PAIR: (2, 2),
    Category.THREE_OF_A_KIND: (3,),
    Category.FULL_HOUSE: (3, 2),
    Category.FOUR_OF_A_KIND: (4,),
    Category.FIVE_OF_A_KIND: (5,),
}


@dataclass(frozen=True, slots=True, order=True)
class Announcement:
    """A claimed poker combination: category, defining ranks, then kickers."""

    category: Category
    """The kind of combination (pair, flush, ...)."""
    ranks: tuple[int, ...]
    """The defining ranks (e.g. the pair's), then the kickers; each 2..14."""

    def __str__(self) -> str:
        return describe_announcement(self)


def announcement_error(announcement: object) -> str | None:
    """Why ``announcement`` is not a well-formed :class:`Announcement`, or ``None``."""
    if not isinstance(announcement, Announcement):
        return f"{announcement!r} is not an Announcement"
    category, ranks = announcement.category, announcement.ranks
    if not isinstance(category, Category):
        return f"{category!r} is not a Category"
    if not isinstance(ranks, tuple) or not all(
        isinstance(r, int) and not isinstance(r, bool) for r in ranks
    ):
        return f"ranks {ranks!r} must be a tuple of ints"
    defining, max_kickers = SHAPES[category]
    if not defining <= len(ranks) <= defining + max_kickers:
        return (
            f"{category.label} names {defining} rank(s) and at most {max_kickers}"
            f" kicker(s), got {ranks!r}"
        )
    if any(r not in RANKS for r in ranks):
        return f"ranks {ranks!r} must lie in 2..14"
    head, kickers = ranks[:defining], ranks[defining:]
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH) and head[0] < 5:
        return f"a straight's top card is 5..14, got {head[0]}"
    if category is Category.FLUSH and head[0] < 6:
        return f"a flush's top card is 6..14, got {head[0]}"
    if category is Category.TWO_PAIR and head[0] <= head[1]:
        return f"two pair names the higher pair first, got {ranks!r}"
    if category is Category.FULL_HOUSE and head[0] == head[1]:
        return f"a full house needs two different ranks, got {ranks!r}"
    if any(a <= b for a, b in itertools.pairwise(kickers)):
        return f"kickers must be strictly falling, got {kickers!r}"
    if any(k in head for k in kickers):
        return f"kickers must differ from the defining ranks, got {ranks!r}"
    if category is Category.HIGH_CARD and kickers and kickers[0] >= head[0]:
        return f"a high card's kickers must be below it, got {ranks!r}"
    return None


def _straight_ranks(top: int) -> tuple[int, ...]:
    return (ACE, 2, 3, 4, 5) if top == 5 else tuple(range(top - 4, top + 1))


def required_ranks(announcement: Announcement) -> Counter[int]:
    """The ranks (with multiplicities) an announcement names, suits aside."""
    category, ranks = announcement.category, announcement.ranks
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        return Counter(_straight_ranks(ranks[0]))
    if category is Category.FLUSH:
        return Counter({ranks[0]: 1})
    multiplicity = _MULTIPLICITY[category]
    need: Counter[int] = Counter()
    for rank, count in zip(ranks, multiplicity, strict=False):
        need[rank] += count
    for kicker in ranks[len(multiplicity) :]:
        need[kicker] += 1
    return need


def contains(cards: Sequence[Card], announcement: Announcement) -> bool:
    """Whether the five ``cards`` can show ``announcement`` (jokers wild)."""
    jokers = 0
    real: list[Card] = []
    for card in cards:
        if card.rank == JOKER_RANK:
            jokers += 1
        else:
            real.append(card)
    category = announcement.category
    if category in (Category.FLUSH, Category.STRAIGHT_FLUSH):
        if len({card.suit for card in real}) > 1:
            return False
        ranks = {card.rank for card in real}
        top = announcement.ranks[0]
        if category is Category.STRAIGHT_FLUSH:
            return ranks <= set(_straight_ranks(top))
        return all(rank <= top for rank in ranks) and (top in ranks or jokers > 0)
    have = Counter(card.rank for card in real)
    missing = sum(max(0, need - have[rank]) for rank, need in required_ranks(announcement).items())
    return missing <= jokers


# ---------------------------------------------------------------------------
# Evaluation


def _plain_best(ranks: Sequence[int]) -> Announcement:
    """The best announcement five known ranks show, suits ignored."""
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = [count for _, count in groups]
    order = [rank for rank, _ in groups]
    if shape[0] == 5:
        return Announcement(Category.FIVE_OF_A_KIND, (order[0],))
    if shape[0] == 4:
        return Announcement(Category.FOUR_OF_A_KIND, (order[0], order[1]))
    if shape == [3, 2]:
        return Announcement(Category.FULL_HOUSE, (order[0], order[1]))
    if len(counts) == 5:
        top = _straight_top(set(ranks))
        if top is not None:
            return Announcement(Category.STRAIGHT, (top,))
        return Announcement(Category.HIGH_CARD, tuple(order))
    if shape[0] == 3:
        return Announcement(Category.THREE_OF_A_KIND, tuple(order))
    if shape[:2] == [2, 2]:
        return Announcement(Category.TWO_PAIR, tuple(order))
    return Announcement(Category.PAIR, tuple(order))


def _straight_top(ranks: set[int]) -> int | None:
    for top in range(ACE, 4, -1):
        if ranks == set(_straight_ranks(top)):
            return top
    return None


@cache
def _best_rank_pattern(ranks: tuple[int, ...], jokers: int) -> Announcement:
    """Best suit-free announcement for sorted real ``ranks`` plus ``jokers``."""
    return max(
        _plain_best(ranks + extra)
        for extra in itertools.combinations_with_replacement(RANKS, jokers)
    )


@cache
def _best_one_suit(ranks: tuple[int, ...], jokers: int) -> Announcement:
    """Best flush or straight flush when all real cards share one suit."""
    present = set(ranks)
    for top in range(ACE, 4, -1):
        if present <= set(_straight_ranks(top)):
            return Announcement(Category.STRAIGHT_FLUSH, (top,))
    return Announcement(Category.FLUSH, (ACE if jokers else max(ranks),))


def best_announcement(cards: Sequence[Card]) -> Announcement:
    """The highest announcement the five ``cards`` contain (jokers chosen best)."""
    ranks: list[int] = []
    suits: set[int] = set()
    jokers = 0
    for card in cards:
        if card.rank:
            ranks.append(card.rank)
            suits.add(card.suit)
        else:
            jokers += 1
    if len(ranks) + jokers != 5:
        raise ValueError(f"a poker hand has 5 cards, got {len(ranks) + jokers}")
    ranks.sort()
    key = tuple(ranks)
    plain = _best_rank_pattern(key, jokers)
    if len(suits) == 1:
        suited = _best_one_suit(key, jokers)
        if suited > plain:
            return suited
    return plain


def category_of(cards: Sequence[Card]) -> Category:
    """The poker category of five cards (jokers chosen best)."""
    return best_announcement(cards).category


# ---------------------------------------------------------------------------
# Every announcement, in order


def _all_announcements() -> tuple[Announcement, ...]:
    """Every well-formed announcement, lowest first, built directly from the shapes.

    Equal to filtering every (category, head, kickers) candidate through
    :func:`announcement_error` (tests/games/test_poker_hands_lazy.py checks), but ~10x
    cheaper; it runs on first use, not at import.
    """
    found: list[Announcement] = []
    falling = sorted(RANKS, reverse=True)
    for category, (defining, max_kickers) in SHAPES.items():
        for head in itertools.product(RANKS, repeat=defining):
            if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH) and head[0] < 5:
                continue
            if category is Category.FLUSH and head[0] < 6:
                continue
            if category is Category.TWO_PAIR and head[0] <= head[1]:
                continue
            if category is Category.FULL_HOUSE and head[0] == head[1]:
                continue
            pool = [r for r in falling if r not in head]
            if category is Category.HIGH_CARD:
                pool = [r for r in pool if r < head[0]]
            for count in range(max_kickers + 1):
                for kickers in itertools.combinations(pool, count):
                    found.append(Announcement(category, head + kickers))
    return tuple(sorted(found))


@cache
def all_announcements() -> tuple[Announcement, ...]:
    """Every well-formed announcement, lowest first (built once, on first use)."""
    return _all_announcements()


if TYPE_CHECKING:
    ALL_ANNOUNCEMENTS: tuple[Announcement, ...]
    """Every well-formed announcement, lowest first (computed on first access)."""


def __getattr__(name: str) -> object:
    # ALL_ANNOUNCEMENTS is built on first access (PEP 562), so importing the module
    # (every engine listing, every bot) does not pay for 8,596 announcements.
    if name == "ALL_ANNOUNCEMENTS":
        return all_announcements()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


LOWEST: Final = Announcement(Category.HIGH_CARD, (2,))
"""The lowest announcement (``all_announcements()[0]``)."""
HIGHEST: Final = Announcement(Category.FIVE_OF_A_KIND, (ACE,))
"""The highest announcement (``all_announcements()[-1]``)."""


def index_of(announcement: Announcement) -> int:
    """Position of a well-formed announcement in :data:`ALL_ANNOUNCEMENTS`."""
    return bisect.bisect_left(all_announcements(), announcement)


def announcements_above(last: Announcement | None) -> tuple[Announcement, ...]:
    """Every announcement strictly higher than ``last`` (all of them if ``None``)."""
    everything = all_announcements()
    if last is None:
        return everything
    return everything[bisect.bisect_right(everything, last) :]


def lowest_contained_above(cards: Sequence[Card], last: Announcement | None) -> Announcement | None:
    """The lowest announcement above ``last`` that ``cards`` contain, if any."""
    if last is not None and best_announcement(cards) <= last:
        return None
    for candidate in announcements_above(last):
        if contains(cards, candidate):
            return candidate
    return None


def describe_announcement(announcement: Announcement) -> str:
    """English text, e.g. ``"pair of 9s and 6"``, ``"full house 3s over As"``."""
    category, ranks = announcement.category, announcement.ranks
    labels = [rank_label(rank) for rank in ranks]
    defining = SHAPES[category][0] if category in SHAPES else 1
    kickers = labels[defining:]
    tail = f" and {' '.join(kickers)}" if kickers else ""
    if category is Category.HIGH_CARD:
        return f"high card {labels[0]}{tail}"
    if category is Category.PAIR:
        return f"pair of {labels[0]}s{tail}"
    if category is Category.TWO_PAIR:
        return f"two pair {labels[0]}s and {labels[1]}s{tail}"
    if category is Category.THREE_OF_A_KIND:
        return f"three {labels[0]}s{tail}"
    if category is Category.FULL_HOUSE:
        return f"full house {labels[0]}s over {labels[1]}s"
    if category is Category.FOUR_OF_A_KIND:
        return f"four {labels[0]}s{tail}"
    if category is Category.FIVE_OF_A_KIND:
        return f"five {labels[0]}s"
    return f"{category.label} to {labels[0]}"
