"""Codecs between engine values and ``arena.v1`` protobuf messages, by game name.

Lazy like :data:`referee.games.GAMES`: a codec's module (and its engine) is imported
only when that game's codec is asked for.
"""

from __future__ import annotations

from typing import Any

from referee.games.base import RulesError
from referee.lazy import LazyRegistry
from referee.wire.base import Codec, MalformedObservationError

CODECS: LazyRegistry[Codec[Any, Any]] = LazyRegistry(
    {
        "liars_dice": ("referee.wire.liars_dice", "CODEC"),
        "liars_poker_dice": ("referee.wire.liars_poker_dice", "CODEC"),
        "dice_poker": ("referee.wire.dice_poker", "CODEC"),
        "cockroach_poker": ("referee.wire.cockroach_poker", "CODEC"),
        "liars_poker": ("referee.wire.liars_poker", "CODEC"),
    }
)
"""One codec instance per game name (its ``game``), in listing order."""


def get_codec(game: str) -> Codec[Any, Any]:
    """The codec for ``game``; :class:`RulesError` if there is none."""
    try:
        return CODECS[game]
    except KeyError:
        raise RulesError(f"no wire codec for game {game!r}") from None


__all__ = ["CODECS", "Codec", "MalformedObservationError", "get_codec"]
