"""Mixed moves, the pure part: checking probabilities, the keyed draw, the commitment."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.chance import key_from_seed
from referee.core.events import ActionEvent
from referee.core.mixed import (
    MAX_ENTRIES,
    SUM_TOLERANCE,
    BadProbabilitiesError,
    Distribution,
    Mixed,
    MixedAnswer,
    checked,
    commit,
    draw,
    mixed_key,
    pick,
    problems_with,
    sampled,
    uniform,
)
from referee.games.liars_dice.engine import Bid, Challenge
from sdk.local import play_callables, play_local

KEY = mixed_key(key_from_seed(1))


LEGAL = (*(Bid(q, f) for q in range(1, 11) for f in range(1, 7)), Challenge())
"""A stand-in for an engine's legal actions: bids of up to ten dice, and challenge."""


def test_checked_puts_entries_in_the_legal_order_and_drops_zero_weights() -> None:
    got = checked([(Challenge(), 0.5), (Bid(2, 3), 0.0), (Bid(1, 4), 0.5)], LEGAL)
    again = checked([(Bid(1, 4), 0.5), (Challenge(), 0.5)], LEGAL)
    assert got == again
    assert got.actions == (Bid(1, 4), Challenge()) and got.probabilities == (0.5, 0.5)


def test_checked_divides_by_a_sum_within_the_tolerance() -> None:
    got = checked([(Bid(1, 2), 0.5), (Bid(1, 3), 0.5 + SUM_TOLERANCE / 2)], LEGAL)
    assert math.isclose(math.fsum(got.probabilities), 1.0, abs_tol=1e-15)


@pytest.mark.parametrize(
    ("entries", "says"),
    [
        ([(Bid(1, 2), -0.1), (Bid(1, 3), 1.1)], "not a number in [0, 1]"),
        ([(Bid(1, 2), 1.5)], "not a number in [0, 1]"),
        ([(Bid(1, 2), math.nan), (Bid(1, 3), 1.0)], "not a number in [0, 1]"),
        ([(Bid(1, 2), math.inf)], "not a number in [0, 1]"),
        ([(Bid(1, 2), 0.5), (Bid(1, 3), 0.49)], "sum to"),
        ([(Bid(1, 2), 0.5), (Bid(1, 3), 0.5 + 2 * SUM_TOLERANCE)], "sum to"),
        ([], "sum to"),
        ([(Bid(1, 2), 0.5), (Bid(1, 2), 0.5)], "twice"),
        ([(Bid(1, 2), 0.5), (Bid(11, 2), 0.5)], "illegal action"),
        ([(Bid(q, 2), 0.0) for q in range(20, MAX_ENTRIES + 21)], "entries"),
        ([(Bid(11, 2), 0.0), (Bid(11, 2), 0.0), (Challenge(), 1.0)], "twice"),
    ],
)
def test_bad_probabilities_are_named(entries: list[tuple[object, float]], says: str) -> None:
    with pytest.raises(BadProbabilitiesError, match=says.replace("[", r"\[").replace("]", r"\]")):
        checked(entries, LEGAL)


def test_an_illegal_action_with_no_weight_is_ignored() -> None:
    assert checked([(Bid(1, 2), 1.0), (Bid(11, 2), 0.0)], LEGAL).actions == (Bid(1, 2),)


def test_pick_by_hand() -> None:
    assert pick([0.25, 0.5, 0.25], 0.0) == 0
    assert pick([0.25, 0.5, 0.25], 0.2499) == 0
    assert pick([0.25, 0.5, 0.25], 0.25) == 1
    assert pick([0.25, 0.5, 0.25], 0.75) == 2
    assert pick([0.0, 1.0], 0.0) == 1  # a zero weight is never drawn
    assert pick([0.5, 0.5, 0.0], 0.9999999999999999) == 1


def test_uniform_is_the_documented_hmac_block() -> None:
    import hashlib
    import hmac

    block = hmac.new(KEY, (7).to_bytes(8, "big"), hashlib.sha256).digest()
    assert uniform(KEY, 7) == (int.from_bytes(block[:8], "big") >> 11) / 2**53
    assert 0.0 <= uniform(KEY, 7) < 1.0 and uniform(KEY, 7) != uniform(KEY, 8)


