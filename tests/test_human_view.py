"""What a person in a seat reads (sdk.human): every observation field as text
(observation_lines), with a game's own words where plain text does not read (counts per
Cockroach Poker kind, a Dice Poker scorecard by line), and nothing but the
observation's fields; and, in the game's own notation (issue 43, item 2), the rules in
force, the holding, the other seats' moves in words, the legal moves in short, and a
move typed as the game writes it."""

from __future__ import annotations

import dataclasses
import importlib
import json
import random
from typing import Any

import pytest

from referee.core.catalogue import game_names, get_entry, get_game
from referee.core.playout import random_playout
from referee.gamekit.base import NotAMove
from referee.gamekit.cards import KINDS
from sdk.bot import Bot
from sdk.human import (
    HIDDEN_FIELDS,
    Departure,
    Resigned,
    SeatView,
    human_seat_factory,
    observation_lines,
    value_text,
)
from sdk.local import play_local
from tests.bots.always_challenge import AlwaysChallengeBot as AlwaysChallenge


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


class Typist:
    """An :class:`~sdk.human.Asker` that types each move as the game writes it (the
    last legal one), keeping every view it was shown."""

    def __init__(self) -> None:
        self.views: list[SeatView] = []
        self.final: SeatView | None = None

    def ask(self, view: SeatView) -> int:
        self.views.append(view)
        game = get_game(view.game)
        return view.parse(game.write_move(view.actions[-1], view.observation))

    def tell(self, view: SeatView) -> None:
        self.final = view

    def close(self) -> None:
        pass


@pytest.mark.parametrize("name", sorted(game_names()))
def test_a_persons_views_carry_the_games_own_words(name: str) -> None:
    """Every view of a person's seat: the rules in force, the holding, the other seats'
    moves in words (from the engine, from the two observations), the legal moves in
    short; its JSON leaves the observations and actions out; a move typed as the game
    writes it is the index of that move."""
    game = get_game(name)
    roster = get_entry(name).roster
    if roster is None:
        pytest.skip(f"{name} has no example bots")
    typist = Typist()
    seats = max(2, game.min_seats)
    module = importlib.import_module(f"example_bots.{roster.random}")
    random_bot = next(
        v for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, Bot) and v is not Bot and v.game == name
    )  # fmt: skip
    bots: list[Any] = [human_seat_factory(name, typist), *[random_bot] * (seats - 1)]
    play_local(name, bots, seed=3)
    assert typist.views and typist.final is not None and typist.final.over
    previous = None
    for view in typist.views:
        assert view.rules == game.rules_summary(game.default_rules(), seats)
        assert view.holding == (game.holding(view.observation) or view.lines)
        assert view.announced == game.announce_news(previous, view.observation, 0)
        assert view.summary == game.move_summary(view.observation)
        assert len(view.actions) == len(view.choices)
        encoded = json.dumps(view.to_json())
        assert "actions" not in view.to_json() and view.title in encoded
        previous = view.observation
    assert any(line.startswith("seat 1") for v in typist.views for line in v.announced)


def test_numbers_from_the_list_and_refusals() -> None:
    typist = Typist()
    play_local("liars_dice", [human_seat_factory("liars_dice", typist), AlwaysChallenge], seed=1)
    view = typist.views[0]
    assert view.parse("#1") == 0 and view.parse(f"#{len(view.choices)}") == len(view.choices) - 1
    with pytest.raises(NotAMove, match="no move #0"):
        view.parse("#0")
    with pytest.raises(NotAMove, match="QUANTITY FACE"):
        view.parse("seven")


def test_a_resignation_is_told_to_the_seats_departure() -> None:
    class Quitter(Typist):
        def ask(self, view: SeatView) -> int:
            raise Resigned("typed q")

    departure = Departure()
    seat = human_seat_factory("liars_dice", Quitter(), departure)()
    with pytest.raises(Resigned):
        play_local("liars_dice", [lambda: seat, AlwaysChallenge], seed=1)
    assert departure.resigned and departure.words == "typed q"
