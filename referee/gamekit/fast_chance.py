"""A fast, seeded, guessable chance source for local play and training only.

Its own module so that the engines (which build their states with
:mod:`referee.gamekit.fast`) do not load hashlib: every bot's start pays for what its
engine imports.
"""

from __future__ import annotations

import os
import sys
from array import array
from collections.abc import MutableSequence
from hashlib import blake2b
from typing import Any, ClassVar


class FastChance:
    """A seeded chance source that is fast and guessable: for training and local
    experiments only, never for a refereed match (those draw from the keyed stream of
    :mod:`referee.core.chance`, which a seat cannot predict).

    Its bytes are BLAKE2b in counter mode: block ``i`` is
    ``blake2b(b"bluff-arena/fast-chance/v1:" + seed + b":" + i as 8 bytes)`` (64 bytes;
    ``seed`` as its decimal text, or the bytes given). Creating one costs next to
    nothing (no generator state to seed), so a seeded stream per match is cheap.

    * :meth:`roll` of ``count`` dice takes fresh blocks and keeps, in order, the bytes
      below the largest multiple of ``sides`` (exactly uniform), each die
      ``1 + byte % sides``.
    * :meth:`permutation` sorts the positions by a 64-bit key each, from fresh
      blocks (uniform up to ties between two keys: chance below ``size**2 * 2**-65``).
    * :meth:`randint` takes a fresh block and rejection-samples like
      :class:`referee.core.chance.ChanceStream` does.

    The same seed always gives the same draws, on every platform.
    """

    __slots__ = ("_block", "_prefix")
    draws_whole_requests: ClassVar[bool] = True
    """:func:`~referee.gamekit.base.draw_chance` asks :meth:`roll` and :meth:`permutation`."""

    def __init__(self, seed: int | str | bytes | None = None) -> None:
        if seed is None:
            seed = os.urandom(16)
        text = seed if isinstance(seed, bytes) else str(seed).encode()
        self._prefix = b"bluff-arena/fast-chance/v1:" + text + b":"
        self._block = 0

    def __repr__(self) -> str:
        return f"FastChance(<seeded>, block={self._block})"

    def _next(self) -> bytes:
        block = self._block
        self._block = block + 1
        return blake2b(self._prefix + block.to_bytes(8, "big")).digest()

    def roll(self, count: int, sides: int) -> tuple[int, ...]:
        """``count`` dice of ``sides`` faces (2..256 sides; more: :meth:`randint` each)."""
        if not 2 <= sides <= 256:
            return tuple([self.randint(1, sides) for _ in range(count)])
        table = _DIE_TABLES.get(sides)
        if table is None:
            table = _DIE_TABLES[sides] = _die_table(sides)
        faces, rejected = table
        dice = b""
        while len(dice) < count:
            dice += self._next().translate(faces, rejected)
        return tuple(dice[:count])

    def permutation(self, size: int) -> tuple[int, ...]:
        """A random order of ``range(size)`` (what a
        :class:`~referee.gamekit.base.Shuffle` draws)."""
        data = b"".join([self._next() for _ in range((8 * size + 63) // 64)])
        keys = array("Q", data[: 8 * size])
        if sys.byteorder == "big":
            keys.byteswap()
        return tuple(sorted(range(size), key=keys.__getitem__))

    def randint(self, a: int, b: int, /) -> int:
        """An integer in ``[a, b]``, both included (uniform: rejection sampling)."""
        n = b - a + 1
        if n < 1:
            raise ValueError(f"empty range for randint({a}, {b})")
        bits = (n - 1).bit_length()
        size = max(1, (bits + 7) // 8)
        mask = (1 << bits) - 1
        while True:
            block = self._next()
            for at in range(0, len(block) - size + 1, size):
                value = int.from_bytes(block[at : at + size], "big") & mask
                if value < n:
                    return a + value

    def shuffle(self, x: MutableSequence[Any], /) -> None:
        """Shuffle ``x`` in place (by :meth:`permutation`)."""
        items = list(x)
        x[:] = [items[i] for i in self.permutation(len(items))]


_DIE_TABLES: dict[int, tuple[bytes, bytes]] = {}
"""Per number of sides: the byte -> face table and the rejected bytes."""


def _die_table(sides: int) -> tuple[bytes, bytes]:
    limit = 256 - 256 % sides
    faces = bytes(1 + byte % sides if byte < limit else 0 for byte in range(256))
    return faces, bytes(range(limit, 256))
