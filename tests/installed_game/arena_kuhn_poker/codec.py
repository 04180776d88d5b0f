"""Kuhn Poker on the wire: derived from the engine's types, nothing written by hand."""

from __future__ import annotations

from arena_kuhn_poker import kuhn_poker_pb2 as pb
from arena_kuhn_poker.engine import KUHN_POKER, Action, Observation
from referee.wire.derived import DerivedCodec


class KuhnPokerCodec(DerivedCodec[Observation, Action]):
    engine = KUHN_POKER
    observation_message = pb.KuhnPokerObservation
    action_message = pb.KuhnPokerAction


CODEC = KuhnPokerCodec()
