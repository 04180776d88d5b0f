"""SDK helpers of the two dice games and their example bots, checked against brute force."""

from __future__ import annotations

import itertools

import pytest

from example_bots.dice_poker_heuristic import HeuristicDicePokerBot
from example_bots.dice_poker_random import RandomDicePokerBot
from example_bots.liars_poker_dice_heuristic import HeuristicLiarsPokerDiceBot
from example_bots.liars_poker_dice_random import RandomLiarsPokerDiceBot
from referee.gamekit.poker_dice import TOP_HAND, Category, Hand, evaluate, rank
from sdk.dice_poker import TurnPlanner
from sdk.liars_poker_dice import best_reroll, claim_probability
from sdk.local import play_local


def test_claim_probability_with_no_reroll_is_certain() -> None:
    passed = (3, 3, 5, 4, 1)
    assert claim_probability(passed, 0, Hand(Category.ONE_PAIR, (3,))) == 1.0
    assert claim_probability(passed, 0, Hand(Category.ONE_PAIR, (4,))) == 0.0
    # one die re-rolled from 3 3 5 4 1: three 3s by re-rolling any non-3 (1/6)
    assert claim_probability(passed, 1, Hand(Category.THREE_OF_A_KIND, (3,))) == pytest.approx(
        1 / 6
    )


def test_best_reroll_keeps_four_of_a_kind_for_five() -> None:
    four_six = Hand(Category.FOUR_OF_A_KIND, (6,))
    assert best_reroll((6, 6, 2, 6, 6), four_six) == (2,)
    assert best_reroll((6, 6, 6, 6, 6), Hand(Category.FIVE_OF_A_KIND, (5,))) == ()
    assert best_reroll((6, 6, 2, 6, 6), four_six, min_reroll=2) != ()


def test_turn_planner_matches_brute_force() -> None:
    def value(throw: tuple[int, ...]) -> float:
        return float(rank(evaluate(throw)) == rank(TOP_HAND))

    planner = TurnPlanner(value)
    # one re-roll left from 6 6 6 6 1: best is re-roll the 1, P = 1/6
    positions, expected = planner.best_reroll((6, 6, 6, 6, 1), 1)
    assert positions == (4,) and expected == pytest.approx(1 / 6)
    # two re-rolls left: 1 - (5/6)^2
    _, expected = planner.best_reroll((6, 6, 6, 6, 1), 2)
    assert expected == pytest.approx(1 - (5 / 6) ** 2)
    # brute force over the one die: keeping four 6s with two rolls
    brute = sum(
        1 / 36 if a == 6 or (a != 6 and b == 6) else 0.0
        for a, b in itertools.product(range(1, 7), repeat=2)
    )
    assert expected == pytest.approx(brute)


@pytest.mark.parametrize("seed", [1, 2])
def test_bots_play_whole_matches(seed: int) -> None:
    lpd = play_local(
        "liars_poker_dice",
        [HeuristicLiarsPokerDiceBot, RandomLiarsPokerDiceBot],
        seed=seed,
        rules={"min_reroll": "1"},
    )
    assert sorted(lpd.outcome.places) == [1, 2]
    dp = play_local("dice_poker", [HeuristicDicePokerBot, RandomDicePokerBot], seed=seed)
    assert dp.outcome.scores[0] > dp.outcome.scores[1]
