"""Codec for Dice Poker (``arena.v1.DicePoker*`` messages)."""

from __future__ import annotations

from typing import ClassVar, Final

from arena.v1 import bot_pb2
from arena.v1 import dice_poker_pb2 as pb
from referee.games.base import MalformedActionError
from referee.games.dice_poker import NUM_DICE, Action, Line, Observation, Phase, Reroll, Score
from referee.games.dice_poker import Scorecard as EngineScorecard
from referee.wire.base import Codec, MalformedObservationError

_PHASES: dict[Phase, pb.DicePokerPhase.ValueType] = {
    Phase.ROLL: pb.DICE_POKER_PHASE_ROLL,
    Phase.CHOOSE: pb.DICE_POKER_PHASE_CHOOSE,
    Phase.GAME_OVER: pb.DICE_POKER_PHASE_GAME_OVER,
}
_PHASES_BACK = {value: phase for phase, value in _PHASES.items()}


def _line(value: int) -> Line | None:
    try:
        return Line(value)
    except ValueError:
        return None


def _encode_card(card: EngineScorecard) -> pb.DicePokerScorecard:
    return pb.DicePokerScorecard(
        entries=[
            pb.DicePokerEntry(line=pb.DicePokerLine.ValueType(int(line)), points=points)
            for line in Line
            if (points := card.get(line)) is not None
        ],
        extra_pokers=card.extra_pokers,
    )


def _decode_card(message: pb.DicePokerScorecard) -> EngineScorecard:
    lines: list[int | None] = [None] * len(Line)
    for entry in message.entries:
        line = _line(entry.line)
        if line is None or lines[line - 1] is not None:
            raise MalformedObservationError(f"bad scorecard entry {entry!r}")
        lines[line - 1] = entry.points
    return EngineScorecard(lines=tuple(lines), extra_pokers=message.extra_pokers)


class DicePokerCodec(Codec[Observation, Action]):
    """Observations and actions of ``dice_poker``."""

    game: ClassVar[str] = "dice_poker"

    def encode_observation(self, observation: Observation) -> bot_pb2.Observation:
        o = observation
        message = pb.DicePokerObservation(
            seat=o.seat,
            num_seats=o.num_seats,
            upper_bonus_inclusive=o.upper_bonus_inclusive,
            phase=_PHASES[o.phase],
            turn=o.turn,
            dice=o.dice,
            rolls=o.rolls,
            reroll_positions=o.reroll_positions,
            scorecards=[_encode_card(card) for card in o.cards],
        )
        if o.current is not None:
            message.current = o.current
        return bot_pb2.Observation(dice_poker=message)

    def decode_observation(self, message: bot_pb2.Observation) -> Observation:
        if message.WhichOneof("game") != self.game:
            raise MalformedObservationError(
                f"expected a {self.game} observation, got {message.WhichOneof('game')}"
            )
        m = message.dice_poker
        phase = _PHASES_BACK.get(m.phase)
        if phase is None:
            raise MalformedObservationError(f"bad {self.game} observation phase: {m.phase}")
        return Observation(
            seat=m.seat,
            num_seats=m.num_seats,
            upper_bonus_inclusive=m.upper_bonus_inclusive,
            phase=phase,
            current=m.current if m.HasField("current") else None,
            turn=m.turn,
            dice=tuple(int(v) for v in m.dice),
            rolls=m.rolls,
            reroll_positions=tuple(int(p) for p in m.reroll_positions),
            cards=tuple(_decode_card(card) for card in m.scorecards),
        )

    def encode_action(self, action: Action) -> bot_pb2.Action:
        message = pb.DicePokerAction()
        if isinstance(action, Reroll):
            message.reroll.SetInParent()
            message.reroll.positions.extend(action.positions)
        else:
            message.score.line = pb.DicePokerLine.ValueType(int(action.line))
        return bot_pb2.Action(dice_poker=message)

    def decode_action(self, message: bot_pb2.Action) -> Action:
        self.require_game(message)
        m = message.dice_poker
        which = m.WhichOneof("kind")
        if which == "reroll":
            positions = tuple(int(p) for p in m.reroll.positions)
            if (
                not positions
                or any(p >= NUM_DICE for p in positions)
                or list(positions) != sorted(set(positions))
            ):
                raise MalformedActionError(
                    f"re-roll positions {list(positions)}: expected 1..5 distinct increasing 0..4"
                )
            return Reroll(positions)
        if which == "score":
            line = _line(m.score.line)
            if line is None:
                raise MalformedActionError(f"not a scorecard line: {m.score.line}")
            return Score(line)
        raise MalformedActionError(f"empty {self.game} action: {m!r}")


CODEC: Final = DicePokerCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
