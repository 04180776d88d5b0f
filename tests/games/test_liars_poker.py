"""Liar's Poker: hand-checked deals, exchanges, challenges, penalties and chips."""

from __future__ import annotations

import random

import pytest

from arena.v1 import bot_pb2, liars_poker_pb2
from referee.gamekit.base import (
    CHANCE,
    ChanceError,
    IllegalActionError,
    MalformedActionError,
    Shuffle,
)
from referee.gamekit.cards import JOKER, POKER_DECK, Card, Suit, parse_cards
from referee.gamekit.poker_hands import HIGHEST, Announcement, Category
from referee.games.liars_poker.codec import LiarsPokerCodec
from referee.games.liars_poker.engine import (
    LIARS_POKER,
    Accept,
    Announce,
    Challenge,
    Exchange,
    State,
)

G = LIARS_POKER
C = Category
CODEC = LiarsPokerCodec()


def A(category: Category, *ranks: int) -> Announce:
    return Announce(Announcement(category, ranks))


def order_dealing(cards: str) -> list[int]:
    """A shuffle outcome whose first five cards are ``cards``, the rest in deck order."""
    wanted = parse_cards(cards)
    first: list[int] = []
    for card in wanted:
        first.append(next(i for i, c in enumerate(POKER_DECK) if c == card and i not in first))
    return first + [i for i in range(len(POKER_DECK)) if i not in first]


def start(num_seats: int = 3, cards: str | None = None, **rules: str) -> State:
    state = G.new_game(G.parse_rules(rules), num_seats)
    assert G.to_act(state) == CHANCE
    assert G.chance_request(state) == Shuffle(54)
    return G.apply_chance(state, order_dealing(cards) if cards else range(54))


def play(state: State, *moves: tuple[int, object]) -> State:
    for seat, action in moves:
        state = G.apply_action(state, seat, action)
    return state


# ---------------------------------------------------------------------------
# A deal, step by step


def test_true_announcement_challenged_penalises_the_challenger() -> None:
    state = start(3)
    assert state.hand == parse_cards("2c 2d 2h 2s 3c")
    assert (state.dealer, state.starter, G.to_act(state)) == (2, 0, 0)
    state = play(state, (0, A(C.FOUR_OF_A_KIND, 2, 3)))
    assert G.to_act(state) == 1
    state = play(state, (1, Challenge()))
    result = state.results[-1]
    assert result.truthful and result.penalised == 1 and result.challenger == 1
    assert result.cards == parse_cards("2c 2d 2h 2s 3c")
    assert state.penalties == (0, 1, 0)
    # The penalised seat starts the next deal; the dealer moves on from seat 2 to 0.
    assert (state.phase, state.starter, state.dealer, state.deal) == ("deal", 1, 0, 2)
    assert G.to_act(state) == CHANCE
    assert G.observe(state, 2).results == state.results


def test_accept_exchange_and_announce_higher() -> None:
    state = start(3)
    state = play(state, (0, A(C.PAIR, 2)), (1, Accept()))
    assert G.to_act(state) == 1
    assert G.observe(state, 1).hand == parse_cards("2c 2d 2h 2s 3c")
    assert G.observe(state, 0).hand is None
    state = play(state, (1, Exchange(parse_cards("3c"))))
    assert G.to_act(state) == CHANCE
    assert G.chance_request(state) == Shuffle(49)
    assert G.observe(state, 1).hand == parse_cards("2c 2d 2h 2s")
    state = G.apply_chance(state, range(49))
    # Drew the top of the stock (3d); the discard went back into the stock.
    assert state.hand == parse_cards("2c 2d 2h 2s 3d")
    assert len(state.stock) == 49 and state.stock[-1] == parse_cards("3c")[0]
    obs = G.observe(state, 1)
    assert obs.exchanged == 1 and obs.stock_size == 49
    with pytest.raises(IllegalActionError, match="higher than pair of 2s"):
        G.apply_action(state, 1, A(C.PAIR, 2))
    with pytest.raises(IllegalActionError, match="higher"):
        G.apply_action(state, 1, A(C.HIGH_CARD, 14))
    state = play(state, (1, A(C.PAIR, 2, 3)))
    assert state.claims[-1].exchanged == 1
    assert G.to_act(state) == 2
    assert G.observe(state, 1).hand is not None  # still holds them until passed on
    state = play(state, (2, Accept()))
    assert G.observe(state, 1).hand is None


