"""The example bots the benchmarks play, found through the game catalogue's rosters."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from referee.core.catalogue import Roster, get_entry
from sdk.bot import Bot


class NoRosterError(ValueError):
    """The game has no example bots in the catalogue (or not the kind asked for)."""


def roster(game: str) -> Roster:
    """The catalogue roster of ``game``; :class:`NoRosterError` if it has none."""
    found = get_entry(game).roster
    if found is None:
        raise NoRosterError(f"game {game!r} has no example bots")
    return found


def bot_class(module: str) -> type[Bot[Any, Any]]:
    """The :class:`sdk.Bot` subclass defined in ``example_bots.<module>`` (the one whose
    name starts with the module's last word, ``Optimal``, when it defines several)."""
    loaded = importlib.import_module(f"example_bots.{module}")
    classes = [
        value
        for value in vars(loaded).values()
        if inspect.isclass(value)
        and issubclass(value, Bot)
        and value.__module__ == loaded.__name__
        and getattr(value, "game", None)
    ]
    if len(classes) > 1:  # e.g. dice_poker_optimal also defines a last-turn variant
        kind = module.rsplit("_", 1)[-1]
        classes = [c for c in classes if c.__name__.lower().startswith(kind)]
    if len(classes) != 1:
        names = [c.__name__ for c in classes]
        raise NoRosterError(f"example_bots.{module} defines {len(classes)} bots: {names}")
    return classes[0]
