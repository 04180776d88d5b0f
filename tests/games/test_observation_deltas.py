"""Observation deltas (protocol 2) rebuild exactly the observation the engine made.

For every game and seat, the messages a :class:`DeltaEncoder` produces — through
real serialisation — decode with a :class:`DeltaDecoder` to the very observation
``game.observe`` gave, turn after turn, in random matches. Guards show that the
deltas do leave entries out (so the round trip is not passing by sending
everything) and that a long match's messages stop growing.
"""

from __future__ import annotations

import random
from dataclasses import fields
from typing import Any

import pytest

from arena.v1 import bot_pb2
from referee.core.catalogue import get_codec, get_game
from referee.core.playout import random_playout
from referee.gamekit.base import CHANCE
from referee.wire.base import MalformedObservationError
from referee.wire.deltas import DeltaDecoder, DeltaEncoder
from tests.game_plugins import registered_games

GAME_NAMES = registered_games()
LONG_RULES = {"chips_variant": "true", "starting_chips": "30"}


def _seat_views(
    name: str, seed: int, rules: dict[str, str] | None = None, seats: int = 3
) -> list[list[Any]]:
    """Per seat, the observations it is sent: one per decision, then the final one."""
    game = get_game(name)
    parsed = game.parse_rules(rules or {})
    seats = min(game.max_seats, max(game.min_seats, seats))
    playout = random_playout(game, parsed, seats, random.Random(seed))
    views: list[list[Any]] = [[] for _ in range(seats)]
    for state in playout.states[:-1]:
        actor = game.to_act(state)
        if actor is not None and actor != CHANCE:
            views[actor].append(game.observe(state, actor))
    for seat in range(seats):
        views[seat].append(game.observe(playout.final, seat))
    return views


def _wire(message: bot_pb2.Observation) -> bot_pb2.Observation:
    return bot_pb2.Observation.FromString(message.SerializeToString(deterministic=True))


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("seed", range(4))
def test_deltas_decode_to_the_engines_observation(name: str, seed: int) -> None:
    codec = get_codec(name)
    for views in _seat_views(name, seed):
        encoder, decoder = DeltaEncoder(codec, enabled=True), DeltaDecoder(codec)
        for number, view in enumerate(views):
            assert decoder.decode(_wire(encoder.encode(view))) == view, (name, seed, number)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_without_deltas_the_bytes_are_the_full_observation(name: str) -> None:
    codec = get_codec(name)
    for views in _seat_views(name, 11):
        encoder = DeltaEncoder(codec, enabled=False)
        for view in views:
            assert encoder.encode(view).SerializeToString(
                deterministic=True
            ) == codec.observation_bytes(view)


@pytest.mark.parametrize("name", [n for n in GAME_NAMES if get_codec(n).log_fields])
def test_guard_deltas_leave_entries_out(name: str) -> None:
    """Read without the decoder, some delta differs from the full observation: the
    round trip above passes because the decoder rebuilds, not because nothing was cut."""
    codec = get_codec(name)
    trimmed = 0
    for seed in range(4):
        for views in _seat_views(name, seed):
            encoder = DeltaEncoder(codec, enabled=True)
            for view in views:
                message = _wire(encoder.encode(view))
                if message.kept:
                    trimmed += 1
                    assert codec.decode_observation(message) != view
    assert trimmed > 0


def test_a_long_match_sends_messages_that_stop_growing() -> None:
    """In a Liar's Poker chips game the full observation grows with every deal; the
    deltas of the last decisions are no larger than those early in the match."""
    codec = get_codec("liars_poker")
    views = _seat_views("liars_poker", 1, LONG_RULES, seats=2)[0]  # ~3,900 events
    assert len(views) > 1000
    encoder = DeltaEncoder(codec, enabled=True)
    sizes = [len(encoder.encode(v).SerializeToString(deterministic=True)) for v in views]
    full = {i: len(codec.observation_bytes(views[i])) for i in (20, -2)}
    assert full[-2] > 10 * full[20]  # the history really grows
    assert max(sizes[-50:-1]) <= 2 * max(sizes[10:60])


def _liars_dice_views() -> list[Any]:
    return next(v for v in _seat_views("liars_dice", 2) if len(v) > 3)


def test_kept_naming_a_field_that_is_not_a_log_is_refused() -> None:
    codec = get_codec("liars_dice")
    views = _liars_dice_views()
    decoder = DeltaDecoder(codec)
    decoder.decode(codec.encode_observation(views[0]))
    message = codec.encode_observation(views[1])
    message.kept["own_dice"] = 1
    with pytest.raises(MalformedObservationError, match="own_dice"):
        decoder.decode(message)


def test_kept_claiming_more_than_was_sent_is_refused() -> None:
    codec = get_codec("liars_dice")
    views = _liars_dice_views()
    message = codec.encode_observation(views[1])
    message.kept["history"] = 5
    with pytest.raises(MalformedObservationError, match="only 0 entries"):
        DeltaDecoder(codec).decode(message)


def test_log_fields_are_tuple_fields_of_the_observation() -> None:
    for name in GAME_NAMES:
        codec = get_codec(name)
        view = _seat_views(name, 1)[0][-1]
        names = {f.name for f in fields(view)}
        for log in codec.log_fields:
            assert log in names and isinstance(getattr(view, log), tuple), (name, log)
