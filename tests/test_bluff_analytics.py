"""Bluff analytics against short matches whose every claim and challenge is counted by hand.

Each scenario fixes the chance outcomes and the actions, so the hidden dice and
cards are known; the comments give the count for every decision. ``S(...)`` lists
a seat's counts in :class:`BluffStats` field order: claims, false claims,
opportunities to challenge, challenges, correct challenges, true claims wrongly
challenged.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from referee.core.catalogue import get_game
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.faults import FaultKind
from referee.gamekit.base import CHANCE, draw_chance
from referee.gamekit.cards import COCKROACH_DECK, POKER_DECK, Card, Kind, Suit
from referee.gamekit.poker_dice import Category as DiceCategory
from referee.gamekit.poker_dice import Hand
from referee.gamekit.poker_hands import Announcement
from referee.gamekit.poker_hands import Category as CardCategory
from referee.games.cockroach_poker import engine as cp
from referee.games.liars_dice import engine as ld
from referee.games.liars_poker import engine as lp
from referee.games.liars_poker_dice import engine as lpd
from referee.records.analytics import (
    AnalyticsError,
    BluffStats,
    analyse_events,
    analyse_record,
    claim_rules,
    format_ratio,
)
from referee.records.record import MatchRecord, RecordedFault
from referee.records.replay import verify
from tests.forge import record_of

S = BluffStats


def A(seat: int, action: object) -> ActionEvent:
    return ActionEvent(seat, action)


def C(*outcome: int) -> ChanceEvent:
    return ChanceEvent(tuple(outcome))


def first(deck: Sequence[Any], cards: Sequence[Any]) -> tuple[int, ...]:
    """A permutation of ``deck``'s indices that puts ``cards`` first, in order."""
    order: list[int] = []
    for card in cards:
        order.append(next(i for i, c in enumerate(deck) if c == card and i not in order))
    return (*order, *(i for i in range(len(deck)) if i not in order))


# ---------------------------------------------------------------------------
# Liar's Dice


def test_liars_dice_face_bids() -> None:
    events: list[Event] = [
        C(2, 3, 3, 5),  # seat 0: 2 3; seat 1: 3 5
        A(0, ld.Bid(2, 3)),  # two 3s: true claim; no bid yet, no opportunity
        A(1, ld.Bid(3, 3)),  # false claim (two 3s); opportunity
        A(0, ld.Challenge()),  # opportunity, challenge, correct; seat 1 loses a die
        C(6, 6, 1),  # round 2, seat 1 opens: seat 0: 6 6; seat 1: 1
        A(1, ld.Bid(1, 1)),  # true claim, no opportunity
        A(0, ld.Bid(1, 6)),  # true claim (two 6s); opportunity
        A(1, ld.Challenge()),  # opportunity, challenge, wrong: seat 0's true claim
    ]
    rules = {"dice_per_player": "2", "roll_off": "false"}
    assert analyse_events("liars_dice", rules, 2, events) == (
        S(claims=2, false_claims=0, opportunities=2, challenges=1, correct_challenges=1,
          true_claims_challenged=1),
        S(claims=2, false_claims=1, opportunities=2, challenges=1, correct_challenges=0,
          true_claims_challenged=0),
    )  # fmt: skip


def test_liars_dice_wilds_count_and_an_opening_wild_bid_cancels_them() -> None:
    rules = {"dice_per_player": "3", "roll_off": "false", "wild_face": "1"}
    events: list[Event] = [
        C(1, 4, 4, 1, 1, 2),  # seat 0: 1 4 4; seat 1: 1 1 2; 1s are wild
        A(0, ld.Bid(3, 4)),  # 4s with wilds: 2 + 3 = 5, true (false without wilds)
        A(1, ld.Bid(5, 4)),  # 5 count: true; opportunity
        A(0, ld.Bid(6, 4)),  # false (5); opportunity
        A(1, ld.Challenge()),  # opportunity, correct; seat 0 loses a die and opens
        C(4, 4, 1, 1, 2),  # seat 0: 4 4; seat 1: 1 1 2
        A(0, ld.Bid(1, 1)),  # opening bid on the wild face: wilds off; two real 1s: true
        A(1, ld.Bid(1, 4)),  # two 4s: true; opportunity
        A(0, ld.Bid(4, 4)),  # 4s without wilds: 2, false (with wilds it would be 4); opportunity
        A(1, ld.Challenge()),  # opportunity, correct
    ]
    assert analyse_events("liars_dice", rules, 2, events) == (
        S(claims=4, false_claims=2, opportunities=2, challenges=0, correct_challenges=0,
          true_claims_challenged=0),
        S(claims=2, false_claims=0, opportunities=4, challenges=2, correct_challenges=2,
          true_claims_challenged=0),
    )  # fmt: skip


