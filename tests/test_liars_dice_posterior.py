"""The posterior Liar's Dice bot: its Bayesian update, checked by hand, and complete
in-process matches under every kind of rule option and seat count."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from example_bots.challenge_habit import NOISE, SLOPE, THRESHOLD_GRID
from example_bots.liars_dice_posterior import (
    RAISED_FLOOR,
    Honesty,
    PosteriorLiarsDiceBot,
    counted,
    face_posterior,
    hand_table,
    raised_likelihood,
)
from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from example_bots.liars_dice_random import RandomLiarsDiceBot
from referee.games.liars_dice.engine import Bid, PlacedBid, RoundResult, Rules
from sdk.liars_dice import Observation, is_legal, legal_actions
from sdk.local import BotFactory, play_local


def test_hand_table_enumerates_multisets_with_multinomial_prior() -> None:
    counts, log_prior = hand_table(3)
    assert len(counts) == math.comb(3 + 5, 5)  # multisets of 3 dice over 6 faces
    assert (counts.sum(axis=1) == 3).all()
    assert np.exp(log_prior).sum() == pytest.approx(1.0)
    # Three of a kind has probability 1/216; one each of three faces 6/216.
    triple = int(np.flatnonzero((counts == [3, 0, 0, 0, 0, 0]).all(axis=1))[0])
    spread = int(np.flatnonzero((counts == [1, 1, 1, 0, 0, 0]).all(axis=1))[0])
    assert math.exp(log_prior[triple]) == pytest.approx(1 / 216)
    assert math.exp(log_prior[spread]) == pytest.approx(6 / 216)


def test_one_die_posterior_by_hand() -> None:
    """One hidden die that bid 3s, honesty ln 5: P(name 3 | die 3) = 5/(5+5) and
    P(name 3 | other die) = 1/(5+5), so the posterior of a 3 is 5/(5+5) = 1/2
    and every other face 1/10 (prior 1/6 each)."""
    counting, weights = face_posterior(1, [3], None, math.log(5))
    by_face = {int(np.argmax(row)) + 1: w for row, w in zip(counting, weights, strict=True)}
    assert by_face[3] == pytest.approx(0.5)
    for face in (1, 2, 4, 5, 6):
        assert by_face[face] == pytest.approx(0.1)


def test_two_bids_multiply_and_wilds_count_for_every_face() -> None:
    """Wild 1s: a die showing 1 counts 1 for every face (its softmax is uniform,
    1/6 per face), a 3 counts for 3s only (2/7 with honesty ln 2), any other die
    names 3s with 1/7. Two bids on 3s multiply the likelihoods."""
    honesty = math.log(2)
    _, weights = face_posterior(1, [3, 3], 1, honesty)
    # Counting columns: a 1 counts 1 for every face; a 3 counts 1 for face 3 only.
    norm_one = 6 * 2  # die 1: every face counts 1 -> e^b = 2 for each of six faces
    norm_three = 2 + 5  # die 3: face 3 counts 1 (2), the other five 0 (1 each)
    norm_other = 2 + 5
    raw = {1: (2 / norm_one) ** 2, 3: (2 / norm_three) ** 2}
    raw.update({d: (1 / norm_other) ** 2 for d in (2, 4, 5, 6)})
    total = sum(raw.values())
    counts, _ = hand_table(1)
    for row, weight in zip(counts, weights, strict=True):
        die = int(np.argmax(row)) + 1
        assert weight == pytest.approx(raw[die] / total)
    assert counted(np.array([1, 0, 1, 0, 0, 0]), 1).tolist() == [1, 1, 2, 1, 1, 1]


def test_raising_instead_of_challenging_is_evidence_by_hand() -> None:
    """One hidden die, one other unseen die, standing bid 1 x 3s. Holding a 3 the
    seat knows the bid is true (odds 1, clipped to 1 - 1e-4); otherwise its odds are
    1/6. With its threshold known to be 1/2 it challenges with
    noise + (1 - 2 noise) * logistic(S * (logit 1/2 - logit odds)); having raised,
    each hand weighs floor + (1 - floor) * (1 - that)."""
    counts, _ = hand_table(1)
    habit = (THRESHOLD_GRID == 0.5).astype(float)
    likelihood = raised_likelihood(counts, Bid(1, 3), 1, None, habit)

    def expected(odds: float) -> float:
        logistic = 1 / (1 + math.exp(-SLOPE * (0.0 - math.log(odds / (1 - odds)))))
        challenge = NOISE + (1 - 2 * NOISE) * logistic
        return RAISED_FLOOR + (1 - RAISED_FLOOR) * (1 - challenge)

    for row, value in zip(counts, likelihood, strict=True):
        die = int(np.argmax(row)) + 1
        assert value == pytest.approx(expected(1.0 - 1e-4 if die == 3 else 1 / 6))


def test_honesty_is_fitted_from_revealed_rounds() -> None:
    """A seat that always bid the face it held most of is fitted as more honest
    than one that bid a face it did not hold."""

    def result(dice: tuple[int, ...], face: int) -> RoundResult:
        return RoundResult(
            round_number=1,
            opener=1,
            wilds_active=False,
            sum_round=False,
            bids=(PlacedBid(1, Bid(2, face)),),
            challenger=0,
            dice=((2, 2, 2), dice),
            actual=0,
            bid_true=False,
            loser=1,
            eliminated=False,
        )

    honest, liar = Honesty(), Honesty()
    honest.update(tuple(result((5, 5, 4), 5) for _ in range(6)), None, me=0)
    liar.update(tuple(result((5, 5, 4), 2) for _ in range(6)), None, me=0)
    assert honest.of(1) > 1.0 > liar.of(1)
    assert Honesty().of(1) == 1.0


class CheckingPosteriorBot(PosteriorLiarsDiceBot):
    """Asserts that every action it plays is legal."""

    def act(self, observation: Observation) -> Any:
        action = super().act(observation)
        assert is_legal(observation, action), (observation, action)
        return action


@pytest.mark.parametrize(
    ("rules", "seats"),
    [
        ({}, 2),
        ({"wild_face": "1", "raise_rule": "reset-face"}, 3),
        (
            {
                "wild_face": "6",
                "raise_rule": "quantity-or-face",
                "roll_off": "false",
                "dice_per_player": "3",
            },
            4,
        ),
        ({"dice_per_player": "1"}, 2),
        ({"dice_per_player": "2", "sum_endgame": "false", "wild_face": "1"}, 5),
        ({"one_round": "true", "dice_per_player": "10"}, 10),
        ({"dice_per_player": "3", "raise_rule": "quantity-or-face"}, 6),
    ],
)
def test_plays_complete_matches_legally(rules: dict[str, str], seats: int) -> None:
    others: list[BotFactory] = [ProbabilityLiarsDiceBot, RandomLiarsDiceBot]
    bots: list[BotFactory] = [CheckingPosteriorBot, *(others[i % 2] for i in range(seats - 1))]
    for seed in (1, 2):
        match = play_local("liars_dice", bots, seed=seed, rules=rules)
        assert sorted(match.outcome.places)[0] == 1


def test_sum_rounds_are_played() -> None:
    """Single dice and the sum endgame: every round is a sum round."""
    bots: list[BotFactory] = [CheckingPosteriorBot, CheckingPosteriorBot]
    for seed in range(5):
        match = play_local("liars_dice", bots, seed=seed, rules={"dice_per_player": "1"})
        assert sorted(match.outcome.places) == [1, 2]


def test_beats_the_probability_bot_in_a_small_sample() -> None:
    """A smoke check of strength (the real measurement is the league in docs/bots.md):
    seeded, so it cannot flake; 20 matches, seats alternating."""
    wins = 0
    for i in range(20):
        posterior_first = i % 2 == 0
        bots: list[BotFactory] = (
            [PosteriorLiarsDiceBot, ProbabilityLiarsDiceBot]
            if posterior_first
            else [ProbabilityLiarsDiceBot, PosteriorLiarsDiceBot]
        )
        match = play_local("liars_dice", bots, seed=i // 2)
        wins += match.outcome.places[0 if posterior_first else 1] == 1
    assert wins >= 13


# ---------------------------------------------------------------------------
# Three or more seats: the rest of the round after the next seat's raise


def three_seats(after_next_threshold: float) -> tuple[PosteriorLiarsDiceBot, Observation]:
    """We are seat 0 of three (five dice each), answering seat 2's opening 2 x 3s; the
    threshold of seat 2 (the seat after our next one) is known."""
    bot = PosteriorLiarsDiceBot()
    bot.habit.log_lik[2] = np.where(np.isclose(THRESHOLD_GRID, after_next_threshold), 0.0, -1e6)
    observation = Observation(
        seat=0,
        num_seats=3,
        rules=Rules(),
        phase="bid",
        to_act=0,
        dice_counts=(5, 5, 5),
        own_dice=(2, 2, 2, 5, 5),
        roll_offs=(),
        round_number=1,
        opener=2,
        wilds_active=False,
        sum_round=False,
        bids=(PlacedBid(2, Bid(2, 3)),),
        history=(),
        eliminated=(),
    )
    return bot, observation


def test_later_seats_run_from_the_seat_after_next_back_to_us() -> None:
    bot, observation = three_seats(0.5)
    assert bot.later_seats(observation, bot.posteriors(observation), 1) == [2]
    # Five seats, seat 3 out: after seat 1 come seats 2 and 4, then us.
    five = replace(observation, num_seats=5, dice_counts=(5, 5, 5, 0, 5))
    assert bot.later_seats(five, bot.posteriors(five), 1) == [2, 4]
    # Two seats: the next seat's raise comes straight back to us.
    two = replace(observation, num_seats=2, dice_counts=(5, 5), opener=1)
    two = replace(two, bids=(PlacedBid(1, Bid(2, 3)),))
    assert bot.later_seats(two, bot.posteriors(two), 1) == []


def test_a_raise_costs_less_when_the_seat_after_next_challenges() -> None:
    """If seat 1 raises our bid and seat 2 then challenges, the die is lost by seat 1
    or seat 2, never by us: the round comes back to us only if seat 2 raises too. So
    the same raise costs less when seat 2 challenges anything than when it never
    challenges (the old flat 1/seats charge made them equal)."""
    challenger, challenger_view = three_seats(0.995)
    raiser, raiser_view = three_seats(0.005)
    bid = Bid(2, 5)  # true with our own dice
    posts = challenger.posteriors(challenger_view)
    assert challenger.returns(bid, [2], posts, challenger_view, None) < 0.2
    assert raiser.returns(bid, [2], raiser.posteriors(raiser_view), raiser_view, None) > 0.8

    def loss(bot: PosteriorLiarsDiceBot, observation: Observation) -> float:
        scored = bot.score_face_round(observation, legal_actions(observation))
        return next(item.loss for item in scored if item.action == bid)

    assert loss(challenger, challenger_view) < loss(raiser, raiser_view) - 0.1
