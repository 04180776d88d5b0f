"""Codec between the Liar's Dice engine values and ``arena.v1.LiarsDice*`` messages."""

from __future__ import annotations

from typing import ClassVar, Final

from arena.v1 import bot_pb2, liars_dice_pb2
from referee.games.base import MalformedActionError
from referee.games.liars_dice import (
    WILD_FACES,
    Action,
    AnyBid,
    Bid,
    Challenge,
    Observation,
    Phase,
    PlacedBid,
    RollOffRoll,
    RoundResult,
    Rules,
    SumBid,
    check_well_formed,
)
from referee.wire.base import Codec, MalformedObservationError

_RAISE_RULES: dict[str, liars_dice_pb2.LiarsDiceRaiseRule.ValueType] = {
    "same-face-or-same-quantity": (liars_dice_pb2.LIARS_DICE_RAISE_RULE_SAME_FACE_OR_SAME_QUANTITY),
    "quantity-or-face": liars_dice_pb2.LIARS_DICE_RAISE_RULE_QUANTITY_OR_FACE,
    "reset-face": liars_dice_pb2.LIARS_DICE_RAISE_RULE_RESET_FACE,
}
_RAISE_RULE_NAMES = {value: name for name, value in _RAISE_RULES.items()}

_PHASES: dict[Phase, liars_dice_pb2.LiarsDicePhase.ValueType] = {
    "roll-off": liars_dice_pb2.LIARS_DICE_PHASE_ROLL_OFF,
    "roll": liars_dice_pb2.LIARS_DICE_PHASE_ROLL,
    "bid": liars_dice_pb2.LIARS_DICE_PHASE_BID,
    "over": liars_dice_pb2.LIARS_DICE_PHASE_OVER,
}
_PHASE_NAMES = {value: name for name, value in _PHASES.items()}


class LiarsDiceCodec(Codec[Observation, Action]):
    """Exact round trip of Liar's Dice observations and actions."""

    game: ClassVar[str] = "liars_dice"
    log_fields: ClassVar[tuple[str, ...]] = ("bids", "history")

    # -- observations -------------------------------------------------------

    def encode_observation(self, observation: Observation) -> bot_pb2.Observation:
        message = liars_dice_pb2.LiarsDiceObservation(
            seat=observation.seat,
            num_seats=observation.num_seats,
            rules=_encode_rules(observation.rules),
            phase=_PHASES[observation.phase],
            dice_counts=observation.dice_counts,
            own_dice=observation.own_dice,
            roll_offs=[
                liars_dice_pb2.LiarsDiceRollOff(
                    rolls=[
                        liars_dice_pb2.LiarsDiceRollOffRoll(seat=roll.seat, dice=roll.dice)
                        for roll in roll_off
                    ]
                )
                for roll_off in observation.roll_offs
            ],
            round_number=observation.round_number,
            wilds_active=observation.wilds_active,
            sum_round=observation.sum_round,
            bids=[_encode_placed(placed) for placed in observation.bids],
            history=[_encode_result(result) for result in observation.history],
            eliminated=observation.eliminated,
        )
        if observation.to_act is not None:
            message.to_act = observation.to_act
        if observation.opener is not None:
            message.opener = observation.opener
        return bot_pb2.Observation(liars_dice=message)

    def decode_observation(self, message: bot_pb2.Observation) -> Observation:
        which = message.WhichOneof("game")
        if which != self.game:
            raise MalformedObservationError(
                f"expected a {self.game} observation, got {which or 'an empty observation'}"
            )
        obs = message.liars_dice
        if obs.phase not in _PHASE_NAMES:
            raise MalformedObservationError(f"unknown phase {obs.phase} in {obs}")
        return Observation(
            seat=obs.seat,
            num_seats=obs.num_seats,
            rules=_decode_rules(obs.rules),
            phase=_PHASE_NAMES[obs.phase],
            to_act=obs.to_act if obs.HasField("to_act") else None,
            dice_counts=tuple(obs.dice_counts),
            own_dice=tuple(obs.own_dice),
            roll_offs=tuple(
                tuple(RollOffRoll(roll.seat, tuple(roll.dice)) for roll in roll_off.rolls)
                for roll_off in obs.roll_offs
            ),
            round_number=obs.round_number,
            opener=obs.opener if obs.HasField("opener") else None,
            wilds_active=obs.wilds_active,
            sum_round=obs.sum_round,
            bids=tuple(_decode_placed(placed) for placed in obs.bids),
            history=tuple(_decode_result(result) for result in obs.history),
            eliminated=tuple(obs.eliminated),
        )

    # -- actions --------------------------------------------------------------

    def encode_action(self, action: Action) -> bot_pb2.Action:
        if isinstance(action, Bid):
            inner = liars_dice_pb2.LiarsDiceAction(
                bid=liars_dice_pb2.LiarsDiceBid(quantity=action.quantity, face=action.face)
            )
        elif isinstance(action, SumBid):
            inner = liars_dice_pb2.LiarsDiceAction(
                sum_bid=liars_dice_pb2.LiarsDiceSumBid(total=action.total)
            )
        elif isinstance(action, Challenge):
            inner = liars_dice_pb2.LiarsDiceAction(challenge=liars_dice_pb2.LiarsDiceChallenge())
        else:
            raise MalformedActionError(f"{action!r} is not a liars_dice action")
        return bot_pb2.Action(liars_dice=inner)

    def decode_action(self, message: bot_pb2.Action) -> Action:
        self.require_game(message)
        inner = message.liars_dice
        which = inner.WhichOneof("action")
        action: Action
        if which == "bid":
            action = Bid(quantity=inner.bid.quantity, face=inner.bid.face)
        elif which == "sum_bid":
            action = SumBid(total=inner.sum_bid.total)
        elif which == "challenge":
            action = Challenge()
        else:
            raise MalformedActionError(f"empty liars_dice action: {message}")
        return check_well_formed(action)


