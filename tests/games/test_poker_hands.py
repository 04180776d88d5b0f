"""Poker hands with jokers: exact category counts, containment, announcement order."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from referee.gamekit.cards import (
    JOKER,
    POKER_DECK,
    STANDARD_DECK,
    Card,
    Suit,
    parse_cards,
)
from referee.gamekit.poker_hands import (
    ALL_ANNOUNCEMENTS,
    HIGHEST,
    LOWEST,
    Announcement,
    Category,
    announcement_error,
    announcements_above,
    best_announcement,
    contains,
    describe_announcement,
    lowest_contained_above,
)

C = Category

# Published counts of five-card poker hands from a 52-card deck.
STANDARD_COUNTS = {
    C.STRAIGHT_FLUSH: 40,
    C.FOUR_OF_A_KIND: 624,
    C.FULL_HOUSE: 3744,
    C.FLUSH: 5108,
    C.STRAIGHT: 10200,
    C.THREE_OF_A_KIND: 54912,
    C.TWO_PAIR: 123552,
    C.PAIR: 1098240,
    C.HIGH_CARD: 1302540,
}


def A(category: Category, *ranks: int) -> Announcement:
    return Announcement(category, ranks)


# ---------------------------------------------------------------------------
# Exact counts


def test_every_52_card_hand_by_category() -> None:
    counts = Counter(
        best_announcement(hand).category for hand in itertools.combinations(STANDARD_DECK, 5)
    )
    assert counts == STANDARD_COUNTS
    assert sum(counts.values()) == math.comb(52, 5)


def test_every_54_card_hand_five_of_a_kind_needs_jokers() -> None:
    counts: Counter[Category] = Counter()
    five_with_jokers: Counter[int] = Counter()
    for hand in itertools.combinations(POKER_DECK, 5):
        category = best_announcement(hand).category
        counts[category] += 1
        if category is C.FIVE_OF_A_KIND:
            five_with_jokers[hand.count(JOKER)] += 1
    assert sum(counts.values()) == math.comb(54, 5) == 3_162_510
    # 13 ranks x (4 real + one of 2 jokers) + 13 ranks x C(4,3) x both jokers.
    assert counts[C.FIVE_OF_A_KIND] == 78
    assert five_with_jokers == {1: 26, 2: 52}
    # A joker always makes at least a pair, so only joker-free hands are high cards.
    assert counts[C.HIGH_CARD] == STANDARD_COUNTS[C.HIGH_CARD]


# ---------------------------------------------------------------------------
# Hand-checked evaluations


@pytest.mark.parametrize(
    ("cards", "best"),
    [
        ("As Ks Qs Js 10s", A(C.STRAIGHT_FLUSH, 14)),
        ("5d 4d 3d 2d Ad", A(C.STRAIGHT_FLUSH, 5)),
        ("As Ad Ah Ac Jk", A(C.FIVE_OF_A_KIND, 14)),
        ("9s 9d 9h Jk Jk", A(C.FIVE_OF_A_KIND, 9)),
        ("9s 9d 4h Jk Jk", A(C.FOUR_OF_A_KIND, 9, 4)),
        ("9s 8s 4s 2s Jk", A(C.FLUSH, 14)),
        ("9s 8s 6s 5s Jk", A(C.STRAIGHT_FLUSH, 9)),
        ("Kh Kd 4h 4c Jk", A(C.FULL_HOUSE, 13, 4)),
        ("Kh Qd 4h 7c Jk", A(C.PAIR, 13, 12, 7, 4)),
        ("Kh Qd Jh 9c Jk", A(C.STRAIGHT, 13)),
        ("Kh Kd 7h 7c 2s", A(C.TWO_PAIR, 13, 7, 2)),
        ("Kh 9d 7h 4c 2s", A(C.HIGH_CARD, 13, 9, 7, 4, 2)),
        ("6h 5d 4h 3c 2s", A(C.STRAIGHT, 6)),
        ("3h 3d Ah Qc 2s", A(C.PAIR, 3, 14, 12, 2)),
    ],
)
def test_best_announcement(cards: str, best: Announcement) -> None:
    assert best_announcement(parse_cards(cards)) == best


# ---------------------------------------------------------------------------
# Containment against brute-force joker substitution


def _naive_contains(cards: list[Card], announcement: Announcement) -> bool:
    """Containment for joker-free cards (repeats allowed), written independently."""
    ranks = Counter(card.rank for card in cards)
    suits = {card.suit for card in cards}
    category, named = announcement.category, announcement.ranks

    def window(top: int) -> set[int]:
        return {14, 2, 3, 4, 5} if top == 5 else set(range(top - 4, top + 1))

    if category is C.STRAIGHT:
        return window(named[0]) <= set(ranks)
    if category is C.STRAIGHT_FLUSH:
        return len(suits) == 1 and window(named[0]) <= set(ranks)
    if category is C.FLUSH:
        return len(suits) == 1 and max(ranks) == named[0]
    sizes = {
        C.HIGH_CARD: [1],
        C.PAIR: [2],
        C.TWO_PAIR: [2, 2],
        C.THREE_OF_A_KIND: [3],
        C.FULL_HOUSE: [3, 2],
        C.FOUR_OF_A_KIND: [4],
        C.FIVE_OF_A_KIND: [5],
    }[category]
    need: Counter[int] = Counter()
    for index, rank in enumerate(named):
        need[rank] += sizes[index] if index < len(sizes) else 1
    return all(ranks[rank] >= count for rank, count in need.items())


def _brute_contains(cards: tuple[Card, ...], announcement: Announcement) -> bool:
    real = [card for card in cards if card != JOKER]
    jokers = len(cards) - len(real)
    return any(
        _naive_contains(real + list(extra), announcement)
        for extra in itertools.combinations_with_replacement(STANDARD_DECK, jokers)
    )


def _sample_announcements(hand: tuple[Card, ...], rng: random.Random) -> list[Announcement]:
    best = best_announcement(hand)
    position = ALL_ANNOUNCEMENTS.index(best)
    near = ALL_ANNOUNCEMENTS[max(0, position - 3) : position + 4]
    return [*near, *rng.sample(ALL_ANNOUNCEMENTS, 12)]


@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_contains_matches_brute_force_substitution(jokers: int) -> None:
    rng = random.Random(f"containment-{jokers}")
    hands = 200 if jokers < 2 else 25
    checked = Counter[bool]()
    for _ in range(hands):
        # Bias towards suited and paired hands so flushes and multiples occur.
        suit = rng.choice([Suit.HEARTS, None])
        pool = [c for c in STANDARD_DECK if suit is None or c.suit is suit]
        hand = (*rng.sample(pool, 5 - jokers), *([JOKER] * jokers))
        for announcement in _sample_announcements(hand, rng):
            expected = _brute_contains(hand, announcement)
            assert contains(hand, announcement) == expected, (hand, announcement)
            checked[expected] += 1
    assert checked[True] > 20 and checked[False] > 20


def test_best_announcement_is_the_highest_contained() -> None:
    rng = random.Random("best-is-max")
    for _ in range(12):
        hand = tuple(rng.sample(POKER_DECK, 5))
        best = best_announcement(hand)
        contained = [a for a in ALL_ANNOUNCEMENTS if contains(hand, a)]
        assert max(contained) == best
        assert lowest_contained_above(hand, None) == contained[0]


def test_hand_checked_containment() -> None:
    hand = parse_cards("Ah Kh Jk Jk 2c")
    assert contains(hand, A(C.THREE_OF_A_KIND, 14, 13))
    assert not contains(hand, A(C.FOUR_OF_A_KIND, 14))
    assert not contains(hand, A(C.FIVE_OF_A_KIND, 14))
    assert contains(hand, A(C.TWO_PAIR, 14, 13, 2))
    assert not contains(hand, A(C.FULL_HOUSE, 14, 13))  # needs two more aces and a king
    assert not contains(hand, A(C.FULL_HOUSE, 14, 9))
    assert not contains(hand, A(C.FLUSH, 14))  # the 2 of clubs breaks the suit
    assert not contains(hand, A(C.STRAIGHT, 14))  # A K + jokers Q J, still no 10
    assert contains(parse_cards("Ah Kd Jk Jk 10c"), A(C.STRAIGHT, 14))
    assert not contains(parse_cards("9s 9d 6h 4c 2s"), A(C.PAIR, 9, 8))
    assert contains(parse_cards("9s 9d 6h 4c 2s"), A(C.PAIR, 9, 6, 2))
    assert contains(parse_cards("9s 9d 9h 4c 4s"), A(C.TWO_PAIR, 9, 4))
    assert contains(parse_cards("Kh Qh 9h 5h 3h"), A(C.FLUSH, 13))
    assert not contains(parse_cards("Ah Kh 9h 5h 3h"), A(C.FLUSH, 13))


# ---------------------------------------------------------------------------
# Announcements: shapes and total order


def test_order_of_kickers_and_ranks() -> None:
    chain = [
        A(C.PAIR, 9),
        A(C.PAIR, 9, 2),
        A(C.PAIR, 9, 6),
        A(C.PAIR, 9, 6, 2),
        A(C.PAIR, 9, 14),
        A(C.PAIR, 10),
        A(C.TWO_PAIR, 3, 2),
        A(C.THREE_OF_A_KIND, 2),
        A(C.STRAIGHT, 5),
        A(C.STRAIGHT, 14),
        A(C.FLUSH, 6),
        A(C.FULL_HOUSE, 2, 3),
        A(C.FULL_HOUSE, 3, 2),
        A(C.FOUR_OF_A_KIND, 2),
        A(C.STRAIGHT_FLUSH, 5),
        A(C.FIVE_OF_A_KIND, 2),
        A(C.FIVE_OF_A_KIND, 14),
    ]
    assert chain == sorted(chain)
    assert all(a < b for a, b in itertools.pairwise(chain))
    assert A(C.HIGH_CARD, 2) == LOWEST
    assert A(C.FIVE_OF_A_KIND, 14) == HIGHEST


def test_all_announcements_are_strictly_ordered_and_counted() -> None:
    assert all(a < b for a, b in itertools.pairwise(ALL_ANNOUNCEMENTS))
    by_category = Counter(a.category for a in ALL_ANNOUNCEMENTS)
    # High card h with 0..4 lower kickers: sum over h of sum_k C(h-2, k).
    high = sum(math.comb(h - 2, k) for h in range(2, 15) for k in range(5))
    pair = 13 * sum(math.comb(12, k) for k in range(4))
    assert by_category == {
        C.HIGH_CARD: high,
        C.PAIR: pair,
        C.TWO_PAIR: 78 * 12,
        C.THREE_OF_A_KIND: 13 * (1 + 12 + 66),
        C.STRAIGHT: 10,
        C.FLUSH: 9,
        C.FULL_HOUSE: 13 * 12,
        C.FOUR_OF_A_KIND: 13 * 13,
        C.STRAIGHT_FLUSH: 10,
        C.FIVE_OF_A_KIND: 13,
    }
    assert len(ALL_ANNOUNCEMENTS) == 8596
    assert all(announcement_error(a) is None for a in ALL_ANNOUNCEMENTS)


def test_announcements_above() -> None:
    assert announcements_above(None) == ALL_ANNOUNCEMENTS
    assert announcements_above(HIGHEST) == ()
    above = announcements_above(A(C.PAIR, 9, 14, 13, 12))
    assert above[0] == A(C.PAIR, 10)
    assert len(above) == len(ALL_ANNOUNCEMENTS) - ALL_ANNOUNCEMENTS.index(above[0])


@pytest.mark.parametrize(
    "bad",
    [
        A(C.PAIR),
        A(C.PAIR, 9, 9),
        A(C.PAIR, 9, 2, 6),
        A(C.PAIR, 9, 8, 7, 6, 5),
        A(C.PAIR, 1),
        A(C.PAIR, 15),
        A(C.HIGH_CARD, 9, 10),
        A(C.TWO_PAIR, 4, 9),
        A(C.TWO_PAIR, 9, 9),
        A(C.STRAIGHT, 4),
        A(C.STRAIGHT, 9, 8),
        A(C.FLUSH, 5),
        A(C.FULL_HOUSE, 7, 7),
        A(C.FIVE_OF_A_KIND, 7, 2),
    ],
)
def test_malformed_announcements(bad: Announcement) -> None:
    error = announcement_error(bad)
    assert error is not None
    assert announcement_error("pair of 9s") is not None


def test_descriptions() -> None:
    assert describe_announcement(A(C.PAIR, 9, 6)) == "pair of 9s and 6"
    assert describe_announcement(A(C.FULL_HOUSE, 3, 14)) == "full house 3s over As"
    assert describe_announcement(A(C.STRAIGHT, 5)) == "straight to 5"
    assert str(A(C.TWO_PAIR, 12, 4, 2)) == "two pair Qs and 4s and 2"
