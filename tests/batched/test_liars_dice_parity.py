"""The batched Liar's Dice plays the scalar engine's rules: decision by decision parity
(tests/batched/parity.py), on the defaults, OpenSpiel's rules, random supported rule
sets (hypothesis), and the refusal of what it does not support.

The long run (≥ 100k games) is ``ARENA_LONG_PARITY=1 pytest -m slow tests/batched``
or ``python -m tests.batched.parity``; its result is in docs/training.md.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.batched.liars_dice import (
    LiarsDiceBatch,
    UnsupportedRulesError,
    make,
    roll,
    slot_keys,
)
from referee.gamekit.base import IllegalActionError, RulesError
from referee.games.liars_dice.engine import (
    LIARS_DICE,
    RAISE_RULES,
    WILD_FACES,
    WILD_OPENINGS,
    Rules,
)
from referee.games.liars_dice.universe import action_universe
from tests.batched.parity import LONG_RUN, check_parity, long_run

OPENSPIEL = {
    "dice_per_player": "5",
    "one_round": "true",
    "roll_off": "false",
    "wild_face": "6",
    "raise_rule": "reset-face",
    "sum_endgame": "false",
}


@pytest.mark.parametrize(
    ("rules", "seats", "games"),
    [({}, 2, 60), (OPENSPIEL, 2, 150), ({"dice_per_player": "2"}, 3, 60)],
)
def test_batched_games_replay_identically_in_the_scalar_engine(
    rules: dict[str, str], seats: int, games: int
) -> None:
    env = LiarsDiceBatch(rules, seats)
    tally = check_parity(env, games, seed=7, batch=32)
    assert tally.games >= games


@st.composite
def rule_sets(draw: st.DrawFn) -> tuple[Rules, int]:
    rules = Rules(
        dice_per_player=draw(st.integers(1, 3)),
        raise_rule=draw(st.sampled_from(RAISE_RULES)),
        wild_face=draw(st.sampled_from(WILD_FACES)),
        wild_opening=draw(st.sampled_from(WILD_OPENINGS)),
        sum_endgame=draw(st.booleans()),
        one_round=draw(st.booleans()),
        roll_off=draw(st.booleans()),
    )
    return rules, draw(st.integers(2, 4))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_sets(), st.integers(0, 2**31))
def test_random_supported_rule_sets_keep_parity(config: tuple[Rules, int], seed: int) -> None:
    rules, seats = config
    check_parity(LiarsDiceBatch(rules, seats), 8, seed=seed, batch=8)


def test_the_action_ids_are_the_universe() -> None:
    env = LiarsDiceBatch({"dice_per_player": "2"}, 3)
    assert env.universe == action_universe(env.rules, 3)
    assert env.num_actions == 1 + 6 * 6 + 11
    state = env.reset([1, 2])
    assert state.legal_action_mask.shape == (2, env.num_actions)
    assert not state.legal_action_mask[:, 0].any()  # no bid to challenge yet


def test_the_option_text_and_the_rules_object_make_the_same_engine() -> None:
    text = LiarsDiceBatch(OPENSPIEL, 2)
    typed = LiarsDiceBatch(LIARS_DICE.parse_rules(OPENSPIEL), 2)
    a, b = text.reset(np.arange(5)), typed.reset(np.arange(5))
    assert (a.hands == b.hands).all() and text.rules == typed.rules


def test_a_game_deals_the_same_whatever_its_batch() -> None:
    env = make()
    alone = env.reset([42])
    among = env.reset([5, 42, 9])
    assert (alone.hands[0] == among.hands[1]).all()
    assert roll(slot_keys([3]), np.array([1]), np.array([0]), 4).shape == (1, 4)


def test_a_finished_game_restarts_in_its_slot() -> None:
    env = LiarsDiceBatch(OPENSPIEL, 2)
    state = env.reset(np.arange(4))
    state = env.step(state, np.full(4, 1))  # everyone bids 1 x 1
    after = env.step(state, np.zeros(4, np.int64))  # and is challenged
    assert after.terminated.all() and (after.episode == 2).all()
    assert sorted(after.rewards[0].tolist()) == [-1.0, 1.0]
    assert (after.dice_counts == 5).all() and (after.last_bid == -1).all()
    following = env.step(after, np.full(4, 1))
    assert not following.terminated.any() and not following.rewards.any()


def test_an_illegal_action_is_refused_naming_its_game() -> None:
    env = make()
    state = env.reset(np.arange(3))
    with pytest.raises(IllegalActionError, match="in game 0"):
        env.step(state, [0, 1, 1])  # nothing to challenge yet
    with pytest.raises(IllegalActionError, match="in game 2"):
        env.step(state, [1, 1, env.num_actions])


@pytest.mark.parametrize(
    ("rules", "seats", "named"),
    [
        ({}, 11, "num_seats=11"),
        ({}, 1, "num_seats=1"),
        (Rules(dice_per_player=11), 2, "dice_per_player=11"),
        (Rules(dice_per_player=0), 2, "dice_per_player=0"),
        (Rules(raise_rule="bluff-up"), 2, "raise_rule='bluff-up'"),
        (Rules(one_round=1), 2, "one_round=1"),  # type: ignore[arg-type]
    ],
)
def test_unsupported_options_are_refused_by_name(rules: object, seats: int, named: str) -> None:
    with pytest.raises(UnsupportedRulesError, match=named.replace("(", r"\(")):
        LiarsDiceBatch(rules, seats)  # type: ignore[arg-type]
    assert issubclass(UnsupportedRulesError, RulesError)


def test_a_rule_option_it_does_not_know_is_refused() -> None:
    """A rule added to the scalar engine is refused here until the batch plays it."""
    fields = [(f.name, f.type, f) for f in dataclasses.fields(Rules)]
    Newer = dataclasses.make_dataclass(
        "Newer", [*fields, ("bluff_bonus", int, dataclasses.field(default=2))], frozen=True
    )
    with pytest.raises(UnsupportedRulesError, match="bluff_bonus=2"):
        LiarsDiceBatch(Newer(), 2)


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("ARENA_LONG_PARITY"), reason="the long run: set ARENA_LONG_PARITY=1"
)
def test_the_long_parity_run() -> None:
    games = int(os.environ.get("ARENA_LONG_PARITY_GAMES", "100000"))
    played = sum(tally.games for _, _, tally, _ in long_run(games))
    assert played >= games
    assert len(LONG_RUN) >= 5
