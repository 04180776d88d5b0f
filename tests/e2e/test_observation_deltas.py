"""Observation deltas over real gRPC: asked for per seat, replayed byte for byte.

An SDK bot asks for deltas in its Ready; a protocol 1 bot (a plain Ready) does
not. In one match, the first gets later observations with ``kept`` entries and
the second always gets them whole; both play the same game (the SDK rebuilds
the full observation), the record says who took deltas, and ``arena replay
--seat`` regenerates each seat's exact bytes.
"""

from __future__ import annotations

import pytest

from arena.v1 import bot_pb2
from referee.core.catalogue import get_codec
from referee.runtime.match import Limits, MatchSpec, MessageLog, run_match
from tests.e2e.conftest import EXAMPLE, misbehaving, module_bot
from tests.e2e.test_seat_integrity import check_replay

pytestmark = pytest.mark.e2e


def _observations(log: MessageLog, seat: int) -> list[bot_pb2.Observation]:
    found = []
    for raw in log.sent[seat]:
        message = bot_pb2.PlayRequest.FromString(raw)
        kind = message.WhichOneof("kind")
        if kind == "turn":
            found.append(message.turn.observation)
        elif kind == "end":
            found.append(message.end.observation)
    return found


async def test_sdk_seats_take_deltas_and_protocol_1_seats_whole_observations() -> None:
    log = MessageLog()
    bots = (module_bot(EXAMPLE["probability"]), misbehaving("protocol1"))
    spec = MatchSpec("liars_dice", bots, seed=12, rules={"dice_per_player": "3"})
    record = await run_match(spec, Limits(decision_s=5.0, startup_s=20.0), observer=log)
    assert record.reason == "completed", record.faults
    assert [seat.deltas for seat in record.seats] == [True, False]
    sdk_seat, plain_seat = _observations(log, 0), _observations(log, 1)
    assert len(sdk_seat) > 3 and len(plain_seat) > 3
    assert any(message.kept for message in sdk_seat)
    assert not any(message.kept for message in plain_seat)
    # The plain seat's last observation holds the whole history of the match.
    codec = get_codec("liars_dice")
    assert len(codec.decode_observation(plain_seat[-1]).history) >= 2
    check_replay(record, log)
