"""Codec for Three-Card Bluff: its messages packed in the ``extension`` (``Any``) field.

A plugin game has no field of its own in ``arena.v1``'s ``oneof game``: its
observation and action messages travel as ``google.protobuf.Any`` in the
``extension`` field, and the type URL says which game's message it is. The codec has
no ``log_fields``, so the referee sends whole observations (no deltas).
"""

from __future__ import annotations

from typing import ClassVar

from google.protobuf import any_pb2

from arena.v1 import bot_pb2
from referee.games.base import MalformedActionError
from referee.wire.base import Codec, MalformedObservationError
from tests.game_plugins.three_card_bluff import three_card_bluff_pb2 as pb
from tests.game_plugins.three_card_bluff.engine import (
    Action,
    Believe,
    Call,
    Claim,
    Observation,
)

_RESPONSES = {
    None: pb.THREE_CARD_BLUFF_RESPONSE_UNSPECIFIED,
    "believe": pb.THREE_CARD_BLUFF_RESPONSE_BELIEVE,
    "call": pb.THREE_CARD_BLUFF_RESPONSE_CALL,
}
_RESPONSES_BACK = {value: name for name, value in _RESPONSES.items()}


def _packed(message: bot_pb2.Observation | bot_pb2.Action) -> any_pb2.Any | None:
    """The ``extension`` field if that is what ``message`` carries."""
    return message.extension if message.WhichOneof("game") == "extension" else None


class ThreeCardBluffCodec(Codec[Observation, Action]):
    """Observations and actions of ``three_card_bluff``."""

    game: ClassVar[str] = "three_card_bluff"

    def encode_observation(self, observation: Observation) -> bot_pb2.Observation:
        o = observation
        inner = pb.ThreeCardBluffObservation(
            seat=o.seat,
            num_seats=o.num_seats,
            card=o.card or 0,
            claim=o.claim or 0,
            response=_RESPONSES[o.response],
            shown=list(o.shown),
        )
        if o.to_act is not None:
            inner.to_act = o.to_act
        message = bot_pb2.Observation()
        message.extension.Pack(inner)
        return message

    def decode_observation(self, message: bot_pb2.Observation) -> Observation:
        packed = _packed(message)
        inner = pb.ThreeCardBluffObservation()
        if packed is None or not packed.Unpack(inner):
            raise MalformedObservationError(
                f"expected a three_card_bluff observation, got {message.WhichOneof('game')}"
            )
        if inner.response not in _RESPONSES_BACK:
            raise MalformedObservationError(f"unknown response {inner.response}")
        return Observation(
            seat=inner.seat,
            num_seats=inner.num_seats,
            to_act=inner.to_act if inner.HasField("to_act") else None,
            card=inner.card or None,
            claim=inner.claim or None,
            response=_RESPONSES_BACK[inner.response],
            shown=tuple(inner.shown),
        )

    def encode_action(self, action: Action) -> bot_pb2.Action:
        if isinstance(action, Claim):
            inner = pb.ThreeCardBluffAction(claim=action.rank)
        else:
            inner = pb.ThreeCardBluffAction(
                response=_RESPONSES["believe" if isinstance(action, Believe) else "call"]
            )
        message = bot_pb2.Action()
        message.extension.Pack(inner)
        return message

    def decode_action(self, message: bot_pb2.Action) -> Action:
        packed = _packed(message)
        inner = pb.ThreeCardBluffAction()
        if packed is None or not packed.Unpack(inner):
            raise MalformedActionError(
                f"expected a three_card_bluff action, got {message.WhichOneof('game') or 'none'}"
            )
        if inner.claim and inner.response:
            raise MalformedActionError(f"both a claim and a response: {inner}")
        if inner.claim:
            return Claim(inner.claim)
        if inner.response == pb.THREE_CARD_BLUFF_RESPONSE_BELIEVE:
            return Believe()
        if inner.response == pb.THREE_CARD_BLUFF_RESPONSE_CALL:
            return Call()
        raise MalformedActionError(f"neither a claim nor a response: {inner}")


CODEC = ThreeCardBluffCodec()
