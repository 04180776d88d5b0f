"""The posterior Liar's Dice bot's model of how often an opponent challenges: the
threshold it learns from revealed rounds, and the bot's bids following it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from example_bots.challenge_habit import (
    THRESHOLD_GRID,
    ChallengeHabit,
    face_odds,
    sum_odds,
)
from example_bots.liars_dice_posterior import PosteriorLiarsDiceBot, continuation_scale
from example_bots.liars_dice_probability_05 import Probability05LiarsDiceBot
from league.execution.counters import play_rotations
from referee.games.liars_dice.engine import Bid, PlacedBid, RoundResult, Rules, SumBid
from sdk.liars_dice import Observation, legal_actions

ME, THEM = 0, 1
MY_DICE = (2, 2, 2, 2, 2)
THEIR_DICE = (5, 5, 4, 3, 1)


def round_result(
    bids: list[Bid | SumBid], challenger: int, loser: int, opener: int = ME
) -> RoundResult:
    """A revealed two-seat round: ``opener`` opens, then the seats alternate."""
    placed = tuple(PlacedBid((opener + i) % 2, bid) for i, bid in enumerate(bids))
    return RoundResult(
        round_number=1,
        opener=opener,
        wilds_active=False,
        sum_round=False,
        bids=placed,
        challenger=challenger,
        dice=(MY_DICE, THEIR_DICE),
        actual=0,
        bid_true=loser == challenger,
        loser=loser,
        eliminated=False,
    )


def threshold(habit: ChallengeHabit) -> float:
    """The posterior mean of the opponent's challenge threshold."""
    return float(np.dot(habit.weights(THEM), THRESHOLD_GRID))


def test_odds_are_the_answering_seats_own() -> None:
    """Holding one 5, with 5 dice unseen, 4 x 5s needs three more: P(Bin(5, 1/6) >= 3)."""
    expected = sum(math.comb(5, k) * (1 / 6) ** k * (5 / 6) ** (5 - k) for k in range(3, 6))
    assert float(face_odds(1, Bid(4, 5), 5, None)) == pytest.approx(expected)
    assert float(face_odds(4, Bid(4, 5), 5, None)) == 1.0
    # Wild 1s: a 5 comes up with probability 1/3.
    assert float(face_odds(0, Bid(1, 5), 1, 1)) == pytest.approx(1 / 3)
    assert float(sum_odds(3, 8)) == pytest.approx(2 / 6)  # 3 + {5, 6}


def test_prior_is_centred_on_one_half() -> None:
    """Before any evidence the likeliest threshold is the old fixed assumption, 1/2."""
    weights = ChallengeHabit().weights(THEM)
    assert THRESHOLD_GRID[int(np.argmax(weights))] == 0.5
    assert weights.sum() == pytest.approx(1.0)


def test_raising_long_shots_teaches_a_low_threshold() -> None:
    """Holding no 2s, they raised our 3 x 2s (their odds P(Bin(5, 1/6) >= 3), 3.5 %)
    round after round: a seat that challenges below 1/2 would not have."""
    habit = ChallengeHabit()
    rounds = tuple(
        round_result([Bid(3, 2), Bid(3, 5), Bid(9, 2)], challenger=THEM, loser=ME) for _ in range(4)
    )
    habit.update(rounds, None, ME)
    assert threshold(habit) < 0.1
    # Such a seat is unlikely to challenge a bid it finds 20 % likely...
    assert float(habit.challenge(THEM, np.array([0.2]))[0]) < 0.15
    # ...which the prior (threshold 1/2) thought it very likely would.
    assert float(ChallengeHabit().challenge(THEM, np.array([0.2]))[0]) > 0.7


def test_challenging_likely_bids_teaches_a_high_threshold() -> None:
    """They challenged our 3 x 5s although they hold two 5s (their odds 1 - (5/6)^5, 60 %)."""
    habit = ChallengeHabit()
    rounds = tuple(round_result([Bid(3, 5)], challenger=THEM, loser=THEM) for _ in range(4))
    habit.update(rounds, None, ME)
    assert threshold(habit) > 0.6


