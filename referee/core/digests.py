"""Digests of what a match went through: engine states and observations as sent.

The driver (:mod:`referee.core.driver`) digests every observation it builds and,
given a digest function, every state after an event; the records
(:mod:`referee.records.record`) store these digests and the replays recompute them, so a
match is checked the same way live, in-process and in replay. Which state digest a
record uses depends on its format (:func:`state_digester`).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
from collections.abc import Callable
from dataclasses import fields
from fractions import Fraction
from typing import Any, Final

INCREMENTAL_FORMAT: Final = 3
"""The first record format whose state digests are :class:`StateDigester`'s."""
CANONICAL_FORMAT: Final = 5
"""The first record format whose digests write values in :func:`canonical` form, not
as their ``repr``."""


class CanonicalFormError(TypeError):
    """A value of an engine state has no canonical form (a bug in the engine)."""


def canonical(value: object) -> bytes:
    """``value`` as bytes that depend on what it is, never on how Python prints it.

    ``None`` is ``N``; a ``bool`` ``T`` or ``F``; an ``int`` ``i<decimal>;``; a ``str``
    ``s<length>:<UTF-8>``; a ``Fraction`` ``q<num>/<den>;``; an ``Enum`` member ``e``
    then its name as a ``str``; a tuple or list ``(<count>`` then each entry then ``)``;
    a ``frozenset`` or ``set`` ``{<count>`` then its entries' forms, sorted, then ``}``.
    A dataclass is ``d`` and its class name as a ``str``, then each field that takes
    part in equality and differs from its declared default, as its name (a ``str``)
    and its form, then ``.``: a rule option added later with a default leaves every
    existing state's form, and so every record's digests, as they were. Anything else
    raises :class:`CanonicalFormError`.
    """
    out = bytearray()
    _put(value, out)
    return bytes(out)


def _text(text: str) -> bytes:
    data = text.encode()
    return b"s%d:%s" % (len(data), data)


Writer = Callable[[Any, bytearray], None]


def _put(value: object, out: bytearray) -> None:
    writer = _WRITERS.get(type(value))
    if writer is None:
        writer = _WRITERS.setdefault(type(value), _writer_for(type(value)))
    writer(value, out)


def _put_int(value: int, out: bytearray) -> None:
    out += b"i%d;" % value


def _put_str(value: str, out: bytearray) -> None:
    out += _text(value)


def _put_sequence(value: tuple[Any, ...], out: bytearray) -> None:
    out += b"(%d" % len(value)
    for entry in value:
        writer = _WRITERS.get(type(entry))
        if writer is None:
            _put(entry, out)
        else:
            writer(entry, out)
    out += b")"


def _put_set(value: frozenset[Any], out: bytearray) -> None:
    out += b"{%d%s}" % (len(value), b"".join(sorted(canonical(entry) for entry in value)))


def _put_fraction(value: Fraction, out: bytearray) -> None:
    out += b"q%d/%d;" % (value.numerator, value.denominator)


_WRITERS: dict[type, Writer] = {
    int: _put_int,
    str: _put_str,
    tuple: _put_sequence,
    list: _put_sequence,
    bool: lambda value, out: out.extend(b"T" if value else b"F"),
    type(None): lambda value, out: out.extend(b"N"),
    frozenset: _put_set,
    set: _put_set,
    Fraction: _put_fraction,
}
"""Per type, what writes its values (dataclasses and enumerations added when met)."""

_NO_DEFAULT = object()


def _writer_for(kind: type) -> Writer:
    if issubclass(kind, enum.Enum):
        return lambda value, out: out.extend(b"e" + _text(value.name))
    if dataclasses.is_dataclass(kind):
        head = b"d" + _text(kind.__name__)
        layout = tuple(
            (f.name, _text(f.name), _NO_DEFAULT if f.default is dataclasses.MISSING else f.default)
            for f in fields(kind)
            if f.compare
        )

        def put_dataclass(value: Any, out: bytearray) -> None:
            out += head
            for name, label, default in layout:
                field_value = getattr(value, name)
                if default is _NO_DEFAULT or field_value != default:
                    out += label
                    writer = _WRITERS.get(type(field_value))
                    if writer is None:
                        _put(field_value, out)
                    else:
                        writer(field_value, out)
            out += b"."

        return put_dataclass

    def refuse(value: Any, out: bytearray) -> None:
        raise CanonicalFormError(f"no canonical form for {kind.__name__} value {value!r}")

    return refuse


def sha256_hex(data: bytes) -> str:
    """SHA-256 of ``data``, lowercase hex (every digest and chain hash of a record)."""
    return hashlib.sha256(data).hexdigest()


def state_digest(state: object) -> str:
    """Digest of an engine state in records of format 1 and 2: its whole ``repr``.

    Its cost grows with the match (the state holds the whole history); format 3
    records use :class:`StateDigester`."""
    return sha256_hex(repr(state).encode())[:16]


class StateDigester:
    """Digests of engine states (record format 3 on), incremental over growing history.

    The digest of a state (a dataclass) is the SHA-256 of, field by field in
    declaration order, ``name=`` followed by the SHA-256 of the field's entries
    (each entry's form, length-prefixed) when the value is a tuple, and by the
    value's form otherwise. The form is :func:`canonical` (format 5 on) or ``repr``
    (formats 3 and 4). It is a function of the state alone. A match's
    history lives in tuple fields that grow by appending, so one digester per
    match keeps each such field's running hash and only hashes the new entries:
    work per event stays flat however long the match runs.
    """

    __slots__ = ("_fields", "_form", "_held", "_plain")

    def __init__(self, form: Callable[[object], bytes] = canonical) -> None:
        self._form = form
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
                    text = self._form(value)
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
        form = self._form
        for entry in new:
            text = form(entry)
            running.update(len(text).to_bytes(4, "big") + text)
        self._held[name] = (value, running)
        return running.digest()  # type: ignore[no-any-return]


def observation_digest(observation_bytes: bytes) -> str:
    """Digest of an observation as sent on the wire (deterministic serialisation)."""
    return sha256_hex(observation_bytes)[:16]


def repr_form(value: object) -> bytes:
    """A value's form in the state digests of record formats 3 and 4: its ``repr``."""
    return repr(value).encode()


def state_digester(format_version: int) -> Callable[[object], str]:
    """The state digest function of records of ``format_version`` (a fresh one per match)."""
    if format_version >= CANONICAL_FORMAT:
        return StateDigester(canonical)
    if format_version >= INCREMENTAL_FORMAT:
        return StateDigester(repr_form)
    return state_digest
