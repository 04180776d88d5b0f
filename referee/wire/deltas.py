"""Observation deltas (protocol 2): send each seat only the history it has not seen.

An observation carries the whole public history of the match (every bid, claim,
finished round). Encoding and sending all of it on every turn makes a match cost
quadratic in its length. A seat that sets ``Ready.observation_deltas`` is sent, for
each of the codec's :attr:`~referee.wire.base.Codec.log_fields`, only the entries
after those it already holds, with ``Observation.kept[field] = n`` saying that the
first ``n`` entries are those of the same field in the previous observation sent
to it. When a field does not extend what the seat holds (a new round starts its
bids afresh) it is sent complete and not named in ``kept``.

:class:`DeltaEncoder` is the referee's side (one per seat and match; the live
match and the replays step it identically, so ``arena replay --seat`` regenerates
the very bytes). :class:`DeltaDecoder` is the bot's side (the SDK): it rebuilds the
full typed observation, so a bot never sees the difference.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from arena.v1 import bot_pb2
from referee.wire.base import Codec, MalformedObservationError


class DeltaEncoder:
    """Encode the observations sent to one seat, as deltas when ``enabled``."""

    __slots__ = ("_codec", "_enabled", "_held")

    def __init__(self, codec: Codec[Any, Any], *, enabled: bool) -> None:
        self._codec = codec
        self._enabled = enabled and bool(codec.log_fields)
        self._held: dict[str, tuple[Any, ...]] = {}
        """What the seat holds of each log field (its last observation's value)."""

    @property
    def enabled(self) -> bool:
        return self._enabled

    def encode(self, observation: Any) -> bot_pb2.Observation:
        """The message for ``observation``; afterwards the seat holds it in full."""
        if not self._enabled:
            return self._codec.encode_observation(observation)
        kept: dict[str, int] = {}
        tails: dict[str, tuple[Any, ...]] = {}
        for name in self._codec.log_fields:
            current: tuple[Any, ...] = getattr(observation, name)
            held = self._held.get(name, ())
            size = len(held)
            # Entries are shared between states, so this compare is mostly identity checks.
            if size and len(current) >= size and (current is held or current[:size] == held):
                kept[name] = size
                tails[name] = current[size:]
            self._held[name] = current
        message = self._codec.encode_observation(
            replace(observation, **tails) if tails else observation
        )
        for name, size in kept.items():
            message.kept[name] = size
        return message


class DeltaDecoder:
    """Rebuild full observations from the messages sent to one seat in one match."""

    __slots__ = ("_codec", "_last")

    def __init__(self, codec: Codec[Any, Any]) -> None:
        self._codec = codec
        self._last: Any = None

    def decode(self, message: bot_pb2.Observation) -> Any:
        """The full observation; :class:`MalformedObservationError` if ``kept`` names a
        field that is not a log field or more entries than the seat holds."""
        observation = self._codec.decode_observation(message)
        if message.kept:
            updates: dict[str, tuple[Any, ...]] = {}
            for name, size in sorted(message.kept.items()):
                if name not in self._codec.log_fields:
                    raise MalformedObservationError(
                        f"kept names {name!r}, not a log field of {self._codec.game}"
                        f" ({', '.join(self._codec.log_fields) or 'none'})"
                    )
                held: tuple[Any, ...] = () if self._last is None else getattr(self._last, name)
                if size > len(held):
                    raise MalformedObservationError(
                        f"kept[{name!r}] = {size}, but only {len(held)} entries were sent before"
                    )
                updates[name] = held[:size] + getattr(observation, name)
            observation = replace(observation, **updates)
        self._last = observation
        return observation
