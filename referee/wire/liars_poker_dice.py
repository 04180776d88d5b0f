"""Codec for Liar's Poker Dice (``arena.v1.LiarsPokerDice*`` messages)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Final

from arena.v1 import bot_pb2
from arena.v1 import liars_poker_dice_pb2 as pb
from referee.games.base import MalformedActionError
from referee.games.liars_poker_dice import (
    Accept,
    Action,
    Challenge,
    Declare,
    Observation,
    Phase,
    Reroll,
    RoundRecord,
    Step,
    StepKind,
)
from referee.games.poker_dice import NUM_DICE, Category, Hand, is_valid_hand
from referee.wire.base import Codec, MalformedObservationError

_PHASES: dict[Phase, pb.LiarsPokerDicePhase.ValueType] = {
    Phase.ROLL_OFF: pb.LIARS_POKER_DICE_PHASE_ROLL_OFF,
    Phase.ROLL: pb.LIARS_POKER_DICE_PHASE_ROLL,
    Phase.DECLARE: pb.LIARS_POKER_DICE_PHASE_DECLARE,
    Phase.RESPOND: pb.LIARS_POKER_DICE_PHASE_RESPOND,
    Phase.REROLL: pb.LIARS_POKER_DICE_PHASE_REROLL,
    Phase.REROLL_ROLL: pb.LIARS_POKER_DICE_PHASE_REROLL_ROLL,
    Phase.GAME_OVER: pb.LIARS_POKER_DICE_PHASE_GAME_OVER,
}
_PHASES_BACK = {value: phase for phase, value in _PHASES.items()}

_STEP_KINDS: dict[StepKind, pb.LiarsPokerDiceStepKind.ValueType] = {
    StepKind.DECLARE: pb.LIARS_POKER_DICE_STEP_KIND_DECLARE,
    StepKind.ACCEPT: pb.LIARS_POKER_DICE_STEP_KIND_ACCEPT,
    StepKind.REROLL: pb.LIARS_POKER_DICE_STEP_KIND_REROLL,
    StepKind.CHALLENGE: pb.LIARS_POKER_DICE_STEP_KIND_CHALLENGE,
}
_STEP_KINDS_BACK = {value: kind for kind, value in _STEP_KINDS.items()}


def encode_hand(hand: Hand) -> pb.PokerDiceHand:
    """A hand as a ``PokerDiceHand`` message (category values are equal)."""
    return pb.PokerDiceHand(
        category=pb.PokerDiceCategory.ValueType(int(hand.category)), faces=hand.faces
    )


def decode_hand(message: pb.PokerDiceHand) -> Hand | None:
    """The hand, or ``None`` if the message is not a valid poker-dice hand."""
    try:
        category = Category(message.category)
    except ValueError:
        return None
    hand = Hand(category, tuple(int(face) for face in message.faces))
    return hand if is_valid_hand(hand) else None


def _encode_step(step: Step) -> pb.LiarsPokerDiceStep:
    message = pb.LiarsPokerDiceStep(seat=step.seat, kind=_STEP_KINDS[step.kind], count=step.count)
    if step.hand is not None:
        message.hand.CopyFrom(encode_hand(step.hand))
    return message


def _decode_step(message: pb.LiarsPokerDiceStep) -> Step:
    kind = _STEP_KINDS_BACK.get(message.kind)
    if kind is None:
        raise MalformedObservationError(f"bad step kind in {message!r}")
    hand: Hand | None = None
    if message.HasField("hand"):
        hand = decode_hand(message.hand)
        if hand is None:
            raise MalformedObservationError(f"bad hand in {message!r}")
    return Step(seat=message.seat, kind=kind, hand=hand, count=message.count)


def _dice(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


class LiarsPokerDiceCodec(Codec[Observation, Action]):
    """Observations and actions of ``liars_poker_dice``."""

    game: ClassVar[str] = "liars_poker_dice"
    log_fields: ClassVar[tuple[str, ...]] = ("steps", "rounds")

    def encode_observation(self, observation: Observation) -> bot_pb2.Observation:
        o = observation
        message = pb.LiarsPokerDiceObservation(
            seat=o.seat,
            starting_chips=o.starting_chips,
            min_reroll=o.min_reroll,
            phase=_PHASES[o.phase],
            chips=o.chips,
            pot=o.pot,
            roll_off=[pb.LiarsPokerDiceRollOffRoll(dice=roll) for roll in o.roll_off],
            dice=o.dice,
            reroll_positions=o.reroll_positions,
            steps=[_encode_step(step) for step in o.steps],
            rounds=[
                pb.LiarsPokerDiceRound(
                    opener=r.opener,
                    steps=[_encode_step(step) for step in r.steps],
                    dice=r.dice,
                    loser=r.loser,
                )
                for r in o.rounds
            ],
        )
        if o.actor is not None:
            message.actor = o.actor
        if o.holder is not None:
            message.holder = o.holder
        if o.winner is not None:
            message.winner = o.winner
        return bot_pb2.Observation(liars_poker_dice=message)

    def decode_observation(self, message: bot_pb2.Observation) -> Observation:
        if message.WhichOneof("game") != self.game:
            raise MalformedObservationError(
                f"expected a {self.game} observation, got {message.WhichOneof('game')}"
            )
        m = message.liars_poker_dice
        phase = _PHASES_BACK.get(m.phase)
        if phase is None or len(m.chips) != 2:
            raise MalformedObservationError(f"bad {self.game} observation: {m!r}")
        return Observation(
            seat=m.seat,
            starting_chips=m.starting_chips,
            min_reroll=m.min_reroll,
            phase=phase,
            actor=m.actor if m.HasField("actor") else None,
            chips=(m.chips[0], m.chips[1]),
            pot=m.pot,
            roll_off=tuple(_dice(roll.dice) for roll in m.roll_off),
            holder=m.holder if m.HasField("holder") else None,
            dice=_dice(m.dice),
            reroll_positions=_dice(m.reroll_positions),
            steps=tuple(_decode_step(step) for step in m.steps),
            rounds=tuple(
                RoundRecord(
                    opener=r.opener,
                    steps=tuple(_decode_step(step) for step in r.steps),
                    dice=_dice(r.dice),
                    loser=r.loser,
                )
                for r in m.rounds
            ),
            winner=m.winner if m.HasField("winner") else None,
        )

    def encode_action(self, action: Action) -> bot_pb2.Action:
        message = pb.LiarsPokerDiceAction()
        if isinstance(action, Declare):
            message.declare.hand.CopyFrom(encode_hand(action.hand))
        elif isinstance(action, Challenge):
            message.challenge.SetInParent()
        elif isinstance(action, Accept):
            message.accept.SetInParent()
        else:
            message.reroll.SetInParent()
            message.reroll.positions.extend(action.positions)
        return bot_pb2.Action(liars_poker_dice=message)

    def decode_action(self, message: bot_pb2.Action) -> Action:
        self.require_game(message)
        m = message.liars_poker_dice
        which = m.WhichOneof("kind")
        if which == "declare":
            hand = decode_hand(m.declare.hand)
            if hand is None:
                raise MalformedActionError(f"not a poker-dice hand: {m.declare.hand!r}")
            return Declare(hand)
        if which == "challenge":
            return Challenge()
        if which == "accept":
            return Accept()
        if which == "reroll":
            positions = tuple(int(p) for p in m.reroll.positions)
            if any(p >= NUM_DICE for p in positions) or list(positions) != sorted(set(positions)):
                raise MalformedActionError(
                    f"re-roll positions {list(positions)}: expected distinct increasing 0..4"
                )
            return Reroll(positions)
        raise MalformedActionError(f"empty {self.game} action: {m!r}")


CODEC: Final = LiarsPokerDiceCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
