"""Digests of what a match went through: engine states and observations as sent.

The driver (:mod:`referee.core.driver`) digests every observation it builds and,
given a digest function, every state after an event; the records
(:mod:`referee.records.record`) store these digests and the replays recompute them, so a
match is checked the same way live, in-process and in replay. Which state digest a
record uses depends on its format (:func:`state_digester`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import fields
from typing import Any, Final

INCREMENTAL_FORMAT: Final = 3
"""The first record format whose state digests are :class:`StateDigester`'s."""


def sha256_hex(data: bytes) -> str:
    """SHA-256 of ``data``, lowercase hex (every digest and chain hash of a record)."""
    return hashlib.sha256(data).hexdigest()


def state_digest(state: object) -> str:
    """Digest of an engine state in records of format 1 and 2: its whole ``repr``.

    Its cost grows with the match (the state holds the whole history); format 3
    records use :class:`StateDigester`."""
    return sha256_hex(repr(state).encode())[:16]


class StateDigester:
    """Digests of engine states (record format 3), incremental over growing history.

    The digest of a state (a dataclass) is the SHA-256 of, field by field in
    declaration order, ``name=`` followed by the SHA-256 of the field's entries
    (each entry's ``repr``, length-prefixed) when the value is a tuple, and by
    ``repr(value)`` otherwise. It is a function of the state alone. A match's
    history lives in tuple fields that grow by appending, so one digester per
    match keeps each such field's running hash and only hashes the new entries:
    work per event stays flat however long the match runs.
    """

    __slots__ = ("_fields", "_held", "_plain")

    def __init__(self) -> None:
        self._fields: dict[type, tuple[tuple[str, bytes], ...]] = {}
        self._held: dict[str, tuple[tuple[Any, ...], Any]] = {}
        """Per field name: the last tuple seen and the running hash of its entries."""
        self._plain: dict[str, tuple[object, bytes]] = {}
        """Per field name: the last other value seen and its ``repr`` (the rules, say,
        are one object for the whole match)."""

    def __call__(self, state: object) -> str:
        names = self._fields.get(type(state))
        if names is None:
            names = self._fields.setdefault(
                type(state),
                tuple((f.name, f.name.encode() + b"=") for f in fields(state)),  # type: ignore[arg-type]
            )
        parts: list[bytes] = []
        for name, label in names:
            value = getattr(state, name)
            parts.append(label)
            if type(value) is tuple:
                parts.append(self._tuple_hash(name, value))
            else:
                held = self._plain.get(name)
                if held is not None and held[0] is value:
                    parts.append(held[1])
                else:
                    text = repr(value).encode()
                    self._plain[name] = (value, text)
                    parts.append(text)
            parts.append(b";")
        return hashlib.sha256(b"".join(parts)).hexdigest()[:16]

    def _tuple_hash(self, name: str, value: tuple[Any, ...]) -> bytes:
        held = self._held.get(name)
        if held is not None:
            before, running = held
            size = len(before)
            if value is before:
                return running.digest()  # type: ignore[no-any-return]
            if len(value) >= size and value[:size] == before:
                running = running.copy()
                new = value[size:]
            else:
                running, new = hashlib.sha256(), value
        else:
            running, new = hashlib.sha256(), value
        for entry in new:
            text = repr(entry).encode()
            running.update(len(text).to_bytes(4, "big") + text)
        self._held[name] = (value, running)
        return running.digest()  # type: ignore[no-any-return]


def observation_digest(observation_bytes: bytes) -> str:
    """Digest of an observation as sent on the wire (deterministic serialisation)."""
    return sha256_hex(observation_bytes)[:16]


def state_digester(format_version: int) -> Callable[[object], str]:
    """The state digest function of records of ``format_version`` (a fresh one per match)."""
    return StateDigester() if format_version >= INCREMENTAL_FORMAT else state_digest
