"""Codec between the Cockroach Poker engine values and ``arena.v1.CockroachPoker*`` messages.

Kinds travel as ``CockroachPokerKind`` (engine kind + 1, 0 = unset); per-kind counts
as 8 numbers in kind order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from arena.v1 import bot_pb2, cockroach_poker_pb2
from referee.games.base import MalformedActionError
from referee.games.cards import KINDS, Kind
from referee.games.cockroach_poker import (
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
    check_well_formed,
)
from referee.wire.base import Codec, MalformedObservationError

pb = cockroach_poker_pb2

_PHASES: dict[Phase, pb.CockroachPokerPhase.ValueType] = {
    "deal": pb.COCKROACH_POKER_PHASE_DEAL,
    "announce": pb.COCKROACH_POKER_PHASE_ANNOUNCE,
    "respond": pb.COCKROACH_POKER_PHASE_RESPOND,
    "over": pb.COCKROACH_POKER_PHASE_OVER,
}
_PHASE_NAMES = {value: name for name, value in _PHASES.items()}


def encode_kind(kind: Kind | None) -> pb.CockroachPokerKind.ValueType:
    """Engine kind (or ``None``) → wire enum value (``UNSPECIFIED`` for ``None``)."""
    if kind is None:
        return pb.COCKROACH_POKER_KIND_UNSPECIFIED
    return pb.CockroachPokerKind.ValueType(int(kind) + 1)


def _kind_or_none(value: int) -> Kind | None:
    if value == pb.COCKROACH_POKER_KIND_UNSPECIFIED:
        return None
    if not 1 <= value <= len(KINDS):
        raise MalformedObservationError(f"unknown kind {value}")
    return Kind(value - 1)


def _kind(value: int) -> Kind:
    kind = _kind_or_none(value)
    if kind is None:
        raise MalformedObservationError("a kind is missing")
    return kind


def _counts(values: Sequence[int]) -> Counts:
    if len(values) != len(KINDS):
        raise MalformedObservationError(f"expected {len(KINDS)} counts, got {list(values)}")
    return tuple(values)


class CockroachPokerCodec(Codec[Observation, Action]):
    """Exact round trip of Cockroach Poker observations and actions."""

    game: ClassVar[str] = "cockroach_poker"
    log_fields: ClassVar[tuple[str, ...]] = ("history",)

    # -- observations -------------------------------------------------------

    def encode_observation(self, observation: Observation) -> bot_pb2.Observation:
        message = pb.CockroachPokerObservation(
            rules=pb.CockroachPokerRules(
                max_players=observation.rules.max_players,
                call_rule_published=observation.rules.published_call,
            ),
            seat=observation.seat,
            num_seats=observation.num_seats,
            phase=_PHASES[observation.phase],
            hand=observation.hand,
            seats=[
                pb.CockroachPokerSeat(
                    hand_size=view.hand_size,
                    face_up=view.face_up,
                    face_down=view.face_down,
                    eliminated=view.eliminated,
                )
                for view in observation.seats
            ],
            set_aside=observation.set_aside,
            history=[
                pb.CockroachPokerPass(
                    announcer=record.announcer,
                    target=record.target,
                    claim=encode_kind(record.claim),
                    believed=record.believed,
                    taker=record.taker,
                    eliminated=record.eliminated,
                    card=encode_kind(record.card),
                )
                for record in observation.history
            ],
            eliminated=observation.eliminated,
        )
        if observation.to_act is not None:
            message.to_act = observation.to_act
        if observation.pending is not None:
            pending = observation.pending
            message.pending.CopyFrom(
                pb.CockroachPokerPending(
                    announcer=pending.announcer,
                    target=pending.target,
                    claim=encode_kind(pending.claim),
                    card=encode_kind(pending.card),
                )
            )
        return bot_pb2.Observation(cockroach_poker=message)

    def decode_observation(self, message: bot_pb2.Observation) -> Observation:
        which = message.WhichOneof("game")
        if which != self.game:
            raise MalformedObservationError(
                f"expected a {self.game} observation, got {which or 'an empty observation'}"
            )
        obs = message.cockroach_poker
        if obs.phase not in _PHASE_NAMES:
            raise MalformedObservationError(f"unknown phase {obs.phase} in {obs}")
        pending = None
        if obs.HasField("pending"):
            pending = PendingView(
                announcer=obs.pending.announcer,
                target=obs.pending.target,
                claim=_kind(obs.pending.claim),
                card=_kind_or_none(obs.pending.card),
            )
        return Observation(
            rules=Rules(
                max_players=obs.rules.max_players,
                call_rule="published" if obs.rules.call_rule_published else "simplified",
            ),
            seat=obs.seat,
            num_seats=obs.num_seats,
            phase=_PHASE_NAMES[obs.phase],
            to_act=obs.to_act if obs.HasField("to_act") else None,
            hand=_counts(obs.hand),
            seats=tuple(
                SeatView(
                    hand_size=view.hand_size,
                    face_up=_counts(view.face_up),
                    face_down=view.face_down,
                    eliminated=view.eliminated,
                )
                for view in obs.seats
            ),
            set_aside=obs.set_aside,
            pending=pending,
            history=tuple(
                PassView(
                    announcer=record.announcer,
                    target=record.target,
                    claim=_kind(record.claim),
                    believed=record.believed,
                    taker=record.taker,
                    eliminated=record.eliminated,
                    card=_kind_or_none(record.card),
                )
                for record in obs.history
            ),
            eliminated=tuple(obs.eliminated),
        )

    # -- actions --------------------------------------------------------------

    def encode_action(self, action: Action) -> bot_pb2.Action:
        action = check_well_formed(action)
        if isinstance(action, Announce):
            inner = pb.CockroachPokerAction(
                announce=pb.CockroachPokerAnnounce(
                    card=encode_kind(Kind(action.card)), claim=encode_kind(Kind(action.claim))
                )
            )
        elif isinstance(action, Believe):
            inner = pb.CockroachPokerAction(believe=pb.CockroachPokerBelieve())
        else:
            inner = pb.CockroachPokerAction(disbelieve=pb.CockroachPokerDisbelieve())
        return bot_pb2.Action(cockroach_poker=inner)

    def decode_action(self, message: bot_pb2.Action) -> Action:
        self.require_game(message)
        inner = message.cockroach_poker
        which = inner.WhichOneof("action")
        if which == "announce":
            card, claim = inner.announce.card, inner.announce.claim
            if not (1 <= card <= len(KINDS) and 1 <= claim <= len(KINDS)):
                raise MalformedActionError(f"announce needs a card and a claim kind: {message}")
            return Announce(card=Kind(card - 1), claim=Kind(claim - 1))
        if which == "believe":
            return Believe()
        if which == "disbelieve":
            return Disbelieve()
        raise MalformedActionError(f"empty cockroach_poker action: {message}")


CODEC: Final = CockroachPokerCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
