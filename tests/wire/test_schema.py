"""The ``.proto`` of each built-in game, generated from its engine's types
(:mod:`referee.wire.schema`), describes the same wire as the messages the codec uses.

The generated text is compiled by ``protoc`` and its descriptors are compared with the
committed ones (``arena.v1.<game>_pb2``) on everything that decides the bytes: message
and enum names, and per field its name, number, type, label, type name, oneof and
proto3 ``optional``; per enum its values' names and numbers. Order in the file and
comments are free. The committed ``.proto`` must be the generator's output byte for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2

from referee.core.catalogue import BUILTIN_GAMES, get_codec
from referee.wire.derived import DerivedCodec
from referee.wire.schema import proto_path, proto_source

ROOT = Path(__file__).resolve().parents[2]


def _codec(game: str) -> type[DerivedCodec[Any, Any]]:
    codec = type(get_codec(game))
    assert issubclass(codec, DerivedCodec)
    return codec


def _compile(source: str, name: str, tmp_path: Path) -> descriptor_pb2.FileDescriptorProto:
    from grpc_tools import protoc  # dev dependency: grpcio-tools

    (tmp_path / "arena" / "v1").mkdir(parents=True)
    (tmp_path / "arena" / "v1" / name).write_text(source)
    out = tmp_path / "set.pb"
    status = protoc.main(
        ["protoc", f"-I{tmp_path}", f"--descriptor_set_out={out}", f"arena/v1/{name}"]
    )
    assert status == 0, f"protoc rejected the generated {name}:\n{source}"
    files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    (file,) = files.file
    return file


def wire_shape(file: descriptor_pb2.FileDescriptorProto) -> dict[str, Any]:
    """What decides the bytes, per message and enum name (nested ones included)."""
    shape: dict[str, Any] = {"package": file.package, "syntax": file.syntax}

    def enums(scope: str, found: Any) -> None:
        for enum in found:
            values = [(value.name, value.number) for value in enum.value]
            shape[f"enum {scope}{enum.name}"] = values

    def messages(scope: str, found: Any) -> None:
        for message in found:
            name = f"{scope}{message.name}"
            oneofs = [oneof.name for oneof in message.oneof_decl]
            shape[f"message {name}"] = {
                field.name: (
                    field.number,
                    descriptor_pb2.FieldDescriptorProto.Type.Name(field.type),
                    descriptor_pb2.FieldDescriptorProto.Label.Name(field.label),
                    field.type_name,
                    oneofs[field.oneof_index] if field.HasField("oneof_index") else None,
                    field.proto3_optional,
                )
                for field in message.field
            }
            messages(f"{name}.", message.nested_type)
            enums(f"{name}.", message.enum_type)

    messages("", file.message_type)
    enums("", file.enum_type)
    return shape


@pytest.mark.parametrize("game", BUILTIN_GAMES)
def test_generated_proto_describes_the_committed_wire(game: str, tmp_path: Path) -> None:
    codec = _codec(game)
    committed = descriptor_pb2.FileDescriptorProto()
    codec.observation_message.DESCRIPTOR.file.CopyToProto(committed)
    generated = _compile(proto_source(codec), f"{game}.proto", tmp_path)
    assert wire_shape(generated) == wire_shape(committed)


@pytest.mark.parametrize("game", BUILTIN_GAMES)
def test_committed_proto_is_the_generated_one(game: str) -> None:
    codec = _codec(game)
    path = ROOT / proto_path(codec)
    assert path == ROOT / "proto" / "arena" / "v1" / f"{game}.proto"
    assert path.read_text() == proto_source(codec), (
        f"{path.name} differs from the generator's output: run python proto/generate.py"
    )


def test_wire_shape_sees_a_wrong_number(tmp_path: Path) -> None:
    """The comparison is not vacuous: one field number off is a difference."""
    codec = _codec(BUILTIN_GAMES[0])
    source = proto_source(codec)
    planted = source.replace(" = 2;", " = 99;", 1)
    assert planted != source
    committed = descriptor_pb2.FileDescriptorProto()
    codec.observation_message.DESCRIPTOR.file.CopyToProto(committed)
    generated = _compile(planted, f"{BUILTIN_GAMES[0]}.proto", tmp_path)
    assert wire_shape(generated) != wire_shape(committed)