# ---------------------------------------------------------------------------
# helpers


def _encode_rules(rules: Rules) -> liars_dice_pb2.LiarsDiceRules:
    return liars_dice_pb2.LiarsDiceRules(
        dice_per_player=rules.dice_per_player,
        raise_rule=_RAISE_RULES[rules.raise_rule],
        wild_face=rules.wild or 0,
        sum_endgame=rules.sum_endgame,
        one_round=rules.one_round,
        roll_off=rules.roll_off,
        wild_opening_keep=rules.wild_opening == "keep",
    )


def _decode_rules(message: liars_dice_pb2.LiarsDiceRules) -> Rules:
    if message.raise_rule not in _RAISE_RULE_NAMES:
        raise MalformedObservationError(f"unknown raise_rule {message.raise_rule}")
    wild_face = "none" if message.wild_face == 0 else str(message.wild_face)
    if wild_face not in WILD_FACES:
        raise MalformedObservationError(f"bad wild_face {message.wild_face}")
    return Rules(
        dice_per_player=message.dice_per_player,
        raise_rule=_RAISE_RULE_NAMES[message.raise_rule],
        wild_face=wild_face,
        sum_endgame=message.sum_endgame,
        one_round=message.one_round,
        roll_off=message.roll_off,
        wild_opening="keep" if message.wild_opening_keep else "cancel",
    )


def _encode_placed(placed: PlacedBid) -> liars_dice_pb2.LiarsDicePlacedBid:
    if isinstance(placed.bid, SumBid):
        return liars_dice_pb2.LiarsDicePlacedBid(
            seat=placed.seat, sum_bid=liars_dice_pb2.LiarsDiceSumBid(total=placed.bid.total)
        )
    return liars_dice_pb2.LiarsDicePlacedBid(
        seat=placed.seat,
        face_bid=liars_dice_pb2.LiarsDiceBid(quantity=placed.bid.quantity, face=placed.bid.face),
    )


def _decode_placed(message: liars_dice_pb2.LiarsDicePlacedBid) -> PlacedBid:
    which = message.WhichOneof("bid")
    bid: AnyBid
    if which == "face_bid":
        bid = Bid(quantity=message.face_bid.quantity, face=message.face_bid.face)
    elif which == "sum_bid":
        bid = SumBid(total=message.sum_bid.total)
    else:
        raise MalformedObservationError(f"placed bid without a bid: {message}")
    try:
        check_well_formed(bid)
    except MalformedActionError as error:
        raise MalformedObservationError(f"bad bid in observation: {error}") from None
    return PlacedBid(seat=message.seat, bid=bid)


def _encode_result(result: RoundResult) -> liars_dice_pb2.LiarsDiceRoundResult:
    return liars_dice_pb2.LiarsDiceRoundResult(
        round_number=result.round_number,
        opener=result.opener,
        wilds_active=result.wilds_active,
        sum_round=result.sum_round,
        bids=[_encode_placed(placed) for placed in result.bids],
        challenger=result.challenger,
        dice=[liars_dice_pb2.LiarsDiceHand(dice=hand) for hand in result.dice],
        actual=result.actual,
        bid_true=result.bid_true,
        loser=result.loser,
        eliminated=result.eliminated,
    )


def _decode_result(message: liars_dice_pb2.LiarsDiceRoundResult) -> RoundResult:
    return RoundResult(
        round_number=message.round_number,
        opener=message.opener,
        wilds_active=message.wilds_active,
        sum_round=message.sum_round,
        bids=tuple(_decode_placed(placed) for placed in message.bids),
        challenger=message.challenger,
        dice=tuple(tuple(hand.dice) for hand in message.dice),
        actual=message.actual,
        bid_true=message.bid_true,
        loser=message.loser,
        eliminated=message.eliminated,
    )


CODEC: Final = LiarsDiceCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
