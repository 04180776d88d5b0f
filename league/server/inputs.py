"""Every field a request carries, parsed by one validator per kind of value.

A web request's fields — form fields, JSON members, query parameters, path
parameters, the few headers read as values — reach the server's code only through
these functions. Each returns the value in the type the code wants or raises
:class:`BadInput`, which the app answers with a 4xx (400; 404 for a path that
names nothing) and a short message naming the field. Nothing here calls ``int``,
``float`` or ``json.loads`` on text it has not bounded first:

* whole numbers are ASCII digits only (``[0-9]+``: no sign, no space, no ``_``,
  no ``²``, ``٣`` or ``１``, which ``str.isdigit`` and ``int`` both take), at most
  as many digits as the upper bound has, then range-checked;
* JSON is decoded as strict UTF-8, its numbers are bounded (18 digits; ``Infinity``,
  ``NaN`` and ``1e400`` refused) and its nesting is bounded;
* text is bounded in length and holds no control character (NUL included) and no
  lone surrogate;
* a choice is one of a fixed set.

A message quotes at most :data:`QUOTE_CHARS` characters of what was sent, so a huge
field is never echoed back.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Collection, Mapping
from typing import Any, Final

QUOTE_CHARS: Final = 40
"""Characters of a refused value quoted in a message, at most."""
MAX_JSON_DIGITS: Final = 18
"""Digits of a JSON number, at most (a 64-bit integer)."""
MAX_JSON_DEPTH: Final = 8
"""Nesting of JSON arrays and objects, at most."""
MAX_NAME: Final = 100
"""Characters of a league or bot name (the tables' column width)."""
MAX_POSITION: Final = 10**15
"""A match position, at most (well inside a 64-bit integer column)."""
_DIGITS: Final = re.compile(r"[0-9]+", re.ASCII)
_NUMBER: Final = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?", re.ASCII)
_TOKEN: Final = re.compile(r"[A-Za-z0-9_-]{1,64}", re.ASCII)
_HEX: Final = re.compile(r"[0-9a-f]{1,128}", re.ASCII)


class BadInput(Exception):
    """A request field that is not what its endpoint takes: answered ``status`` with
    ``FIELD: PROBLEM`` (400), or with the problem alone (404: a path naming nothing,
    ``no match 'x'``)."""

    def __init__(self, field: str, problem: str, *, status: int = 400) -> None:
        super().__init__(problem if status == 404 else f"{field}: {problem}")
        self.field = field
        self.problem = problem
        self.status = status


def quoted(value: object) -> str:
    """``value`` for a message: its ``repr``, cut to :data:`QUOTE_CHARS` characters."""
    text = repr(value) if isinstance(value, str) else f"a {type(value).__name__}"
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 3] + "..."


def _printable(value: str) -> bool:
    """No control character (NUL, newline, escape...) and no lone surrogate."""
    return not any(unicodedata.category(ch) in ("Cc", "Cs") for ch in value)


def text(value: object, field: str, *, max_len: int, min_len: int = 1, status: int = 400) -> str:
    """``value`` if it is text of ``min_len`` to ``max_len`` characters without control
    characters or lone surrogates."""
    if not isinstance(value, str):
        raise BadInput(field, f"must be text, not {quoted(value)}", status=status)
    if len(value) > max_len:
        raise BadInput(field, f"at most {max_len} characters ({len(value)} sent)", status=status)
    if len(value) < min_len:
        raise BadInput(field, "must not be empty", status=status)
    if not _printable(value):
        raise BadInput(field, "holds a control character", status=status)
    return value


def ascii_int(value: object, low: int, high: int, field: str, *, status: int = 400) -> int:
    """``value`` (text) as a whole number from ``low`` to ``high`` (``low >= 0``): ASCII
    digits only, no more of them than ``high`` has, checked before ``int`` sees them."""
    problem = f"must be a whole number from {low} to {high}"
    if (
        not isinstance(value, str)
        or not 0 < len(value) <= len(str(high))
        or not _DIGITS.fullmatch(value)
    ):
        raise BadInput(field, f"{problem}, not {quoted(value)}", status=status)
    number = int(value)
    if not low <= number <= high:
        raise BadInput(field, f"{problem}, not {number}", status=status)
    return number


def json_int(value: object, low: int, high: int, field: str) -> int:
    """A JSON member that must be an integer from ``low`` to ``high`` (not a boolean,
    not a float, not text)."""
    if type(value) is not int or not low <= value <= high:
        raise BadInput(field, f"must be a whole number from {low} to {high}, not {quoted(value)}")
    return value


