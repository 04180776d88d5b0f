"""Liar's Poker Dice: hand-checked rule examples, information, errors."""

from __future__ import annotations

import random

import pytest

from referee.gamekit.base import (
    CHANCE,
    ChanceError,
    DiceRoll,
    IllegalActionError,
    MalformedActionError,
    RulesError,
)
from referee.gamekit.poker_dice import TOP_HAND, Category, Hand
from referee.games.liars_poker_dice.engine import (
    LIARS_POKER_DICE as GAME,
)
from referee.games.liars_poker_dice.engine import (
    Accept,
    Challenge,
    Declare,
    Phase,
    Reroll,
    State,
    StepKind,
)

PAIR_3 = Hand(Category.ONE_PAIR, (3,))
PAIR_6 = Hand(Category.ONE_PAIR, (6,))
THREE_4 = Hand(Category.THREE_OF_A_KIND, (4,))
FULL_4_2 = Hand(Category.FULL_HOUSE, (4, 2))


def opened(rules: dict[str, str] | None = None, dice: tuple[int, ...] = (3, 3, 5, 4, 1)) -> State:
    """Seat 0 wins the roll-off (22 vs 18) and rolls ``dice``."""
    state = GAME.new_game(GAME.parse_rules(rules or {}), 2)
    state = GAME.apply_chance(state, (6, 6, 6, 3, 1))  # seat 0: 22
    state = GAME.apply_chance(state, (5, 5, 5, 2, 1))  # seat 1: 18
    assert state.phase is Phase.ROLL and GAME.to_act(state) == CHANCE
    return GAME.apply_chance(state, dice)


def test_roll_off_higher_total_starts_and_ties_reroll() -> None:
    state = GAME.new_game(GAME.default_rules(), 2)
    assert GAME.to_act(state) == CHANCE
    assert GAME.chance_request(state) == DiceRoll(5)
    state = GAME.apply_chance(state, (1, 2, 3, 4, 5))
    state = GAME.apply_chance(state, (5, 4, 3, 2, 1))  # tie 15-15: roll again
    assert state.phase is Phase.ROLL_OFF and state.opener is None
    state = GAME.apply_chance(state, (1, 1, 1, 1, 2))  # seat 0: 6
    state = GAME.apply_chance(state, (1, 1, 1, 1, 3))  # seat 1: 7
    assert state.phase is Phase.ROLL and state.opener == 1 and state.holder == 1
    obs = GAME.observe(state, 0)
    assert obs.roll_off == ((1, 2, 3, 4, 5), (5, 4, 3, 2, 1), (1, 1, 1, 1, 2), (1, 1, 1, 1, 3))
    state = GAME.apply_chance(state, (2, 2, 2, 2, 2))
    assert GAME.to_act(state) == 1 and state.phase is Phase.DECLARE


def test_roll_off_22_beats_18() -> None:
    state = opened()
    assert state.opener == 0 and GAME.to_act(state) == 0


def test_opening_declaration_may_be_any_hand() -> None:
    state = opened()
    legal = GAME.legal_actions(GAME.observe(state, 0))
    assert len(legal) == 72 and Declare(TOP_HAND) in legal
    assert GAME.legal_actions(GAME.observe(state, 1)) == ()


def test_accept_reroll_and_strictly_higher() -> None:
    state = opened(dice=(3, 3, 5, 4, 1))
    state = GAME.apply_action(state, 0, Declare(PAIR_3))
    assert GAME.to_act(state) == 1
    assert set(GAME.legal_actions(GAME.observe(state, 1))) == {Challenge(), Accept()}
    state = GAME.apply_action(state, 1, Accept())
    assert state.holder == 1 and state.phase is Phase.REROLL and GAME.to_act(state) == 1
    assert GAME.observe(state, 1).dice == (3, 3, 5, 4, 1)
    assert len(GAME.legal_actions(GAME.observe(state, 1))) == 32
    state = GAME.apply_action(state, 1, Reroll((2, 3, 4)))
    assert GAME.to_act(state) == CHANCE and GAME.chance_request(state) == DiceRoll(3)
    state = GAME.apply_chance(state, (3, 2, 2))  # fills positions 2, 3, 4
    assert state.dice == (3, 3, 3, 2, 2) and state.phase is Phase.DECLARE
    obs = GAME.observe(state, 1)
    assert obs.last_reroll_count == 3
    legal = GAME.legal_actions(obs)
    assert Declare(PAIR_3) not in legal and Declare(Hand(Category.ONE_PAIR, (2,))) not in legal
    assert Declare(Hand(Category.ONE_PAIR, (4,))) in legal
    assert len(legal) == 72 - 1 - 3  # above pair of 3s: not high card, pairs of 1s..3s
    with pytest.raises(IllegalActionError, match="must be higher than pair of 3s"):
        GAME.apply_action(state, 1, Declare(PAIR_3))
    state = GAME.apply_action(state, 1, Declare(FULL_4_2))
    assert GAME.to_act(state) == 0 and GAME.observe(state, 0).last_reroll_count == 3
    kinds = [step.kind for step in state.steps]
    assert kinds == [
        StepKind.DECLARE,
        StepKind.ACCEPT,
        StepKind.REROLL,
        StepKind.DECLARE,
    ]


