"""Serving a bot over gRPC (implementation lands with the referee)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sdk.bot import Bot


def run(factory: Callable[[], Bot[Any, Any]], argv: Sequence[str] | None = None) -> None:
    raise NotImplementedError("sdk.run is being written")
