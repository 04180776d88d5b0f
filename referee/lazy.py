"""A read-only mapping whose values are imported from their modules on first access."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

V = TypeVar("V")


class LazyRegistry(Mapping[str, V], Generic[V]):
    """Names known up front; each value is ``module.attribute``, imported when asked for.

    Listing or testing names (``in``, ``sorted``, ``len``) imports nothing, so a
    Liar's Dice bot or ``arena --help`` never loads the other games' modules.
    """

    def __init__(self, entries: Mapping[str, tuple[str, str]]) -> None:
        self._entries = dict(entries)
        self._loaded: dict[str, V] = {}

    def __getitem__(self, name: str) -> V:
        try:
            return self._loaded[name]
        except KeyError:
            pass
        module, attribute = self._entries[name]  # KeyError for an unknown name
        value: V = getattr(importlib.import_module(module), attribute)
        self._loaded[name] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __repr__(self) -> str:
        return f"{type(self).__name__}({sorted(self._entries)!r})"
