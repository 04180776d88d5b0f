"""The games' written notation (issue 43, item 2): what a person types is read back to
the engine's action (``Game.parse_move``), what cannot be read or is not legal now is a
:class:`NotAMove` that says what is expected, every legal action's written form
(``Game.write_move``) reads back to itself, and the other seats' moves are announced in
words from two observations (``Game.announce_news``)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.catalogue import game_names, get_game
from referee.core.playout import random_playout
from referee.gamekit.base import NotAMove
from referee.gamekit.cards import Kind, parse_cards
from referee.gamekit.notation import dice_positions, number_ranges
from referee.gamekit.poker_dice import TOP_HAND, Hand
from referee.gamekit.poker_dice import Category as DiceCategory
from referee.gamekit.poker_hands import HIGHEST, Announcement, Category
from referee.games.cockroach_poker import engine as cp
from referee.games.dice_poker import engine as dp
from referee.games.liars_dice import engine as ld
from referee.games.liars_poker import engine as lp
from referee.games.liars_poker_dice import engine as lpd

GAMES = sorted(name for name in game_names() if name.startswith(("liars", "dice", "cockroach")))


def decisions(name: str, seed: int, seats: int, rules: dict[str, str] | None = None) -> list[Any]:
    """The observation of the seat to act at every decision of a random playout."""
    game = get_game(name)
    parsed = game.parse_rules(rules or {})
    playout = random_playout(game, parsed, seats, random.Random(seed))
    found = []
    for state in playout.states:
        actor = game.to_act(state)
        if actor is not None and actor >= 0:
            found.append(game.observe(state, actor))
    return found


def first(name: str, test: Any, seed: int = 1, seats: int = 2, **rules: str) -> Any:
    """The first decision's observation that ``test`` accepts (some seed's)."""
    for attempt in range(seed, seed + 200):
        for observation in decisions(name, attempt, seats, rules):
            if test(observation):
                return observation
    raise AssertionError(f"no {name} decision found")


# -- Liar's Dice ------------------------------------------------------------------


def test_liars_dice_bids_and_calls_as_people_write_them() -> None:
    game = ld.LIARS_DICE
    opening = first("liars_dice", lambda o: not o.bids and not o.sum_round)
    for text in ("3 4", "3 4s", "3x4", "3 x 4s", "three 4s", "three fours", "bid 3 4's"):
        assert game.parse_move(text, opening) == ld.Bid(3, 4), text
    assert game.parse_move("ten 6s", opening) == ld.Bid(10, 6)
    with pytest.raises(NotAMove, match="no bid to call yet"):
        game.parse_move("c", opening)
    with pytest.raises(NotAMove, match=r"QUANTITY FACE \(3 4, 3 4s"):
        game.parse_move("raise", opening)
    with pytest.raises(NotAMove, match="only 10 dice on the table"):
        game.parse_move("11 2s", opening)
    bid = first(
        "liars_dice",
        lambda o: o.bids and isinstance(o.last_bid, ld.Bid) and o.last_bid.quantity < 5,
    )
    for text in ("c", "call", "Challenge", "liar"):
        assert game.parse_move(text, bid) == ld.Challenge()
    last = bid.last_bid
    with pytest.raises(NotAMove, match="bid already this round"):
        game.parse_move(f"{last.quantity} {last.face}", bid)
    with pytest.raises(NotAMove, match="does not raise"):
        game.parse_move(f"{last.quantity} {last.face - 1 if last.face > 1 else 1}", bid)
    summed = first("liars_dice", lambda o: o.sum_round and not o.bids)
    assert game.parse_move("total 7", summed) == ld.SumBid(7)
    assert game.parse_move("7", summed) == ld.SumBid(7)
    with pytest.raises(NotAMove, match="total"):
        game.parse_move("3 4s", summed)


def test_liars_dice_sums_up_the_legal_bids_in_a_line() -> None:
    bids: list[ld.Action] = [ld.Bid(q, 4) for q in range(4, 11)]
    bids += [ld.Bid(3, 5), ld.Bid(3, 6), ld.Challenge()]
    assert ld.moves_in_short(bids, False) == "bid 4-10 x 4s · 3 x 5s/6s · or c to call"
    everything: list[ld.Action] = [ld.Bid(q, f) for q in range(1, 11) for f in range(1, 7)]
    assert ld.moves_in_short(everything, False) == "bid 1-10 x any face"
    assert number_ranges([2, 4, 5, 6, 9]) == "2, 4-6, 9"


def test_liars_dice_announces_a_call_in_words() -> None:
    game = ld.LIARS_DICE
    rules = game.parse_rules({"roll_off": "false", "dice_per_player": "2"})
    state = game.apply_chance(game.new_game(rules, 2), (4, 2, 4, 1))
    before = game.observe(state, 1)
    state = game.apply_action(state, 0, ld.Bid(3, 4))
    state = game.apply_action(state, 1, ld.Challenge())
    after = game.observe(state, 1)
    assert game.announce_news(before, after, 1) == (
        "seat 0 bids three 4s",
        "you call seat 0's three 4s: there were two 4s, seat 0 loses a die (1 left)",
        "  dice: seat 0 4 2 · you 4 1",
        "round 2: seat 0 opens",
    )
    assert game.announce_action(ld.Bid(1, 3), 1, 0) == "seat 1 bids one 3"
    assert game.announce_action(ld.Bid(2, 3), 0, 0) == "you bid two 3s"


# -- Dice Poker -------------------------------------------------------------------


def test_dice_poker_rerolls_by_value_letter_or_keep_and_lines_by_name() -> None:
    game = dp.DICE_POKER
    turn = first(
        "dice_poker", lambda o: o.my_turn and o.rolls == 1 and o.dice.count(o.dice[0]) == 1
    )
    dice = turn.dice
    assert game.parse_move(f"r {dice[0]}", turn) == dp.Reroll((0,))
    assert game.parse_move("r a c", turn) == dp.Reroll((0, 2))
    assert game.parse_move("reroll all", turn) == dp.Reroll((0, 1, 2, 3, 4))
    assert game.parse_move(f"k {dice[0]}", turn) == dp.Reroll((1, 2, 3, 4))
    assert game.parse_move("keep b c d e", turn) == dp.Reroll((0,))
    assert dice_positions(["3", "3"], (3, 5, 3, 3, 1)) == (0, 2)
    assert dice_positions(["c3"], (3, 5, 3, 3, 1)) == (2,)
    with pytest.raises(NotAMove, match="no die shows 6"):
        dice_positions(["6"], (3, 5, 3, 3, 1))
    with pytest.raises(NotAMove, match="no other die shows 5"):
        dice_positions(["5", "5"], (3, 5, 3, 3, 1))
    for text, line in (
        ("full house", dp.Line.FULL_HOUSE), ("fh", dp.Line.FULL_HOUSE),
        ("score chance", dp.Line.CHANCE), ("3s", dp.Line.THREES), ("threes", dp.Line.THREES),
        ("yahtzee", dp.Line.POKER), ("2p", dp.Line.TWO_PAIR),
        ("small straight", dp.Line.SMALL_STRAIGHT),
    ):  # fmt: skip
        assert game.parse_move(text, turn) == dp.Score(line), text
    with pytest.raises(NotAMove, match="r VALUES"):
        game.parse_move("hold", turn)
    last = first("dice_poker", lambda o: o.my_turn and o.rolls == 3)
    with pytest.raises(NotAMove, match="all 3 rolls are used"):
        game.parse_move("r all", last)
    filled = first("dice_poker", lambda o: o.my_turn and o.my_card.get(dp.Line.CHANCE) is not None)
    with pytest.raises(NotAMove, match="your chance line is filled already"):
        game.parse_move("chance", filled)


# -- Cockroach Poker --------------------------------------------------------------


def test_cockroach_poker_a_card_and_a_claim_or_an_answer() -> None:
    game = cp.COCKROACH_POKER
    passing = first(
        "cockroach_poker", lambda o: o.phase == "announce" and o.my_turn and o.hand[Kind.BAT]
    )
    for text in ("bat as fly", "bat fly", "pass a bat, say fly", "b f", "bats as flies"):
        assert game.parse_move(text, passing) == cp.Announce(Kind.BAT, Kind.FLY), text
    assert game.parse_move("sc as ce", first(
        "cockroach_poker", lambda o: o.phase == "announce" and o.my_turn and o.hand[Kind.SCORPION]
    )) == cp.Announce(Kind.SCORPION, Kind.CENTIPEDE)  # fmt: skip
    with pytest.raises(NotAMove, match="bat as fly"):
        game.parse_move("c as fly", passing)  # cockroach or centipede?
    missing = next(k for k in Kind if not passing.hand[k]) if not all(passing.hand) else None
    if missing is not None:
        with pytest.raises(NotAMove, match=f"you hold no {missing.label}"):
            game.parse_move(f"{missing.label} as fly", passing)
    answering = first("cockroach_poker", lambda o: o.phase == "respond" and o.my_turn)
    assert game.parse_move("b", answering) == cp.Believe()
    assert game.parse_move("disbelieve", answering) == cp.Disbelieve()
    published = first(
        "cockroach_poker", lambda o: o.phase == "respond" and o.my_turn, call_rule="published"
    )
    assert game.parse_move("true", published) == cp.Believe()
    assert game.parse_move("f", published) == cp.Disbelieve()
    assert game.write_move(cp.Disbelieve(), published) == "false"


# -- Liar's Poker -----------------------------------------------------------------


def test_liars_poker_announcements_exchanges_and_answers() -> None:
    game = lp.LIARS_POKER
    opening = first("liars_poker", lambda o: o.phase == "announce" and not o.claims)
    for text, announcement in (
        ("pair of 9s and 6", Announcement(Category.PAIR, (9, 6))),
        ("pair 9 6", Announcement(Category.PAIR, (9, 6))),
        ("two pair Qs and 4s and 2", Announcement(Category.TWO_PAIR, (12, 4, 2))),
        ("two pair queens 4", Announcement(Category.TWO_PAIR, (12, 4))),
        ("full house 3s over As", Announcement(Category.FULL_HOUSE, (3, 14))),
        ("fh 3 a", Announcement(Category.FULL_HOUSE, (3, 14))),
        ("straight to 9", Announcement(Category.STRAIGHT, (9,))),
        ("straight flush to A", Announcement(Category.STRAIGHT_FLUSH, (14,))),
        ("flush K", Announcement(Category.FLUSH, (13,))),
        ("four 2s and an ace", Announcement(Category.FOUR_OF_A_KIND, (2, 14))),
        ("high card K and 9 4", Announcement(Category.HIGH_CARD, (13, 9, 4))),
        ("five aces", Announcement(Category.FIVE_OF_A_KIND, (14,))),
    ):
        assert game.parse_move(text, opening) == lp.Announce(announcement), text
    with pytest.raises(NotAMove, match="kickers must be strictly falling"):
        game.parse_move("pair 9 4 6", opening)
    with pytest.raises(NotAMove, match="straight to 9"):
        game.parse_move("a royal", opening)
    answering = first(
        "liars_poker", lambda o: o.phase == "respond" and o.my_turn and o.last != HIGHEST
    )
    assert game.parse_move("a", answering) == lp.Accept()
    assert game.parse_move("c", answering) == lp.Challenge()
    with pytest.raises(NotAMove, match="accept or challenge now"):
        game.parse_move("pair 9", answering)
    exchanging = first("liars_poker", lambda o: o.phase == "exchange" and o.my_turn)
    hand = exchanging.hand
    two = sorted(hand[:2], key=lambda c: (c.rank, c.suit))
    assert game.parse_move(f"x {hand[1]} {hand[0]}", exchanging) == lp.Exchange(tuple(two))
    assert game.parse_move("x nothing", exchanging) == lp.Exchange(())
    absent = next(c for c in parse_cards("2c 3d 4h 5s 6c 7d") if c not in hand)
    with pytest.raises(NotAMove, match="you do not hold those cards"):
        game.parse_move(f"exchange {absent}", exchanging)


# -- Liar's Poker Dice ------------------------------------------------------------


def test_liars_poker_dice_declarations_answers_and_rerolls() -> None:
    game = lpd.LIARS_POKER_DICE
    opening = first("liars_poker_dice", lambda o: o.phase is lpd.Phase.DECLARE and not o.steps)
    c, h = DiceCategory, Hand
    for text, hand in (
        ("pair of 3s", h(c.ONE_PAIR, (3,))), ("2 3s", h(c.ONE_PAIR, (3,))),
        ("two pair 3 5", h(c.TWO_PAIR, (5, 3))), ("three 4s", h(c.THREE_OF_A_KIND, (4,))),
        ("3 4s", h(c.THREE_OF_A_KIND, (4,))), ("low straight", h(c.LOW_STRAIGHT, ())),
        ("hs", h(c.HIGH_STRAIGHT, ())), ("full house 4s over 2s", h(c.FULL_HOUSE, (4, 2))),
        ("fh 4 2", h(c.FULL_HOUSE, (4, 2))), ("five 6s", h(c.FIVE_OF_A_KIND, (6,))),
        ("high card", h(c.HIGH_CARD, (6,))),
    ):  # fmt: skip
        assert game.parse_move(text, opening) == lpd.Declare(hand), text
    with pytest.raises(NotAMove, match="not a hand five dice can show"):
        game.parse_move("high card 5", opening)
    with pytest.raises(NotAMove, match="fh 4 2"):
        game.parse_move("a bluff", opening)
    answering = first(
        "liars_poker_dice",
        lambda o: o.phase is lpd.Phase.RESPOND and o.last_declaration != TOP_HAND,
    )
    assert game.parse_move("c", answering) == lpd.Challenge()
    assert game.parse_move("accept", answering) == lpd.Accept()
    rerolling = first(
        "liars_poker_dice", lambda o: o.phase is lpd.Phase.REROLL and o.actor == o.seat
    )
    assert game.parse_move("r nothing", rerolling) == lpd.Reroll(())
    assert game.parse_move("r a e", rerolling) == lpd.Reroll((0, 4))
    assert game.parse_move("keep all", rerolling) == lpd.Reroll(())
    higher = first(
        "liars_poker_dice",
        lambda o: o.phase is lpd.Phase.DECLARE and o.last_declaration is not None
        and o.last_declaration > Hand(DiceCategory.ONE_PAIR, (6,)),
    )  # fmt: skip
    with pytest.raises(NotAMove, match="not higher than"):
        game.parse_move("pair of 2s", higher)


# -- every game -----------------------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), seats=st.integers(2, 3), which=st.sampled_from(GAMES))
def test_every_legal_action_reads_back_from_its_written_form(
    seed: int, seats: int, which: str
) -> None:
    game = get_game(which)
    seats = min(seats, game.max_seats)
    for observation in decisions(which, seed, seats)[:60]:
        actions = list(game.legal_actions(observation))
        if len(actions) > 400:  # Liar's Poker's opening: 8,596 announcements; a sample
            actions = random.Random(seed).sample(actions, 400)
        for action in actions:
            written = game.write_move(action, observation)
            assert game.parse_move(written, observation) == action, (written, action)
            assert game.parse_move(written.upper(), observation) == action, written


@pytest.mark.parametrize("name", GAMES)
def test_every_screen_text_is_short_and_the_news_comes_from_observations(name: str) -> None:
    """The summary of the legal moves stays a line or two whatever the position; the
    rules fit in a few lines; the news needs nothing but two observations."""
    game = get_game(name)
    for seed in range(3):
        previous = None
        for observation in decisions(name, seed, 2):
            if observation.seat != 0:
                continue
            assert len(game.move_summary(observation)) < 420, game.move_summary(observation)
            assert 1 <= len(game.holding(observation)) <= 4
            game.announce_news(previous, observation, 0)
            previous = observation
    assert len(game.rules_summary(game.default_rules(), 2)) <= 4
