"""Codec between the Cockroach Poker engine values and ``arena.v1.CockroachPoker*`` messages.

Derived from the engine's types (:mod:`referee.wire.derived`): kinds travel as
``CockroachPokerKind`` by name (0 = unset, for a card not known), per-kind counts as
8 numbers in kind order, checked for length. The rule option ``call_rule`` travels
as the flag ``call_rule_published``, the form it had before it was an option.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from arena.v1 import cockroach_poker_pb2 as pb
from referee.gamekit.cards import KINDS
from referee.games.cockroach_poker.engine import (
    COCKROACH_POKER,
    Action,
    Counts,
    Observation,
    PassView,
    PendingView,
    Rules,
    SeatView,
    check_well_formed,
)
from referee.wire.derived import DerivedCodec, Field, Fields, Wire

CALL_RULE_PUBLISHED: Final = (
    "Whether the call decides who takes an answered card (option call_rule=published: "
    "BELIEVE calls the claim true, DISBELIEVE false, the card is turned up and goes to "
    "the announcer on a right call); false: call_rule=simplified, so observations under "
    "the default rules keep their bytes."
)


def _counts(name: str) -> Field:
    """A per-kind count field: exactly one number per kind."""

    def decode(message: Any) -> Counts:
        values = tuple(getattr(message, name))
        if len(values) != len(KINDS):
            raise ValueError(f"expected {len(KINDS)} counts, got {list(values)}")
        return values

    def encode(counts: Counts) -> dict[str, Any]:
        return {name: counts}

    return Field(encode=encode, decode=decode)


class CockroachPokerCodec(DerivedCodec[Observation, Action]):
    """Observations and actions of ``cockroach_poker``."""

    engine = COCKROACH_POKER
    observation_message = pb.CockroachPokerObservation
    action_message = pb.CockroachPokerAction
    log_fields = ("history",)
    fields: ClassVar[Fields] = {
        (Rules, "call_rule"): Field(  # a flag: its form before it was an option
            encode=lambda rule: {"call_rule_published": rule == "published"},
            decode=lambda message: "published" if message.call_rule_published else "simplified",
            writes=(Wire("call_rule_published", bool, CALL_RULE_PUBLISHED),),
        ),
        (Observation, "hand"): _counts("hand"),
        (SeatView, "face_up"): _counts("face_up"),
    }
    names: ClassVar[dict[object, str]] = {  # the wire's names: what a bot sees, not a view
        SeatView: "CockroachPokerSeat",
        PendingView: "CockroachPokerPending",
        PassView: "CockroachPokerPass",
    }
    well_formed = staticmethod(check_well_formed)
    check_before_encoding = True


CODEC: Final = CockroachPokerCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
