"""Builders of the referee→bot messages, shared by the live match and the replays.

``arena replay --seat N`` regenerates what a seat was sent with these same
functions, so the live bytes and the replayed bytes can be compared exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.v1 import bot_pb2
from referee.faults import FaultKind
from referee.games.base import Outcome

PROTOCOL_VERSION = 2
"""Version 2 adds observation deltas (``Ready.observation_deltas``, ``Observation.kept``),
which a bot asks for; a version 1 bot is sent full observations as before."""
READABLE_PROTOCOLS = (1, 2)
"""Protocol versions a stored record may name (replays of older matches)."""

PROTO_FAULTS: dict[FaultKind | None, bot_pb2.FaultKind.ValueType] = {
    None: bot_pb2.FAULT_KIND_UNSPECIFIED,
    FaultKind.STARTUP: bot_pb2.FAULT_KIND_STARTUP,
    FaultKind.TIMEOUT: bot_pb2.FAULT_KIND_TIMEOUT,
    FaultKind.CRASH: bot_pb2.FAULT_KIND_CRASH,
    FaultKind.STALL: bot_pb2.FAULT_KIND_STALL,
    FaultKind.ILLEGAL_ACTION: bot_pb2.FAULT_KIND_ILLEGAL_ACTION,
    FaultKind.MALFORMED_MESSAGE: bot_pb2.FAULT_KIND_MALFORMED_MESSAGE,
}
PROTO_REASONS: dict[str, bot_pb2.EndReason.ValueType] = {
    "completed": bot_pb2.END_REASON_COMPLETED,
    "forfeit": bot_pb2.END_REASON_FORFEIT,
    "aborted": bot_pb2.END_REASON_ABORTED,
}


def match_start(
    *, match_id: str, game: str, rules: Mapping[str, str], seat: int, num_seats: int
) -> bot_pb2.PlayRequest:
    return bot_pb2.PlayRequest(
        start=bot_pb2.MatchStart(
            match_id=match_id,
            game=game,
            rules=dict(rules),
            seat=seat,
            num_seats=num_seats,
            protocol_version=PROTOCOL_VERSION,
        )
    )


def turn_request(
    *, turn: int, observation: bot_pb2.Observation, time_limit_ms: int
) -> bot_pb2.PlayRequest:
    return bot_pb2.PlayRequest(
        turn=bot_pb2.TurnRequest(turn=turn, observation=observation, time_limit_ms=time_limit_ms)
    )


def match_end(
    *,
    reason: str,
    outcome: Outcome,
    faults: Mapping[int, FaultKind],
    observation: bot_pb2.Observation,
) -> bot_pb2.PlayRequest:
    return bot_pb2.PlayRequest(
        end=bot_pb2.MatchEnd(
            reason=PROTO_REASONS[reason],
            results=seat_results(outcome, faults),
            observation=observation,
        )
    )


def seat_results(outcome: Outcome, faults: Mapping[int, FaultKind]) -> Sequence[bot_pb2.SeatResult]:
    return [
        bot_pb2.SeatResult(
            seat=seat, place=place, score=score, fault=PROTO_FAULTS[faults.get(seat)]
        )
        for seat, (place, score) in enumerate(zip(outcome.places, outcome.scores, strict=True))
    ]
