"""The derived codec on a toy game built here: every shape of the translation table,
the errors a mismatch between engine and messages raises when the codec is built, and
what malformed input raises when it arrives.

The messages are made from a descriptor written in this file (no ``.proto``, no
generated code), so each case names exactly the shape it exercises. The real games
are covered byte for byte by ``tests/test_wire_bytes.py``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal, cast

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from arena.v1 import bot_pb2
from referee.core.catalogue import get_codec
from referee.gamekit.base import Game, MalformedActionError
from referee.games.liars_dice.engine import LIARS_DICE
from referee.games.liars_dice.engine import Rules as LiarsDiceRules
from referee.wire.base import MalformedObservationError
from referee.wire.derived import Checks, DerivedCodec, Field, Fields, WireShapeError

F = descriptor_pb2.FieldDescriptorProto


class Colour(enum.IntEnum):
    NONE = 0  # no wire name: travels as the value of the same number (UNSPECIFIED)
    RED = 1
    BLUE = 2


@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Poke:
    at: Point


@dataclass(frozen=True, slots=True)
class Pass:
    pass


@dataclass(frozen=True, slots=True)
class Observation:
    seat: int
    mood: Literal["calm", "roll-off"]
    colour: Colour
    to_act: int | None
    hand: tuple[int, ...] | None
    pairs: tuple[tuple[int, ...], ...]
    points: tuple[Point, ...]
    last: Poke | Pass
    chips: tuple[int, int]
    colour_seen: Literal["red", "blue"] | None
    name: str = "x"
    cache: int = field(default=0, compare=False)  # not part of the value: never sent


Action = Poke | Pass


class Toy:
    name = "toy_game"
    action_types: ClassVar[tuple[type, ...]] = (Poke, Pass)

    def observe(self, state: object, seat: int) -> Observation:
        raise NotImplementedError


def _message(file: Any, name: str, *fields: tuple[str, int, int, str | None, int]) -> None:
    message = file.message_type.add(name=name)
    for field_name, number, kind, type_name, label in fields:
        entry = message.field.add(name=field_name, number=number, type=kind, label=label)
        if type_name:
            entry.type_name = type_name


def _messages(rename_points: bool = False) -> dict[str, Any]:
    file = descriptor_pb2.FileDescriptorProto(name="toy.proto", package="toy", syntax="proto3")
    for enum_name, values in (("ToyMood", ["CALM", "ROLL_OFF"]), ("ToyColour", ["RED", "BLUE"])):
        prefix = "TOY_MOOD_" if enum_name == "ToyMood" else "TOY_COLOUR_"
        enum_type = file.enum_type.add(name=enum_name)
        enum_type.value.add(name=prefix + "UNSPECIFIED", number=0)
        for number, value in enumerate(values, start=1):
            enum_type.value.add(name=prefix + value, number=number)
    one, many = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    u32, msg, enm = F.TYPE_UINT32, F.TYPE_MESSAGE, F.TYPE_ENUM
    _message(file, "ToyPoint", ("x", 1, u32, None, one), ("y", 2, u32, None, one))
    _message(file, "ToyPoke", ("at", 1, msg, ".toy.ToyPoint", one))
    _message(file, "ToyPass")
    _message(file, "ToyPair", ("values", 1, u32, None, many))
    points = "dots" if rename_points else "points"
    _message(
        file,
        "ToyObservation",
        ("seat", 1, u32, None, one),
        ("mood", 2, enm, ".toy.ToyMood", one),
        ("colour", 3, enm, ".toy.ToyColour", one),
        ("to_act", 4, u32, None, one),
        ("has_hand", 5, F.TYPE_BOOL, None, one),
        ("hand", 6, u32, None, many),
        ("pairs", 7, msg, ".toy.ToyPair", many),
        (points, 8, msg, ".toy.ToyPoint", many),
        ("poke", 9, msg, ".toy.ToyPoke", one),
        ("pass", 10, msg, ".toy.ToyPass", one),
        ("chips", 11, u32, None, many),
        ("colour_seen", 12, enm, ".toy.ToyColour", one),
        ("name", 13, F.TYPE_STRING, None, one),
    )
    observation = file.message_type[-1]
    observation.oneof_decl.add(name="last")
    observation.field[8].oneof_index = 0
    observation.field[9].oneof_index = 0
    observation.oneof_decl.add(name="_to_act")  # proto3 `optional uint32 to_act`
    observation.field[3].oneof_index = 1
    observation.field[3].proto3_optional = True
    _message(
        file,
        "ToyAction",
        ("poke", 1, msg, ".toy.ToyPoke", one),
        ("pass", 2, msg, ".toy.ToyPass", one),
    )
    file.message_type[-1].oneof_decl.add(name="action")
    for entry in file.message_type[-1].field:
        entry.oneof_index = 0
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"toy.{name}"))
        for name in ("ToyObservation", "ToyAction")
    }


def codec_for(
    fields: Fields | None = None, checks: Checks | None = None, rename_points: bool = False
) -> DerivedCodec[Observation, Any]:
    messages = _messages(rename_points)

    class ToyCodec(DerivedCodec[Observation, Any]):
        engine = cast(Game[Any, Any, Any, Any], Toy())
        observation_message = messages["ToyObservation"]
        action_message = messages["ToyAction"]

    ToyCodec.fields = fields or {}
    ToyCodec.checks = checks or {}
    return ToyCodec().build()  # as the catalogue builds a codec it hands out


OBSERVATION = Observation(
    seat=2,
    mood="roll-off",
    colour=Colour.BLUE,
    to_act=0,
    hand=(),
    pairs=((1, 2), (), (3,)),
    points=(Point(1, 2), Point(0, 0)),
    last=Poke(Point(5, 6)),
    chips=(0, 7),
    colour_seen=None,
)


def _inner(codec: DerivedCodec[Observation, Any], observation: Observation) -> Any:
    message = codec.encode_observation(observation)
    inner = codec.observation_message()
    assert message.extension.Unpack(inner)  # not a built-in game: the extension field
    return inner


def test_every_shape_round_trips_and_lands_where_the_table_says() -> None:
    codec = codec_for()
    inner = _inner(codec, OBSERVATION)
    assert inner.mood == 2  # "roll-off" is TOY_MOOD_ROLL_OFF
    assert inner.colour == 2
    assert inner.HasField("to_act") and inner.to_act == 0  # present although 0
    assert inner.has_hand and list(inner.hand) == []  # an empty hand is not no hand
    assert [list(pair.values) for pair in inner.pairs] == [[1, 2], [], [3]]
    assert inner.WhichOneof("last") == "poke" and inner.poke.at.y == 6
    assert inner.colour_seen == 0  # None: UNSPECIFIED
    assert codec.decode_observation(codec.encode_observation(OBSERVATION)) == OBSERVATION
    other = replace(
        OBSERVATION,
        to_act=None,
        hand=None,
        last=Pass(),
        colour=Colour.NONE,
        colour_seen="red",
        cache=5,
    )
    inner = _inner(codec, other)
    assert not inner.HasField("to_act") and not inner.has_hand
    assert inner.WhichOneof("last") == "pass" and inner.colour == 0
    decoded = codec.decode_observation(codec.encode_observation(other))
    assert decoded == other and decoded.cache == 0  # compare=False fields do not travel


def test_actions_travel_in_the_oneof_and_malformed_ones_are_named() -> None:
    codec = codec_for()
    message = codec.encode_action(Poke(Point(1, 1)))
    assert codec.decode_action(message) == Poke(Point(1, 1))
    with pytest.raises(MalformedActionError, match="empty toy_game action"):
        empty = bot_pb2.Action()
        empty.extension.Pack(codec.action_message())
        codec.decode_action(empty)
    with pytest.raises(MalformedActionError, match="is not a toy_game action"):
        codec.encode_action("poke")
    with pytest.raises(MalformedActionError, match="expected a toy_game action"):
        codec.decode_action(bot_pb2.Action())


def test_malformed_observations_name_the_field() -> None:
    codec = codec_for()
    inner = _inner(codec, OBSERVATION)
    inner.mood = 7
    message = bot_pb2.Observation()
    message.extension.Pack(inner)
    with pytest.raises(MalformedObservationError, match=r"Observation\.mood: unknown ToyMood"):
        codec.decode_observation(message)
    inner = _inner(codec, OBSERVATION)
    inner.chips.append(1)
    message = bot_pb2.Observation()
    message.extension.Pack(inner)
    with pytest.raises(MalformedObservationError, match="chips: expected 2 entries"):
        codec.decode_observation(message)


def test_checks_run_on_values_that_arrive() -> None:
    codec = codec_for(checks={Point: lambda point: point.x <= 5 or f"x too big in {point}"})
    assert codec.decode_observation(codec.encode_observation(OBSERVATION)) == OBSERVATION
    far = replace(OBSERVATION, points=(Point(9, 0),))
    with pytest.raises(MalformedObservationError, match="x too big"):
        codec.decode_observation(codec.encode_observation(far))


def test_fields_rename_and_replace() -> None:
    with pytest.raises(WireShapeError, match=r"Observation\.points: toy\.ToyObservation has no"):
        codec_for(rename_points=True)
    renamed = codec_for(rename_points=True, fields={(Observation, "points"): Field(wire="dots")})
    assert renamed.decode_observation(renamed.encode_observation(OBSERVATION)) == OBSERVATION
    shouted = codec_for(
        fields={
            (Observation, "name"): Field(
                encode=lambda name: {"name": name.upper()},
                decode=lambda message: message.name.lower(),
            )
        }
    )
    assert _inner(shouted, OBSERVATION).name == "X"
    assert shouted.decode_observation(shouted.encode_observation(OBSERVATION)) == OBSERVATION


def test_an_engine_value_without_a_wire_value_is_refused_when_built() -> None:
    with pytest.raises(WireShapeError, match="'pink' has no value in ToyColour"):
        codec_for(fields={(Observation, "colour"): Field(values=("red", "pink"))})
    with pytest.raises(WireShapeError, match="'colour' already carries another field"):
        codec_for(fields={(Observation, "colour_seen"): Field(wire="colour")})


def test_the_generated_source_is_there_to_read() -> None:
    source = codec_for().source()
    for function in ("def encode_Observation_", "def decode_Point_", "def make_action_"):
        assert function in source


def test_a_codec_is_built_when_first_used_and_the_catalogue_builds_it_at_once() -> None:
    """Importing a codec's module builds nothing (``proto/generate.py`` reads the class
    before the messages it derives from exist); the catalogue hands out built codecs,
    so a mismatch never waits for a match."""
    codec = type(get_codec("liars_dice"))()
    assert "_encode_inner" not in vars(codec)
    assert "_encode_inner" in vars(get_codec("liars_dice"))
    observation = LIARS_DICE.observe(LIARS_DICE.new_game(LiarsDiceRules(), 2), 0)
    assert codec.decode_observation(codec.encode_observation(observation)) == observation
