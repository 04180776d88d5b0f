"""The mixed move a bot returns: ``Mixed({action: probability, ...})``.

Alone in its module so that a bot importing the SDK loads nothing else for it (the
checking, drawing and committing live in :mod:`referee.core.mixed`, on the referee's
side and in in-process play).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Mixed:
    """A mixed move: ``Mixed({action: probability, ...})``, returned from ``act``.

    Actions left out have probability 0. The referee (or the in-process runner)
    checks the probabilities and draws the action played from them.
    """

    __slots__ = ("probabilities",)

    def __init__(self, probabilities: Mapping[Any, float]) -> None:
        self.probabilities: dict[Any, float] = dict(probabilities)

    def __repr__(self) -> str:
        inner = ", ".join(f"{a!r}: {p:g}" for a, p in self.probabilities.items())
        return f"Mixed({{{inner}}})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mixed) and other.probabilities == self.probabilities

    __hash__ = None  # type: ignore[assignment]