def test_reroll_nothing_skips_chance() -> None:
    state = opened()
    state = GAME.apply_action(state, 0, Declare(PAIR_3))
    state = GAME.apply_action(state, 1, Accept())
    state = GAME.apply_action(state, 1, Reroll(()))
    assert state.phase is Phase.DECLARE and GAME.to_act(state) == 1
    assert state.steps[-1].kind is StepKind.REROLL and state.steps[-1].count == 0


def test_min_reroll_option() -> None:
    state = opened({"min_reroll": "2"})
    state = GAME.apply_action(state, 0, Declare(PAIR_3))
    state = GAME.apply_action(state, 1, Accept())
    legal = GAME.legal_actions(GAME.observe(state, 1))
    assert all(isinstance(a, Reroll) and len(a.positions) >= 2 for a in legal)
    assert len(legal) == 32 - 1 - 5
    with pytest.raises(IllegalActionError, match="at least 2"):
        GAME.apply_action(state, 1, Reroll((0,)))
    GAME.apply_action(state, 1, Reroll((0, 4)))


def test_top_hand_must_be_challenged() -> None:
    state = opened(dice=(6, 6, 6, 6, 6))
    state = GAME.apply_action(state, 0, Declare(TOP_HAND))
    assert GAME.legal_actions(GAME.observe(state, 1)) == (Challenge(),)
    with pytest.raises(IllegalActionError, match="must be challenged"):
        GAME.apply_action(state, 1, Accept())
    state = GAME.apply_action(state, 1, Challenge())
    assert state.chips == (3, 2)  # five 6s was true: the challenger pays


def test_challenge_false_declaration_declarer_pays_and_reopens() -> None:
    state = opened(dice=(3, 3, 5, 4, 1))
    state = GAME.apply_action(state, 0, Declare(THREE_4))
    state = GAME.apply_action(state, 1, Challenge())
    assert state.chips == (2, 3) and state.pot == 1
    assert state.rounds[-1].loser == 0 and state.rounds[-1].dice == (3, 3, 5, 4, 1)
    # the loser opens the next round with a fresh roll of all five dice
    assert state.phase is Phase.ROLL and state.opener == 0 and state.steps == ()
    assert GAME.chance_request(state) == DiceRoll(5)


def test_challenge_true_declaration_challenger_pays() -> None:
    state = opened(dice=(3, 3, 5, 4, 1))
    state = GAME.apply_action(state, 0, Declare(Hand(Category.ONE_PAIR, (2,))))  # lower: true
    state = GAME.apply_action(state, 1, Challenge())
    assert state.chips == (3, 2) and state.rounds[-1].loser == 1
    assert state.opener == 1 and state.holder == 1


def test_challenge_after_accept_judges_the_rerolled_dice() -> None:
    state = opened(dice=(3, 3, 5, 4, 1))
    state = GAME.apply_action(state, 0, Declare(PAIR_3))
    state = GAME.apply_action(state, 1, Accept())
    state = GAME.apply_action(state, 1, Reroll((4,)))
    state = GAME.apply_chance(state, (3,))  # 3 3 5 4 3: three 3s
    state = GAME.apply_action(state, 1, Declare(THREE_4))  # a lie
    state = GAME.apply_action(state, 0, Challenge())
    assert state.chips == (3, 2) and state.rounds[-1].dice == (3, 3, 5, 4, 3)
    assert state.rounds[-1].loser == 1


def test_chips_run_out_and_the_game_ends() -> None:
    state = opened({"chips": "1"})
    state = GAME.apply_action(state, 0, Declare(THREE_4))
    state = GAME.apply_action(state, 1, Challenge())
    assert GAME.is_terminal(state) and state.phase is Phase.GAME_OVER
    assert state.winner == 1
    outcome = GAME.outcome(state)
    assert outcome.places == (2, 1) and outcome.scores == (0.0, 1.0)
    obs = GAME.observe(state, 0)
    assert obs.winner == 1 and obs.actor is None and obs.rounds[-1].dice == (3, 3, 5, 4, 1)
    assert GAME.legal_actions(obs) == ()


