"""Poker-dice hands: exact counts over all 7776 throws and the declaration order."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from referee.gamekit.poker_dice import (
    ALL_HANDS,
    TOP_HAND,
    Category,
    Hand,
    describe_hand,
    evaluate,
    hands_above,
    is_true,
    is_valid_hand,
    probability_at_least,
    rank,
    rank_distribution,
)

ALL_THROWS = list(itertools.product(range(1, 7), repeat=5))


def test_counts_of_all_7776_throws_by_category() -> None:
    counts = Counter(evaluate(throw).category for throw in ALL_THROWS)
    assert len(ALL_THROWS) == 7776
    assert counts == {
        Category.FIVE_OF_A_KIND: 6,
        Category.FOUR_OF_A_KIND: 150,
        Category.FULL_HOUSE: 300,
        Category.HIGH_STRAIGHT: 120,
        Category.LOW_STRAIGHT: 120,
        Category.THREE_OF_A_KIND: 1200,
        Category.TWO_PAIR: 1800,
        Category.ONE_PAIR: 3600,
        Category.HIGH_CARD: 480,
    }


def test_every_hand_occurs_and_nothing_else() -> None:
    hands = Counter(evaluate(throw) for throw in ALL_THROWS)
    assert set(hands) == set(ALL_HANDS)
    assert len(ALL_HANDS) == 72
    # per-hand counts: each full house 10 throws, each two pair 120, each pair 600
    assert hands[Hand(Category.FULL_HOUSE, (4, 2))] == 10
    assert hands[Hand(Category.TWO_PAIR, (5, 3))] == 120
    assert hands[Hand(Category.ONE_PAIR, (6,))] == 600
    assert hands[Hand(Category.HIGH_CARD, (6,))] == 480


@pytest.mark.parametrize(
    ("throw", "expected"),
    [
        ((5, 5, 5, 5, 5), Hand(Category.FIVE_OF_A_KIND, (5,))),
        ((3, 3, 3, 3, 1), Hand(Category.FOUR_OF_A_KIND, (3,))),
        ((4, 4, 4, 2, 2), Hand(Category.FULL_HOUSE, (4, 2))),
        ((2, 2, 4, 4, 4), Hand(Category.FULL_HOUSE, (4, 2))),
        ((2, 3, 4, 5, 6), Hand(Category.HIGH_STRAIGHT)),
        ((5, 1, 4, 2, 3), Hand(Category.LOW_STRAIGHT)),
        ((2, 2, 2, 4, 1), Hand(Category.THREE_OF_A_KIND, (2,))),
        ((2, 2, 1, 1, 4), Hand(Category.TWO_PAIR, (2, 1))),
        ((3, 3, 5, 4, 1), Hand(Category.ONE_PAIR, (3,))),
        ((1, 3, 4, 5, 6), Hand(Category.HIGH_CARD, (6,))),
    ],
)
def test_evaluate_examples_from_the_rules(throw: tuple[int, ...], expected: Hand) -> None:
    assert evaluate(throw) == expected


def test_declaration_order_is_total_and_consistent() -> None:
    # the listed order, the dataclass order and rank() agree; category dominates
    assert list(ALL_HANDS) == sorted(ALL_HANDS)
    assert [rank(h) for h in ALL_HANDS] == list(range(72))
    for low, high in itertools.pairwise(ALL_HANDS):
        assert low < high
        assert low.category <= high.category
    assert Hand(Category.FIVE_OF_A_KIND, (6,)) == TOP_HAND
    assert Hand(Category.FULL_HOUSE, (4, 2)) < Hand(Category.FULL_HOUSE, (5, 1))
    assert Hand(Category.TWO_PAIR, (5, 3)) < Hand(Category.TWO_PAIR, (6, 1))
    assert Hand(Category.LOW_STRAIGHT) < Hand(Category.HIGH_STRAIGHT)
    assert Hand(Category.THREE_OF_A_KIND, (6,)) < Hand(Category.LOW_STRAIGHT)
    assert hands_above(TOP_HAND) == ()
    assert hands_above(None) == ALL_HANDS
    assert hands_above(ALL_HANDS[10]) == ALL_HANDS[11:]


def test_truth_is_rank_at_least() -> None:
    throw = (4, 4, 4, 2, 2)
    assert is_true(Hand(Category.FULL_HOUSE, (4, 2)), throw)
    assert is_true(Hand(Category.FULL_HOUSE, (3, 6)), throw)
    assert is_true(Hand(Category.HIGH_STRAIGHT), throw)
    assert is_true(Hand(Category.ONE_PAIR, (6,)), throw)
    assert not is_true(Hand(Category.FULL_HOUSE, (4, 3)), throw)
    assert not is_true(Hand(Category.FOUR_OF_A_KIND, (1,)), throw)
    # truth of each hand over all throws equals the count of throws ranking >= it
    ranks = Counter(rank(evaluate(t)) for t in ALL_THROWS)
    pair6 = Hand(Category.ONE_PAIR, (6,))
    expected = sum(n for r, n in ranks.items() if r >= rank(pair6))
    assert sum(is_true(pair6, t) for t in ALL_THROWS) == expected


def test_validity_of_hands() -> None:
    assert all(is_valid_hand(h) for h in ALL_HANDS)
    assert not is_valid_hand(Hand(Category.FULL_HOUSE, (3, 3)))
    assert not is_valid_hand(Hand(Category.TWO_PAIR, (2, 5)))
    assert not is_valid_hand(Hand(Category.HIGH_CARD, (5,)))
    assert not is_valid_hand(Hand(Category.ONE_PAIR, (7,)))
    assert not is_valid_hand(Hand(Category.HIGH_STRAIGHT, (6,)))
    assert not is_valid_hand(Hand(Category.ONE_PAIR, (True,)))
    assert not is_valid_hand("pair of 6s")
    with pytest.raises(ValueError, match="not a throw"):
        evaluate((1, 2, 3))
    with pytest.raises(ValueError, match="not a throw"):
        evaluate((0, 1, 2, 3, 4))


def test_descriptions() -> None:
    assert describe_hand(Hand(Category.THREE_OF_A_KIND, (4,))) == "three 4s"
    assert describe_hand(Hand(Category.FULL_HOUSE, (4, 2))) == "full house 4s over 2s"
    assert describe_hand(Hand(Category.TWO_PAIR, (5, 3))) == "two pair 5s and 3s"
    assert describe_hand(Hand(Category.ONE_PAIR, (6,))) == "pair of 6s"
    assert describe_hand(Hand(Category.HIGH_CARD, (6,))) == "high card 6"
    assert describe_hand(Hand(Category.HIGH_STRAIGHT)) == "high straight"


def test_probabilities_match_enumeration() -> None:
    ranks = Counter(rank(evaluate(t)) for t in ALL_THROWS)
    assert rank_distribution(()) == pytest.approx([ranks[r] / 7776 for r in range(72)])
    # keeping four 6s: five 6s with probability 1/6
    assert probability_at_least((6, 6, 6, 6), TOP_HAND) == pytest.approx(1 / 6)
    # keeping everything: certain or impossible
    assert probability_at_least((1, 2, 3, 4, 5), Hand(Category.LOW_STRAIGHT)) == 1.0
    assert probability_at_least((1, 2, 3, 4, 5), Hand(Category.HIGH_STRAIGHT)) == 0.0
