"""Three-Card Bluff for bot authors: the types a bot sees and the legality helpers.

    from sdk import Bot, run
    from tests.game_plugins.three_card_bluff.bot_sdk import Action, Observation, legal_actions

Importing this module registers the game (its package does), so ``sdk.run`` and
``sdk.local`` find its engine and codec in the catalogue.
"""

from __future__ import annotations

from referee.games.base import GameError
from tests.game_plugins.three_card_bluff.engine import (
    RANKS,
    THREE_CARD_BLUFF,
    Action,
    Believe,
    Call,
    Claim,
    Observation,
)

__all__ = [
    "RANKS",
    "Action",
    "Believe",
    "Call",
    "Claim",
    "Observation",
    "is_legal",
    "legal_actions",
]


def legal_actions(observation: Observation) -> list[Action]:
    """Every legal action for the observing seat (empty when it is not its turn)."""
    return list(THREE_CARD_BLUFF.legal_actions(observation))


def is_legal(observation: Observation, action: object) -> bool:
    """Whether the referee would accept ``action`` from the observing seat now."""
    try:
        THREE_CARD_BLUFF.check_action(observation, action)
    except GameError:
        return False
    return True