def test_exchanging_nothing_needs_no_shuffle() -> None:
    state = start(2)
    state = play(state, (0, A(C.PAIR, 2)), (1, Accept()), (1, Exchange()))
    assert G.to_act(state) == 1 and state.exchanged == 0
    state = play(state, (1, A(C.THREE_OF_A_KIND, 2)))
    assert G.to_act(state) == 0  # two seats: back to the starter


def test_jokers_make_a_claim_true_and_false() -> None:
    state = start(3, "Jk As Kd 7c 2h")
    assert G.observe(state, 0).hand == parse_cards("Jk As Kd 7c 2h")
    state = play(
        state,
        (0, A(C.PAIR, 14, 13, 7)),  # true: the joker is the second ace
        (1, Accept()),
        (1, Exchange()),
        (1, A(C.TWO_PAIR, 14, 13, 7)),  # false: one joker cannot make two cards
        (2, Challenge()),
    )
    result = state.results[-1]
    assert not result.truthful and result.penalised == 1 and result.announcer == 1
    assert state.penalties == (0, 1, 0)
    assert (state.starter, state.dealer) == (1, 0)


def test_five_aces_must_be_challenged() -> None:
    state = start(3, "Jk Jk As Ah Ad")
    state = play(state, (0, Announce(HIGHEST)))
    obs = G.observe(state, 1)
    assert G.legal_actions(obs) == (Challenge(),)
    with pytest.raises(IllegalActionError, match="nothing beats five As"):
        G.apply_action(state, 1, Accept())
    state = play(state, (1, Challenge()))
    assert state.results[-1].truthful and state.penalties == (0, 1, 0)


# ---------------------------------------------------------------------------
# Penalties, dealers and the end


def test_penalty_limit_ends_the_game() -> None:
    state = start(3, "Kh 9d 7h 4c 2s", penalty_limit="1")
    state = play(state, (0, A(C.PAIR, 9)), (1, Challenge()))
    assert G.is_terminal(state)
    outcome = G.outcome(state)
    assert outcome.places == (3, 1, 1)
    assert outcome.scores == (1.0, 0.0, 0.0)


def test_dealer_rotates_skipping_the_penalised_seat() -> None:
    state = start(3, "Kh 9d 7h 4c 2s")
    state = play(state, (0, A(C.PAIR, 9)), (1, Challenge()))  # seat 0 lied
    # Dealer 2 -> 0, but seat 0 is penalised: seat 1 deals; seat 0 starts.
    assert (state.dealer, state.starter) == (1, 0)
    state = G.apply_chance(state, order_dealing("Kh 9d 7h 4c 2s"))
    assert G.to_act(state) == 0
    state = play(state, (0, A(C.HIGH_CARD, 13)), (1, Challenge()))  # true: seat 1
    assert (state.dealer, state.starter) == (2, 1)
    state = G.apply_chance(state, order_dealing("Kh 9d 7h 4c 2s"))
    assert G.to_act(state) == 1
    state = play(state, (1, A(C.HIGH_CARD, 14)), (2, Challenge()))  # false: seat 1
    assert (state.dealer, state.starter) == (0, 1)
    assert state.penalties == (1, 2, 0)
    standings = G.standings(state)
    assert standings.places == (2, 3, 1)
    assert [r.dealer for r in state.results] == [2, 1, 2]


def test_chips_variant_liar_pays_everyone_and_the_game_ends_when_one_cannot_pay() -> None:
    state = start(3, "Kh 9d 7h 4c 2s", chips_variant="true", starting_chips="2")
    assert state.chips == (2, 2, 2)
    state = play(state, (0, A(C.PAIR, 9)), (1, Challenge()))
    assert state.chips == (0, 3, 3) and not G.is_terminal(state)
    state = G.apply_chance(state, order_dealing("Kh 9d 7h 4c 2s"))
    state = play(state, (0, A(C.PAIR, 9)), (1, Challenge()))
    assert G.is_terminal(state)
    outcome = G.outcome(state)
    assert outcome.scores == (0.0, 3.0, 3.0)
    assert outcome.places == (3, 1, 1)


