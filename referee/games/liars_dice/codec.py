"""Codec between the Liar's Dice engine values and ``arena.v1.LiarsDice*`` messages.

Derived from the engine's types (:mod:`referee.wire.derived`), except two rule
options whose wire form came first: the wild face travels as a number (0: none) and
``wild_opening`` as the flag ``wild_opening_keep``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from arena.v1 import liars_dice_pb2 as pb
from referee.games.liars_dice.engine import (
    LIARS_DICE,
    RAISE_RULES,
    WILD_FACES,
    Action,
    Bid,
    Observation,
    PlacedBid,
    RoundResult,
    Rules,
    SumBid,
    check_well_formed,
)
from referee.wire.derived import Checks, DerivedCodec, Field, Fields, Wire

_WILD_OPENING_KEEP = (
    "Whether wilds still count in a round whose opening bid names the wild face (rule "
    "option wild_opening=keep); false: such an opening cancels them (cancel)."
)


def _wild_face(message: Any) -> str:
    face = "none" if message.wild_face == 0 else str(message.wild_face)
    if face not in WILD_FACES:
        raise ValueError(f"bad wild_face {message.wild_face}")
    return face


class LiarsDiceCodec(DerivedCodec[Observation, Action]):
    """Observations and actions of ``liars_dice``."""

    engine = LIARS_DICE
    observation_message = pb.LiarsDiceObservation
    action_message = pb.LiarsDiceAction
    log_fields = ("bids", "history")
    fields: ClassVar[Fields] = {
        (Rules, "raise_rule"): Field(values=RAISE_RULES),
        (Rules, "wild_face"): Field(  # a number: its wire form came first
            encode=lambda face: {"wild_face": 0 if face == "none" else int(face)},
            decode=_wild_face,
            writes=(Wire("wild_face", int, "The wild face, 1 or 6; 0 when no face is wild."),),
        ),
        (Rules, "wild_opening"): Field(  # a flag, added to the wire after the options after it
            encode=lambda opening: {"wild_opening_keep": opening == "keep"},
            decode=lambda message: "keep" if message.wild_opening_keep else "cancel",
            writes=(Wire("wild_opening_keep", bool, _WILD_OPENING_KEEP, number=7),),
        ),
        (PlacedBid, "bid"): Field(members=("face_bid", "sum_bid")),  # a Bid is a face bid
        (Observation, "roll_offs"): Field(wrapper=("LiarsDiceRollOff", "rolls")),
        (RoundResult, "dice"): Field(wrapper=("LiarsDiceHand", "dice")),  # one seat's dice
    }
    checks: ClassVar[Checks] = {Bid: check_well_formed, SumBid: check_well_formed}
    well_formed = staticmethod(check_well_formed)


CODEC: Final = LiarsDiceCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
