"""Codecs between engine values and ``arena.v1`` protobuf messages, one module per game.

A game's codec is looked up by name in the catalogue
(:func:`referee.core.catalogue.get_codec`), which imports its module on first use.
"""

from __future__ import annotations

from referee.wire.base import Codec, MalformedObservationError

__all__ = ["Codec", "MalformedObservationError"]
