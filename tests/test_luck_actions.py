"""AIVAT's action terms: exact when the baseline is the game's value under the policies.

Liar's Dice with one die each, both seats answering mixed (the uniform random bot and
the CFR bot), the baseline the exact value of every state under those two policies
(:class:`referee.analysis.policy_values.PolicyValues`): every chance and action
correction is then ``V(after) − V(before)``, so every match's luck-adjusted score is
the game's value for those policies, whatever the referee drew. Without the action
terms (chance terms only) it is not: the guard.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pytest

from example_bots.liars_dice_cfr import CfrLiarsDiceBot
from example_bots.liars_dice_cfr_solver import OPENSPIEL_OPTIONS
from example_bots.liars_dice_random import RandomLiarsDiceBot
from league.store.luck_standings import pair_points
from referee.analysis.luck import action_corrections, luck
from referee.analysis.policy_values import PolicyBaseline, PolicyValues
from referee.core.catalogue import get_game
from referee.core.events import ActionEvent
from sdk.bot import MatchInfo
from sdk.local import play_local

RULES = {**OPENSPIEL_OPTIONS, "dice_per_player": "1"}
GAME = get_game("liars_dice")
PARSED = GAME.parse_rules(dict(RULES))
PAIR = [RandomLiarsDiceBot, CfrLiarsDiceBot]


def started(bot: Any, seat: int) -> Any:
    bot.start(MatchInfo("exact", "liars_dice", PARSED, seat, 2, GAME.format_rules(PARSED)))
    return bot


def policy_of(factory: Any, seat: int) -> Any:
    bot = started(factory(), seat)

    seen: dict[Any, Mapping[Any, float]] = {}

    def policy(observation: Any) -> Mapping[Any, float]:
        stated = seen.get(observation)
        if stated is None:
            stated = seen[observation] = bot.policy(observation)
            assert stated is not None
        return stated

    return policy


@pytest.fixture(scope="module")
def values() -> PolicyValues:
    return PolicyValues(GAME, [policy_of(RandomLiarsDiceBot, 0), policy_of(CfrLiarsDiceBot, 1)])


def test_every_adjusted_score_is_the_exact_value_of_the_two_policies(values: PolicyValues) -> None:
    baseline = PolicyBaseline(values)
    root = values(GAME.new_game(PARSED, 2))
    assert 0.0 < root < 1.0
    scores = []
    for seed in range(40):
        match = play_local(
            "liars_dice", [RandomLiarsDiceBot, CfrLiarsDiceBot], seed=seed, rules=RULES
        )
        assert all(e.policy is not None for e in match.events if isinstance(e, ActionEvent))
        lucky = luck("liars_dice", PARSED, 2, match.events, baseline=baseline)
        places = list(match.outcome.places)
        for seat in (0, 1):
            adjusted = pair_points(places, seat) - lucky[seat]
            expected = root if seat == 0 else 1.0 - root
            assert math.isclose(adjusted, expected, abs_tol=1e-9), (seed, seat, adjusted)
        scores.append(pair_points(places, 0))
    assert len(set(scores)) == 2  # the raw scores did vary: both seats won some


def test_without_the_action_terms_the_adjusted_scores_vary(values: PolicyValues) -> None:
    baseline = PolicyBaseline(values)
    root = values(GAME.new_game(PARSED, 2))
    off = []
    for seed in range(10):
        match = play_local(
            "liars_dice", [RandomLiarsDiceBot, CfrLiarsDiceBot], seed=seed, rules=RULES
        )
        chance_only = [
            ActionEvent(e.seat, e.action) if isinstance(e, ActionEvent) else e for e in match.events
        ]
        lucky = luck("liars_dice", PARSED, 2, chance_only, baseline=baseline)
        off.append(abs(pair_points(list(match.outcome.places), 0) - lucky[0] - root))
    assert max(off) > 0.05


def test_action_terms_have_mean_zero_under_the_stated_policy(values: PolicyValues) -> None:
    baseline = PolicyBaseline(values)
    match = play_local("liars_dice", PAIR, seed=3, rules=RULES)
    rows = action_corrections("liars_dice", PARSED, 2, match.events, baseline=baseline)
    assert rows and all(abs(a + b) < 1e-12 for a, b in rows)  # zero-sum pair scores
