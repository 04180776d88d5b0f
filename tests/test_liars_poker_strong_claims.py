"""The Liar's Poker strong bot's model of a claim (issue 22, item 5).

A starter's claim is evidence about its cards: the bot must believe a starter that
names an ordinary best hand, learn from the claims it sees shown true or false, and
never lie to the seat that passed it the cards with a claim that seat can rule out.
"""

from __future__ import annotations

import random

import pytest

from example_bots.liars_poker_strong import StrongLiarsPokerBot
from example_bots.poker_claims import (
    ClaimModel,
    Context,
    features,
    hand_containing,
    reachable,
    strength,
)
from referee.gamekit.base import CHANCE, Shuffle
from referee.games.liars_poker.engine import State
from sdk.bot import MatchInfo
from sdk.liars_poker import (
    LIARS_POKER,
    POKER_DECK,
    Accept,
    Announce,
    Announcement,
    Category,
    Challenge,
    Exchange,
    all_announcements,
    announcements_above,
    best_announcement,
    contains,
    parse_cards,
)

G = LIARS_POKER


def dealt(cards: str) -> State:
    """A two-seat game whose first five cards are ``cards`` (seat 0 starts)."""
    wanted = parse_cards(cards)
    first: list[int] = []
    for card in wanted:
        first.append(next(i for i, c in enumerate(POKER_DECK) if c == card and i not in first))
    order = first + [i for i in range(len(POKER_DECK)) if i not in first]
    state = G.new_game(G.parse_rules({}), 2)
    assert G.to_act(state) == CHANCE
    return G.apply_chance(state, order)


def strong_bot(seat: int) -> StrongLiarsPokerBot:
    bot = StrongLiarsPokerBot()
    bot.start(MatchInfo("claims-test", "liars_poker", G.parse_rules({}), seat, 2))
    return bot


@pytest.mark.parametrize(
    "cards", ["Kc Kd Qh 9s 4c", "Ah Qc 10d 7s 3h", "8c 8d 5h 5s Jc", "7c 7d 7h As 2c"]
)
def test_a_starters_true_best_hand_is_accepted(cards: str) -> None:
    # Issue 22: the bot called such opening claims near-certain lies (571 true
    # claims challenged against 90 false ones) and lost 200-0 to a truthful bot.
    state = dealt(cards)
    best = best_announcement(parse_cards(cards))
    state = G.apply_action(state, 0, Announce(best))
    assert G.to_act(state) == 1
    assert strong_bot(1).act(G.observe(state, 1)) == Accept()


def test_an_absurd_opening_claim_is_challenged() -> None:
    state = dealt("2c 5d 9h Js Kc")
    state = G.apply_action(state, 0, Announce(Announcement(Category.STRAIGHT_FLUSH, (13,))))
    assert strong_bot(1).act(G.observe(state, 1)) == Challenge()


def test_a_claim_the_passed_cards_rule_out_is_challenged() -> None:
    # Seat 0 passes 2 2 3 7 9 on; seat 1 keeps three of them and draws two: it
    # cannot hold four kings.
    state = dealt("2c 2d 3h 7s 9c")
    bot = strong_bot(0)
    announcement = bot.act(G.observe(state, 0))
    assert isinstance(announcement, Announce)
    state = G.apply_action(state, 0, announcement)
    state = G.apply_action(state, 1, Accept())
    hand = G.observe(state, 1).hand
    assert hand is not None
    state = G.apply_action(state, 1, Exchange(hand[:2]))
    request = G.chance_request(state)
    assert isinstance(request, Shuffle)
    state = G.apply_chance(state, list(range(request.size)))
    four_kings = Announcement(Category.FOUR_OF_A_KIND, (13,))
    state = G.apply_action(state, 1, Announce(four_kings))
    assert not reachable(parse_cards("2c 2d 3h 7s 9c"), 2, four_kings)
    assert bot.act(G.observe(state, 0)) == Challenge()


def test_the_model_learns_an_opponents_record() -> None:
    # A liar's opening claims at ordinary strength: believed at first, not after
    # a match's worth of them was shown false; a truthful one's rare claims the other way.
    claim = Announcement(Category.PAIR, (13, 12, 9, 4))
    x = features(Context.OPENING, claim, False, 0.0, 0.0)
    liar, honest = ClaimModel(), ClaimModel()
    assert liar.p_true(Context.OPENING, x) > 0.6
    for _ in range(12):
        liar.observe(Context.OPENING, x, truthful=False)
    assert liar.p_true(Context.OPENING, x) < 0.3
    rare = features(Context.OPENING, Announcement(Category.FLUSH, (14,)), False, 0.0, 0.0)
    before = honest.p_true(Context.OPENING, rare)
    for _ in range(12):
        honest.observe(Context.OPENING, rare, truthful=True)
    assert honest.p_true(Context.OPENING, rare) > max(0.8, before)


def test_strength_falls_with_the_claim() -> None:
    announcements = all_announcements()
    values = [strength(a) for a in announcements[::500]]
    assert values == sorted(values, reverse=True)
    assert values[0] > 0.99 and strength(announcements[-1]) < 0.001


def test_hands_built_to_contain_a_claim_contain_it() -> None:
    rng = random.Random(3)
    announcements = all_announcements()
    built = 0
    for _ in range(300):
        claim = rng.choice(announcements)
        hand = hand_containing(claim, POKER_DECK, rng)
        if hand is not None:
            built += 1
            assert len(hand) == 5 and contains(hand, claim)
            real = [card for card in hand if card.rank]
            assert len(set(real)) == len(real)
    assert built >= 290


@pytest.mark.parametrize(
    "cards",
    [
        "Kc Kd Qh 9s 4c",
        "8c 8d 5h 5s Jc",
        "Ac Kc Qc Jc 9c",
        "8h 8d Ac Ad 8s",
        "Ac 10c Jc Jk 3c",
        "Ac 3s 3d 3c 3h",
        "10s 10c Ah As Jk",
    ],
)
def test_no_lie_the_passing_seat_can_rule_out(cards: str) -> None:
    # Seat 0 names its best hand and passes the cards on (accepted, whatever the
    # bot would answer); whatever the strong bot
    # then exchanges, it must not announce what those cards and its draws cannot
    # hold (unless nothing above can be held): seat 0 knows them and would
    # challenge a certain lie.
    state = dealt(cards)
    passed = parse_cards(cards)
    state = G.apply_action(state, 0, Announce(best_announcement(passed)))
    state = G.apply_action(state, 1, Accept())
    bot = strong_bot(1)
    exchanged = 0
    while True:
        to_act = G.to_act(state)
        if to_act == CHANCE:
            request = G.chance_request(state)
            assert isinstance(request, Shuffle)
            state = G.apply_chance(state, list(range(request.size)))
            continue
        action = bot.act(G.observe(state, 1))
        if isinstance(action, Exchange):
            exchanged = len(action.discards)
        state = G.apply_action(state, 1, action)
        if isinstance(action, Announce):
            break
    claim = action.announcement
    if not reachable(passed, exchanged, claim):  # only when every announcement is a lie
        last = best_announcement(passed)
        assert not any(reachable(passed, exchanged, a) for a in announcements_above(last))
