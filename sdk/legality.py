"""Legality helpers for any game, one implementation behind every game's SDK module.

Each game's module (``sdk.liars_dice``, ...) binds them to its engine::

    legal_actions, is_legal = legality(LIARS_DICE)

and so runs exactly the referee's code: a bot that only plays actions from
``legal_actions`` (or checks ``is_legal``) never faults for an illegal action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from referee.games.base import Game, GameError

ObsT = TypeVar("ObsT")
ActionT = TypeVar("ActionT")


def legality(
    game: Game[Any, Any, ActionT, ObsT],
) -> tuple[Callable[[ObsT], list[ActionT]], Callable[[ObsT, object], bool]]:
    """``legal_actions`` and ``is_legal`` for ``game``'s observations."""

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
