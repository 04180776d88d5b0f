"""Liar's Dice for bot authors: the types a bot sees and helpers built on the engine.

    from sdk import Bot, run
    from sdk.liars_dice import Action, Observation, legal_actions

    class MyBot(Bot[Observation, Action]):
        game = "liars_dice"

        def act(self, observation: Observation) -> Action:
            return self.rng.choice(legal_actions(observation))

The legality helpers run exactly the referee's code, so a bot that only plays
actions from :func:`legal_actions` (or checks :func:`is_legal`) never faults.
"""

from __future__ import annotations

from fractions import Fraction

from referee.games.base import GameError
from referee.games.dice import (
    count_matching,
    face_probability,
    probability_at_least,
    probability_sum_at_least,
)
from referee.games.liars_dice import (
    LIARS_DICE,
    Action,
    Bid,
    Challenge,
    Observation,
    PlacedBid,
    RollOffRoll,
    RoundResult,
    Rules,
    SumBid,
)

__all__ = [
    "Action",
    "Bid",
    "Challenge",
    "Observation",
    "PlacedBid",
    "RollOffRoll",
    "RoundResult",
    "Rules",
    "SumBid",
    "bid_probability",
    "count_matching",
    "face_probability",
    "is_legal",
    "legal_actions",
    "probability_at_least",
    "probability_sum_at_least",
]


def legal_actions(observation: Observation) -> list[Action]:
    """Every legal action for the observing seat (empty when it is not its turn)."""
    return list(LIARS_DICE.legal_actions(observation))


def is_legal(observation: Observation, action: object) -> bool:
    """Whether the referee would accept ``action`` from the observing seat now."""
    try:
        LIARS_DICE.check_action(observation, action)
    except GameError:
        return False
    return True


def bid_probability(observation: Observation, bid: Bid | SumBid) -> Fraction:
    """The exact chance that ``bid`` is true, given only the observer's own dice.

    Uses the round's wild rule: if no bid has been made yet and ``bid`` names the
    wild face, it would cancel wilds, which changes nothing for that bid (a bid on
    the wild face counts only real dice anyway).
    """
    own = observation.own_dice
    unknown = observation.total_dice - len(own)
    if isinstance(bid, SumBid):
        return probability_sum_at_least(bid.total, unknown, known=sum(own))
    wild = observation.rules.wild if observation.wilds_active else None
    known = count_matching(own, bid.face, wild)
    return probability_at_least(bid.quantity - known, unknown, face_probability(bid.face, wild))
