"""What each seat reads of every action and chance outcome, game by game, checked by hand.

The engines decide it (``describe_action(action, viewer, actor)``,
``describe_chance(state, outcome, viewer)``): ``viewer=None`` is the omniscient
text records and transcripts have always shown; a seat reads its own secrets and
only the public part of everyone else's. The claim judge (``claim_truth``,
``challenge_action``) is checked here too. The generic property (no text tells a
seat what it may not know) is in ``test_leak_generic.py``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.core.catalogue import BUILTIN_GAMES, get_game
from referee.core.events import ActionEvent, Event
from referee.core.playout import random_playout
from referee.gamekit.cards import Kind, parse_cards
from referee.gamekit.poker_dice import Category, Hand
from referee.gamekit.poker_hands import Announcement
from referee.gamekit.poker_hands import Category as CardCategory
from referee.games.cockroach_poker import engine as cp
from referee.games.dice_poker import engine as dp
from referee.games.liars_dice import engine as ld
from referee.games.liars_poker import engine as lp
from referee.games.liars_poker_dice import engine as lpd
from tests.game_plugins import registered_games

# -- Liar's Dice: the roll-off is public; a round's roll shows each seat its own cup.


def test_liars_dice_round_roll_shows_each_seat_its_own_cup() -> None:
    game = ld.LIARS_DICE
    state = game.new_game(ld.Rules(dice_per_player=2, roll_off=False), 3)
    outcome = [3, 1, 2, 5, 6, 6]
    assert game.describe_chance(state, outcome) == (
        "round 1 roll: seat 0 3 1; seat 1 2 5; seat 2 6 6"
    )
    assert game.describe_chance(state, outcome, viewer=None) == game.describe_chance(state, outcome)
    assert game.describe_chance(state, outcome, viewer=0) == (
        "round 1 roll: seat 0 3 1; seat 1 (2 dice); seat 2 (2 dice)"
    )
    assert game.describe_chance(state, outcome, viewer=1) == (
        "round 1 roll: seat 0 (2 dice); seat 1 2 5; seat 2 (2 dice)"
    )


def test_liars_dice_a_single_die_and_a_seat_that_is_out() -> None:
    game = ld.LIARS_DICE
    state = game.new_game(ld.Rules(dice_per_player=1, roll_off=False, sum_endgame=False), 3)
    state = game.apply_chance(state, [4, 4, 2])
    state = game.apply_action(state, 0, ld.Bid(3, 4))
    state = game.apply_action(state, 1, ld.Challenge())  # two 4s: seat 0 loses its die
    assert state.dice_counts == (0, 1, 1) and state.phase == "roll"
    assert game.describe_chance(state, [5, 6]) == "round 2 roll: seat 1 5; seat 2 6"
    assert game.describe_chance(state, [5, 6], viewer=0) == (
        "round 2 roll: seat 1 (1 die); seat 2 (1 die)"
    )
    assert game.describe_chance(state, [5, 6], viewer=2) == "round 2 roll: seat 1 (1 die); seat 2 6"


def test_liars_dice_roll_off_and_bids_read_the_same_for_everyone() -> None:
    game = ld.LIARS_DICE
    state = game.new_game(ld.Rules(), 2)
    text = "roll-off: seat 0 rolls 1+2, seat 1 rolls 3+4"
    for viewer in (None, 0, 1):
        assert game.describe_chance(state, [1, 2, 3, 4], viewer=viewer) == text
        for actor in (None, 0, 1):
            assert game.describe_action(ld.Bid(3, 4), viewer, actor) == "bid 3 x 4s"
            assert game.describe_action(ld.SumBid(7), viewer, actor) == "bid total 7"
            assert game.describe_action(ld.Challenge(), viewer, actor) == "challenge"


def test_liars_dice_claims_are_judged_with_the_wilds_as_they_stand_after_the_bid() -> None:
    game = ld.LIARS_DICE
    assert game.challenge_action == ld.Challenge()
    rules = ld.Rules(dice_per_player=2, roll_off=False, wild_face="1")
    rolled = game.apply_chance(game.new_game(rules, 2), [3, 1, 2, 5])  # one 3, one wild 1
    assert game.claim_truth(rolled, ld.Bid(2, 3)) is True  # the 3 and the wild 1
    assert game.claim_truth(rolled, ld.Bid(3, 3)) is False
    # An opening bid on the wild face cancels wilds, for itself and the rest of the round.
    assert game.claim_truth(rolled, ld.Bid(2, 1)) is False
    cancelled = game.apply_action(rolled, 0, ld.Bid(1, 1))
    assert game.claim_truth(cancelled, ld.Bid(2, 3)) is False
    other_opening = game.apply_action(rolled, 0, ld.Bid(1, 5))
    assert game.claim_truth(other_opening, ld.Bid(2, 3)) is True
    keep = ld.Rules(dice_per_player=2, roll_off=False, wild_face="1", wild_opening="keep")
    kept = game.apply_chance(game.new_game(keep, 2), [3, 1, 2, 5])
    assert game.claim_truth(kept, ld.Bid(2, 1)) is False  # only real 1s count for 1s
    kept = game.apply_action(kept, 0, ld.Bid(1, 1))
    assert game.claim_truth(kept, ld.Bid(2, 3)) is True  # wilds stay under "keep"
    assert game.claim_truth(kept, ld.Challenge()) is None


def test_liars_dice_counting_faces_is_the_challenges_count() -> None:
    assert ld.counting_faces(ld.Bid(2, 3), True, 1) == (1, 3)
    assert ld.counting_faces(ld.Bid(2, 3), False, 1) == (3,)
    assert ld.counting_faces(ld.Bid(2, 1), True, 1) == (1,)  # a bid on the wild face
    assert ld.counting_faces(ld.Bid(2, 6), True, None) == (6,)
    assert ld.counting_faces(ld.SumBid(7), True, 1) == ()
    assert ld.counting_faces(None, True, 1) == ()


# -- Liar's Poker Dice: only the holder sees the dice and which positions it re-rolls.


def _lpd_opened() -> lpd.State:
    game = lpd.LIARS_POKER_DICE
    state = game.new_game(lpd.Rules(), 2)
    state = game.apply_chance(state, [6, 6, 6, 6, 6])
    return game.apply_chance(state, [1, 1, 1, 1, 1])  # seat 0 opens


def test_liars_poker_dice_throws_are_the_holders() -> None:
    game = lpd.LIARS_POKER_DICE
    start = game.new_game(lpd.Rules(), 2)
    for viewer in (None, 0, 1):
        assert game.describe_chance(start, [6, 5, 4, 3, 2], viewer) == (
            "seat 0 rolls 6 5 4 3 2 for the start"
        )
    state = _lpd_opened()
    assert game.describe_chance(state, [1, 2, 3, 4, 6]) == "seat 0 rolls 1 2 3 4 6"
    assert game.describe_chance(state, [1, 2, 3, 4, 6], viewer=0) == "seat 0 rolls 1 2 3 4 6"
    assert game.describe_chance(state, [1, 2, 3, 4, 6], viewer=1) == "seat 0 rolls 5 hidden dice"


def test_liars_poker_dice_a_reroll_shows_its_positions_to_the_holder_alone() -> None:
    game = lpd.LIARS_POKER_DICE
    state = game.apply_chance(_lpd_opened(), [1, 2, 3, 4, 6])
    pair = Hand(Category.ONE_PAIR, (2,))
    assert game.describe_action(lpd.Declare(pair), viewer=1, actor=0) == "declare pair of 2s"
    state = game.apply_action(state, 0, lpd.Declare(pair))
    state = game.apply_action(state, 1, lpd.Accept())
    reroll = lpd.Reroll((0, 2))
    assert game.describe_action(reroll) == "re-roll positions 0,2"
    assert game.describe_action(reroll, viewer=1, actor=1) == "re-roll positions 0,2"
    assert game.describe_action(reroll, viewer=0, actor=1) == "re-roll 2 dice"
    assert game.describe_action(reroll, viewer=0) == "re-roll 2 dice"  # actor unknown
    assert game.describe_action(lpd.Reroll((4,)), viewer=0, actor=1) == "re-roll 1 die"
    for viewer in (None, 0, 1):
        assert game.describe_action(lpd.Reroll(()), viewer, 1) == "re-roll nothing"
    state = game.apply_action(state, 1, reroll)
    assert game.describe_chance(state, [6, 6]) == "seat 1 re-rolls 2 dice: 6 6"
    assert game.describe_chance(state, [6, 6], viewer=1) == "seat 1 re-rolls 2 dice: 6 6"
    assert game.describe_chance(state, [6, 6], viewer=0) == "seat 1 re-rolls 2 dice"


def test_liars_poker_dice_claims() -> None:
    game = lpd.LIARS_POKER_DICE
    assert game.challenge_action == lpd.Challenge()
    state = game.apply_chance(_lpd_opened(), [2, 2, 3, 4, 6])
    assert game.claim_truth(state, lpd.Declare(Hand(Category.ONE_PAIR, (2,)))) is True
    assert game.claim_truth(state, lpd.Declare(Hand(Category.ONE_PAIR, (3,)))) is False
    assert game.claim_truth(state, lpd.Accept()) is None


# -- Dice Poker: everything is public.


def test_dice_poker_reads_the_same_for_every_seat() -> None:
    game = dp.DICE_POKER
    state = game.new_game(game.default_rules(), 2)
    text = game.describe_chance(state, [6, 5, 1, 2, 3])
    assert text == "seat 0 rolls 6 5 1 2 3 (round 1)"
    state = game.apply_chance(state, [6, 5, 1, 2, 3])
    reroll = dp.Reroll((0, 2))
    for viewer in (0, 1):
        assert (
            game.describe_chance(game.new_game(game.default_rules(), 2), [6, 5, 1, 2, 3], viewer)
            == text
        )
        assert game.describe_action(reroll, viewer, 0) == "re-roll positions 0,2"
    state = game.apply_action(state, 0, reroll)
    assert game.describe_chance(state, [4, 4], viewer=1) == "seat 0 re-rolls 2 dice: 4 4"
    assert game.challenge_action is None and game.claim_truth(state, reroll) is None


# -- Cockroach Poker: a seat sees its own hand; the passer alone knows the card passed.


def test_cockroach_poker_deal_shows_each_seat_its_own_hand() -> None:
    game = cp.COCKROACH_POKER
    state = game.new_game(game.default_rules(), 3)
    everything = game.describe_chance(state, range(64))
    assert everything is not None and everything.endswith("; set aside: fly")
    # Unshuffled: card j is kind j // 8 and goes to seat j % 3; card 63 is set aside.
    own = {seat: " ".join(Kind(j // 8).label for j in range(seat, 63, 3)) for seat in range(3)}
    assert own[1].startswith("cockroach cockroach cockroach scorpion scorpion toad")
    assert everything == (
        f"deal 21 cards each (seat 0: {own[0]}; seat 1: {own[1]}; seat 2: {own[2]}); set aside: fly"
    )
    for seat in range(3):
        assert game.describe_chance(state, range(64), viewer=seat) == (
            f"deal 21 cards each (seat {seat}: {own[seat]}); set aside: 1 unseen"
        )
    two = game.new_game(game.default_rules(), 2)  # 64 cards deal out evenly
    assert game.describe_chance(two, range(64), viewer=0).endswith("; set aside: none")  # type: ignore[union-attr]


def test_cockroach_poker_the_passer_reads_its_card_and_everyone_the_claim() -> None:
    game = cp.COCKROACH_POKER
    announce = cp.Announce(Kind.BAT, Kind.FLY)
    assert game.describe_action(announce) == "pass a card: 'it is a fly'"
    assert game.describe_action(announce, viewer=0, actor=0) == "pass a bat: 'it is a fly'"
    assert game.describe_action(announce, viewer=1, actor=0) == "pass a card: 'it is a fly'"
    assert game.describe_action(announce, viewer=1) == "pass a card: 'it is a fly'"
    for viewer in (None, 0, 1):
        assert game.describe_action(cp.Believe(), viewer, 1) == "believe"
        assert game.describe_action(cp.Disbelieve(), viewer, 1) == "disbelieve"


def test_cockroach_poker_claims() -> None:
    game = cp.COCKROACH_POKER
    assert game.challenge_action == cp.Disbelieve()
    state = game.apply_chance(game.new_game(game.default_rules(), 2), range(64))
    assert game.claim_truth(state, cp.Announce(Kind.BAT, Kind.BAT)) is True
    assert game.claim_truth(state, cp.Announce(Kind.BAT, Kind.FLY)) is False
    assert game.claim_truth(state, cp.Believe()) is None


# -- Liar's Poker: the cards are seen by the seat that takes them; discards by nobody else.


def _lp_dealt() -> lp.State:
    game = lp.LIARS_POKER
    return game.apply_chance(game.new_game(game.default_rules(), 3), range(54))


def test_liars_poker_deal_and_draw_are_seen_by_the_taker_alone() -> None:
    game = lp.LIARS_POKER
    start = game.new_game(game.default_rules(), 3)
    assert game.describe_chance(start, range(54)) == "deal 2c 2d 2h 2s 3c to seat 0"
    assert game.describe_chance(start, range(54), viewer=0) == "deal 2c 2d 2h 2s 3c to seat 0"
    assert game.describe_chance(start, range(54), viewer=2) == "deal 5 cards to seat 0"
    state = game.apply_action(
        _lp_dealt(), 0, lp.Announce(Announcement(CardCategory.HIGH_CARD, (9,)))
    )
    state = game.apply_action(state, 1, lp.Accept())
    state = game.apply_action(state, 1, lp.Exchange(parse_cards("2c 3c")))
    # The stock (3d 3h 3s 4c ...) unshuffled: seat 1 draws its first two cards.
    assert game.describe_chance(state, range(49)) == "shuffle the stock; seat 1 draws 3d 3h"
    assert game.describe_chance(state, range(49), viewer=1) == (
        "shuffle the stock; seat 1 draws 3d 3h"
    )
    for viewer in (0, 2):
        assert game.describe_chance(state, range(49), viewer=viewer) == (
            "shuffle the stock; seat 1 draws 2 cards"
        )


def test_liars_poker_a_single_card_drawn() -> None:
    game = lp.LIARS_POKER
    state = game.apply_action(
        _lp_dealt(), 0, lp.Announce(Announcement(CardCategory.HIGH_CARD, (9,)))
    )
    state = game.apply_action(state, 1, lp.Accept())
    state = game.apply_action(state, 1, lp.Exchange(parse_cards("3c")))
    assert game.describe_chance(state, range(49), viewer=2) == (
        "shuffle the stock; seat 1 draws 1 card"
    )
    assert game.describe_chance(state, range(49), viewer=1) == "shuffle the stock; seat 1 draws 3d"


def test_liars_poker_exchange_shows_the_discards_to_the_exchanger_alone() -> None:
    game = lp.LIARS_POKER
    exchange = lp.Exchange(parse_cards("Ah Jk"))
    assert game.describe_action(exchange) == "exchange 2 (Ah Jk)"
    assert game.describe_action(exchange, viewer=1, actor=1) == "exchange 2 (Ah Jk)"
    assert game.describe_action(exchange, viewer=0, actor=1) == "exchange 2"
    assert game.describe_action(exchange, viewer=2) == "exchange 2"
    for viewer in (None, 0, 1):
        assert game.describe_action(lp.Exchange(), viewer, 1) == "exchange nothing"
        assert game.describe_action(lp.Accept(), viewer, 1) == "accept"
        assert game.describe_action(lp.Challenge(), viewer, 1) == "challenge"


def test_poker_claims() -> None:
    game = lp.LIARS_POKER
    assert game.challenge_action == lp.Challenge()
    state = _lp_dealt()  # 2c 2d 2h 2s 3c
    four_twos = Announcement(CardCategory.FOUR_OF_A_KIND, (2,))
    assert game.claim_truth(state, lp.Announce(four_twos)) is True
    threes = Announcement(CardCategory.THREE_OF_A_KIND, (3,))
    assert game.claim_truth(state, lp.Announce(threes)) is False
    assert game.claim_truth(state, lp.Accept()) is None


@pytest.mark.parametrize("name", sorted(BUILTIN_GAMES))
def test_every_engine_has_a_claim_judge_or_none(name: str) -> None:
    game = get_game(name)
    assert (game.challenge_action is None) == (name == "dice_poker")


# -- Every engine, over random matches: the contract's generic part.


def _playout(name: str, seed: int) -> tuple[int, list[tuple[Any, Event]]]:
    """The seat count and every ``(state before, event)`` of one random match."""
    game = get_game(name)
    seats = min(3, game.max_seats)
    playout = random_playout(game, game.default_rules(), seats, random.Random(seed))
    return seats, list(zip(playout.states, playout.events, strict=False))


@pytest.mark.parametrize("name", registered_games())
def test_every_seat_gets_a_text_and_the_omniscient_one_is_the_default(name: str) -> None:
    """``viewer=None`` is the one-argument text; every seat gets a text for every
    action (``None`` only for chance it sees nothing of); a game without hidden
    information shows every seat the omniscient text."""
    game = get_game(name)
    num_seats, history = _playout(name, 5)
    for before, event in history:
        if isinstance(event, ActionEvent):
            everything = game.describe_action(event.action)
            assert game.describe_action(event.action, None, event.seat) == everything
            for seat in range(num_seats):
                text = game.describe_action(event.action, seat, event.seat)
                assert isinstance(text, str) and text
                if not game.hidden_information:
                    assert text == everything
        else:
            omniscient = game.describe_chance(before, event.outcome)
            assert isinstance(omniscient, str)
            assert game.describe_chance(before, event.outcome, None) == omniscient
            for seat in range(num_seats):
                seen = game.describe_chance(before, event.outcome, seat)
                assert seen is None or (isinstance(seen, str) and seen)
                if not game.hidden_information:
                    assert seen == omniscient
