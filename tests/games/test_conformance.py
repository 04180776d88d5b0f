"""The engine contract, checked the same way for every registered game.

For random legal play under every combination of rule options (integers at
their minimum and default) and seat counts: play terminates; replaying the
events reproduces every state and the outcome; the same seed gives the same
match; every listed legal action passes ``check_action``; observations survive
the wire codec; and nothing leaks — redrawing what a seat cannot know leaves
that seat's observation, and its wire bytes, unchanged.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.core.catalogue import get_codec, get_game
from referee.core.events import replay
from referee.core.playout import random_playout
from referee.gamekit.base import Game, Outcome, RuleOption
from tests.game_plugins import registered_games

MAX_TEST_SEATS = 5
"""Seat counts tried: from the game's minimum up to this (or its maximum)."""


def option_values(option: RuleOption) -> list[bool | int | str]:
    if isinstance(option.default, bool):
        return [False, True]
    if isinstance(option.default, int):
        low = option.minimum if option.minimum is not None else option.default
        return sorted({low, option.default})
    return list(option.choices)


def variants(game: Game[Any, Any, Any, Any]) -> list[dict[str, str]]:
    """Every combination of option values, as the text a user would pass."""
    names = [option.name for option in game.options]
    combos = itertools.product(*(option_values(option) for option in game.options))
    found = []
    for combo in combos:
        raw = {
            name: option.format(value)
            for name, option, value in zip(names, game.options, combo, strict=True)
        }
        try:
            game.parse_rules(raw)
        except Exception:
            continue  # an invalid combination (validate_rules says why)
        found.append(raw)
    return found


GAME_NAMES = registered_games()
"""Every registered game, plugins included (tests/game_plugins)."""


def check_outcome(outcome: Outcome, num_seats: int) -> None:
    assert len(outcome.places) == len(outcome.scores) == num_seats
    assert min(outcome.places) == 1
    for place in outcome.places:
        # Competition ranking: a place equals 1 + the number of seats strictly ahead.
        assert place == 1 + sum(1 for other in outcome.places if other < place)


@st.composite
def matches(draw: st.DrawFn, name: str) -> tuple[dict[str, str], int, int]:
    game = get_game(name)
    raw = draw(st.sampled_from(variants(game)))
    rules = game.parse_rules(raw)
    seats = [
        n
        for n in range(game.min_seats, min(game.max_seats, MAX_TEST_SEATS) + 1)
        if _seats_ok(game, rules, n)
    ]
    num_seats = draw(st.sampled_from(seats))
    seed = draw(st.integers(0, 2**32))
    return raw, num_seats, seed


def _seats_ok(game: Game[Any, Any, Any, Any], rules: Any, n: int) -> bool:
    try:
        game.check_seats(rules, n)
    except Exception:
        return False
    return True


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_has_variants_and_documented_options(name: str) -> None:
    game = get_game(name)
    assert variants(game), f"{name}: no valid option combination"
    for option in game.options:
        assert option.doc.strip(), f"{name}.{option.name} has no doc"
        assert option.parse(option.format(option.default)) == option.default


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_play_terminates_and_replays_exactly(name: str, data: st.DataObject) -> None:
    game = get_game(name)
    raw, num_seats, seed = data.draw(matches(name))
    rules = game.parse_rules(raw)
    playout = random_playout(game, rules, num_seats, random.Random(seed))
    assert game.is_terminal(playout.final)
    check_outcome(game.outcome(playout.final), num_seats)
    assert replay(game, rules, num_seats, playout.events) == list(playout.states)
    again = random_playout(game, rules, num_seats, random.Random(seed))
    assert again.events == playout.events
    for state in playout.states:
        check_outcome(game.standings(state), num_seats)


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_observations_do_not_leak_and_survive_the_wire(name: str, data: st.DataObject) -> None:
    game = get_game(name)
    codec = get_codec(name)
    raw, num_seats, seed = data.draw(matches(name))
    rules = game.parse_rules(raw)
    playout = random_playout(game, rules, num_seats, random.Random(seed))
    rng = random.Random(seed ^ 0x5EED)
    step = max(1, len(playout.states) // 25)
    for index, state in enumerate((*playout.states[::step], playout.final)):
        actor = game.to_act(state)
        for seat in range(num_seats):
            observation = game.observe(state, seat)
            # The wire (a round trip, and the same bytes whatever is hidden: equality
            # could overlook a field) for one seat per state, in turn: a long Liar's
            # Poker history costs 25 ms an encoding and as much to decode, and every
            # seat's at every state took this test to 55-167 s.
            on_the_wire = seat == index % num_seats
            if on_the_wire:
                message = codec.encode_observation(observation)
                encoded = message.SerializeToString(deterministic=True)  # observation_bytes
                assert codec.decode_observation(message) == observation
            for _ in range(2):
                other = game.perturb_hidden(state, seat, rng)
                assert game.to_act(other) == actor
                hidden_changed = game.observe(other, seat)
                assert hidden_changed == observation
                if on_the_wire:
                    assert codec.observation_bytes(hidden_changed) == encoded
            legal = game.legal_actions(observation)
            if actor == seat:
                assert legal, f"seat {seat} to act with no legal action"
                for action in some_of(legal, rng):
                    game.check_action(observation, action)
                    assert codec.decode_action(codec.encode_action(action)) == action
            else:
                assert not legal


def some_of(legal: Sequence[Any], rng: random.Random, most: int = 64) -> list[Any]:
    """``legal`` if it is short; else its first and last actions and a random sample.

    A Liar's Poker turn has thousands of legal bids, all of the same few shapes:
    checking each of them at every sampled state of every example cost half a
    minute and found nothing the sample does not (the seed makes it reproducible)."""
    if len(legal) <= most:
        return list(legal)
    return [legal[0], *rng.sample(list(legal[1:-1]), most - 2), legal[-1]]


@pytest.mark.parametrize("name", [n for n in GAME_NAMES if get_game(n).hidden_information])
def test_perturbation_really_changes_hidden_information(name: str) -> None:
    """Guard for the leak test: if perturb_hidden never changed anything, the
    leak test above would pass vacuously."""
    game = get_game(name)
    rules = game.default_rules()
    changed = 0
    for seed in range(5):
        playout = random_playout(game, rules, game.min_seats, random.Random(seed))
        rng = random.Random(seed)
        for state in playout.states:
            for seat in range(game.min_seats):
                if game.perturb_hidden(state, seat, rng) != state:
                    changed += 1
    assert changed > 0, f"{name}: perturb_hidden never changed a state"
