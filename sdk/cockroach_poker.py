"""Cockroach Poker for bot authors: the types a bot sees and helpers built on the engine.

    from sdk import Bot, run
    from sdk.cockroach_poker import Action, Observation, legal_actions

    class MyBot(Bot[Observation, Action]):
        game = "cockroach_poker"

        def act(self, observation: Observation) -> Action:
            return self.rng.choice(legal_actions(observation))

The legality helpers run exactly the referee's code, so a bot that only plays
actions from :func:`legal_actions` (or checks :func:`is_legal`) never faults.
"""

from __future__ import annotations

from fractions import Fraction

from referee.games.base import GameError
from referee.games.cards import CARDS_PER_KIND, KINDS, Kind
from referee.games.cockroach_poker import (
    COCKROACH_POKER,
    LOSING_COUNT,
    Action,
    Announce,
    Believe,
    Counts,
    Disbelieve,
    Observation,
    PassView,
    PendingView,
    Rules,
    SeatView,
    unseen_counts,
)

__all__ = [
    "CARDS_PER_KIND",
    "KINDS",
    "LOSING_COUNT",
    "Action",
    "Announce",
    "Believe",
    "Counts",
    "Disbelieve",
    "Kind",
    "Observation",
    "PassView",
    "PendingView",
    "Rules",
    "SeatView",
    "claim_probability",
    "is_legal",
    "legal_actions",
    "unseen_counts",
]


def legal_actions(observation: Observation) -> list[Action]:
    """Every legal action for the observing seat (empty when it is not its turn)."""
    return list(COCKROACH_POKER.legal_actions(observation))


def is_legal(observation: Observation, action: object) -> bool:
    """Whether the referee would accept ``action`` from the observing seat now."""
    try:
        COCKROACH_POKER.check_action(observation, action)
    except GameError:
        return False
    return True


def claim_probability(observation: Observation, kind: Kind) -> Fraction:
    """Chance that a card of unknown kind is a ``kind``, counting unseen cards only.

    Treats the card as drawn uniformly from the cards whose kind the observer
    cannot place (other hands, face-down cards it did not pass, set-aside cards,
    the card in transit): a pure card count, ignoring what the announcer's
    choices may reveal.
    """
    unseen = unseen_counts(observation)
    total = sum(unseen)
    if total == 0:
        return Fraction(0)
    return Fraction(unseen[kind], total)