def test_liars_dice_sum_endgame_judges_the_total() -> None:
    rules = {"dice_per_player": "1", "roll_off": "false"}
    events: list[Event] = [
        C(3, 4),  # a sum round from the start: total 7
        A(0, ld.SumBid(7)),  # true
        A(1, ld.SumBid(8)),  # false; opportunity
        A(0, ld.Challenge()),  # opportunity, correct; seat 1 is out
    ]
    assert analyse_events("liars_dice", rules, 2, events) == (
        S(1, 0, 1, 1, 1, 0),
        S(1, 1, 1, 0, 0, 0),
    )


# ---------------------------------------------------------------------------
# Liar's Poker Dice


def test_liars_poker_dice_declarations_accepts_and_rerolls() -> None:
    events: list[Event] = [
        C(6, 6, 6, 6, 6),  # roll-off: seat 0 throws 30
        C(1, 1, 1, 1, 1),  # seat 1 throws 5: seat 0 opens
        C(2, 2, 3, 3, 5),  # seat 0's dice: two pair
        A(0, lpd.Declare(Hand(DiceCategory.TWO_PAIR, (3, 2)))),  # true
        A(1, lpd.Accept()),  # opportunity, not a challenge
        A(1, lpd.Reroll((4,))),
        C(3),  # dice 2 2 3 3 3: full house 3s over 2s
        A(1, lpd.Declare(Hand(DiceCategory.FOUR_OF_A_KIND, (3,)))),  # false
        A(0, lpd.Challenge()),  # opportunity, correct; seat 1 pays and opens
        C(6, 6, 6, 1, 2),  # seat 1's dice
        A(1, lpd.Declare(Hand(DiceCategory.THREE_OF_A_KIND, (6,)))),  # true
        A(0, lpd.Challenge()),  # opportunity, wrong: seat 1's true claim
    ]
    assert analyse_events("liars_poker_dice", {"chips": "2"}, 2, events) == (
        S(claims=1, false_claims=0, opportunities=2, challenges=2, correct_challenges=1,
          true_claims_challenged=0),
        S(claims=2, false_claims=1, opportunities=1, challenges=0, correct_challenges=0,
          true_claims_challenged=1),
    )  # fmt: skip


# ---------------------------------------------------------------------------
# Cockroach Poker


def test_cockroach_poker_disbelief_is_the_challenge() -> None:
    K = Kind
    # Card j goes to seat j % 2: seat 0 gets a cockroach and a rat, seat 1 two toads.
    deal = first(COCKROACH_DECK, [K.COCKROACH, K.TOAD, K.RAT, K.TOAD])
    events: list[Event] = [
        C(*deal),
        A(0, cp.Announce(K.COCKROACH, K.COCKROACH)),  # true
        A(1, cp.Believe()),  # opportunity, not a challenge
        A(1, cp.Announce(K.TOAD, K.RAT)),  # false
        A(0, cp.Disbelieve()),  # opportunity, correct
        A(0, cp.Announce(K.RAT, K.RAT)),  # true
        A(1, cp.Disbelieve()),  # opportunity, wrong: seat 0's true claim
        A(1, cp.Announce(K.TOAD, K.SPIDER)),  # false
        A(0, cp.Believe()),  # opportunity
    ]
    assert analyse_events("cockroach_poker", {}, 2, events) == (
        S(claims=2, false_claims=0, opportunities=2, challenges=1, correct_challenges=1,
          true_claims_challenged=1),
        S(claims=2, false_claims=2, opportunities=2, challenges=1, correct_challenges=0,
          true_claims_challenged=0),
    )  # fmt: skip


# ---------------------------------------------------------------------------
# Liar's Poker


def test_liars_poker_announcements_judged_after_the_exchange() -> None:
    ace_s, ace_h, ace_d = Card(14, Suit.SPADES), Card(14, Suit.HEARTS), Card(14, Suit.DIAMONDS)
    king_s, king_h, two_c = Card(13, Suit.SPADES), Card(13, Suit.HEARTS), Card(2, Suit.CLUBS)
    deal = first(POKER_DECK, [ace_s, ace_h, king_s, king_h, two_c])
    stock = [POKER_DECK[i] for i in deal[5:]]
    draw = first(stock, [ace_d])  # the exchange draws the ace of diamonds
    junk = [
        Card(3, Suit.CLUBS),
        Card(5, Suit.DIAMONDS),
        Card(8, Suit.HEARTS),
        Card(9, Suit.SPADES),
        Card(11, Suit.CLUBS),
    ]
    events: list[Event] = [
        C(*deal),  # seat 0 starts: A A K K 2
        A(0, lp.Announce(Announcement(CardCategory.PAIR, (14,)))),  # true
        A(1, lp.Accept()),  # opportunity
        A(1, lp.Exchange((two_c,))),
        C(*draw),  # A A K K A
        A(1, lp.Announce(Announcement(CardCategory.FULL_HOUSE, (14, 13)))),  # true (after draw)
        A(0, lp.Challenge()),  # opportunity, wrong: seat 0 penalised and starts
        C(*first(POKER_DECK, junk)),  # seat 0: 3 5 8 9 J
        A(0, lp.Announce(Announcement(CardCategory.STRAIGHT, (9,)))),  # false
        A(1, lp.Challenge()),  # opportunity, correct
    ]
    assert analyse_events("liars_poker", {}, 2, events) == (
        S(claims=2, false_claims=1, opportunities=1, challenges=1, correct_challenges=0,
          true_claims_challenged=0),
        S(claims=1, false_claims=0, opportunities=2, challenges=1, correct_challenges=1,
          true_claims_challenged=1),
    )  # fmt: skip


