"""Codec for Three-Card Bluff: its messages packed in the ``extension`` (``Any``) field.

A plugin game has no field of its own in ``arena.v1``'s ``oneof game``: its
observation and action messages travel as ``google.protobuf.Any`` in the
``extension`` field, and the type URL says which game's message it is. The codec has
no ``log_fields``, so the referee sends whole observations (no deltas).

The observation is derived from the engine's types (:mod:`referee.wire.derived`).
The action is written by hand because its message is not a ``oneof`` of one message
per action: a claim is a number, a response an enum value, both in one flat message.
"""

from __future__ import annotations

from typing import Any, ClassVar

from arena.v1 import bot_pb2
from referee.gamekit.base import MalformedActionError
from referee.wire.derived import DerivedCodec, Field, Fields
from tests.game_plugins.three_card_bluff import three_card_bluff_pb2 as pb
from tests.game_plugins.three_card_bluff.engine import (
    THREE_CARD_BLUFF,
    Action,
    Believe,
    Call,
    Claim,
    Observation,
)


class ThreeCardBluffCodec(DerivedCodec[Observation, Action]):
    """Observations and actions of ``three_card_bluff``."""

    engine = THREE_CARD_BLUFF
    observation_message = pb.ThreeCardBluffObservation
    action_message = pb.ThreeCardBluffAction
    fields: ClassVar[Fields] = {(Observation, "response"): Field(values=("believe", "call"))}

    def encode_action(self, action: Action) -> bot_pb2.Action:
        if isinstance(action, Claim):
            return self.wrap_action(pb.ThreeCardBluffAction(claim=action.rank))
        if isinstance(action, Believe | Call):
            response = "BELIEVE" if isinstance(action, Believe) else "CALL"
            return self.wrap_action(
                pb.ThreeCardBluffAction(
                    response=pb.ThreeCardBluffResponse.Value(
                        f"THREE_CARD_BLUFF_RESPONSE_{response}"
                    )
                )
            )
        raise MalformedActionError(f"{action!r} is not a three_card_bluff action")

    def decode_action(self, message: bot_pb2.Action) -> Action:
        inner: Any = self.unwrap_action(message)
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
