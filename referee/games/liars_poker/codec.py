"""Codec between the Liar's Poker engine values and ``arena.v1.LiarsPoker*`` messages.

Derived from the engine's types (:mod:`referee.wire.derived`) with no exception:
cards travel as rank (0 for a joker) and suit (``UNSPECIFIED`` for a joker),
categories by name; a hand not dealt yet is ``has_hand = false``. Every card and
announcement that arrives is checked.
"""

from __future__ import annotations

from typing import ClassVar, Final

from arena.v1 import liars_poker_pb2 as pb
from referee.gamekit.cards import Card
from referee.gamekit.poker_hands import Announcement, announcement_error
from referee.games.liars_poker.engine import LIARS_POKER, Action, Observation, check_well_formed
from referee.wire.derived import Checks, DerivedCodec


class LiarsPokerCodec(DerivedCodec[Observation, Action]):
    """Observations and actions of ``liars_poker``."""

    engine = LIARS_POKER
    observation_message = pb.LiarsPokerObservation
    action_message = pb.LiarsPokerAction
    log_fields = ("claims", "results")
    checks: ClassVar[Checks] = {Card: Card.is_valid, Announcement: announcement_error}
    well_formed = staticmethod(check_well_formed)
    check_before_encoding = True


CODEC: Final = LiarsPokerCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
