"""What a person in a seat reads (sdk.human.observation_lines): every observation
field as text, with a game's own words where plain text does not read (counts per
Cockroach Poker kind, a Dice Poker scorecard by line), and nothing but the
observation's fields."""

from __future__ import annotations

import dataclasses
import random

import pytest

from referee.core.catalogue import game_names, get_game
from referee.core.playout import random_playout
from referee.gamekit.cards import KINDS
from sdk.human import HIDDEN_FIELDS, observation_lines, value_text


def middle_observation(name: str, seat: int = 0) -> object:
    game = get_game(name)
    playout = random_playout(game, game.default_rules(), 2, random.Random(5))
    return game.observe(playout.states[len(playout.states) // 2], seat)


@pytest.mark.parametrize("name", sorted(game_names()))
def test_one_line_per_observation_field_but_seat_and_rules(name: str) -> None:
    observation = middle_observation(name)
    lines = observation_lines(observation)
    fields = [f.name for f in dataclasses.fields(observation) if f.name not in HIDDEN_FIELDS]  # type: ignore[arg-type]
    assert [line.split(": ", 1)[0] for line in lines] == [f.replace("_", " ") for f in fields]


def test_a_cockroach_poker_hand_names_its_kinds() -> None:
    observation = middle_observation("cockroach_poker")
    hand = observation.hand  # type: ignore[attr-defined]
    line = next(line for line in observation_lines(observation) if line.startswith("hand: "))
    expected = [f"{count} {kind.label}" for kind, count in zip(KINDS, hand, strict=True) if count]
    assert line == "hand: " + ", ".join(expected)
    assert value_text(hand) == " ".join(map(str, hand))  # the plain text it replaces


def test_a_dice_poker_scorecard_names_its_lines() -> None:
    observation = middle_observation("dice_poker")
    line = next(line for line in observation_lines(observation) if line.startswith("cards: "))
    assert "lines aces " in line and ", chance " in line and "full house " in line
    card = observation.cards[0]  # type: ignore[attr-defined]
    chance = card.lines[-1]
    assert f"chance {'-' if chance is None else chance}" in line


def test_cards_and_poker_dice_hands_read_as_the_game_writes_them() -> None:
    poker = observation_lines(middle_observation("liars_poker"))
    hand = next(line for line in poker if line.startswith("hand: "))
    assert "rank" not in hand and "suit" not in hand  # "As; Qd; ..." not (rank 14, suit 4)
    dice = observation_lines(middle_observation("liars_poker_dice"))
    assert not any("category" in line for line in dice)