# ---------------------------------------------------------------------------
# Rates, records, forfeits and games without claims


def test_rates_and_their_text() -> None:
    stats = S(claims=178, false_claims=41, opportunities=10, challenges=4, correct_challenges=3)
    assert stats.bluff_rate == pytest.approx(41 / 178)
    assert format_ratio(41, 178) == "23% (41/178)"
    assert format_ratio(0, 0) == "-"
    assert S().bluff_rate is None and S().wrongly_challenged is None
    data = stats.as_json()
    assert data["true_claims"] == 137
    assert data["bluff_rate"] == round(41 / 178, 4)
    assert data["challenge_accuracy"] == 0.75
    assert data["wrongly_challenged"] == 0.0
    assert S(1, 1, 0, 0, 0, 0) + S(2, 0, 3, 1, 1, 1) == S(3, 1, 3, 1, 1, 1)


def test_a_record_is_judged_like_its_events_and_a_forfeit_counts_what_was_played() -> None:
    rules = {"dice_per_player": "1", "roll_off": "false"}
    events: list[Event] = [C(3, 4), A(0, ld.SumBid(7)), A(1, ld.SumBid(8)), A(0, ld.Challenge())]
    record = record_of("liars_dice", rules, events)
    assert verify(record) == []
    assert analyse_record(MatchRecord.from_json(record.to_json())) == (
        S(1, 0, 1, 1, 1, 0),
        S(1, 1, 1, 0, 0, 0),
    )
    # Seat 0 timed out instead of challenging: the bids before the fault count.
    fault = RecordedFault(seat=0, kind=FaultKind.TIMEOUT, message="slow", at_event=3)
    forfeit = record_of("liars_dice", rules, events[:3], reason="forfeit", faults=(fault,))
    assert verify(forfeit) == []
    assert analyse_record(forfeit) == (S(1, 0, 0, 0, 0, 0), S(1, 1, 1, 0, 0, 0))


def test_dice_poker_has_no_claims_and_unknown_games_are_errors() -> None:
    assert claim_rules("dice_poker") is None
    assert analyse_events("dice_poker", {}, 2, []) is None
    with pytest.raises(Exception, match="unknown game 'chess'"):
        claim_rules("chess")


def test_an_illegal_event_is_refused_with_its_position() -> None:
    events: list[Event] = [C(3, 4), A(0, ld.Challenge())]
    with pytest.raises(AnalyticsError, match=r"event 2 .*no bid to challenge"):
        analyse_events("liars_dice", {"dice_per_player": "1", "roll_off": "false"}, 2, events)


# ---------------------------------------------------------------------------
# Agreement with the engines' own challenge results, over random matches


def _random_match(game_name: str, seed: int) -> tuple[list[Event], Any]:
    game = get_game(game_name)
    state = game.new_game(game.default_rules(), 2)
    rng = random.Random(seed)
    events: list[Event] = []
    while (actor := game.to_act(state)) is not None and len(events) < 400:
        if actor == CHANCE:
            outcome = draw_chance(game.chance_request(state), rng)
            state = game.apply_chance(state, outcome)
            events.append(ChanceEvent(outcome))
        else:
            action = rng.choice(list(game.legal_actions(game.observe(state, actor))))
            state = game.apply_action(state, actor, action)
            events.append(ActionEvent(actor, action))
    return events, state


def _lies_caught(game_name: str, state: Any) -> tuple[int, int]:
    """(challenges, challenges that caught a lie) as the engine's own history tells."""
    if game_name == "liars_dice":
        return len(state.history), sum(not r.bid_true for r in state.history)
    if game_name == "liars_poker_dice":
        return len(state.rounds), sum(r.loser != r.steps[-1].seat for r in state.rounds)
    if game_name == "liars_poker":
        return len(state.results), sum(not r.truthful for r in state.results)
    calls = [r for r in state.history if not r.believed]
    return len(calls), sum(r.card != r.claim for r in calls)


@pytest.mark.parametrize(
    "game_name", ["liars_dice", "liars_poker_dice", "cockroach_poker", "liars_poker"]
)
@pytest.mark.parametrize("seed", range(5))
def test_challenges_agree_with_the_engines_verdicts(game_name: str, seed: int) -> None:
    events, state = _random_match(game_name, seed)
    stats = analyse_events(game_name, {}, 2, events)
    assert stats is not None
    total = stats[0] + stats[1]
    challenges, caught = _lies_caught(game_name, state)
    assert (total.challenges, total.correct_challenges) == (challenges, caught)
    assert total.challenges == total.correct_challenges + total.true_claims_challenged
    assert total.claims >= total.challenges
