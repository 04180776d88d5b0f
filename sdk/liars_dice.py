"""Liar's Dice for bot authors: the types a bot sees and helpers built on the engine.

    from sdk import Bot, run
    from sdk.liars_dice import Action, Observation, legal_actions

    class MyBot(Bot[Observation, Action]):
        game = "liars_dice"

        def act(self, observation: Observation) -> Action:
            return self.rng.choice(legal_actions(observation))

The legality helpers run exactly the referee's code, so a bot that only plays
actions from :func:`legal_actions` (or checks :func:`is_legal`) never faults.

Everything here is the engine's own code (``referee.games.liars_dice.engine`` and
``referee.gamekit.dice``), re-exported so that a bot imports only the SDK:

* Observation and its parts: ``Observation``, ``Rules``, ``PlacedBid``,
  ``RoundResult``, ``RollOffRoll``.
* Actions: ``Action``, ``Bid``, ``SumBid``, ``Challenge``, ``AnyBid`` (a face or sum bid).
* Legality: :func:`legal_actions`, :func:`is_legal`, ``is_raise(rule, previous, bid)``;
  the rule values ``RAISE_RULES``, ``WILD_FACES``, ``WILD_OPENINGS`` and the limits
  ``MAX_SEATS``, ``MAX_DICE_PER_PLAYER``.
* Counting: ``count_matching``, ``counts_for``, ``bid_is_true``, ``next_active``
  (the next seat with dice), ``SIDES``, ``FACES``.
* Probabilities (exact fractions): :func:`bid_probability`, ``face_probability``,
  ``binomial_pmf``, ``probability_at_least``, ``sum_distribution``,
  ``probability_sum_at_least``.
* Simulation, for solvers and search: the engine ``LIARS_DICE`` (``new_game``,
  ``apply_chance``, ``apply_action``, ``observe``, ``outcome``...), its ``State``,
  and ``GameError`` (what the engine raises; ``RulesError`` for bad rule options).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.gamekit.base import GameError, RulesError
from referee.gamekit.dice import (
    FACES,
    SIDES,
    binomial_pmf,
    count_matching,
    face_probability,
    probability_at_least,
    probability_sum_at_least,
    sum_distribution,
)
from referee.games.liars_dice.engine import (
    LIARS_DICE,
    MAX_DICE_PER_PLAYER,
    MAX_SEATS,
    RAISE_RULES,
    WILD_FACES,
    WILD_OPENINGS,
    Action,
    AnyBid,
    Bid,
    Challenge,
    Observation,
    PlacedBid,
    RollOffRoll,
    RoundResult,
    Rules,
    State,
    SumBid,
    bid_is_true,
    counts_for,
    is_raise,
    next_active,
)
from sdk.legality import legality

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = [
    "FACES",
    "LIARS_DICE",
    "MAX_DICE_PER_PLAYER",
    "MAX_SEATS",
    "RAISE_RULES",
    "SIDES",
    "WILD_FACES",
    "WILD_OPENINGS",
    "Action",
    "AnyBid",
    "Bid",
    "Challenge",
    "GameError",
    "Observation",
    "PlacedBid",
    "RollOffRoll",
    "RoundResult",
    "Rules",
    "RulesError",
    "State",
    "SumBid",
    "bid_is_true",
    "bid_probability",
    "binomial_pmf",
    "count_matching",
    "counts_for",
    "face_probability",
    "is_legal",
    "is_raise",
    "legal_actions",
    "next_active",
    "probability_at_least",
    "probability_sum_at_least",
    "sum_distribution",
]


legal_actions, is_legal = legality(LIARS_DICE)
"""``legal_actions(observation)``: every legal action for the observing seat (empty when
it is not its turn); ``is_legal(observation, action)``: whether the referee would
accept ``action`` from it now (:mod:`sdk.legality`)."""


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
