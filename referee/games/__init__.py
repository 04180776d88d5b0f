"""Pure game engines, one module per game, and the registry of games by name."""

from __future__ import annotations

from typing import Any

from referee.games.base import Game, RulesError
from referee.games.cockroach_poker import COCKROACH_POKER
from referee.games.dice_poker import DICE_POKER
from referee.games.liars_dice import LIARS_DICE
from referee.games.liars_poker import LIARS_POKER
from referee.games.liars_poker_dice import LIARS_POKER_DICE

GAMES: dict[str, Game[Any, Any, Any, Any]] = {
    game.name: game
    for game in (LIARS_DICE, LIARS_POKER_DICE, DICE_POKER, COCKROACH_POKER, LIARS_POKER)
}


def get_game(name: str) -> Game[Any, Any, Any, Any]:
    """The engine registered as ``name``; :class:`RulesError` if there is none."""
    try:
        return GAMES[name]
    except KeyError:
        raise RulesError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None
