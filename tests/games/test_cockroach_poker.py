"""Cockroach Poker: hand-checked deals, passes, eliminations, endings and knowledge."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from referee.gamekit.base import (
    CHANCE,
    ChanceError,
    IllegalActionError,
    MalformedActionError,
    RulesError,
    Shuffle,
)
from referee.gamekit.cards import COCKROACH_DECK, Kind, kind_counts
from referee.games.cockroach_poker.codec import CockroachPokerCodec
from referee.games.cockroach_poker.engine import (
    COCKROACH_POKER,
    NO_CARDS,
    Announce,
    Believe,
    Disbelieve,
    FaceDown,
    PassResult,
    Rules,
    State,
    unseen_counts,
)
from referee.records.record import MatchRecord
from referee.records.replay import verify

G = COCKROACH_POKER
K = Kind
CODEC = CockroachPokerCodec()


def counts(*kinds: Kind) -> tuple[int, ...]:
    return kind_counts(kinds)


def table(
    hands: list[tuple[int, ...]],
    *,
    face_up: list[tuple[int, ...]] | None = None,
    face_down: list[tuple[FaceDown, ...]] | None = None,
    announcer: int = 0,
    eliminated: tuple[int, ...] = (),
    set_aside: tuple[Kind, ...] = (),
    rules: Rules | None = None,
) -> State:
    n = len(hands)
    return State(
        rules=rules or Rules(),
        num_seats=n,
        dealt=True,
        hands=tuple(hands),
        face_up=tuple(face_up or [NO_CARDS] * n),
        face_down=tuple(face_down or [()] * n),
        set_aside=set_aside,
        announcer=announcer,
        eliminated=eliminated,
    )


def play(state: State, *moves: tuple[int, object]) -> State:
    for seat, action in moves:
        state = G.apply_action(state, seat, action)
    return state


# ---------------------------------------------------------------------------
# Deal and seats


def test_deal_three_seats_sets_one_card_aside() -> None:
    state = G.new_game(G.default_rules(), 3)
    assert G.to_act(state) == CHANCE
    assert G.chance_request(state) == Shuffle(64)
    state = G.apply_chance(state, range(64))
    assert [sum(hand) for hand in state.hands] == [21, 21, 21]
    # Card j of the (unshuffled) deck goes to seat j % 3; the 64th is set aside.
    assert state.hands[0] == kind_counts(COCKROACH_DECK[0:63:3])
    assert state.set_aside == (K.FLY,)
    assert G.to_act(state) == 0
    assert G.observe(state, 1).set_aside == 1
    with pytest.raises(ChanceError):
        G.chance_request(state)


def test_deal_six_seats_and_bad_shuffles() -> None:
    state = G.new_game(G.default_rules(), 6)
    with pytest.raises(ChanceError, match="permutation"):
        G.apply_chance(state, [0] * 64)
    state = G.apply_chance(state, list(reversed(range(64))))
    assert [sum(hand) for hand in state.hands] == [10] * 6
    assert len(state.set_aside) == 4


def test_seat_limits_follow_max_players() -> None:
    with pytest.raises(RulesError, match="max_players"):
        G.new_game(G.default_rules(), 7)
    with pytest.raises(RulesError):
        G.new_game(G.default_rules(), 1)
    big = G.parse_rules({"max_players": "64"})
    state = G.apply_chance(G.new_game(big, 64), range(64))
    assert all(sum(hand) == 1 for hand in state.hands)
    with pytest.raises(RulesError):
        G.parse_rules({"max_players": "65"})
    with pytest.raises(RulesError):
        G.parse_rules({"max_player": "6"})


# ---------------------------------------------------------------------------
# Passing and answering


def test_disbelieving_a_true_claim_the_target_takes_it_face_up() -> None:
    state = table([counts(K.BAT, K.RAT), counts(K.FLY), counts(K.TOAD)])
    state = play(state, (0, Announce(K.BAT, K.BAT)))
    assert G.to_act(state) == 1
    state = play(state, (1, Disbelieve()))
    assert state.face_up[1] == counts(K.BAT)
    assert state.hands[0] == counts(K.RAT)
    assert G.to_act(state) == 1  # the target announces next


def test_disbelieving_a_false_claim_the_announcer_takes_it_face_up() -> None:
    state = table([counts(K.BAT, K.RAT), counts(K.FLY), counts(K.TOAD)])
    state = play(state, (0, Announce(K.BAT, K.SPIDER)), (1, Disbelieve()))
    assert state.face_up[0] == counts(K.BAT)
    assert state.face_up[1] == NO_CARDS
    assert G.to_act(state) == 1


def test_believing_puts_the_card_face_down_unseen_even_by_its_owner() -> None:
    state = table([counts(K.BAT, K.RAT), counts(K.FLY), counts(K.TOAD)])
    state = play(state, (0, Announce(K.BAT, K.SPIDER)), (1, Believe()))
    assert state.face_down[1] == (FaceDown(K.BAT, 0),)
    owner = G.observe(state, 1)
    assert owner.seats[1].face_down == 1
    assert owner.history[-1].card is None  # the owner does not know its kind
    assert G.observe(state, 2).history[-1].card is None
    assert G.observe(state, 0).history[-1].card == K.BAT  # the announcer does
    assert G.observe(state, 0).history[-1].claim == K.SPIDER


def test_four_face_down_cards_of_a_kind_eliminate() -> None:
    down = tuple(FaceDown(K.COCKROACH, 0) for _ in range(3))
    state = table(
        [counts(K.COCKROACH, K.FLY), counts(K.RAT), counts(K.TOAD, K.TOAD)],
        face_down=[(), down, ()],
    )
    state = play(state, (0, Announce(K.COCKROACH, K.FLY)), (1, Believe()))
    assert state.eliminated == (1,)
    assert state.history[-1].eliminated
    # The target is out: the next seat still in with cards announces, and the
    # target of seat 2 is seat 0 (seat 1 is skipped).
    assert G.to_act(state) == 2
    state = play(state, (2, Announce(K.TOAD, K.TOAD)))
    assert G.to_act(state) == 0
    standings = G.standings(state)
    assert standings.places[1] == 3


def test_mixed_face_up_and_face_down_eliminate_the_announcer() -> None:
    state = table(
        [counts(K.RAT), counts(K.FLY)],
        face_up=[counts(K.RAT, K.RAT), NO_CARDS],
        face_down=[(FaceDown(K.RAT, 1),), ()],
    )
    state = play(state, (0, Announce(K.RAT, K.BAT)), (1, Disbelieve()))
    assert state.eliminated == (0,)
    assert G.is_terminal(state)
    assert G.outcome(state).places == (2, 1)
    assert G.outcome(state).scores == (4.0, 0.0)


def test_empty_hands_are_skipped_as_announcers_but_still_targets() -> None:
    state = table([counts(K.BAT), (0,) * 8, counts(K.TOAD)])
    state = play(state, (0, Announce(K.BAT, K.BAT)))
    assert state.pending is not None and state.pending.target == 1
    state = play(state, (1, Believe()))
    # Seat 1 has no cards: seat 2 announces.
    assert G.to_act(state) == 2
    obs = G.observe(state, 2)
    assert G.legal_actions(obs) == tuple(Announce(K.TOAD, claim) for claim in Kind)


def test_all_hands_empty_ends_the_game_and_ties_share() -> None:
    state = table(
        [counts(K.BAT), (0,) * 8, (0,) * 8],
        face_up=[NO_CARDS, counts(K.FLY), counts(K.RAT)],
    )
    state = play(state, (0, Announce(K.BAT, K.TOAD)), (1, Disbelieve()))
    # False claim: seat 0 takes it. Every hand is now empty.
    assert G.is_terminal(state)
    outcome = G.outcome(state)
    assert outcome.places == (1, 1, 1)
    assert outcome.scores == (1.0, 1.0, 1.0)
    assert G.observe(state, 0).phase == "over"
    assert G.legal_actions(G.observe(state, 0)) == ()


def test_placement_survivors_by_cards_then_eliminated_in_reverse_order() -> None:
    state = table(
        [(0,) * 8, (0,) * 8, counts(K.BAT), (0,) * 8],
        face_up=[counts(K.FLY), NO_CARDS, counts(K.FLY, K.RAT), NO_CARDS],
        eliminated=(3, 1),
        announcer=2,
    )
    outcome = G.standings(state)
    # Survivors 0 (1 card) and 2 (2 cards); seat 1 went out after seat 3.
    assert outcome.places == (1, 3, 2, 4)


# ---------------------------------------------------------------------------
# call_rule=published: the target calls true (Believe) or false (Disbelieve), the
# card is turned up, a right call sends it to the passer, a wrong one to the target.

PUBLISHED = Rules(call_rule="published")


def published_table(hands: list[tuple[int, ...]], **kwargs: object) -> State:
    return table(hands, rules=PUBLISHED, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("card", "claim", "answer", "taker", "right"),
    [
        (K.BAT, K.BAT, Believe(), 0, True),  # "true" on a true claim: right, passer
        (K.BAT, K.BAT, Disbelieve(), 1, False),  # "false" on a true claim: wrong, target
        (K.BAT, K.SPIDER, Believe(), 1, False),  # "true" on a lie: wrong, target
        (K.BAT, K.SPIDER, Disbelieve(), 0, True),  # "false" on a lie: right, passer
    ],
)
def test_published_call_the_call_decides_who_takes_the_card_face_up(
    card: Kind, claim: Kind, answer: object, taker: int, right: bool
) -> None:
    state = published_table([counts(K.BAT, K.RAT), counts(K.FLY), counts(K.TOAD)])
    state = play(state, (0, Announce(card, claim)), (1, answer))
    assert state.face_up[taker] == counts(K.BAT)
    assert state.face_up[1 - taker] == NO_CARDS
    assert state.face_down == ((), (), ())  # nothing ever lies face down
    assert state.history[-1].taker == taker
    assert G.to_act(state) == 1  # the target announces next, as under the default
    # The card is public once answered: every seat reads its kind.
    for seat in range(3):
        view = G.observe(state, seat)
        assert view.history[-1].card == K.BAT
        assert view.seats[taker].face_up == counts(K.BAT)
        assert unseen_counts(view)[K.BAT] == 7  # counted once, face up
    assert right == (taker == 0)


def test_published_call_a_true_claim_can_come_back_so_truth_is_no_forced_win() -> None:
    # Under the default, four truthful bats always end in front of the target;
    # under the published rule a target that calls "true" sends each one back.
    state = published_table(
        [counts(K.BAT, K.BAT, K.BAT, K.BAT, K.RAT), counts(K.FLY, K.FLY, K.FLY, K.FLY)]
    )
    for _ in range(3):
        state = play(state, (0, Announce(K.BAT, K.BAT)), (1, Believe()))
        state = play(state, (1, Announce(K.FLY, K.TOAD)), (0, Believe()))
    # Seat 0 took three bats back (right calls by seat 1) and three flies (wrong calls).
    assert state.face_up[0][K.BAT] == 3 and state.face_up[0][K.FLY] == 3
    state = play(state, (0, Announce(K.BAT, K.BAT)), (1, Believe()))
    assert state.eliminated == (0,)
    assert G.outcome(state).places == (2, 1)
    # The same moves under the default rules put seat 1 out instead.
    simplified = table(
        [counts(K.BAT, K.BAT, K.BAT, K.BAT, K.RAT), counts(K.FLY, K.FLY, K.FLY, K.FLY)]
    )
    for _ in range(3):
        simplified = play(simplified, (0, Announce(K.BAT, K.BAT)), (1, Believe()))
        simplified = play(simplified, (1, Announce(K.FLY, K.TOAD)), (0, Believe()))
    simplified = play(simplified, (0, Announce(K.BAT, K.BAT)), (1, Believe()))
    assert simplified.eliminated == (1,)


def test_published_call_option_parses_validates_and_travels_in_the_observation() -> None:
    rules = G.parse_rules({"call_rule": "published"})
    assert rules == PUBLISHED and rules.published_call
    assert G.format_rules(rules) == {"max_players": "6", "call_rule": "published"}
    # The default is left out of the canonical text: records made before the
    # option (rules {"max_players": "6"}) stay canonical for `arena replay --verify`.
    assert G.format_rules(G.default_rules()) == {"max_players": "6"}
    assert G.parse_rules(G.format_rules(G.default_rules())) == G.default_rules()
    assert not G.default_rules().published_call
    with pytest.raises(RulesError, match="call_rule='peek'"):
        G.parse_rules({"call_rule": "peek"})
    with pytest.raises(RulesError, match="call_rule="):
        G.validate_rules(Rules(call_rule="peek"))
    state = play(published_table([counts(K.BAT), counts(K.FLY)]), (0, Announce(K.BAT, K.RAT)))
    view = G.observe(state, 1)
    assert CODEC.decode_observation(CODEC.encode_observation(view)) == view
    assert CODEC.decode_observation(CODEC.encode_observation(view)).rules.published_call


def test_a_record_made_before_the_call_rule_option_still_verifies() -> None:
    # Played by the referee of commit 7e8e726 (3 seats: heuristic, strong, random;
    # seed 11), before call_rule existed.
    path = Path(__file__).parent.parent / "golden" / "cockroach_poker_record_before_call_rule.json"
    record = MatchRecord.from_json(path.read_text())
    assert record.rules == {"max_players": "6"}
    assert verify(record) == []


def test_default_rules_keep_their_state_repr_and_observation_bytes() -> None:
    # Records store digests of repr(state) (which holds the rules) and of the
    # observation bytes: a default match must digest as it did before call_rule.
    assert repr(G.default_rules()) == "Rules(max_players=6)"
    assert repr(PUBLISHED) == "Rules(max_players=6, call_rule='published')"
    message = CODEC.encode_observation(G.observe(table([counts(K.BAT), counts(K.FLY)]), 0))
    assert message.cockroach_poker.rules.SerializeToString() == b"\x08\x06"


# ---------------------------------------------------------------------------
# Knowledge


def test_what_each_seat_may_know() -> None:
    state = G.apply_chance(G.new_game(G.default_rules(), 3), range(64))
    card = next(kind for kind in Kind if state.hands[0][kind])
    state = play(state, (0, Announce(card, K.FLY)))
    announcer, target, other = (G.observe(state, s) for s in range(3))
    assert announcer.pending is not None and announcer.pending.card == card
    assert target.pending is not None and target.pending.card is None
    assert other.pending is not None and other.pending.card is None
    assert target.hand == state.hands[1]
    assert announcer.hand == state.hands[0]
    assert [view.hand_size for view in other.seats] == [20, 21, 21]
    # Seat 2 cannot tell any of this apart from a redrawn deal.
    rng = random.Random(7)
    redrawn = [G.perturb_hidden(state, 2, rng) for _ in range(5)]
    assert any(r.hands[0] != state.hands[0] for r in redrawn)
    for r in redrawn:
        assert G.observe(r, 2) == other
        assert CODEC.observation_bytes(G.observe(r, 2)) == CODEC.observation_bytes(other)
    # The announcer's pending card survives its own perturbation.
    assert G.perturb_hidden(state, 0, rng).pending == state.pending


def test_perturbation_keeps_known_face_down_cards_and_consistency() -> None:
    state = table(
        [counts(K.BAT, K.RAT, K.FLY), counts(K.TOAD, K.SPIDER), counts(K.FLY, K.FLY)],
        face_down=[(), (FaceDown(K.BAT, 0), FaceDown(K.RAT, 2)), ()],
        set_aside=(K.SCORPION,),
    )
    rng = random.Random(3)
    for _ in range(20):
        other = G.perturb_hidden(state, 0, rng)
        assert other.face_down[1][0] == FaceDown(K.BAT, 0)  # seat 0 passed it
        assert G.observe(other, 0) == G.observe(state, 0)
    seen = {G.perturb_hidden(state, 1, rng).face_down[1] for _ in range(30)}
    assert len(seen) > 1  # the owner does not know either face-down card


def test_unseen_counts() -> None:
    state = table(
        [counts(K.BAT, K.BAT, K.RAT), counts(K.TOAD)],
        face_up=[NO_CARDS, counts(K.BAT)],
    )
    state = play(state, (0, Announce(K.RAT, K.FLY)), (1, Believe()))
    unseen = unseen_counts(G.observe(state, 0))
    assert unseen[K.BAT] == 8 - 3
    assert unseen[K.RAT] == 7  # passed face down by seat 0 itself
    assert unseen[K.TOAD] == 8
    assert unseen_counts(G.observe(state, 1))[K.RAT] == 8
    assert unseen_counts(G.observe(state, 1))[K.TOAD] == 7


# ---------------------------------------------------------------------------
# Errors


def test_malformed_actions() -> None:
    state = table([counts(K.BAT), counts(K.FLY)])
    obs = G.observe(state, 0)
    bads: list[object] = [
        "believe",
        None,
        Announce(K.BAT, 8),  # type: ignore[arg-type]
        Announce(-1, K.BAT),  # type: ignore[arg-type]
        Announce(True, K.BAT),  # type: ignore[arg-type]
    ]
    for bad in bads:
        with pytest.raises(MalformedActionError, match=r"cockroach_poker|Kind"):
            G.check_action(obs, bad)
    with pytest.raises(MalformedActionError, match="'believe'"):
        G.apply_action(state, 1, "believe")


def test_illegal_actions() -> None:
    state = table([counts(K.BAT), counts(K.FLY)])
    with pytest.raises(IllegalActionError, match="holds no rat"):
        G.apply_action(state, 0, Announce(K.RAT, K.RAT))
    with pytest.raises(IllegalActionError, match="must announce"):
        G.apply_action(state, 0, Believe())
    with pytest.raises(IllegalActionError, match="not its turn"):
        G.apply_action(state, 1, Announce(K.FLY, K.FLY))
    state = play(state, (0, Announce(K.BAT, K.BAT)))
    with pytest.raises(IllegalActionError, match="believe or disbelieve"):
        G.apply_action(state, 1, Announce(K.FLY, K.FLY))
    with pytest.raises(IllegalActionError, match="not seat 0's turn"):
        G.check_action(G.observe(state, 0), Believe())


def test_descriptions() -> None:
    assert G.describe_action(Announce(K.BAT, K.FLY)) == "pass a card: 'it is a fly'"
    assert G.describe_action(Believe()) == "believe"
    state = G.new_game(G.default_rules(), 3)
    text = G.describe_chance(state, range(64))
    assert text is not None and "set aside: fly" in text


def test_codec_rejects_bad_actions() -> None:
    from arena.v1 import bot_pb2, cockroach_poker_pb2

    with pytest.raises(MalformedActionError, match="empty"):
        CODEC.decode_action(
            bot_pb2.Action(cockroach_poker=cockroach_poker_pb2.CockroachPokerAction())
        )
    with pytest.raises(MalformedActionError, match="expected a cockroach_poker action"):
        CODEC.decode_action(bot_pb2.Action())
    message = bot_pb2.Action(
        cockroach_poker=cockroach_poker_pb2.CockroachPokerAction(
            announce=cockroach_poker_pb2.CockroachPokerAnnounce(
                card=cockroach_poker_pb2.COCKROACH_POKER_KIND_UNSPECIFIED,
                claim=cockroach_poker_pb2.COCKROACH_POKER_KIND_TOAD,
            )
        )
    )
    with pytest.raises(MalformedActionError, match="card"):
        CODEC.decode_action(message)
    action = Announce(K.FLY, K.COCKROACH)
    assert CODEC.decode_action(CODEC.encode_action(action)) == action
    assert CODEC.action_from_json(CODEC.action_to_json(action)) == action
    state = replace(table([counts(K.BAT), counts(K.FLY)]), announcer=None)
    assert CODEC.decode_observation(CODEC.encode_observation(G.observe(state, 1))) == G.observe(
        state, 1
    )


# ---------------------------------------------------------------------------
# Example bots


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_example_bots_play_legal_matches(seats: int) -> None:
    from example_bots.cockroach_poker_heuristic import HeuristicCockroachPokerBot
    from example_bots.cockroach_poker_random import RandomCockroachPokerBot
    from sdk.local import play_local

    for seed in range(3):
        bots = [HeuristicCockroachPokerBot] + [RandomCockroachPokerBot] * (seats - 1)
        match = play_local("cockroach_poker", bots, seed=seed)
        assert sorted(match.outcome.places)[0] == 1


def test_heuristic_answers_and_announces_by_the_count() -> None:
    from example_bots.cockroach_poker_heuristic import HeuristicCockroachPokerBot
    from sdk.bot import MatchInfo

    bot = HeuristicCockroachPokerBot()
    bot.start(MatchInfo("m", "cockroach_poker", Rules(), 1, 2))
    # Every bat is in sight (seat 1 holds 5, 3 lie face up): a bat claim is a lie.
    state = table(
        [counts(K.FLY, K.RAT), (0, 0, 0, 0, 0, 5, 0, 0)],
        face_up=[counts(K.BAT, K.BAT, K.BAT), NO_CARDS],
    )
    state = play(state, (0, Announce(K.FLY, K.BAT)))
    assert bot.act(G.observe(state, 1)) == Disbelieve()
    # Announcing to seat 0, which shows three bats: it passes a bat.
    state = play(state, (1, Disbelieve()))
    action = bot.act(G.observe(state, 1))
    assert isinstance(action, Announce) and action.card == K.BAT


# ---------------------------------------------------------------------------
# The bots under call_rule=published


def published_history(*passes: tuple[int, int, Kind, Kind, bool]) -> State:
    """Two seats after ``passes`` (announcer, target, card, claim, called true), each
    card face up in front of whoever the call sent it to; seat 0 to announce."""
    face_up = [list(NO_CARDS), list(NO_CARDS)]
    history = []
    for announcer, target, card, claim, called_true in passes:
        taker = announcer if called_true == (card == claim) else target
        face_up[taker][card] += 1
        history.append(PassResult(announcer, target, card, claim, called_true, taker, False))
    state = published_table(
        [counts(K.CENTIPEDE, K.CENTIPEDE, K.FLY), counts(K.FLY, K.RAT)],
        face_up=[tuple(face_up[0]), tuple(face_up[1])],
    )
    return replace(state, history=tuple(history))


SIX = (K.COCKROACH, K.SCORPION, K.TOAD, K.SPIDER, K.RAT, K.BAT)


@pytest.mark.parametrize("bot_name", ["heuristic", "strong"])
def test_bots_call_true_on_an_honest_announcer_and_false_on_a_liar(bot_name: str) -> None:
    from league.execution.counters import bot_class
    from sdk.bot import MatchInfo

    honest = published_history(*((0, 1, k, k, True) for k in SIX))
    liar = published_history(*((0, 1, k, K.FLY, False) for k in SIX))
    for state, call in ((honest, Believe()), (liar, Disbelieve())):
        bot = bot_class(f"cockroach_poker_{bot_name}")()
        bot.start(MatchInfo("m", "cockroach_poker", PUBLISHED, 1, 2))
        state = play(state, (0, Announce(K.CENTIPEDE, K.CENTIPEDE)))
        assert bot.act(G.observe(state, 1)) == call, (bot_name, call)


def test_the_strong_bot_lies_to_a_target_that_calls_true_and_tells_the_truth_otherwise() -> None:
    from example_bots.cockroach_poker_strong import StrongCockroachPokerBot
    from sdk.bot import MatchInfo

    credulous = published_history(*((0, 1, k, K.FLY, True) for k in SIX))
    doubting = published_history(*((0, 1, k, K.FLY, False) for k in SIX))
    for state, lies in ((credulous, True), (doubting, False)):
        bot = StrongCockroachPokerBot()
        bot.start(MatchInfo("m", "cockroach_poker", PUBLISHED, 0, 2))
        action = bot.act(G.observe(state, 0))
        assert isinstance(action, Announce)
        assert (action.card != action.claim) == lies, action
