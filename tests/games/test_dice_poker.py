"""Dice Poker: hand-checked scorecard lines, bonuses, joker rule, turn structure."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from referee.gamekit.base import (
    CHANCE,
    ChanceError,
    DiceRoll,
    IllegalActionError,
    MalformedActionError,
    RulesError,
)
from referee.games.dice_poker.engine import (
    DICE_POKER as GAME,
)
from referee.games.dice_poker.engine import (
    LOWER_LINES,
    UPPER_LINES,
    Line,
    Phase,
    Reroll,
    Score,
    Scorecard,
    State,
    is_joker,
    line_points,
    score_options,
)


@pytest.mark.parametrize(
    ("line", "dice", "points"),
    [
        (Line.ACES, (1, 1, 3, 4, 1), 3),
        (Line.TWOS, (2, 5, 2, 6, 1), 4),
        (Line.THREES, (3, 3, 3, 3, 2), 12),
        (Line.FOURS, (1, 2, 3, 5, 6), 0),
        (Line.FIVES, (5, 5, 1, 2, 5), 15),
        (Line.SIXES, (6, 6, 6, 6, 6), 30),
        (Line.PAIR, (4, 4, 1, 2, 6), 17),
        (Line.PAIR, (1, 2, 3, 4, 6), 0),
        (Line.PAIR, (5, 5, 5, 5, 5), 25),  # five equal count as a pair
        (Line.TWO_PAIR, (3, 3, 5, 5, 1), 17),
        (Line.TWO_PAIR, (3, 3, 3, 5, 5), 19),  # a full house holds two pairs
        (Line.TWO_PAIR, (3, 3, 3, 3, 5), 0),  # four of a kind is one face only
        (Line.TWO_PAIR, (4, 4, 4, 4, 4), 0),  # five equal: not two pair (no joker)
        (Line.THREE_OF_A_KIND, (2, 2, 2, 6, 5), 17),
        (Line.THREE_OF_A_KIND, (2, 2, 6, 6, 5), 0),
        (Line.THREE_OF_A_KIND, (6, 6, 6, 6, 6), 30),
        (Line.FOUR_OF_A_KIND, (4, 4, 4, 4, 1), 17),
        (Line.FOUR_OF_A_KIND, (4, 4, 4, 1, 1), 0),
        (Line.FULL_HOUSE, (2, 2, 5, 5, 5), 25),
        (Line.FULL_HOUSE, (5, 5, 5, 5, 5), 0),  # needs two different faces
        (Line.FULL_HOUSE, (2, 2, 5, 5, 6), 0),
        (Line.SMALL_STRAIGHT, (1, 2, 3, 4, 6), 30),
        (Line.SMALL_STRAIGHT, (3, 4, 5, 6, 6), 30),
        (Line.SMALL_STRAIGHT, (2, 3, 4, 5, 6), 30),
        (Line.SMALL_STRAIGHT, (1, 2, 3, 5, 6), 0),
        (Line.LARGE_STRAIGHT, (5, 4, 3, 2, 1), 40),
        (Line.LARGE_STRAIGHT, (2, 3, 4, 5, 6), 40),
        (Line.LARGE_STRAIGHT, (1, 2, 3, 4, 6), 0),
        (Line.POKER, (3, 3, 3, 3, 3), 50),
        (Line.POKER, (3, 3, 3, 3, 2), 0),
        (Line.CHANCE, (1, 2, 3, 4, 6), 16),
    ],
)
def test_every_line_hand_checked(line: Line, dice: tuple[int, ...], points: int) -> None:
    assert line_points(line, dice) == points


def card(**lines: int) -> Scorecard:
    values: list[int | None] = [None] * 15
    for name, points in lines.items():
        values[Line[name.upper()] - 1] = points
    return Scorecard(lines=tuple(values))


def test_upper_bonus_threshold_inclusive_and_strict() -> None:
    exactly = card(aces=3, twos=6, threes=9, fours=12, fives=15, sixes=18)
    assert exactly.upper_total == 63
    assert exactly.upper_bonus(inclusive=True) == 35
    assert exactly.upper_bonus(inclusive=False) == 0
    assert exactly.total(inclusive=True) == 98
    assert exactly.total(inclusive=False) == 63
    below = card(aces=2, twos=6, threes=9, fours=12, fives=15, sixes=18)
    assert below.upper_bonus(inclusive=True) == 0
    above = card(aces=4, twos=6, threes=9, fours=12, fives=15, sixes=18)
    assert above.upper_bonus(inclusive=False) == 35


def test_option_reaches_the_outcome() -> None:
    strict = GAME.parse_rules({"upper_bonus_inclusive": "false"})
    assert GAME.parse_rules({}).upper_bonus_inclusive is True
    exactly = card(aces=3, twos=6, threes=9, fours=12, fives=15, sixes=18)
    state = State(rules=strict, phase=Phase.ROLL, cards=(exactly,))
    assert GAME.standings(state).scores == (63.0,)
    state = replace(state, rules=GAME.default_rules())
    assert GAME.standings(state).scores == (98.0,)


POKER_50 = card(poker=50)


def test_joker_goes_into_its_upper_line_when_empty() -> None:
    assert is_joker(POKER_50, (4, 4, 4, 4, 4))
    assert score_options(POKER_50, (4, 4, 4, 4, 4)) == {Line.FOURS: 20}


def test_joker_any_empty_lower_line_at_full_value() -> None:
    c = replace(POKER_50.filled(Line.FOURS, 8), extra_pokers=0)
    options = score_options(c, (4, 4, 4, 4, 4))
    assert options == {
        Line.PAIR: 20,
        Line.TWO_PAIR: 20,
        Line.THREE_OF_A_KIND: 20,
        Line.FOUR_OF_A_KIND: 20,
        Line.FULL_HOUSE: 25,
        Line.SMALL_STRAIGHT: 30,
        Line.LARGE_STRAIGHT: 40,
        Line.CHANCE: 20,
    }
    c = c.filled(Line.LARGE_STRAIGHT, 0).filled(Line.CHANCE, 22)
    assert set(score_options(c, (4, 4, 4, 4, 4))) == set(options) - {
        Line.LARGE_STRAIGHT,
        Line.CHANCE,
    }


def test_joker_zero_in_an_upper_line_when_lower_is_full() -> None:
    c = POKER_50.filled(Line.FOURS, 12)
    for line in LOWER_LINES:
        if c.is_open(line):
            c = c.filled(line, 0)
    c = c.filled(Line.ACES, 2)
    options = score_options(c, (4, 4, 4, 4, 4))
    assert options == {Line.TWOS: 0, Line.THREES: 0, Line.FIVES: 0, Line.SIXES: 0}


def test_joker_earns_100_and_is_forced_in_play() -> None:
    state = State(rules=GAME.default_rules(), phase=Phase.CHOOSE, cards=(POKER_50,))
    state = replace(state, dice=(4, 4, 4, 4, 4), rolls=1)
    obs = GAME.observe(state, 0)
    assert [a for a in GAME.legal_actions(obs) if isinstance(a, Score)] == [Score(Line.FOURS)]
    with pytest.raises(IllegalActionError, match="joker must go into Fours"):
        GAME.apply_action(state, 0, Score(Line.CHANCE))
    after = GAME.apply_action(state, 0, Score(Line.FOURS))
    assert after.cards[0].get(Line.FOURS) == 20 and after.cards[0].extra_pokers == 1
    assert GAME.standings(after).scores == (170.0,)


def test_poker_holding_zero_means_no_joker_and_free_choice() -> None:
    c = card(poker=0)
    assert not is_joker(c, (4, 4, 4, 4, 4))
    options = score_options(c, (4, 4, 4, 4, 4))
    assert options[Line.FULL_HOUSE] == 0 and options[Line.TWO_PAIR] == 0
    assert options[Line.SIXES] == 0 and len(options) == 14
    state = State(rules=GAME.default_rules(), phase=Phase.CHOOSE, cards=(c,))
    state = GAME.apply_action(replace(state, dice=(4, 4, 4, 4, 4), rolls=1), 0, Score(Line.SIXES))
    assert state.cards[0].extra_pokers == 0 and state.cards[0].get(Line.SIXES) == 0


def test_first_poker_is_no_bonus() -> None:
    assert not is_joker(Scorecard(), (4, 4, 4, 4, 4))
    assert score_options(Scorecard(), (4, 4, 4, 4, 4))[Line.POKER] == 50


def test_three_roll_limit_and_reroll_chance() -> None:
    state = GAME.new_game(GAME.default_rules(), 2)
    assert GAME.to_act(state) == CHANCE and GAME.chance_request(state) == DiceRoll(5)
    state = GAME.apply_chance(state, (1, 2, 3, 4, 5))
    assert GAME.to_act(state) == 0 and state.rolls == 1
    assert len(GAME.legal_actions(GAME.observe(state, 0))) == 31 + 15
    state = GAME.apply_action(state, 0, Reroll((0, 4)))
    assert GAME.chance_request(state) == DiceRoll(2)
    assert GAME.observe(state, 1).reroll_positions == (0, 4)
    state = GAME.apply_chance(state, (6, 6))
    assert state.dice == (6, 2, 3, 4, 6) and state.rolls == 2
    state = GAME.apply_chance(GAME.apply_action(state, 0, Reroll((1, 2, 3))), (6, 6, 5))
    assert state.dice == (6, 6, 6, 5, 6) and state.rolls == 3
    obs = GAME.observe(state, 0)
    assert all(isinstance(a, Score) for a in GAME.legal_actions(obs))
    with pytest.raises(IllegalActionError, match="all 3 rolls are used"):
        GAME.check_action(obs, Reroll((0,)))
    state = GAME.apply_action(state, 0, Score(Line.FOUR_OF_A_KIND))
    assert state.cards[0].get(Line.FOUR_OF_A_KIND) == 29
    assert state.current == 1 and state.phase is Phase.ROLL and state.dice == ()


def test_stop_early_and_line_filled_once() -> None:
    state = GAME.apply_chance(GAME.new_game(GAME.default_rules(), 1), (2, 2, 3, 3, 3))
    state = GAME.apply_action(state, 0, Score(Line.FULL_HOUSE))
    assert state.cards[0].get(Line.FULL_HOUSE) == 25 and state.turn == 2
    state = GAME.apply_chance(state, (2, 2, 3, 3, 3))
    with pytest.raises(IllegalActionError, match="already filled"):
        GAME.apply_action(state, 0, Score(Line.FULL_HOUSE))


def test_fifteen_turns_each_then_ties_share() -> None:
    state = GAME.new_game(GAME.default_rules(), 2)
    turns = 0
    while not GAME.is_terminal(state):
        state = GAME.apply_chance(state, (1, 2, 3, 4, 6))
        seat = GAME.to_act(state)
        assert seat is not None
        line = GAME.observe(state, seat).my_card.open_lines[0]
        state = GAME.apply_action(state, seat, Score(line))
        turns += 1
    assert turns == 30 and state.turn == 15
    assert all(not c.open_lines for c in state.cards)
    outcome = GAME.outcome(state)
    assert outcome.places == (1, 1) and outcome.scores[0] == outcome.scores[1]
    # 1+2+3+4+6 (upper) + pair/two pair/3k/4k/fh 0 + ss 30 + ls 0 + poker 0 + chance 16
    assert outcome.scores == (62.0, 62.0)
    obs = GAME.observe(state, 1)
    assert obs.phase is Phase.GAME_OVER and obs.current is None
    assert GAME.legal_actions(obs) == ()


def test_provisional_standings_by_points() -> None:
    state = State(
        rules=GAME.default_rules(),
        phase=Phase.ROLL,
        cards=(card(chance=20), card(chance=25), card(chance=20)),
    )
    assert GAME.standings(state).places == (2, 1, 2)


def test_nothing_hidden() -> None:
    state = GAME.apply_chance(GAME.new_game(GAME.default_rules(), 3), (1, 2, 3, 4, 6))
    assert GAME.perturb_hidden(state, 1, random.Random(0)) is state
    assert GAME.observe(state, 1).dice == (1, 2, 3, 4, 6)
    assert GAME.observe(state, 2).cards == GAME.observe(state, 0).cards


def test_errors_are_typed_and_name_the_input() -> None:
    state = GAME.apply_chance(GAME.new_game(GAME.default_rules(), 2), (1, 2, 3, 4, 6))
    obs = GAME.observe(state, 0)
    with pytest.raises(MalformedActionError, match="'score'"):
        GAME.check_action(obs, "score")
    with pytest.raises(MalformedActionError, match="at least one die"):
        GAME.check_action(obs, Reroll(()))
    with pytest.raises(MalformedActionError, match=r"\(7,\)"):
        GAME.check_action(obs, Reroll((7,)))
    with pytest.raises(MalformedActionError, match="not a scorecard line"):
        GAME.check_action(obs, Score(16))  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="not seat 1's turn"):
        GAME.check_action(GAME.observe(state, 1), Score(Line.CHANCE))
    with pytest.raises(ChanceError):
        GAME.apply_chance(state, (1, 2, 3, 4, 5))
    with pytest.raises(RulesError, match=r"1\.\.8 seats"):
        GAME.new_game(GAME.default_rules(), 9)
    with pytest.raises(RulesError, match="upper_bonus_inclusive"):
        GAME.parse_rules({"upper_bonus_inclusive": "maybe"})


def test_upper_lines_are_the_first_six() -> None:
    assert [int(x) for x in UPPER_LINES] == [1, 2, 3, 4, 5, 6]
    assert len(LOWER_LINES) == 9