def test_chips_variant_truthful_announcer_takes_a_chip_from_the_challenger() -> None:
    state = start(3, "Kh 9d 7h 4c 2s", chips_variant="true", starting_chips="1")
    state = play(state, (0, A(C.HIGH_CARD, 13, 9)), (1, Challenge()))
    assert state.chips == (2, 0, 1) and not G.is_terminal(state)
    assert state.penalties == (0, 1, 0)  # counted, but no limit applies
    state = G.apply_chance(state, order_dealing("Kh 9d 7h 4c 2s"))
    state = play(state, (1, A(C.HIGH_CARD, 13)), (2, Challenge()))
    # Seat 2 owes seat 1 a chip and pays its last one: paid in full, play goes on.
    assert state.chips == (2, 1, 0) and not G.is_terminal(state)
    state = G.apply_chance(state, order_dealing("Kh 9d 7h 4c 2s"))
    state = play(state, (2, A(C.PAIR, 14)), (0, Challenge()))
    # Seat 2 lied and owes a chip to each other seat but has none: the game ends.
    assert G.is_terminal(state)
    assert state.chips == (2, 1, 0)
    assert G.outcome(state).places == (1, 2, 3)


# ---------------------------------------------------------------------------
# Knowledge


def test_only_the_holder_sees_the_cards_and_nobody_the_stock() -> None:
    state = start(3)
    state = play(state, (0, A(C.PAIR, 2)), (1, Accept()))
    rng = random.Random(5)
    for seat in range(3):
        observation = G.observe(state, seat)
        others = [G.perturb_hidden(state, seat, rng) for _ in range(5)]
        for other in others:
            assert G.observe(other, seat) == observation
            assert CODEC.observation_bytes(G.observe(other, seat)) == CODEC.observation_bytes(
                observation
            )
        assert any(other.stock != state.stock for other in others)
        if seat == 1:
            assert all(other.hand == state.hand for other in others)
        else:
            assert any(other.hand != state.hand for other in others)


# ---------------------------------------------------------------------------
# Errors


def test_malformed_actions() -> None:
    state = start(3)
    obs = G.observe(state, 0)
    bads: list[object] = [
        "challenge",
        A(C.PAIR, 9, 9),
        Announce("pair"),  # type: ignore[arg-type]
        Exchange(parse_cards("2c 2d 2h 2s 3c")),
        Exchange([JOKER]),  # type: ignore[arg-type]
        Exchange((Card(1, Suit.CLUBS),)),
    ]
    for bad in bads:
        with pytest.raises(MalformedActionError, match=r"liars_poker|Announcement|ranks|cards"):
            G.check_action(obs, bad)


def test_illegal_actions() -> None:
    state = start(3)
    with pytest.raises(IllegalActionError, match="not its turn"):
        G.apply_action(state, 1, A(C.PAIR, 2))
    with pytest.raises(IllegalActionError, match="must announce"):
        G.apply_action(state, 0, Challenge())
    state = play(state, (0, A(C.PAIR, 2)))
    with pytest.raises(IllegalActionError, match="accept or challenge"):
        G.apply_action(state, 1, A(C.PAIR, 3))
    state = play(state, (1, Accept()))
    with pytest.raises(IllegalActionError, match="not in the hand"):
        G.apply_action(state, 1, Exchange(parse_cards("Ah")))
    with pytest.raises(IllegalActionError, match="not in the hand"):
        G.apply_action(state, 1, Exchange((JOKER,)))
    with pytest.raises(IllegalActionError, match="must exchange"):
        G.apply_action(state, 1, A(C.PAIR, 3))
    with pytest.raises(ChanceError):
        G.chance_request(state)


def test_legal_exchanges_are_every_distinct_subset_of_up_to_four() -> None:
    state = start(2, "Jk Jk As Ah Ad")
    state = play(state, (0, A(C.PAIR, 2)), (1, Accept()))
    legal = G.legal_actions(G.observe(state, 1))
    # Multisets of size 0..4 from {Jk x2, As, Ah, Ad}: 3 x 2**3 minus the full hand.
    assert len(legal) == 3 * 8 - 1
    assert len(set(legal)) == len(legal)


