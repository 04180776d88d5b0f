"""Legality helpers for any game, one implementation behind every game's SDK module.

For any observation of any registered game (built-in or installed)::

    from sdk import is_legal, legal_actions

    legal_actions(observation)          # every action the referee would accept now
    is_legal(observation, action)

find the game from the observation's type. Each game's module (``sdk.liars_dice``, ...)
also binds them to its engine, typed for that game::

    legal_actions, is_legal = legality(LIARS_DICE)

Both run exactly the referee's code: a bot that only plays actions from
``legal_actions`` (or checks ``is_legal``) never faults for an illegal action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from referee.core.catalogue import entries, get_game
from referee.gamekit.base import Game, GameError, RulesError

ObsT = TypeVar("ObsT")
ActionT = TypeVar("ActionT")

_GAMES: dict[type, Game[Any, Any, Any, Any]] = {}
"""Observation type → its engine, filled on first use."""


def game_of(observation: object) -> Game[Any, Any, Any, Any]:
    """The engine whose observations are of ``observation``'s type: the registered
    game whose engine module defines that type. :class:`RulesError` if none does."""
    kind = type(observation)
    game = _GAMES.get(kind)
    if game is None:
        for entry in entries():
            if entry.engine.partition(":")[0] == kind.__module__:
                game = _GAMES[kind] = get_game(entry.name)
                break
        else:
            raise RulesError(f"{kind.__qualname__} is not the observation of a registered game")
    return game


def legal_actions(observation: Any) -> list[Any]:
    """Every legal action for the observing seat (empty when it is not its turn)."""
    game = _GAMES.get(type(observation))
    if game is None:
        game = game_of(observation)
    return list(game.legal_actions(observation))


def is_legal(observation: Any, action: object) -> bool:
    """Whether the referee would accept ``action`` from the observing seat now."""
    try:
        game_of(observation).check_action(observation, action)
    except GameError:
        return False
    return True


def legality(
    game: Game[Any, Any, ActionT, ObsT],
) -> tuple[Callable[[ObsT], list[ActionT]], Callable[[ObsT, object], bool]]:
    """``legal_actions`` and ``is_legal`` for ``game``'s observations, typed for it."""

    def legal_actions(observation: ObsT) -> list[ActionT]:
        """Every legal action for the observing seat (empty when it is not its turn)."""
        return list(game.legal_actions(observation))

    def is_legal(observation: ObsT, action: object) -> bool:
        """Whether the referee would accept ``action`` from the observing seat now."""
        try:
            game.check_action(observation, action)
        except GameError:
            return False
        return True

    return legal_actions, is_legal
