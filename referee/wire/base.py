"""The contract between engine values and protobuf messages, one codec per game.

Engines speak frozen dataclasses; bots speak the ``arena.v1`` messages. A codec
translates both ways. Decoding is where a bot's lies are caught: anything that is
not a well-formed action of the game raises :class:`MalformedActionError` with the
offending message in the text.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, TypeVar

from arena.v1 import bot_pb2
from referee.gamekit.base import GameError, MalformedActionError

ObsT = TypeVar("ObsT")
ActionT = TypeVar("ActionT")


class MalformedObservationError(GameError):
    """An observation message that does not decode (a referee/SDK mismatch)."""


class Codec(ABC, Generic[ObsT, ActionT]):
    """Translate one game's observations and actions to and from protobuf."""

    game: ClassVar[str]
    """The game's registry name; also the name of its field in the ``oneof``."""
    log_fields: ClassVar[tuple[str, ...]] = ()
    """Observation fields that grow by appending during a match (bids, claims,
    finished rounds): a tuple in the observation and a repeated field of the same
    name in its message. A seat that asks for deltas is sent only their new
    entries (:mod:`referee.wire.deltas`)."""

    @abstractmethod
    def encode_observation(self, observation: ObsT) -> bot_pb2.Observation: ...

    @abstractmethod
    def decode_observation(self, message: bot_pb2.Observation) -> ObsT:
        """Raise :class:`MalformedObservationError` if it is not this game's."""

    @abstractmethod
    def encode_action(self, action: ActionT) -> bot_pb2.Action: ...

    @abstractmethod
    def decode_action(self, message: bot_pb2.Action) -> ActionT:
        """Raise :class:`MalformedActionError` unless it is a well-formed action."""

    # -- shared helpers -------------------------------------------------------

    def require_game(self, message: bot_pb2.Action) -> None:
        """Raise :class:`MalformedActionError` unless ``message`` carries this game."""
        which = message.WhichOneof("game")
        if which != self.game:
            raise MalformedActionError(
                f"expected a {self.game} action, got {which or 'an empty action'}"
            )

    def action_to_json(self, action: ActionT) -> dict[str, Any]:
        """The action as the protobuf JSON mapping (used in match records)."""
        from google.protobuf import json_format  # records only: bots never load it

        return json_format.MessageToDict(
            self.encode_action(action), preserving_proto_field_name=True
        )

    def action_from_json(self, data: dict[str, Any]) -> ActionT:
        from google.protobuf import json_format

        message = bot_pb2.Action()
        try:
            json_format.ParseDict(data, message)
        except json_format.ParseError as error:
            raise MalformedActionError(f"not an action: {data!r} ({error})") from None
        return self.decode_action(message)

    def observation_bytes(self, observation: ObsT) -> bytes:
        """Deterministic wire bytes of an observation (what the leak tests compare)."""
        return self.encode_observation(observation).SerializeToString(deterministic=True)
