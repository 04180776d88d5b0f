"""Whether a fault message may describe a bot's action: only when the action cannot
carry text the bot chose.

A fault's message is public (:mod:`referee.core.faults`). An illegal or malformed
action is worth describing to everyone ("illegal action bid 3×5: not a raise"), but
the description is built from the action's decoded values, and the engine's and the
codec's error texts quote them too. That is safe exactly when every value the bot can
set is a number, a flag or one of a fixed set of names: the action's wire message (and
every message inside it) has no ``string`` or ``bytes`` field, and it travels in its
game's own field of ``arena.v1.Action``, not packed in an ``Any`` (whose type URL
and value are bytes the bot chose; an installed game's actions travel so, and
``str()`` of such a message prints them). Unknown fields are kept by protobuf but
never printed. Otherwise the referee says what kind of fault it was and no more.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from arena.v1 import bot_pb2
from referee.wire import Codec

TEXT_TYPES = frozenset({FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES})

NOT_DESCRIBED = "not described: this game's actions can carry the bot's own text"
"""Said instead of an action's description when :func:`action_quotable` is False."""


def carries_text(descriptor: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a message of this type can hold text a sender chose: a ``string`` or
    ``bytes`` field in it or in any message inside it (an ``Any`` has both)."""
    if descriptor.full_name in seen:
        return False  # a recursive type: its fields are being looked at already
    inside = seen | {descriptor.full_name}
    for field in descriptor.fields:
        if field.type in TEXT_TYPES:
            return True
        inner = field.message_type if field.type == FieldDescriptor.TYPE_MESSAGE else None
        if inner is not None and carries_text(inner, inside):
            return True
    return False


def action_quotable(codec: Codec[Any, Any]) -> bool:
    """Whether a fault message may describe ``codec``'s game's actions (see the module
    docstring): its action message is a field of ``arena.v1.Action`` of its own and
    carries no text. False for a codec that does not name its action message."""
    game_field = bot_pb2.Action.DESCRIPTOR.fields_by_name.get(codec.game)
    message = getattr(codec, "action_message", None)
    if game_field is None or game_field.message_type is None or message is None:
        return False
    descriptor: Descriptor = message.DESCRIPTOR
    if game_field.message_type.full_name != descriptor.full_name:
        return False
    return not carries_text(descriptor)
