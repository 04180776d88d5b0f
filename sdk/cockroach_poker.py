"""Cockroach Poker for bot authors: the types a bot sees and helpers built on the engine.

    from sdk import Bot, run
    from sdk.cockroach_poker import Action, Observation, legal_actions

    class MyBot(Bot[Observation, Action]):
        game = "cockroach_poker"

        def act(self, observation: Observation) -> Action:
            return self.rng.choice(legal_actions(observation))

The legality helpers run exactly the referee's code, so a bot that only plays
actions from :func:`legal_actions` (or checks :func:`is_legal`) never faults.

Everything here is the engine's own code (``referee.games.cockroach_poker.engine`` and
the cards of ``referee.gamekit.cards``) or built on it, re-exported so that a bot
imports only the SDK:

* Observation and its parts: ``Observation``, ``Rules``, ``Phase``, ``SeatView``,
  ``PendingView``, ``PassView``, ``Counts`` (cards per kind, indexed by ``Kind``).
* Actions: ``Action``, ``Announce``, ``Believe``, ``Disbelieve``.
* Legality: :func:`legal_actions`, :func:`is_legal`.
* Cards and counting: ``Kind``, ``KINDS``, ``CARDS_PER_KIND``, ``COCKROACH_DECK``,
  ``DECK_SIZE``, ``NO_CARDS``, ``LOSING_COUNT`` (cards of one kind that lose),
  ``kind_counts``, ``kinds_from_counts``, ``unseen_counts(observation)``.
* The call rule (``observation.rules.call_rule``, ``CALL_RULES``): ``simplified``
  (default: believe takes the card face down, disbelieve turns it up and the claim
  decides) or ``published`` (``Believe`` calls the claim true, ``Disbelieve``
  false; the card is turned up and a right call sends it to the passer).
  ``turned_up(rules, believed)`` says whether an answered card lies face up.
* Probabilities: :func:`claim_probability`.
* Simulation, for solvers and search: the engine ``COCKROACH_POKER``, its
  ``State``, and ``GameError`` (what the engine raises).
"""

from __future__ import annotations

from fractions import Fraction

from referee.gamekit.base import GameError
from referee.gamekit.cards import (
    CARDS_PER_KIND,
    COCKROACH_DECK,
    KINDS,
    Kind,
    kind_counts,
    kinds_from_counts,
)
from referee.games.cockroach_poker.engine import (
    CALL_RULES,
    COCKROACH_POKER,
    DECK_SIZE,
    LOSING_COUNT,
    NO_CARDS,
    Action,
    Announce,
    Believe,
    Counts,
    Disbelieve,
    Observation,
    PassView,
    PendingView,
    Phase,
    Rules,
    SeatView,
    State,
    turned_up,
    unseen_counts,
)
from sdk.legality import legality

__all__ = [
    "CALL_RULES",
    "CARDS_PER_KIND",
    "COCKROACH_DECK",
    "COCKROACH_POKER",
    "DECK_SIZE",
    "KINDS",
    "LOSING_COUNT",
    "NO_CARDS",
    "Action",
    "Announce",
    "Believe",
    "Counts",
    "Disbelieve",
    "GameError",
    "Kind",
    "Observation",
    "PassView",
    "PendingView",
    "Phase",
    "Rules",
    "SeatView",
    "State",
    "claim_probability",
    "is_legal",
    "kind_counts",
    "kinds_from_counts",
    "legal_actions",
    "turned_up",
    "unseen_counts",
]


legal_actions, is_legal = legality(COCKROACH_POKER)
"""``legal_actions(observation)``: every legal action for the observing seat (empty when
it is not its turn); ``is_legal(observation, action)``: whether the referee would
accept ``action`` from it now (:mod:`sdk.legality`)."""


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
