"""Whatever a bot sends, decoding and validation fail only with the named errors.

Random ``arena.v1.Action`` messages are built from the protobuf descriptors (every
field of every game, extreme integers, unknown enum values, nested messages), then
decoded with each game's codec and checked against observations from real play:
the only exceptions allowed are :class:`MalformedActionError` and the engine's
:class:`GameError` family — anything else would crash a referee.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.v1 import bot_pb2
from referee.core.catalogue import get_codec, get_game
from referee.core.playout import random_playout
from referee.gamekit.base import GameError, MalformedActionError
from referee.wire.derived import DerivedCodec
from tests.game_plugins import registered_games

INTS = [0, 1, 2, 3, 5, 6, 7, 12, 13, 52, 64, -1, -(2**31), 2**31 - 1, 2**32 - 1, 2**63 - 1]


def fill(message: Message, rng: random.Random, depth: int = 0) -> None:
    for field in message.DESCRIPTOR.fields:
        if rng.random() < 0.4:
            continue
        count = rng.randint(0, 6) if field.is_repeated else 1
        for _ in range(count):
            value = random_value(field, message, rng, depth)
            if value is None:
                continue
            if field.is_repeated:
                getattr(message, field.name).append(value)
            else:
                setattr(message, field.name, value)


def random_value(field: Any, parent: Message, rng: random.Random, depth: int) -> Any:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        if depth > 4:
            return None
        container = getattr(parent, field.name)
        child = container.add() if field.is_repeated else container
        fill(child, rng, depth + 1)
        if not field.is_repeated and not child.ListFields():
            child.SetInParent()
        return None
    if field.type == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None
        values = [v.number for v in field.enum_type.values]
        return rng.choice([*values, 99, -5])
    if field.type == FieldDescriptor.TYPE_BOOL:
        return rng.random() < 0.5
    if field.type == FieldDescriptor.TYPE_STRING:
        return rng.choice(["", "x", "\u2603", "A" * 50])
    if field.type == FieldDescriptor.TYPE_BYTES:
        return rng.randbytes(rng.randint(0, 5))
    if field.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return rng.choice([0.0, -1.5, 1e300])
    value = rng.choice(INTS)
    unsigned = field.type in (
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_FIXED32,
        FieldDescriptor.TYPE_FIXED64,
    )
    bits = (
        64
        if field.type
        in (
            FieldDescriptor.TYPE_INT64,
            FieldDescriptor.TYPE_UINT64,
            FieldDescriptor.TYPE_SINT64,
            FieldDescriptor.TYPE_FIXED64,
            FieldDescriptor.TYPE_SFIXED64,
        )
        else 32
    )
    if unsigned:
        return abs(value) % (2**bits)
    return max(-(2 ** (bits - 1)), min(2 ** (bits - 1) - 1, value))


OBSERVATIONS: dict[str, list[Any]] = {}


def observations(name: str) -> list[Any]:
    """Acting seats' observations along one random playout of the game."""
    if name not in OBSERVATIONS:
        game = get_game(name)
        playout = random_playout(game, game.default_rules(), game.min_seats, random.Random(7))
        found = []
        for state in playout.states[:: max(1, len(playout.states) // 40)]:
            actor = game.to_act(state)
            for seat in range(game.min_seats):
                if actor == seat or seat == 0:
                    found.append(game.observe(state, seat))
        OBSERVATIONS[name] = found
    return OBSERVATIONS[name]


@pytest.mark.parametrize("name", registered_games())
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), pick=st.integers(0, 10_000))
def test_random_action_messages_fail_only_with_named_errors(
    name: str, seed: int, pick: int
) -> None:
    rng = random.Random(seed)
    codec = get_codec(name)
    # Usually this game's action (in its own oneof field, or packed in the extension
    # field for a game of its own package), sometimes anything at all.
    if rng.random() < 0.85 and isinstance(codec, DerivedCodec):
        inner = codec.action_message()
        fill(inner, rng)
        message = codec.wrap_action(inner)
    else:
        message = bot_pb2.Action()
        fill(message, rng)
    try:
        action = codec.decode_action(message)
    except MalformedActionError:
        return
    game = get_game(name)
    options = observations(name)
    observation = options[pick % len(options)]
    with contextlib.suppress(GameError):
        game.check_action(observation, action)
    assert codec.decode_action(codec.encode_action(action)) == action


@pytest.mark.parametrize("name", registered_games())
def test_foreign_python_values_are_malformed(name: str) -> None:
    """An engine fed a non-action (what a buggy local bot could return) says so."""
    game = get_game(name)
    observation = observations(name)[0]
    for junk in (None, "bid", 3, (1, 2), object()):
        with pytest.raises(GameError):
            game.check_action(observation, junk)
