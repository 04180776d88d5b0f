"""Hypothesis over random legal play of the card games, with their rule options.

Random play terminates; replaying the events reproduces every state and the
outcome; nothing leaks (redrawing what a seat cannot know leaves its observation
and wire bytes unchanged, and the redraw does change hidden cards somewhere);
observations and actions survive the wire codec.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.core.catalogue import get_codec
from referee.core.events import ActionEvent, replay
from referee.core.playout import random_playout
from referee.gamekit.base import Game, GameError
from referee.gamekit.cards import Kind, parse_cards
from referee.gamekit.poker_hands import ALL_ANNOUNCEMENTS
from referee.games.cockroach_poker.engine import COCKROACH_POKER, Announce, Believe, Disbelieve
from referee.games.liars_poker.engine import LIARS_POKER, Accept, Challenge, exchanges
from referee.games.liars_poker.engine import Announce as LiarsPokerAnnounce


@st.composite
def cockroach_matches(draw: st.DrawFn) -> tuple[Game[Any, Any, Any, Any], Any, int, int]:
    max_players = draw(st.integers(2, 10))
    call_rule = draw(st.sampled_from(["simplified", "published"]))
    rules = COCKROACH_POKER.parse_rules({"max_players": str(max_players), "call_rule": call_rule})
    seats = draw(st.integers(2, max_players))
    return COCKROACH_POKER, rules, seats, draw(st.integers(0, 2**32))


@st.composite
def liars_poker_matches(draw: st.DrawFn) -> tuple[Game[Any, Any, Any, Any], Any, int, int]:
    raw = {
        "penalty_limit": str(draw(st.integers(1, 4))),
        "chips_variant": draw(st.sampled_from(["true", "false"])),
        "starting_chips": str(draw(st.integers(1, 4))),
    }
    rules = LIARS_POKER.parse_rules(raw)
    seats = draw(st.integers(2, LIARS_POKER.max_seats))
    return LIARS_POKER, rules, seats, draw(st.integers(0, 2**32))


any_match = st.one_of(cockroach_matches(), liars_poker_matches())
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(match=any_match)
def test_random_play_terminates_and_replays(
    match: tuple[Game[Any, Any, Any, Any], Any, int, int],
) -> None:
    game, rules, seats, seed = match
    playout = random_playout(game, rules, seats, random.Random(seed))
    assert game.is_terminal(playout.final)
    states = replay(game, rules, seats, playout.events)
    assert states == list(playout.states)
    assert game.outcome(states[-1]) == game.outcome(playout.final)
    outcome = game.outcome(playout.final)
    assert sorted(outcome.places)[0] == 1 and len(outcome.scores) == seats
    again = random_playout(game, rules, seats, random.Random(seed))
    assert again.events == playout.events


@SETTINGS
@given(match=any_match)
def test_no_leak_and_codec_round_trip(
    match: tuple[Game[Any, Any, Any, Any], Any, int, int],
) -> None:
    game, rules, seats, seed = match
    codec = get_codec(game.name)
    playout = random_playout(game, rules, seats, random.Random(seed))
    rng = random.Random(seed + 1)
    changed = 0
    step = max(1, len(playout.states) // 30)
    for state in (*playout.states[::step], playout.final):
        for seat in range(seats):
            observation = game.observe(state, seat)
            encoded = codec.observation_bytes(observation)
            assert codec.decode_observation(codec.encode_observation(observation)) == observation
            other = game.perturb_hidden(state, seat, rng)
            changed += other != state
            assert game.to_act(other) == game.to_act(state)
            assert game.observe(other, seat) == observation
            assert codec.observation_bytes(game.observe(other, seat)) == encoded
    # Mid-game there is always something hidden to redraw.
    assert changed > 0
    for event in playout.events:
        if isinstance(event, ActionEvent):
            assert codec.decode_action(codec.encode_action(event.action)) == event.action


@SETTINGS
@given(seats=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_cockroach_published_call_every_card_goes_by_the_call_face_up(
    seats: int, seed: int
) -> None:
    """Under call_rule=published: a right call sends the card to its announcer, a
    wrong one to the target; nothing lies face down; every seat reads every card."""
    game = COCKROACH_POKER
    rules = game.parse_rules({"call_rule": "published"})
    playout = random_playout(game, rules, seats, random.Random(seed))
    final = playout.final
    assert final.face_down == ((),) * seats
    assert sum(map(sum, (*final.hands, *final.face_up))) + len(final.set_aside) == 64
    for record in final.history:
        right = record.believed == (record.card == record.claim)
        assert record.taker == (record.announcer if right else record.target)
    for seat in range(seats):
        seen = game.observe(final, seat).history
        assert [view.card for view in seen] == [record.card for record in final.history]


def _universe(game: Game[Any, Any, Any, Any], observation: Any, rng: random.Random) -> list[Any]:
    """Candidate actions: all of Cockroach Poker's; for Liar's Poker every answer,
    every exchange of the observer's cards and a sample of announcements."""
    if game is COCKROACH_POKER:
        kinds = list(Kind)
        return [Believe(), Disbelieve(), *(Announce(c, k) for c in kinds for k in kinds)]
    announcements = rng.sample(ALL_ANNOUNCEMENTS, 150)
    return [
        Accept(),
        Challenge(),
        *exchanges(observation.hand or parse_cards("2c 3c 4c 5c 6c")),
        *(LiarsPokerAnnounce(a) for a in announcements),
    ]


@settings(max_examples=15, deadline=None)
@given(match=any_match)
def test_legal_actions_are_exactly_the_accepted_ones(
    match: tuple[Game[Any, Any, Any, Any], Any, int, int],
) -> None:
    game, rules, seats, seed = match
    playout = random_playout(game, rules, seats, random.Random(seed))
    rng = random.Random(seed)
    for state in playout.states[:: max(1, len(playout.states) // 10)]:
        actor = game.to_act(state)
        for seat in range(seats):
            observation = game.observe(state, seat)
            legal = set(game.legal_actions(observation))
            if actor != seat:
                assert not legal
            for action in _universe(game, observation, rng):
                try:
                    game.check_action(observation, action)
                except GameError:
                    assert action not in legal
                else:
                    assert action in legal
