"""Three-Card Bluff for bot authors: the types a bot sees and the legality helpers.

    from sdk import Bot, run
    from tests.game_plugins.three_card_bluff.bot_sdk import Action, Observation, legal_actions

``sdk.run`` and ``sdk.local`` find its engine and codec in the catalogue, which
discovers the game through its entry point (the suite installs it).
"""

from __future__ import annotations

from sdk.legality import legality
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


legal_actions, is_legal = legality(THREE_CARD_BLUFF)
"""``legal_actions(observation)``: every legal action for the observing seat (empty when
it is not its turn); ``is_legal(observation, action)``: whether the referee would
accept ``action`` from it now (:mod:`sdk.legality`)."""
