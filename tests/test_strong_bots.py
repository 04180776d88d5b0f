"""The reasoning bots for Cockroach Poker, Liar's Poker and Liar's Poker Dice.

Three kinds of check, all fast and seeded:

* every strong bot plays whole matches in process, across rule options and table
  sizes, and every action it returns is legal (checked with the SDK's
  ``is_legal``, which runs the referee's own check);
* the probability functions agree with values computed by hand on tiny cases;
* a modest head to head (40 matches, alternating seats) against the game's
  heuristic bot: the strong bot wins more. The acceptance numbers (200 matches,
  likelihood of superiority) come from ``python -m bench.strong_vs_heuristic`` and
  the league, documented in docs/bots.md; they are not part of the suite.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from bench.strong_vs_heuristic import evaluate
from example_bots.cockroach_poker_heuristic import HeuristicCockroachPokerBot
from example_bots.cockroach_poker_random import RandomCockroachPokerBot
from example_bots.cockroach_poker_strong import (
    StrongCockroachPokerBot,
    claim_truth_probability,
    danger,
    holds_probability,
    kill_bonus,
)
from example_bots.liars_poker_dice_heuristic import HeuristicLiarsPokerDiceBot
from example_bots.liars_poker_dice_random import RandomLiarsPokerDiceBot
from example_bots.liars_poker_dice_strong import (
    OpponentModel,
    StrongLiarsPokerDiceBot,
    beat_chance,
    opponent_outcomes,
    plausibility,
    truth_probability,
)
from example_bots.liars_poker_heuristic import HeuristicLiarsPokerBot
from example_bots.liars_poker_random import RandomLiarsPokerBot
from example_bots.liars_poker_strong import (
    StrongLiarsPokerBot,
    Summary,
    fast_contains,
    sample_hands,
)
from example_bots.liars_poker_strong import plausibility as poker_plausibility
from referee.gamekit.poker_dice import Category as DiceCategory
from referee.gamekit.poker_dice import Hand, rank
from sdk import cockroach_poker, liars_poker, liars_poker_dice
from sdk.bot import Bot
from sdk.cockroach_poker import LOSING_COUNT
from sdk.liars_poker import POKER_DECK, Announcement, Category, all_announcements, contains
from sdk.local import BotFactory, play_local

LEGALITY: dict[str, Callable[[Any, object], bool]] = {
    "cockroach_poker": cockroach_poker.is_legal,
    "liars_poker": liars_poker.is_legal,
    "liars_poker_dice": liars_poker_dice.is_legal,
}


def checked(cls: type[Bot[Any, Any]], game: str) -> type[Bot[Any, Any]]:
    """``cls`` with every returned action checked against the referee's rules."""
    is_legal = LEGALITY[game]

    class Checked(cls):  # type: ignore[valid-type,misc]
        def act(self, observation: Any) -> Any:
            action = super().act(observation)
            assert is_legal(observation, action), (observation, action)
            return action

    return Checked


# -- whole matches, every action legal ------------------------------------------------


@pytest.mark.parametrize("rules", [{}, {"min_reroll": "2"}, {"chips": "5", "min_reroll": "5"}])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_liars_poker_dice_strong_plays_legally(rules: dict[str, str], seed: int) -> None:
    strong = checked(StrongLiarsPokerDiceBot, "liars_poker_dice")
    for opponent in (HeuristicLiarsPokerDiceBot, RandomLiarsPokerDiceBot, strong):
        bots: list[BotFactory] = [strong, opponent] if seed % 2 else [opponent, strong]
        match = play_local("liars_poker_dice", bots, seed=seed, rules=rules)
        assert sorted(match.outcome.places) == [1, 2]


