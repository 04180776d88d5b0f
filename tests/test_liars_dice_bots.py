"""The example Liar's Dice bots play complete in-process matches."""

from __future__ import annotations

from typing import Any

import pytest

from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from example_bots.liars_dice_random import RandomLiarsDiceBot
from referee.core.events import ActionEvent
from referee.games.liars_dice.engine import Observation
from sdk.bot import MatchResult
from sdk.liars_dice import is_legal
from sdk.local import BotFactory, play_local


class CheckingProbabilityBot(ProbabilityLiarsDiceBot):
    """Records every observation and the final result, and checks its own moves."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Observation] = []
        self.result: MatchResult | None = None

    def act(self, observation: Observation) -> Any:
        action = super().act(observation)
        assert is_legal(observation, action)
        self.seen.append(observation)
        return action

    def end(self, result: MatchResult) -> None:
        self.result = result


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"wild_face": "1", "raise_rule": "reset-face"},
        {"wild_face": "6", "raise_rule": "quantity-or-face", "roll_off": "false"},
        {"dice_per_player": "1"},
        {"one_round": "true", "sum_endgame": "false"},
    ],
)
def test_bots_finish_matches(rules: dict[str, str]) -> None:
    bots: list[BotFactory] = [ProbabilityLiarsDiceBot, RandomLiarsDiceBot, RandomLiarsDiceBot]
    match = play_local("liars_dice", bots, seed=3, rules=rules)
    assert sorted(match.outcome.places)[0] == 1
    assert any(isinstance(event, ActionEvent) for event in match.events)


def test_matches_are_deterministic_per_seed() -> None:
    bots: list[BotFactory] = [RandomLiarsDiceBot, ProbabilityLiarsDiceBot]
    first = play_local("liars_dice", bots, seed=11)
    again = play_local("liars_dice", bots, seed=11)
    other = play_local("liars_dice", bots, seed=12)
    assert first == again
    assert other.events != first.events


def test_probability_bot_sees_only_legal_choices_and_gets_the_result() -> None:
    holder: list[CheckingProbabilityBot] = []

    def factory() -> CheckingProbabilityBot:
        bot = CheckingProbabilityBot()
        holder.append(bot)
        return bot

    match = play_local("liars_dice", [factory, RandomLiarsDiceBot], seed=5)
    (bot,) = holder
    assert bot.seen
    assert all(observation.seat == 0 for observation in bot.seen)
    assert bot.result is not None
    assert bot.result.observation.phase == "over"
    assert bot.result.results[0].place == match.outcome.places[0]


def test_probability_bot_beats_random_bot() -> None:
    wins = 0
    matches = 40
    for index in range(matches):
        seat = index % 2
        bots: list[BotFactory] = [RandomLiarsDiceBot, RandomLiarsDiceBot]
        bots[seat] = ProbabilityLiarsDiceBot
        match = play_local("liars_dice", bots, seed=1000 + index)
        wins += match.outcome.places[seat] == 1
    assert wins >= 36
