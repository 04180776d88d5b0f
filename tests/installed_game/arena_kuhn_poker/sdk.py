"""Kuhn Poker for bot authors: the types a bot sees and the legality helpers.

from sdk import Bot, run
from arena_kuhn_poker.sdk import Action, Bet, Call, Check, Fold, Observation, legal_actions
"""

from __future__ import annotations

from arena_kuhn_poker.engine import (
    CARDS,
    KUHN_POKER,
    Action,
    Bet,
    Call,
    Check,
    Fold,
    Observation,
)
from sdk.legality import legality

__all__ = [
    "CARDS",
    "Action",
    "Bet",
    "Call",
    "Check",
    "Fold",
    "Observation",
    "is_legal",
    "legal_actions",
]

legal_actions, is_legal = legality(KUHN_POKER)
