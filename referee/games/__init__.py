"""Pure game engines, one module per game, and the registry of games by name.

The registry is lazy: an engine module is imported only when its game is asked for
(``GAMES[name]``, :func:`get_game`), so a Liar's Dice bot never loads the card games.
"""

from __future__ import annotations

from typing import Any

from referee.games.base import Game, RulesError
from referee.lazy import LazyRegistry

GAMES: LazyRegistry[Game[Any, Any, Any, Any]] = LazyRegistry(
    {
        "liars_dice": ("referee.games.liars_dice", "LIARS_DICE"),
        "liars_poker_dice": ("referee.games.liars_poker_dice", "LIARS_POKER_DICE"),
        "dice_poker": ("referee.games.dice_poker", "DICE_POKER"),
        "cockroach_poker": ("referee.games.cockroach_poker", "COCKROACH_POKER"),
        "liars_poker": ("referee.games.liars_poker", "LIARS_POKER"),
    }
)
"""Engines by game name (``name`` of each engine), in listing order."""


def get_game(name: str) -> Game[Any, Any, Any, Any]:
    """The engine registered as ``name``; :class:`RulesError` if there is none."""
    try:
        return GAMES[name]
    except KeyError:
        raise RulesError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None
