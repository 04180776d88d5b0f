"""The bot protocol's versions and the protobuf values of its names.

The referee (:mod:`referee.runtime.match`, :mod:`referee.core.messages`,
:mod:`referee.records.replay`)
and the SDK's bot server (:mod:`sdk.serve`) both speak the protocol these constants
describe, so they live below both: a bot imports them without loading the referee.
"""

from __future__ import annotations

from typing import Final

from arena.v1 import bot_pb2

PROTOCOL_VERSION: Final = 4
"""Version 4 lets a seat answer a turn with a mixed move (``TurnResponse.mixed``):
probabilities the referee draws the action from (:mod:`referee.core.mixed`).
Version 3 adds a nonce to every TurnRequest that the answer must echo
(``TurnRequest.nonce``, ``TurnResponse.nonce``), so an answer sent before its
request arrived is refused. Version 2 added observation deltas
(``Ready.observation_deltas``, ``Observation.kept``), which a bot asks for. Each seat
speaks the lower of its own version (from Health) and this one: bots of versions 1
and 2 keep playing, without the nonce."""
READABLE_PROTOCOLS: Final = (1, 2, 3, 4)
"""Protocol versions a stored record may name (replays of older matches)."""
NONCE_PROTOCOL: Final = 3
"""The first protocol version whose answers must echo the request's nonce."""
MIXED_PROTOCOL: Final = 4
"""The first protocol version whose answers may be mixed moves."""


def seat_protocol(announced: int) -> int:
    """The protocol a seat speaks, from the version its Health announced: the
    lower of that and :data:`PROTOCOL_VERSION` (0, proto3's unset value, is 1)."""
    return max(1, min(announced, PROTOCOL_VERSION))


PROTO_FAULTS: Final[dict[str | None, bot_pb2.FaultKind.ValueType]] = {
    None: bot_pb2.FAULT_KIND_UNSPECIFIED,
    "startup": bot_pb2.FAULT_KIND_STARTUP,
    "timeout": bot_pb2.FAULT_KIND_TIMEOUT,
    "crash": bot_pb2.FAULT_KIND_CRASH,
    "stall": bot_pb2.FAULT_KIND_STALL,
    "illegal_action": bot_pb2.FAULT_KIND_ILLEGAL_ACTION,
    "malformed_message": bot_pb2.FAULT_KIND_MALFORMED_MESSAGE,
    "bad_probabilities": bot_pb2.FAULT_KIND_BAD_PROBABILITIES,
    "resigned": bot_pb2.FAULT_KIND_RESIGNED,
}
"""The protocol's value of each fault name (None: no fault). The names are the values
of :class:`referee.core.faults.FaultKind`, a string enum, so its members index this too;
the fault exceptions themselves belong to the referee, not to this layer."""
PROTO_REASONS: Final[dict[str, bot_pb2.EndReason.ValueType]] = {
    "completed": bot_pb2.END_REASON_COMPLETED,
    "forfeit": bot_pb2.END_REASON_FORFEIT,
    "aborted": bot_pb2.END_REASON_ABORTED,
}
"""The protocol's value of each way a match ends (a record's ``reason``)."""
