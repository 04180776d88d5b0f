"""Codecs between engine values and ``arena.v1`` protobuf messages, by game name."""

from __future__ import annotations

from typing import Any

from referee.games.base import RulesError
from referee.wire.base import Codec, MalformedObservationError
from referee.wire.cockroach_poker import CockroachPokerCodec
from referee.wire.dice_poker import DicePokerCodec
from referee.wire.liars_dice import LiarsDiceCodec
from referee.wire.liars_poker import LiarsPokerCodec
from referee.wire.liars_poker_dice import LiarsPokerDiceCodec

CODECS: dict[str, Codec[Any, Any]] = {
    codec.game: codec
    for codec in (
        LiarsDiceCodec(),
        LiarsPokerDiceCodec(),
        DicePokerCodec(),
        CockroachPokerCodec(),
        LiarsPokerCodec(),
    )
}


def get_codec(game: str) -> Codec[Any, Any]:
    """The codec for ``game``; :class:`RulesError` if there is none."""
    try:
        return CODECS[game]
    except KeyError:
        raise RulesError(f"no wire codec for game {game!r}") from None


__all__ = ["CODECS", "Codec", "MalformedObservationError", "get_codec"]