@pytest.mark.parametrize(
    ("rules", "seats"),
    [
        ({"penalty_limit": "3"}, 2),
        ({"chips_variant": "true", "starting_chips": "4"}, 2),
        ({"penalty_limit": "2"}, 3),
        ({"chips_variant": "true", "starting_chips": "2"}, 4),
    ],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_liars_poker_strong_plays_legally(rules: dict[str, str], seats: int, seed: int) -> None:
    strong = checked(StrongLiarsPokerBot, "liars_poker")
    others: list[BotFactory] = [HeuristicLiarsPokerBot, RandomLiarsPokerBot, strong]
    bots = [strong] + [others[i % len(others)] for i in range(seats - 1)]
    bots = bots[seed % seats :] + bots[: seed % seats]
    match = play_local("liars_poker", bots, seed=seed, rules=rules)
    assert min(match.outcome.places) == 1


@pytest.mark.parametrize("seats", [2, 3, 4, 6])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cockroach_poker_strong_plays_legally(seats: int, seed: int) -> None:
    strong = checked(StrongCockroachPokerBot, "cockroach_poker")
    others: list[BotFactory] = [HeuristicCockroachPokerBot, RandomCockroachPokerBot, strong]
    bots = [strong] + [others[i % len(others)] for i in range(seats - 1)]
    bots = bots[seed % seats :] + bots[: seed % seats]
    match = play_local("cockroach_poker", bots, seed=seed)
    assert min(match.outcome.places) == 1


@pytest.mark.parametrize("game", ["cockroach_poker", "liars_poker", "liars_poker_dice"])
def test_strong_bots_are_deterministic_per_seed(game: str) -> None:
    from bench.strong_vs_heuristic import pair

    strong, heuristic = pair(game)
    rules = {"penalty_limit": "3"} if game == "liars_poker" else {}
    first = play_local(game, [strong, heuristic], seed=5, rules=rules)
    again = play_local(game, [strong, heuristic], seed=5, rules=rules)
    assert first == again


# -- Liar's Poker Dice: exact enumeration ---------------------------------------------

FOUR_SIXES = rank(Hand(DiceCategory.FOUR_OF_A_KIND, (6,)))
FIVE_SIXES = rank(Hand(DiceCategory.FIVE_OF_A_KIND, (6,)))
FIVE_ONES = rank(Hand(DiceCategory.FIVE_OF_A_KIND, (1,)))


def test_fresh_throw_outcomes_are_a_distribution() -> None:
    outcomes = opponent_outcomes(None, 5, -1)
    assert len(outcomes) == 252  # sorted throws of five dice
    assert math.isclose(sum(p for _d, _r, p in outcomes), 1.0)
    # Five of a kind (five 1s or better) on a fresh throw: 6 / 6^5.
    assert math.isclose(plausibility(None, None, FIVE_ONES), 6 / 7776)


def test_one_die_rerolled_from_four_sixes() -> None:
    # We passed 6 6 6 6 1 and the opponent re-rolled one die: the 1, surely.
    outcomes = opponent_outcomes((1, 6, 6, 6, 6), 1, FOUR_SIXES)
    assert math.isclose(sum(p for _d, r, p in outcomes if r >= FIVE_SIXES), 1 / 6)
    # Declared "five 6s": true with 1/6 (named as is, likelihood 1 - 0.2 - 0.1 = 0.7
    # under the prior); false with 5/6, a forced lie five steps above the minimal
    # one (likelihood (1 - 0.6) / 5 = 0.08). Posterior: 0.7 / (0.7 + 5 * 0.08).
    p_true = truth_probability(outcomes, FIVE_SIXES, FOUR_SIXES, OpponentModel())
    assert math.isclose(p_true, 0.7 / (0.7 + 0.4))


def test_beat_chance_respects_min_reroll() -> None:
    assert beat_chance((6, 6, 6, 6, 6), FOUR_SIXES, 0) == 1.0
    # Must re-roll at least one die of five 6s: it stays above four 6s only as five 6s.
    assert math.isclose(beat_chance((6, 6, 6, 6, 6), FOUR_SIXES, 1), 1 / 6)


def test_declaring_model_learns() -> None:
    model = OpponentModel()
    before = model.minimal.mean
    for _ in range(5):
        model.observe_declaration(declared=11, true=3, beat=10)  # a minimal lie
    assert model.minimal.mean > before


# -- Cockroach Poker: card counting ---------------------------------------------------


def test_holds_probability_hand_values() -> None:
    assert holds_probability(0, 10, 3) == 0.0
    assert holds_probability(1, 2, 1) == 0.5
    # Two of four unseen cards are the kind; a hand of two misses both with 1/C(4,2).
    assert math.isclose(holds_probability(2, 4, 2), 5 / 6)
    assert holds_probability(3, 4, 2) == 1.0


def test_claim_truth_probability_hand_values() -> None:
    assert claim_truth_probability(0.7, 0, 20, 5) == 0.0  # nobody can hold the kind
    assert math.isclose(claim_truth_probability(0.7, 5, 5, 3), 0.7)  # surely held
    assert math.isclose(claim_truth_probability(0.5, 2, 4, 2), 5 / 11)


def test_danger_and_kill_bonus() -> None:
    assert danger(0) == 0.0 and danger(LOSING_COUNT) > danger(3) > danger(2) > danger(1)
    assert math.isclose(danger(1.5), (danger(1) + danger(2)) / 2)
    assert kill_bonus(3, 0) == 0.0  # we cannot finish the kind
    assert kill_bonus(3, 1) > kill_bonus(2, 2) > kill_bonus(0, 4) > 0.0


# -- Liar's Poker: sampling -----------------------------------------------------------


def test_fast_contains_agrees_with_contains() -> None:
    rng = random.Random(7)
    announcements = all_announcements()
    suited = [c for c in POKER_DECK if c.suit == POKER_DECK[0].suit or c.rank == 0]
    for i in range(2000):
        hand = rng.sample(suited if i % 2 else POKER_DECK, 5)
        claim = rng.choice(announcements[-600:] if i % 3 == 0 else announcements)
        assert fast_contains(Summary.of(hand), claim) == contains(hand, claim)


def test_plausibility_of_high_card_two() -> None:
    # "High card 2" needs a 2 or a joker: 1 - C(48, 5) / C(54, 5) = 0.4586.
    exact = 1 - math.comb(48, 5) / math.comb(54, 5)
    claim = Announcement(Category.HIGH_CARD, (2,))
    assert abs(poker_plausibility(claim) - exact) < 0.05


def test_sampled_hands_keep_the_passed_cards() -> None:
    rng = random.Random(1)
    passed = tuple(POKER_DECK[:5])
    claim = Announcement(Category.PAIR, (passed[0].rank,))
    assert all(hand == list(passed) for hand in sample_hands(passed, 0, claim, rng, 5))
    for hand in sample_hands(passed, 2, claim, rng, 50):
        assert len(hand) == 5
        assert sum(card in passed for card in hand) >= 3
        real = [card for card in hand if card.rank]
        assert len(set(real)) == len(real)


# -- head to head ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "rules"),
    [
        ("cockroach_poker", {}),
        ("liars_poker", {"penalty_limit": "5"}),
        ("liars_poker_dice", {}),
    ],
)
def test_strong_beats_heuristic_head_to_head(game: str, rules: dict[str, str]) -> None:
    wins, _draws, losses, _times = evaluate(game, 40, 1000, rules)
    assert wins > losses