def test_codec_rejects_bad_actions() -> None:
    pb = liars_poker_pb2
    with pytest.raises(MalformedActionError, match="empty"):
        CODEC.decode_action(bot_pb2.Action(liars_poker=pb.LiarsPokerAction()))
    with pytest.raises(MalformedActionError, match="expected a liars_poker action"):
        CODEC.decode_action(bot_pb2.Action())
    bad_rank = pb.LiarsPokerAction(
        announce=pb.LiarsPokerAnnounce(
            announcement=pb.LiarsPokerAnnouncement(
                category=pb.LIARS_POKER_CATEGORY_PAIR, ranks=[15]
            )
        )
    )
    with pytest.raises(MalformedActionError, match=r"2\.\.14"):
        CODEC.decode_action(bot_pb2.Action(liars_poker=bad_rank))
    bad_card = pb.LiarsPokerAction(
        exchange=pb.LiarsPokerExchange(
            discards=[pb.LiarsPokerCard(rank=0, suit=pb.LIARS_POKER_SUIT_HEARTS)]
        )
    )
    with pytest.raises(MalformedActionError, match="not a card"):
        CODEC.decode_action(bot_pb2.Action(liars_poker=bad_card))
    for action in (A(C.FULL_HOUSE, 3, 14), Accept(), Challenge(), Exchange((JOKER,))):
        assert CODEC.decode_action(CODEC.encode_action(action)) == action
        assert CODEC.action_from_json(CODEC.action_to_json(action)) == action


def test_descriptions() -> None:
    assert G.describe_action(A(C.PAIR, 9, 6)) == "announce pair of 9s and 6"
    assert G.describe_action(Exchange(parse_cards("Ah Jk"))) == "exchange 2 (Ah Jk)"
    state = G.new_game(G.default_rules(), 2)
    assert G.describe_chance(state, range(54)) == "deal 2c 2d 2h 2s 3c to seat 0"


# ---------------------------------------------------------------------------
# Example bots


@pytest.mark.parametrize("seats", [2, 4])
def test_example_bots_play_legal_matches(seats: int) -> None:
    from example_bots.liars_poker_heuristic import HeuristicLiarsPokerBot
    from example_bots.liars_poker_random import RandomLiarsPokerBot
    from sdk.local import play_local

    bots = [HeuristicLiarsPokerBot] + [RandomLiarsPokerBot] * (seats - 1)
    match = play_local("liars_poker", bots, seed=seats, rules={"penalty_limit": "3"})
    assert max(match.outcome.scores) == 3


def test_heuristic_announces_the_lowest_supported_claim_else_the_smallest_lie() -> None:
    from example_bots.liars_poker_heuristic import HeuristicLiarsPokerBot
    from sdk.bot import MatchInfo

    bot = HeuristicLiarsPokerBot()
    bot.start(MatchInfo("m", "liars_poker", G.default_rules(), 0, 2))
    state = start(2, "Kh 9d 7h 4c 2s")
    assert bot.act(G.observe(state, 0)) == A(C.HIGH_CARD, 2)
    # After "pair of 9s" it holds no pair: the smallest lie is "pair of 9s and 2".
    state = play(state, (0, A(C.PAIR, 9)), (1, Accept()), (1, Exchange()))
    bot.start(MatchInfo("m", "liars_poker", G.default_rules(), 1, 2))
    assert bot.act(G.observe(state, 1)) == A(C.PAIR, 9, 2)
    # A claim of five aces is very unlikely in five random cards: challenge.
    state = play(state, (1, Announce(HIGHEST)))
    bot.start(MatchInfo("m", "liars_poker", G.default_rules(), 0, 2))
    assert bot.act(G.observe(state, 0)) == Challenge()
    # With the cards in hand and a hand that beats the claim, it keeps them all.
    state = start(2, "As Ad Ah Ac Kd")
    state = play(state, (0, A(C.PAIR, 3)), (1, Accept()))
    bot.start(MatchInfo("m", "liars_poker", G.default_rules(), 1, 2))
    assert bot.act(G.observe(state, 1)) == Exchange()