def test_the_draws_follow_the_stated_probabilities() -> None:
    stated = checked([(Bid(1, 2), 0.1), (Bid(1, 3), 0.6), (Challenge(), 0.3)], LEGAL)
    counts = Counter(draw(stated, KEY, turn) for turn in range(1, 20001))
    for action, p in zip(stated.actions, stated.probabilities, strict=True):
        sd = math.sqrt(20000 * p * (1 - p))
        assert abs(counts[action] - 20000 * p) < 5 * sd, (action, counts[action])


@settings(max_examples=200, deadline=None)
@given(
    weights=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12).filter(lambda w: sum(w) > 0),
    u=st.floats(0.0, 1.0, exclude_max=True),
)
def test_pick_always_draws_a_positive_weight(weights: list[float], u: float) -> None:
    index = pick(weights, u)
    assert weights[index] > 0


def test_the_commitment_binds_and_hides() -> None:
    stated = checked([(Bid(1, 2), 0.25), (Challenge(), 0.75)], LEGAL)
    other = checked([(Bid(1, 2), 0.75), (Challenge(), 0.25)], LEGAL)
    salt = bytes(range(16))
    assert commit(salt, stated) != commit(salt, other)
    assert commit(salt, stated) != commit(bytes(16), stated)  # the salt hides a guess
    answer = MixedAnswer(3, salt, stated)
    drawn = draw(stated, KEY, 3)
    assert problems_with(answer, commit(salt, stated), drawn, KEY) == []
    assert problems_with(answer, commit(salt, other), drawn, KEY)
    wrong = next(a for a in stated.actions if a != drawn)
    assert problems_with(answer, commit(salt, stated), wrong, KEY)
    assert problems_with(answer, commit(salt, stated), wrong, None) == []  # it had weight
    assert problems_with(answer, commit(salt, stated), Bid(5, 5), None)


def test_sampled_draws_from_a_mixed_answer_with_the_callers_rng() -> None:
    rng = random.Random(3)
    assert sampled(Challenge(), rng) == Challenge()
    seen = {sampled(Mixed({Bid(1, 2): 0.5, Challenge(): 0.5}), rng) for _ in range(50)}
    assert seen == {Bid(1, 2), Challenge()}


def test_in_process_play_draws_mixed_moves_with_the_seeds_key() -> None:
    def uniform_mixed(view: Any) -> Mixed:
        from referee.games.liars_dice.engine import LiarsDice

        actions = list(LiarsDice().legal_actions(view))
        return Mixed(dict.fromkeys(actions, 1 / len(actions)))

    first = play_callables("liars_dice", [uniform_mixed, uniform_mixed], seed=4)
    again = play_callables("liars_dice", [uniform_mixed, uniform_mixed], seed=4)
    assert first.events == again.events
    other = play_callables("liars_dice", [uniform_mixed, uniform_mixed], seed=5)
    assert first.events != other.events
    acted = [e for e in first.events if isinstance(e, ActionEvent)]
    assert all(isinstance(e.policy, Distribution) for e in acted)


def test_a_bad_mixed_move_in_process_raises_the_named_error() -> None:
    def bad(view: object) -> Mixed:
        return Mixed({Challenge(): 2.0})

    with pytest.raises(BadProbabilitiesError):
        play_callables("liars_dice", [bad, bad], seed=1)


def test_the_random_bots_answer_mixed_in_every_game() -> None:
    from importlib import import_module

    for game in ("liars_dice", "liars_poker_dice", "dice_poker", "cockroach_poker", "liars_poker"):
        module = import_module(f"example_bots.{game}_random")
        bot = next(
            v for k, v in vars(module).items() if k.startswith("Random") and k.endswith("Bot")
        )
        seats = 2
        match = play_local(game, [bot] * seats, seed=2)
        acted = [e for e in match.events if isinstance(e, ActionEvent)]
        listed = [e.policy is not None for e in acted]
        assert any(listed), game
        if game != "liars_poker":  # thousands of announcements: it draws itself there
            assert all(listed), game