def finite_number(value: object, low: float, high: float, field: str) -> float:
    """A number from ``low`` to ``high``: a JSON int or float (never a boolean), or text
    of ASCII digits with at most one point (no exponent, no ``inf``, no ``nan``)."""
    problem = f"must be a number from {low:g} to {high:g}"
    if isinstance(value, str):
        if not _NUMBER.fullmatch(value):
            raise BadInput(field, f"{problem}, not {quoted(value)}")
        number = float(value)
    elif type(value) in (int, float):
        number = float(value)  # type: ignore[arg-type]
    else:
        raise BadInput(field, f"{problem}, not {quoted(value)}")
    if not math.isfinite(number) or not low <= number <= high:
        raise BadInput(field, f"{problem}, not {quoted(value)}")
    return number


def choice(value: object, options: Collection[str], field: str, *, status: int = 400) -> str:
    """``value`` if it is one of ``options``."""
    if not isinstance(value, str) or value not in options:
        shown = ", ".join(sorted(options)) if len(options) <= 12 else f"{len(options)} names"
        raise BadInput(field, f"unknown {field} {quoted(value)} (use {shown})", status=status)
    return value


def name(value: object, field: str) -> str:
    """A league's or bot's name in a path: 404 (no such page) when it cannot be one."""
    try:
        return text(value, field, max_len=MAX_NAME)
    except BadInput:
        raise BadInput(field, f"no {field} named {quoted(value)}", status=404) from None


def match_key(value: object, field: str = "match") -> str:
    """A match key ``LEAGUE-POSITION`` in a path (404 when it cannot name a match)."""
    key = text(value, field, max_len=MAX_NAME + 20, status=404)
    league, sep, position = key.rpartition("-")
    try:
        if not sep:
            raise BadInput(field, "no position")
        number = ascii_int(position, 0, MAX_POSITION, field)
        return f"{name(league, field)}-{number}"
    except BadInput:
        raise BadInput(field, f"no match {quoted(key)}", status=404) from None


def web_token(value: object, field: str) -> str:
    """A random token of the server's own making (a game's ``/play/TOKEN``): URL-safe
    base64, 64 characters at most; 404 otherwise (it names nothing)."""
    if not isinstance(value, str) or not _TOKEN.fullmatch(value):
        raise BadInput(field, f"no such {field}", status=404)
    return value


def hex_text(value: object, field: str) -> str | None:
    """A hex string of the server's own making (a CSRF token), or None when ``value``
    is absent or anything else: the caller refuses it as a bad token (403)."""
    if isinstance(value, str) and _HEX.fullmatch(value):
        return value
    return None


def form_text(
    fields: Mapping[str, Any], key: str, *, max_len: int, default: str | None = None
) -> str:
    """A form field that must be text (not a file); ``default`` when it is absent."""
    value = fields.get(key)
    if value is None and default is not None:
        return default
    if value is None:
        raise BadInput(key, "missing")
    return text(value, key, max_len=max_len)


def json_object(
    body: bytes, field: str = "body", *, max_depth: int = MAX_JSON_DEPTH
) -> dict[str, Any]:
    """``body`` as a JSON object: strict UTF-8, numbers bounded and finite, nesting
    bounded."""
    try:
        decoded = body.decode("utf-8", "strict")
    except UnicodeDecodeError:
        raise BadInput(field, "is not UTF-8") from None

    def refuse_constant(word: str) -> Any:
        raise BadInput(field, f"{word} is not a number JSON allows")

    def bounded_int(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_JSON_DIGITS:
            raise BadInput(field, f"a number has over {MAX_JSON_DIGITS} digits")
        return int(digits)

    def bounded_float(digits: str) -> float:
        number = float(digits[:64]) if len(digits) <= 64 else math.inf
        if not math.isfinite(number):
            raise BadInput(field, f"{quoted(digits)} is not a finite number")
        return number

    try:
        value = json.loads(
            decoded,
            parse_constant=refuse_constant,
            parse_int=bounded_int,
            parse_float=bounded_float,
        )
    except (ValueError, RecursionError):
        raise BadInput(field, "is not JSON") from None
    if not isinstance(value, dict):
        raise BadInput(field, "must be a JSON object")
    if _depth(value) > max_depth:
        raise BadInput(field, f"nests deeper than {max_depth}")
    return value


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0
