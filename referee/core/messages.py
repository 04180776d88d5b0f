"""Builders of the referee→bot messages, shared by the live match and the replays.

``arena replay --seat N`` regenerates what a seat was sent with these same
functions, so the live bytes and the replayed bytes can be compared exactly. The
protocol's versions and the protobuf values of its names, which the SDK's bot
server needs too, are in :mod:`referee.core.protocol`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence

from arena.v1 import bot_pb2
from referee.core.faults import FaultKind
from referee.core.protocol import PROTO_FAULTS, PROTO_REASONS, PROTOCOL_VERSION
from referee.gamekit.base import Outcome

NONCE_BYTES = 12
"""Random bytes per nonce (16 URL-safe characters): guessing one is hopeless."""


def new_nonce() -> str:
    """A fresh, unguessable nonce for one TurnRequest (``secrets``)."""
    return secrets.token_urlsafe(NONCE_BYTES)


MATCH_TOKEN_BYTES = 12
"""Bytes of an opaque match id (16 URL-safe characters)."""


def new_match_token(*, match_id: str, seed: int | None = None, key: bytes | None = None) -> str:
    """The opaque match id a match's seats are sent: 16 URL-safe characters, the
    same shape for a check, a league or a command-line match, unrelated to any of
    them.

    Drawn with ``secrets``, unless the match replays deterministically, in which
    case it is derived from the referee's ``match_id`` so that bots seeding
    themselves from the match id (the SDK's ``self.rng``) replay the same moves
    too: under the match's secret chance ``key`` (a league's deal key, which no bot
    sees: the token looks random to bots and a resumed league run sends the same
    one), or from the ``seed`` of a reproducible match (whose chance is guessable
    anyway)."""
    if key is not None:
        digest = hmac.new(key, f"bluff-arena-match-id:{match_id}".encode(), "sha256").digest()
    elif seed is not None:
        digest = hashlib.sha256(f"bluff-arena-match:{seed}:{match_id}".encode()).digest()
    else:
        return secrets.token_urlsafe(MATCH_TOKEN_BYTES)
    return base64.urlsafe_b64encode(digest[:MATCH_TOKEN_BYTES]).decode()


def match_start(
    *,
    match_id: str,
    game: str,
    rules: Mapping[str, str],
    seat: int,
    num_seats: int,
    protocol_version: int = PROTOCOL_VERSION,
) -> bot_pb2.PlayRequest:
    return bot_pb2.PlayRequest(
        start=bot_pb2.MatchStart(
            match_id=match_id,
            game=game,
            rules=dict(rules),
            seat=seat,
            num_seats=num_seats,
            protocol_version=protocol_version,
        )
    )


def turn_request(
    *, turn: int, observation: bot_pb2.Observation, time_limit_ms: int, nonce: str = ""
) -> bot_pb2.PlayRequest:
    return bot_pb2.PlayRequest(
        turn=bot_pb2.TurnRequest(
            turn=turn, observation=observation, time_limit_ms=time_limit_ms, nonce=nonce
        )
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