def test_provisional_standings_by_chips() -> None:
    state = opened()
    assert GAME.standings(state).places == (1, 1)
    state = GAME.apply_action(state, 0, Declare(THREE_4))
    state = GAME.apply_action(state, 1, Challenge())
    assert GAME.standings(state).places == (2, 1)
    assert GAME.standings(state).scores == (2.0, 3.0)


def test_what_each_seat_sees() -> None:
    state = opened(dice=(3, 3, 5, 4, 1))
    assert GAME.observe(state, 0).dice == (3, 3, 5, 4, 1)
    assert GAME.observe(state, 1).dice == ()
    state = GAME.apply_action(state, 0, Declare(PAIR_3))
    assert GAME.observe(state, 0).dice == (3, 3, 5, 4, 1)  # still the holder
    assert GAME.observe(state, 1).dice == ()
    state = GAME.apply_action(state, 1, Accept())
    assert GAME.observe(state, 0).dice == ()  # passed on: no longer visible
    assert GAME.observe(state, 1).dice == (3, 3, 5, 4, 1)
    state = GAME.apply_action(state, 1, Reroll((0, 1)))
    mine, theirs = GAME.observe(state, 1), GAME.observe(state, 0)
    assert mine.reroll_positions == (0, 1) and theirs.reroll_positions == ()
    assert theirs.steps[-1].count == 2  # the count is public
    state = GAME.apply_chance(state, (6, 6))
    assert GAME.observe(state, 1).dice == (6, 6, 5, 4, 1)
    assert GAME.observe(state, 0).dice == ()
    # the previous holder's view does not depend on the hidden dice at all
    other = GAME.perturb_hidden(state, 0, random.Random(1))
    assert other.dice != state.dice
    assert GAME.observe(other, 0) == GAME.observe(state, 0)
    assert GAME.perturb_hidden(state, 1, random.Random(1)) == state


def test_errors_are_typed_and_name_the_input() -> None:
    state = opened()
    obs = GAME.observe(state, 0)
    with pytest.raises(MalformedActionError, match="'bid'"):
        GAME.check_action(obs, "bid")
    with pytest.raises(MalformedActionError, match="not a poker-dice hand"):
        GAME.check_action(obs, Declare(Hand(Category.FULL_HOUSE, (3, 3))))
    with pytest.raises(IllegalActionError, match="cannot re-roll"):
        GAME.check_action(obs, Reroll((0,)))
    with pytest.raises(IllegalActionError, match="challenge"):
        GAME.check_action(obs, Challenge())
    with pytest.raises(IllegalActionError, match="not seat 1's turn"):
        GAME.check_action(GAME.observe(state, 1), Declare(PAIR_3))
    with pytest.raises(IllegalActionError, match="not its turn"):
        GAME.apply_action(state, 1, Declare(PAIR_3))
    state = GAME.apply_action(state, 0, Declare(PAIR_3))
    state = GAME.apply_action(state, 1, Accept())
    obs = GAME.observe(state, 1)
    with pytest.raises(MalformedActionError, match=r"\(5,\)"):
        GAME.check_action(obs, Reroll((5,)))
    with pytest.raises(MalformedActionError, match="distinct"):
        GAME.check_action(obs, Reroll((1, 1)))
    with pytest.raises(MalformedActionError, match="distinct"):
        GAME.check_action(obs, Reroll((2, 1)))
    with pytest.raises(ChanceError):
        GAME.apply_chance(state, (1, 2, 3, 4, 5))
    with pytest.raises(ChanceError, match="not a roll of 5d6"):
        GAME.apply_chance(GAME.new_game(GAME.default_rules(), 2), (1, 2, 3))


def test_rules_and_seats() -> None:
    assert GAME.default_rules().chips == 3 and GAME.default_rules().min_reroll == 0
    assert GAME.format_rules(GAME.default_rules()) == {"chips": "3", "min_reroll": "0"}
    with pytest.raises(RulesError, match=r"2\.\.2 seats"):
        GAME.new_game(GAME.default_rules(), 3)
    with pytest.raises(RulesError, match="min_reroll"):
        GAME.parse_rules({"min_reroll": "6"})
    with pytest.raises(RulesError, match="chips"):
        GAME.parse_rules({"chips": "0"})
