"""Secret, unpredictable chance: where every die and shuffle of a match comes from.

A match's chance outcomes are drawn from a :class:`ChanceStream`, a deterministic
byte stream keyed by a 32-byte *chance key*: block ``i`` (counting from 0) is
``HMAC-SHA256(key, i as 8 bytes big-endian)``, and the stream is the blocks one
after another. Without the key, the stream cannot be told apart from random bytes,
so a bot learns nothing about other seats' dice from its own.

* An integer in ``[0, n)`` takes ``ceil(b / 8)`` bytes (``b`` = bit length of
  ``n - 1``) as a big-endian number, keeps its low ``b`` bits and, if the result is
  ``n`` or more, throws it away and takes the next bytes (rejection sampling: every
  value is exactly equally likely; at most half the draws are rejected).
* ``randint(a, b)`` is ``a + below(b - a + 1)``; ``shuffle`` is Fisher-Yates from
  the last position down: ``j = below(i + 1)``, swap ``i`` and ``j``.

Where keys come from:

* :func:`new_secret` — 32 fresh bytes from the operating system: the default for
  every match and every league.
* :func:`key_from_seed` — a key derived from a small integer, for reproducible
  local runs (``arena match --seed N``). Anybody can try every small seed, so a
  seeded match is guessable by design: never use one where bots compete for real.
* :func:`deal_key` — a league's secret and a duplicate group's key give the deal
  of that group, so every seat rotation of the group gets the same dice and cards.
* :func:`commitment` — SHA-256 of a secret, published before the secret is used
  and checked against it once the secret is revealed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import MutableSequence
from typing import Any, Final

KEY_BYTES: Final = 32
"""Length of a chance key and of a league secret (256 bits)."""

SEED_LABEL: Final = b"bluff-arena/chance/seed/v1:"
"""Domain label of :func:`key_from_seed`."""
DEAL_LABEL: Final = b"bluff-arena/chance/deal/v1:"
"""Domain label of :func:`deal_key`."""
LEAGUE_SEED_LABEL: Final = b"bluff-arena/chance/league-seed/v1:"
"""Domain label of :func:`league_secret_from_seed`."""


class ChanceKeyError(ValueError):
    """A chance key, secret or commitment of the wrong type, length or form."""


def check_key(key: object, what: str = "chance key") -> bytes:
    """``key`` as bytes if it is a 32-byte key; :class:`ChanceKeyError` otherwise."""
    if not isinstance(key, bytes | bytearray):
        raise ChanceKeyError(f"{what} must be bytes, got {type(key).__name__} {key!r}")
    if len(key) != KEY_BYTES:
        raise ChanceKeyError(
            f"{what} must be {KEY_BYTES} bytes, got {len(key)} bytes ({bytes(key).hex()!r})"
        )
    return bytes(key)


def block(key: bytes, index: int) -> bytes:
    """Block ``index`` of the stream of ``key``: ``HMAC-SHA256(key, index as u64 BE)``."""
    return hmac.digest(key, index.to_bytes(8, "big"), "sha256")


class ChanceStream:
    """Dice and shuffles drawn from the HMAC-SHA256 counter-mode stream of ``key``.

    Satisfies :class:`referee.gamekit.base.ChanceSource` (``randint``, ``shuffle``),
    so :func:`referee.gamekit.base.draw_chance` draws from it. The same key always
    gives the same draws; the key itself is never exposed.
    """

    __slots__ = ("_block", "_buffer", "_key", "_offset")

    def __init__(self, key: bytes) -> None:
        self._key = check_key(key)
        self._block = 0
        self._buffer = b""
        self._offset = 0

    def __repr__(self) -> str:
        return f"ChanceStream(<secret key>, block={self._block})"

    def _refill(self) -> None:
        self._buffer = block(self._key, self._block)
        self._block += 1
        self._offset = 0

    def read(self, count: int) -> bytes:
        """The next ``count`` bytes of the stream."""
        if count < 0:
            raise ValueError(f"cannot read {count} bytes")
        out = bytearray()
        while len(out) < count:
            if self._offset >= len(self._buffer):
                self._refill()
            take = min(count - len(out), len(self._buffer) - self._offset)
            out += self._buffer[self._offset : self._offset + take]
            self._offset += take
        return bytes(out)

    def below(self, n: int) -> int:
        """A uniformly distributed integer in ``[0, n)`` (rejection sampling)."""
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"below(n) needs a whole number n >= 1, got {n!r}")
        bits = (n - 1).bit_length()
        if bits == 0:
            return 0
        size = (bits + 7) // 8
        mask = (1 << bits) - 1
        while True:
            value = int.from_bytes(self.read(size), "big") & mask
            if value < n:
                return value

    def randint(self, a: int, b: int) -> int:
        """A uniformly distributed integer in ``[a, b]``, both included."""
        if b < a:
            raise ValueError(f"randint({a!r}, {b!r}): empty range")
        return a + self.below(b - a + 1)

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Shuffle ``x`` in place (Fisher-Yates, every order equally likely)."""
        for i in range(len(x) - 1, 0, -1):
            j = self.below(i + 1)
            x[i], x[j] = x[j], x[i]


def new_secret() -> bytes:
    """32 unpredictable bytes from the operating system (a match key or league secret)."""
    return secrets.token_bytes(KEY_BYTES)


def key_from_seed(seed: int) -> bytes:
    """The chance key of a reproducible run: SHA-256 of a label and the seed.

    Guessable by design (try every small seed): for local tests and debugging only.
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ChanceKeyError(f"seed must be a whole number, got {seed!r}")
    return hashlib.sha256(SEED_LABEL + str(seed).encode()).digest()


def league_secret_from_seed(seed: int) -> bytes:
    """A league secret derived from a seed (``--reproducible-seed``): guessable, unsafe
    for public leagues; for reproducing a league run only."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ChanceKeyError(f"seed must be a whole number, got {seed!r}")
    return hashlib.sha256(LEAGUE_SEED_LABEL + str(seed).encode()).digest()


def deal_key(league_secret: bytes, group_key: str) -> bytes:
    """The chance key of one duplicate group: ``HMAC-SHA256(secret, label + group)``."""
    secret = check_key(league_secret, "league secret")
    return hmac.digest(secret, DEAL_LABEL + group_key.encode(), "sha256")


def commitment(secret: bytes) -> str:
    """The published commitment to a secret: SHA-256, lowercase hex."""
    return hashlib.sha256(check_key(secret, "secret")).hexdigest()


def parse_secret(text: str) -> bytes:
    """A secret from its hex form (as revealed by ``arena league show``)."""
    try:
        raw = bytes.fromhex(text.strip())
    except ValueError:
        raise ChanceKeyError(f"secret {text!r} is not hexadecimal") from None
    return check_key(raw, "secret")


def chance_stream(*, seed: int | None = None, key: bytes | None = None) -> ChanceStream:
    """The chance of one match: from ``key``, else from ``seed`` (reproducible,
    guessable), else from a fresh secret that nobody ever sees."""
    if seed is not None and key is not None:
        raise ChanceKeyError(f"give a seed or a chance key, not both (seed {seed!r})")
    if key is not None:
        return ChanceStream(key)
    if seed is not None:
        return ChanceStream(key_from_seed(seed))
    return ChanceStream(new_secret())