def test_our_own_answers_and_already_seen_rounds_are_not_counted() -> None:
    habit = ChallengeHabit()
    # We challenged their opening bid: nothing about how they answer.
    first = round_result([Bid(9, 5)], challenger=ME, loser=THEM, opener=THEM)
    habit.update((first,), None, ME)
    assert THEM not in habit.log_lik
    second = round_result([Bid(4, 2), Bid(4, 5), Bid(9, 2)], challenger=THEM, loser=ME)
    habit.update((first, second), None, ME)
    once = habit.log_lik[THEM].copy()
    habit.update((first, second), None, ME)  # nothing new
    assert np.array_equal(habit.log_lik[THEM], once)


def facing(own: tuple[int, ...], standing: Bid) -> Observation:
    """Two seats of five dice, round 1: they opened with ``standing``, we answer."""
    return Observation(
        seat=ME,
        num_seats=2,
        rules=Rules(),
        phase="bid",
        to_act=ME,
        dice_counts=(5, 5),
        own_dice=own,
        roll_offs=(),
        round_number=1,
        opener=THEM,
        wilds_active=False,
        sum_round=False,
        bids=(PlacedBid(THEM, standing),),
        history=(),
        eliminated=(),
    )


def bot_against(threshold: float) -> PosteriorLiarsDiceBot:
    """A posterior bot whose opponent's threshold is already known to be ``threshold``."""
    bot = PosteriorLiarsDiceBot()
    bot.habit.log_lik[THEM] = np.where(np.isclose(THRESHOLD_GRID, threshold), 0.0, -1e6)
    return bot


def test_the_bot_bluffs_against_a_never_challenger_and_not_against_a_challenger() -> None:
    """Holding no 3s, a raise to 4 x 3s is a bluff (true only if they hold four 3s or
    more). Against a seat that challenges anything it costs about its chance of being
    false; against one that challenges only hopeless bids, little more than the flat
    cost of being raised (1/2 with two seats). Against the challenger it bids what its
    own dice already make true."""
    observation = facing((2, 2, 2, 5, 5), Bid(2, 3))
    bluff = Bid(4, 3)

    def loss(bot: PosteriorLiarsDiceBot, action: Bid) -> float:
        scored = bot.score_face_round(observation, legal_actions(observation))
        return next(item.loss for item in scored if item.action == action)

    never, always = bot_against(0.005), bot_against(0.995)
    assert loss(never, bluff) < 0.6 < 0.85 < loss(always, bluff)
    chosen = always.act(observation)
    assert isinstance(chosen, Bid) and chosen.face in (2, 5)
    assert chosen.quantity <= {2: 3, 5: 2}[chosen.face]  # true with our own dice alone


def test_beats_a_rare_challenger_in_a_small_sample() -> None:
    """A smoke check of the adaptation (the measurement is ``python -m bench.counters
    liars_dice``, in docs/bots.md): 20 duplicate pairs against the probability bot
    that challenges only bids under 5 % likely. Seeded, so it cannot flake; the bot
    that assumed a threshold of 1/2 won 25 of these 40, this one wins 35."""
    wins, _, _ = play_rotations(
        "liars_dice", PosteriorLiarsDiceBot, Probability05LiarsDiceBot, 20, 1, {}
    )
    assert wins >= 30


def test_being_raised_costs_less_against_a_rare_challenger() -> None:
    """A seat that challenges rarely raises into bids that are likely false: the bot
    charges less for being raised by it (0.6 / seats at threshold 0, 1 / seats from
    1/2 up), so it raises rather than challenges more often against it."""
    assert continuation_scale(0.5) == continuation_scale(0.9) == 1.0
    assert continuation_scale(0.0) == pytest.approx(0.6)
    assert continuation_scale(0.25) == pytest.approx(0.8)
    never, prior = bot_against(0.005), PosteriorLiarsDiceBot()
    assert continuation_scale(never.habit.mean_threshold(THEM)) < 0.62
    assert continuation_scale(prior.habit.mean_threshold(THEM)) > 0.9
    # With a standing bid that is about even, the flat raise cost decides.
    observation = facing((2, 2, 3, 4, 6), Bid(3, 5))
    raise_losses = [
        min(
            item.loss
            for item in bot.score_face_round(observation, legal_actions(observation))
            if isinstance(item.action, Bid)
        )
        for bot in (never, bot_against(0.5))
    ]
    assert raise_losses[0] < raise_losses[1] - 0.1
