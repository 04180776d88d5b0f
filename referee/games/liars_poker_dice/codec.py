"""Codec for Liar's Poker Dice (``arena.v1.LiarsPokerDice*`` messages).

Derived from the engine's types (:mod:`referee.wire.derived`) with no exception:
hands travel as ``PokerDiceHand`` (category by name, defining faces), each checked
when it arrives, as are the positions of a re-roll.
"""

from __future__ import annotations

from typing import ClassVar, Final

from arena.v1 import liars_poker_dice_pb2 as pb
from referee.gamekit.poker_dice import NUM_DICE, Category, Hand, is_valid_hand
from referee.games.liars_poker_dice.engine import (
    LIARS_POKER_DICE,
    Action,
    Observation,
    Reroll,
    RoundRecord,
)
from referee.wire.derived import Checks, DerivedCodec, Field, Fields


def _reroll_error(reroll: Reroll) -> str | None:
    positions = list(reroll.positions)
    if any(p >= NUM_DICE for p in positions) or positions != sorted(set(positions)):
        return f"re-roll positions {positions}: expected distinct increasing 0..4"
    return None


class LiarsPokerDiceCodec(DerivedCodec[Observation, Action]):
    """Observations and actions of ``liars_poker_dice``."""

    engine = LIARS_POKER_DICE
    observation_message = pb.LiarsPokerDiceObservation
    action_message = pb.LiarsPokerDiceAction
    log_fields = ("steps", "rounds")
    checks: ClassVar[Checks] = {Hand: is_valid_hand, Reroll: _reroll_error}
    fields: ClassVar[Fields] = {  # one seat's throw of the roll-off is a message
        (Observation, "roll_off"): Field(wrapper=("LiarsPokerDiceRollOffRoll", "dice")),
    }
    names: ClassVar[dict[object, str]] = {
        Hand: "PokerDiceHand",  # poker-dice hands are not this game's alone
        Category: "PokerDiceCategory",
        RoundRecord: "LiarsPokerDiceRound",  # the wire named it first
    }
    action_oneof = "kind"


CODEC: Final = LiarsPokerDiceCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
