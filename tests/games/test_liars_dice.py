"""Hand-checked examples for every Liar's Dice rule and option."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import pytest

from arena.v1 import bot_pb2, liars_dice_pb2
from referee.core.catalogue import get_codec, get_game
from referee.gamekit.base import (
    CHANCE,
    ChanceError,
    DiceRoll,
    GameError,
    IllegalActionError,
    MalformedActionError,
    Outcome,
    RulesError,
)
from referee.games.liars_dice.codec import LiarsDiceCodec
from referee.games.liars_dice.engine import (
    LIARS_DICE,
    Action,
    Bid,
    Challenge,
    PlacedBid,
    RollOffRoll,
    Rules,
    State,
    SumBid,
)
from referee.records.record import MatchRecord
from referee.records.replay import verify
from referee.wire.base import MalformedObservationError
from sdk.liars_dice import bid_probability, is_legal, legal_actions

G = LIARS_DICE
SEAT0 = (1, 1, 3, 4, 5)
SEAT1 = (3, 3, 6, 2, 1)


def make_rules(**options: str | bool | int) -> Rules:
    """Rules with the roll-off off unless asked for, so seat 0 opens round 1."""
    return G.parse_rules({"roll_off": False, **options})


def start(seats: int = 2, **options: str | bool | int) -> State:
    return G.new_game(make_rules(**options), seats)


def roll(state: State, *hands: Sequence[int]) -> State:
    assert G.to_act(state) == CHANCE
    return G.apply_chance(state, [die for hand in hands for die in hand])


def play(state: State, *actions: object) -> State:
    for action in actions:
        actor = G.to_act(state)
        assert actor is not None and actor >= 0, state.phase
        state = G.apply_action(state, actor, action)
    return state


def rolled(seats: int = 2, *hands: Sequence[int], **options: str | bool | int) -> State:
    return roll(start(seats, **options), *hands)


# ---------------------------------------------------------------------------
# registry and options


def test_registered_with_static_facts() -> None:
    assert get_game("liars_dice") is G
    assert (G.name, G.title, G.min_seats, G.max_seats) == ("liars_dice", "Liar's Dice", 2, 10)
    assert isinstance(get_codec("liars_dice"), LiarsDiceCodec)


def test_options_and_defaults() -> None:
    defaults = {option.name: option.default for option in G.options}
    assert defaults == {
        "dice_per_player": 5,
        "raise_rule": "same-face-or-same-quantity",
        "wild_face": "none",
        "wild_opening": "cancel",
        "sum_endgame": True,
        "one_round": False,
        "roll_off": True,
    }
    assert all(option.doc for option in G.options)
    assert G.default_rules() == Rules()
    # wild_opening came after records existed: left out at its default (see below).
    assert G.format_rules(Rules()) == {
        "dice_per_player": "5",
        "raise_rule": "same-face-or-same-quantity",
        "wild_face": "none",
        "sum_endgame": "true",
        "one_round": "false",
        "roll_off": "true",
    }
    custom = G.parse_rules({"wild_face": "6", "dice_per_player": "3", "one_round": "yes"})
    assert G.parse_rules(G.format_rules(custom)) == custom


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"dice_per_player": "0"}, "at least 1"),
        ({"dice_per_player": "11"}, "at most 10"),
        ({"raise_rule": "anything"}, "anything"),
        ({"wild_face": "2"}, "'2'"),
        ({"wild_opening": "ignore"}, "ignore"),
        ({"sum_endgame": "maybe"}, "maybe"),
        ({"wilds": "1"}, "wilds"),
    ],
)
def test_bad_options(raw: dict[str, str], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        G.parse_rules(raw)


def test_seat_counts() -> None:
    for seats in (1, 11):
        with pytest.raises(RulesError, match=str(seats)):
            G.new_game(Rules(), seats)
    with pytest.raises(RulesError, match="raise_rule"):
        G.new_game(Rules(raise_rule="nope"), 2)
    with pytest.raises(RulesError, match="wild_opening='maybe'"):
        G.new_game(Rules(wild_opening="maybe"), 2)


# ---------------------------------------------------------------------------
# who starts


def test_roll_off_highest_sum_starts() -> None:
    state = G.new_game(Rules(), 3)
    assert G.to_act(state) == CHANCE
    assert G.chance_request(state) == DiceRoll(6)
    assert G.observe(state, 1).opener is None
    state = G.apply_chance(state, [3, 4, 6, 6, 5, 1])
    assert state.opener == 1
    assert state.phase == "roll"
    assert state.roll_offs == (
        (RollOffRoll(0, (3, 4)), RollOffRoll(1, (6, 6)), RollOffRoll(2, (5, 1))),
    )
    assert G.chance_request(state) == DiceRoll(15)
    state = G.apply_chance(state, [2] * 15)
    assert G.to_act(state) == 1


def test_roll_off_tied_highest_reroll_among_themselves() -> None:
    state = G.new_game(Rules(), 3)
    state = G.apply_chance(state, [6, 5, 1, 1, 5, 6])
    assert state.phase == "roll-off"
    assert state.contenders == (0, 2)
    assert G.chance_request(state) == DiceRoll(4)
    observation = G.observe(state, 1)
    assert observation.roll_offs[0][2] == RollOffRoll(2, (5, 6))
    assert observation.to_act is None
    # Tied again: both roll again.
    state = G.apply_chance(state, [2, 2, 1, 3])
    assert state.contenders == (0, 2)
    state = G.apply_chance(state, [1, 2, 2, 2])
    assert state.opener == 2
    assert [tuple(r.seat for r in rolls) for rolls in state.roll_offs] == [
        (0, 1, 2),
        (0, 2),
        (0, 2),
    ]
    assert G.observe(state, 0).roll_offs == state.roll_offs
    assert G.describe_chance(G.new_game(Rules(), 2), [1, 2, 3, 4]) == (
        "roll-off: seat 0 rolls 1+2, seat 1 rolls 3+4"
    )


def test_without_roll_off_seat_zero_opens() -> None:
    state = start(3)
    assert state.phase == "roll"
    assert state.roll_offs == ()
    assert state.opener == 0
    state = roll(state, (1,) * 5, (2,) * 5, (3,) * 5)
    assert G.to_act(state) == 0


# ---------------------------------------------------------------------------
# a round


def test_round_roll_goes_to_active_seats_in_seat_order() -> None:
    state = rolled(2, SEAT0, SEAT1)
    assert state.hands == (SEAT0, SEAT1)
    assert G.observe(state, 0).own_dice == SEAT0
    assert G.observe(state, 1).own_dice == SEAT1
    assert G.describe_chance(start(2), SEAT0 + SEAT1) == (
        "round 1 roll: seat 0 1 1 3 4 5; seat 1 3 3 6 2 1"
    )


def test_play_goes_clockwise_and_observation_carries_bids() -> None:
    state = rolled(3, SEAT0, SEAT1, SEAT0)
    state = play(state, Bid(2, 3))
    assert G.to_act(state) == 1
    state = play(state, Bid(3, 3))
    assert G.to_act(state) == 2
    state = play(state, Bid(3, 5))
    assert G.to_act(state) == 0
    observation = G.observe(state, 0)
    assert observation.bids == (
        PlacedBid(0, Bid(2, 3)),
        PlacedBid(1, Bid(3, 3)),
        PlacedBid(2, Bid(3, 5)),
    )
    assert observation.last_bid == Bid(3, 5)
    assert observation.round_number == 1
    assert observation.opener == 0
    assert observation.total_dice == 15


# (rule, previous bid, new bid, legal)
RAISES = [
    ("same-face-or-same-quantity", Bid(7, 3), Bid(9, 3), True),
    ("same-face-or-same-quantity", Bid(7, 3), Bid(7, 4), True),
    ("same-face-or-same-quantity", Bid(7, 3), Bid(8, 4), False),
    ("same-face-or-same-quantity", Bid(7, 3), Bid(8, 2), False),
    ("same-face-or-same-quantity", Bid(7, 3), Bid(7, 2), False),
    ("same-face-or-same-quantity", Bid(7, 3), Bid(6, 3), False),
    ("same-face-or-same-quantity", Bid(7, 3), Bid(7, 3), False),
    ("quantity-or-face", Bid(7, 3), Bid(8, 1), True),
    ("quantity-or-face", Bid(7, 3), Bid(2, 4), True),
    ("quantity-or-face", Bid(7, 3), Bid(7, 4), True),
    ("quantity-or-face", Bid(7, 3), Bid(7, 2), False),
    ("quantity-or-face", Bid(7, 3), Bid(6, 2), False),
    ("quantity-or-face", Bid(7, 3), Bid(7, 3), False),
    ("reset-face", Bid(7, 3), Bid(8, 1), True),
    ("reset-face", Bid(7, 3), Bid(7, 4), True),
    ("reset-face", Bid(7, 3), Bid(6, 6), False),
    ("reset-face", Bid(7, 3), Bid(7, 2), False),
    ("reset-face", Bid(7, 3), Bid(7, 3), False),
]


@pytest.mark.parametrize(("rule", "previous", "bid", "legal"), RAISES)
def test_raise_rules(rule: str, previous: Bid, bid: Bid, legal: bool) -> None:
    state = play(rolled(2, SEAT0, SEAT1, raise_rule=rule), previous)
    observation = G.observe(state, 1)
    assert (bid in legal_actions(observation)) is legal
    assert is_legal(observation, bid) is legal
    if legal:
        play(state, bid)
    else:
        with pytest.raises(IllegalActionError, match=f"quantity={bid.quantity}, face={bid.face}"):
            G.apply_action(state, 1, bid)


def test_quantity_or_face_forbids_repeating_a_bid() -> None:
    state = rolled(2, SEAT0, SEAT1, raise_rule="quantity-or-face")
    state = play(state, Bid(1, 3), Bid(2, 2))
    # 1 x 3 would raise 2 x 2 (higher face) but was already bid this round.
    with pytest.raises(IllegalActionError, match="already bid"):
        G.apply_action(state, 0, Bid(1, 3))
    assert Bid(1, 3) not in legal_actions(G.observe(state, 0))
    state = play(state, Bid(1, 4))
    assert G.observe(state, 1).bids[-1] == PlacedBid(0, Bid(1, 4))


def test_exact_counts_of_legal_actions() -> None:
    # Ten dice on the table: 10 quantities x 6 faces to open, and no challenge.
    opening = legal_actions(G.observe(rolled(2, SEAT0, SEAT1), 0))
    assert len(opening) == 60
    assert Challenge() not in opening
    assert legal_actions(G.observe(rolled(2, SEAT0, SEAT1), 1)) == []
    counts = {}
    for rule in ("same-face-or-same-quantity", "quantity-or-face", "reset-face"):
        state = play(rolled(2, SEAT0, SEAT1, raise_rule=rule), Bid(3, 4))
        counts[rule] = len(legal_actions(G.observe(state, 1)))
    # same face 4..10 (7) + same quantity faces 5, 6 (2) + challenge
    # quantity 4..10 any face (42) + quantities 1..3 with faces 5, 6 (6) + challenge
    # quantity 4..10 any face (42) + same quantity faces 5, 6 (2) + challenge
    assert counts == {"same-face-or-same-quantity": 10, "quantity-or-face": 49, "reset-face": 45}


def test_quantity_is_capped_at_the_dice_on_the_table() -> None:
    state = rolled(2, (1, 2, 3), (4, 5, 6), dice_per_player=3)
    assert G.chance_request(start(2, dice_per_player=3)) == DiceRoll(6)
    assert state.dice_counts == (3, 3)
    with pytest.raises(IllegalActionError, match="above the 6 dice"):
        G.apply_action(state, 0, Bid(7, 2))
    assert max(a.quantity for a in legal_actions(G.observe(state, 0)) if isinstance(a, Bid)) == 6
    play(state, Bid(6, 2))


# ---------------------------------------------------------------------------
# challenges


def test_false_bid_costs_the_bidder_a_die_and_the_bidder_opens_next() -> None:
    state = play(rolled(2, SEAT0, SEAT1), Bid(4, 3), Challenge())
    # Only three 3s on the table: the bid was false, seat 0 (the bidder) loses.
    assert state.dice_counts == (4, 5)
    assert state.phase == "roll"
    assert state.opener == 0
    assert state.round_number == 2
    result = state.history[-1]
    assert (result.challenger, result.actual, result.bid_true, result.loser) == (1, 3, False, 0)
    assert result.dice == (SEAT0, SEAT1)
    assert not result.eliminated
    assert G.chance_request(state) == DiceRoll(9)
    state = roll(state, SEAT0[:4], SEAT1)
    assert G.to_act(state) == 0
    assert G.observe(state, 0).bids == ()


def test_true_bid_costs_the_challenger_a_die_and_the_challenger_opens_next() -> None:
    state = play(rolled(2, SEAT0, SEAT1), Bid(3, 3), Challenge())
    assert state.dice_counts == (5, 4)
    assert state.history[-1].bid_true
    assert state.history[-1].loser == 1
    assert state.opener == 1
    assert G.to_act(roll(state, SEAT0, SEAT1[:4])) == 1


def test_challenge_needs_a_bid() -> None:
    state = rolled(2, SEAT0, SEAT1)
    with pytest.raises(IllegalActionError, match="no bid to challenge"):
        G.apply_action(state, 0, Challenge())


# ---------------------------------------------------------------------------
# wild faces


@pytest.mark.parametrize(
    ("wild", "actual", "loser"),
    [("none", 3, 0), ("1", 6, 1), ("6", 4, 0)],
)
def test_wild_face_counts_for_other_faces(wild: str, actual: int, loser: int) -> None:
    state = rolled(2, SEAT0, SEAT1, wild_face=wild)
    assert state.wilds_active is (wild != "none")
    assert G.observe(state, 1).wilds_active is (wild != "none")
    state = play(state, Bid(5, 3), Challenge())
    assert state.history[-1].actual == actual
    assert state.history[-1].wilds_active is (wild != "none")
    assert state.history[-1].loser == loser


def test_opening_bid_on_the_wild_face_cancels_wilds_for_the_round() -> None:
    state = rolled(2, SEAT0, SEAT1, wild_face="1", raise_rule="reset-face")
    state = play(state, Bid(2, 1))
    assert not state.wilds_active
    assert not G.observe(state, 1).wilds_active
    # Without wilds only the three real 3s count, so 4 x 3 is false.
    state = play(state, Bid(4, 3), Challenge())
    assert state.history[-1].actual == 3
    assert not state.history[-1].wilds_active
    assert state.history[-1].loser == 1
    # The next round has wilds again.
    assert state.wilds_active


# The issue's example: with 6s wild, seat 0 holds {6} and seat 1 holds {3}; an
# opening "one 6" then "two 3s". OpenSpiel keeps wilds (the 6 counts as a 3: true);
# our traditional rule cancels them (only the real 3 counts: false).
OPENSPIEL_1DIE: dict[str, str | bool | int] = {
    "dice_per_player": 1,
    "raise_rule": "reset-face",
    "wild_face": "6",
    "sum_endgame": False,
    "one_round": True,
}


@pytest.mark.parametrize(
    ("wild_opening", "wilds", "actual", "true", "loser"),
    [("keep", True, 2, True, 0), ("cancel", False, 1, False, 1)],
)
def test_wild_opening_option_on_the_issue_example(
    wild_opening: str, wilds: bool, actual: int, true: bool, loser: int
) -> None:
    state = rolled(2, (6,), (3,), wild_opening=wild_opening, **OPENSPIEL_1DIE)
    state = play(state, Bid(1, 6))
    assert state.wilds_active is wilds
    assert G.observe(state, 1).wilds_active is wilds
    state = play(state, Bid(2, 3), Challenge())
    result = state.history[-1]
    assert (result.actual, result.bid_true, result.loser, result.wilds_active) == (
        actual,
        true,
        loser,
        wilds,
    )
    assert G.is_terminal(state)
    assert G.outcome(state).places == ((2, 1) if loser == 0 else (1, 2))


def test_wild_opening_keep_still_counts_only_real_dice_for_the_wild_face() -> None:
    state = rolled(2, SEAT0, SEAT1, wild_face="1", wild_opening="keep", raise_rule="reset-face")
    state = play(state, Bid(2, 1))
    assert state.wilds_active
    state = play(state, Bid(4, 1), Challenge())
    # Three real 1s: 4 x 1 is false even though wilds are active.
    assert state.history[-1].actual == 3
    assert state.history[-1].loser == 1


def test_wild_opening_keep_changes_nothing_for_other_openings() -> None:
    for wild_opening in ("cancel", "keep"):
        state = rolled(2, SEAT0, SEAT1, wild_face="1", wild_opening=wild_opening)
        state = play(state, Bid(5, 3), Challenge())
        assert state.history[-1].actual == 6
        assert state.history[-1].loser == 1


def test_wild_opening_round_trips_through_the_wire_rules() -> None:
    codec = LiarsDiceCodec()
    for wild_opening in ("cancel", "keep"):
        state = start(2, wild_face="6", wild_opening=wild_opening)
        observation = G.observe(state, 0)
        message = codec.encode_observation(observation)
        assert message.liars_dice.rules.wild_opening_keep is (wild_opening == "keep")
        assert codec.decode_observation(message) == observation
        assert G.parse_rules(G.format_rules(state.rules)) == state.rules


def test_later_bid_on_the_wild_face_counts_only_real_dice() -> None:
    state = rolled(2, SEAT0, SEAT1, wild_face="1", raise_rule="reset-face")
    state = play(state, Bid(2, 3), Bid(4, 1))
    assert state.wilds_active  # the opening bid was not on the wild face
    state = play(state, Challenge())
    # Three real 1s, and ones are not counted twice: 4 x 1 is false.
    assert state.history[-1].actual == 3
    assert state.history[-1].loser == 1


def test_wild_six() -> None:
    state = rolled(2, SEAT0, SEAT1, wild_face="6")
    state = play(state, Bid(2, 6), Bid(3, 6), Challenge())
    # The opening bid on 6 cancelled wilds; only one real 6 on the table.
    assert state.history[-1].actual == 1
    assert state.history[-1].loser == 1


# ---------------------------------------------------------------------------
# elimination, openers and placements


def test_eliminated_loser_is_followed_by_next_active_seat() -> None:
    state = rolled(3, (2,), (3,), (4,), dice_per_player=1)
    # Seat 0 bids 1 x 2, seat 1 bids 1 x 3 (true), seat 2 challenges and loses its only die.
    state = play(state, Bid(1, 2), Bid(1, 3), Challenge())
    assert state.history[-1].bid_true
    assert state.history[-1].loser == 2
    assert state.dice_counts == (1, 1, 0)
    assert state.eliminated == (2,)
    assert state.history[-1].eliminated
    # Seat 2 is out, so the next seat clockwise with dice (seat 0) opens.
    assert state.opener == 0
    assert G.chance_request(state) == DiceRoll(2)


def test_next_active_opener_skips_eliminated_seats() -> None:
    state = rolled(3, (2,), (3,), (4,), dice_per_player=1)
    state = play(state, Bid(1, 5), Challenge())  # seat 0 bid false: seat 0 is out
    assert state.eliminated == (0,)
    assert state.opener == 1
    assert state.sum_round  # two seats with one die each
    state = roll(state, (3,), (5,))
    assert G.to_act(state) == 1
    # After seat 2 bids, play passes seat 0 (out) and returns to seat 1.
    state = play(state, SumBid(4), SumBid(9))
    assert G.to_act(state) == 1
    assert state.bids[-1] == PlacedBid(2, SumBid(9))


def test_three_player_elimination_and_placements() -> None:
    state = rolled(3, (2, 2), (3, 3), (4, 4), dice_per_player=2)
    state = play(state, Bid(3, 2), Challenge())  # only two 2s: seat 0 loses one die
    assert G.standings(state) == Outcome(places=(3, 1, 1), scores=(1.0, 2.0, 2.0))
    state = roll(state, (6,), (3, 3), (4, 4))
    state = play(state, Bid(1, 6), Challenge())  # true: challenger seat 1 loses
    assert state.opener == 1
    assert G.standings(state) == Outcome(places=(2, 2, 1), scores=(1.0, 1.0, 2.0))
    assert state.eliminated == ()


def test_full_game_with_three_players() -> None:
    state = rolled(3, (2, 2), (3, 3), (4, 4), dice_per_player=2)
    state = play(state, Bid(3, 2), Challenge())  # false: seat 0 -> 1 die
    state = roll(state, (6,), (3, 3), (4, 4))
    state = play(state, Bid(2, 6), Challenge())  # false: seat 0 out
    assert state.eliminated == (0,)
    assert state.opener == 1  # next active after seat 0
    assert not G.is_terminal(state)
    assert G.standings(state) == Outcome(places=(3, 1, 1), scores=(0.0, 2.0, 2.0))
    state = roll(state, (3, 3), (4, 4))
    state = play(state, Bid(1, 4), Challenge())  # true: challenger seat 2 -> 1 die
    assert state.opener == 2
    state = roll(state, (5, 5), (1,))
    state = play(state, Bid(2, 1), Challenge())  # false: seat 2 out
    assert G.is_terminal(state)
    assert G.to_act(state) is None
    assert state.eliminated == (0, 2)
    assert G.outcome(state) == Outcome(places=(3, 1, 2), scores=(0.0, 2.0, 0.0))
    with pytest.raises(ChanceError):
        G.chance_request(state)
    # The terminal observation shows the last reveal and nothing is left hidden.
    final = G.observe(state, 0)
    assert final.phase == "over"
    assert final.to_act is None
    assert final.history[-1].dice == ((), (5, 5), (1,))
    assert final.own_dice == ()
    assert len(final.history) == 4


def test_outcome_before_the_end_is_an_error() -> None:
    with pytest.raises(GameError, match="not over"):
        G.outcome(start(2))


# ---------------------------------------------------------------------------
# sum endgame


def test_sum_round_with_two_players_one_die_each() -> None:
    state = rolled(2, (3,), (4,), dice_per_player=1)
    assert state.sum_round
    assert not state.wilds_active
    observation = G.observe(state, 0)
    assert observation.sum_round
    assert legal_actions(observation) == [SumBid(total) for total in range(2, 13)]
    with pytest.raises(IllegalActionError, match="sum round"):
        G.apply_action(state, 0, Bid(1, 3))
    state = play(state, SumBid(7))
    assert len(legal_actions(G.observe(state, 1))) == 6  # 8..12 and challenge
    with pytest.raises(IllegalActionError, match="higher total"):
        G.apply_action(state, 1, SumBid(7))
    state = play(state, Challenge())
    # 3 + 4 = 7 >= 7: the total bid was true, the challenger (seat 1) is out.
    result = state.history[-1]
    assert (result.sum_round, result.actual, result.bid_true, result.loser) == (True, 7, True, 1)
    assert G.outcome(state) == Outcome(places=(1, 2), scores=(1.0, 0.0))


def test_false_sum_bid() -> None:
    state = rolled(2, (3,), (4,), dice_per_player=1, wild_face="1")
    state = play(state, SumBid(7), SumBid(8), Challenge())
    assert state.history[-1].loser == 1
    assert G.outcome(state).places == (1, 2)


def test_sum_round_starts_only_with_two_seats_of_one_die() -> None:
    state = play(rolled(2, (3, 3), (4, 4), dice_per_player=2), Bid(1, 2), Challenge())
    assert state.dice_counts == (1, 2)
    assert not state.sum_round
    state = play(roll(state, (5,), (4, 4)), Bid(1, 5), Challenge())
    assert state.dice_counts == (1, 1)
    assert state.sum_round
    assert not rolled(3, (1,), (2,), (3,), dice_per_player=1).sum_round


def test_sum_endgame_off_keeps_face_bids() -> None:
    state = rolled(2, (3,), (4,), dice_per_player=1, sum_endgame=False)
    assert not state.sum_round
    with pytest.raises(IllegalActionError, match="only allowed in a sum round"):
        G.apply_action(state, 0, SumBid(7))
    assert len(legal_actions(G.observe(state, 0))) == 12
    state = play(state, Bid(1, 4), Challenge())
    assert state.history[-1].bid_true
    assert G.outcome(state).places == (1, 2)


# ---------------------------------------------------------------------------
# one round


def test_one_round_ends_after_first_challenge() -> None:
    state = rolled(3, SEAT0, SEAT1, SEAT0, one_round=True)
    state = play(state, Bid(2, 3), Bid(6, 3), Challenge())  # four 3s: seat 1 loses
    assert G.is_terminal(state)
    assert G.outcome(state) == Outcome(places=(1, 3, 1), scores=(5.0, 4.0, 5.0))
    assert G.observe(state, 2).history[-1].dice == (SEAT0, SEAT1, SEAT0)


def test_one_round_with_one_die_loser_places_last() -> None:
    state = rolled(3, (1,), (2,), (3,), one_round=True, dice_per_player=1)
    state = play(state, Bid(1, 3), Challenge())
    assert G.outcome(state) == Outcome(places=(1, 3, 1), scores=(1.0, 0.0, 1.0))


# ---------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Bid(0, 3), "quantity=0"),
        (Bid(-2, 3), "quantity=-2"),
        (Bid(1, 7), "face=7"),
        (Bid(1, 0), "face=0"),
        (Bid(True, 3), "quantity=True"),
        (Bid(2, "3"), "face='3'"),  # type: ignore[arg-type]
        (SumBid(13), "total=13"),
        (SumBid(1), "total=1"),
        ("challenge", "'challenge'"),
        (None, "None"),
        ((2, 3), r"\(2, 3\)"),
    ],
)
def test_malformed_actions(action: object, text: str) -> None:
    state = rolled(2, SEAT0, SEAT1)
    with pytest.raises(MalformedActionError, match=text):
        G.apply_action(state, 0, action)
    with pytest.raises(MalformedActionError, match=text):
        G.check_action(G.observe(state, 0), action)
    assert not is_legal(G.observe(state, 0), action)


def test_well_formed_sum_bid_outside_a_sum_round_is_illegal() -> None:
    state = rolled(2, SEAT0, SEAT1)
    with pytest.raises(IllegalActionError, match="total=7"):
        G.apply_action(state, 0, SumBid(7))


def test_not_your_turn() -> None:
    state = rolled(2, SEAT0, SEAT1)
    with pytest.raises(IllegalActionError, match="not its turn"):
        G.apply_action(state, 1, Bid(1, 2))
    with pytest.raises(IllegalActionError, match="not its turn"):
        G.check_action(G.observe(state, 1), Bid(1, 2))
    # Malformed beats out-of-turn when the seat's own observation is checked.
    with pytest.raises(MalformedActionError, match="face=7"):
        G.check_action(G.observe(state, 1), Bid(1, 7))
    with pytest.raises(MalformedActionError, match="'bid'"):
        G.apply_action(state, 1, "bid")
    with pytest.raises(IllegalActionError, match="not its turn"):
        G.apply_action(start(2), 0, Bid(1, 2))  # the dice are not rolled yet


def test_bad_chance_outcomes() -> None:
    state = start(2)
    with pytest.raises(ChanceError):
        G.apply_chance(state, [1] * 9)
    with pytest.raises(ChanceError):
        G.apply_chance(state, [1] * 9 + [7])
    with pytest.raises(ChanceError, match="no chance"):
        G.apply_chance(roll(state, SEAT0, SEAT1), [1])
    with pytest.raises(GameError, match="seat 2"):
        G.observe(state, 2)


# ---------------------------------------------------------------------------
# observations and hidden information


def test_observation_hides_other_seats_dice() -> None:
    before = G.observe(start(2), 0)
    assert before.own_dice == ()
    assert before.phase == "roll"
    state = rolled(2, SEAT0, SEAT1)
    observation = G.observe(state, 0)
    assert observation.own_dice == SEAT0
    assert observation.dice_counts == (5, 5)
    assert observation.to_act == 0
    assert observation.seat == 0 and observation.num_seats == 2
    assert observation.rules == state.rules
    codec = LiarsDiceCodec()
    # Changing seat 1's dice changes nothing seat 0 sees.
    other = roll(start(2), SEAT0, (6, 6, 6, 6, 6))
    assert G.observe(other, 0) == observation
    assert codec.observation_bytes(G.observe(other, 0)) == codec.observation_bytes(observation)
    assert G.observe(other, 1) != G.observe(state, 1)


def test_perturb_hidden_redraws_only_other_seats_dice() -> None:
    state = rolled(3, SEAT0, SEAT1, SEAT0)
    rng = random.Random(7)
    changed = False
    for _ in range(5):
        perturbed = G.perturb_hidden(state, 1, rng)
        assert perturbed.hands[1] == SEAT1
        assert [len(hand) for hand in perturbed.hands] == [5, 5, 5]
        assert G.observe(perturbed, 1) == G.observe(state, 1)
        changed = changed or perturbed != state
    assert changed


def test_describe_action() -> None:
    assert G.describe_action(Bid(3, 4)) == "bid 3 x 4s"
    assert G.describe_action(SumBid(7)) == "bid total 7"
    assert G.describe_action(Challenge()) == "challenge"


def test_sdk_bid_probability() -> None:
    state = rolled(2, SEAT0, SEAT1, wild_face="1")
    observation = G.observe(state, 0)
    # Seat 0 holds 1, 1, 3 (three dice that count for 3s); five unseen dice at 1/3.
    assert bid_probability(observation, Bid(3, 3)) == 1
    assert bid_probability(observation, Bid(4, 3)) == 1 - Fraction(2, 3) ** 5
    # On the wild face only real ones count, at 1/6.
    assert bid_probability(observation, Bid(3, 1)) == 1 - Fraction(5, 6) ** 5
    sum_state = rolled(2, (3,), (4,), dice_per_player=1)
    assert bid_probability(G.observe(sum_state, 0), SumBid(7)) == Fraction(1, 2)


# ---------------------------------------------------------------------------
# codec


def test_codec_round_trip_on_a_rich_observation() -> None:
    codec = LiarsDiceCodec()
    state = G.new_game(make_rules(roll_off=True, wild_face="6"), 3)
    state = G.apply_chance(state, [6, 6, 6, 6, 1, 1])
    state = G.apply_chance(state, [3, 4, 5, 5])
    state = roll(state, SEAT0, SEAT1, SEAT0)
    state = play(state, Bid(2, 3), Challenge())
    assert state.dice_counts == (5, 5, 4)
    state = roll(state, SEAT0, SEAT1, SEAT0[:4])
    state = play(state, Bid(2, 2))
    for seat in range(3):
        observation = G.observe(state, seat)
        assert codec.decode_observation(codec.encode_observation(observation)) == observation
    actions: list[Action] = [Bid(3, 4), SumBid(12), Challenge()]
    for action in actions:
        assert codec.decode_action(codec.encode_action(action)) == action
    assert codec.action_from_json(codec.action_to_json(Bid(3, 4))) == Bid(3, 4)


def test_codec_rejects_bad_actions() -> None:
    codec = LiarsDiceCodec()
    with pytest.raises(MalformedActionError, match="empty"):
        codec.decode_action(bot_pb2.Action())
    other = bot_pb2.Action()
    other.dice_poker.SetInParent()
    with pytest.raises(MalformedActionError, match="dice_poker"):
        codec.decode_action(other)
    with pytest.raises(MalformedActionError, match="empty liars_dice action"):
        codec.decode_action(bot_pb2.Action(liars_dice=liars_dice_pb2.LiarsDiceAction()))
    bad = [
        liars_dice_pb2.LiarsDiceAction(bid=liars_dice_pb2.LiarsDiceBid(quantity=2, face=7)),
        liars_dice_pb2.LiarsDiceAction(bid=liars_dice_pb2.LiarsDiceBid(quantity=0, face=3)),
        liars_dice_pb2.LiarsDiceAction(sum_bid=liars_dice_pb2.LiarsDiceSumBid(total=13)),
        liars_dice_pb2.LiarsDiceAction(sum_bid=liars_dice_pb2.LiarsDiceSumBid(total=1)),
    ]
    for message in bad:
        with pytest.raises(MalformedActionError):
            codec.decode_action(bot_pb2.Action(liars_dice=message))
    with pytest.raises(MalformedActionError, match="foo"):
        codec.action_from_json({"liars_dice": {"foo": 1}})


def test_codec_rejects_other_observations() -> None:
    codec = LiarsDiceCodec()
    with pytest.raises(MalformedObservationError, match="empty"):
        codec.decode_observation(bot_pb2.Observation())
    message = codec.encode_observation(G.observe(start(2), 0))
    message.liars_dice.phase = liars_dice_pb2.LIARS_DICE_PHASE_UNSPECIFIED
    with pytest.raises(MalformedObservationError, match="phase"):
        codec.decode_observation(message)


# ---------------------------------------------------------------------------
# Records made before and while wild_opening was always spelled out


GOLDEN = Path(__file__).parent.parent / "golden"


@pytest.mark.parametrize(
    ("name", "spelled"),
    [
        # Played by the referee of commit c5924ca^ (seed 5), before wild_opening existed.
        ("liars_dice_record_before_wild_opening.json", False),
        # Played by the referee of commit 7e8e726 (seed 5), which listed wild_opening
        # at its default in the rules text and in the state's repr.
        ("liars_dice_record_wild_opening_spelled.json", True),
    ],
)
def test_records_from_both_generations_of_the_rules_text_verify(name: str, spelled: bool) -> None:
    record = MatchRecord.from_json((GOLDEN / name).read_text())
    assert ("wild_opening" in record.rules) is spelled
    assert verify(record) == []


def test_wild_opening_is_left_out_at_its_default_unless_spelled_out() -> None:
    game = get_game("liars_dice")
    plain = game.parse_rules({})
    spelled = game.parse_rules({"wild_opening": "cancel"})
    assert plain == spelled
    assert "wild_opening" not in game.format_rules(plain)
    assert "wild_opening" not in repr(plain)
    assert game.format_rules(spelled)["wild_opening"] == "cancel"
    assert "wild_opening='cancel'" in repr(spelled)
    kept = game.parse_rules({"wild_opening": "keep"})
    assert game.format_rules(kept)["wild_opening"] == "keep"
    assert "wild_opening='keep'" in repr(kept)
