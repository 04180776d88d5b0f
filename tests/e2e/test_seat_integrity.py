"""Seat integrity over real gRPC: every message from a bot must answer a request
the referee already sent, and a broken stream is named for what it is."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest

import referee.runtime.match
from arena.v1 import bot_pb2
from referee.core.faults import FaultKind
from referee.records.record import MatchRecord
from referee.records.replay import seat_messages, verify
from referee.runtime.match import Limits, MatchSpec, MessageLog, run_match
from tests.e2e.conftest import EXAMPLE, misbehaving, module_bot

pytestmark = pytest.mark.e2e

FAST = Limits(decision_s=5.0, startup_s=20.0)
SEAT_0_OPENS = {"roll_off": "false"}


def faults(record: object) -> list[tuple[int, FaultKind]]:
    return [(f.seat, f.kind) for f in record.faults]  # type: ignore[attr-defined]


def check_replay(record: object, log: MessageLog) -> None:
    """The record verifies, and what each seat was sent regenerates byte for byte."""
    assert verify(record) == []  # type: ignore[arg-type]
    for seat in range(record.num_seats):  # type: ignore[attr-defined]
        replayed = [
            m.SerializeToString(deterministic=True)
            for m in seat_messages(record, seat)  # type: ignore[arg-type]
        ]
        assert replayed == log.sent[seat]


async def test_an_answer_streamed_before_its_turn_request_is_malformed() -> None:
    """The attack: right after Ready, seat 0 sends a legal answer for turn 1 (the
    number is easy to guess). The referee used to take it as the answer to turn 1.

    Seat 1 takes a second to confirm MatchStart, so seat 0's answer has surely
    arrived before turn 1 is sent.
    """
    log = MessageLog()
    bots = (misbehaving("early", after=0), misbehaving("slow-ready"))
    spec = MatchSpec("liars_dice", bots, seed=3, rules=SEAT_0_OPENS)
    record = await run_match(spec, FAST, observer=log)
    assert record.reason == "forfeit"
    assert faults(record) == [(0, FaultKind.MALFORMED_MESSAGE)]
    message = record.faults[0].message
    assert "an answer to turn 1 before the referee asked for it" in message
    assert record.events[0].seat is None and len(record.events) == 1  # only the roll
    assert record.places == (2, 1)
    check_replay(record, log)


async def test_an_early_answer_is_noticed_during_another_seats_turn() -> None:
    """Seat 1 streams its answer to turn 2 while seat 0 (which never answers) is
    asked: the fault is seat 1's, raised at once, not seat 0's timeout."""
    log = MessageLog()
    bots = (misbehaving("hang", after=0), misbehaving("early", after=1))
    spec = MatchSpec("liars_dice", bots, seed=3, rules=SEAT_0_OPENS)
    limits = Limits(decision_s=30.0, startup_s=20.0)
    started = time.monotonic()
    record = await run_match(spec, limits, observer=log)
    assert time.monotonic() - started < 25.0
    assert faults(record) == [(1, FaultKind.MALFORMED_MESSAGE)]
    assert "an answer to turn 2 before the referee asked" in record.faults[0].message
    assert record.places == (1, 2)
    # Seat 0 was asked for turn 1 and never answered; that is on record.
    kinds = [bot_pb2.PlayRequest.FromString(raw).WhichOneof("kind") for raw in log.sent[0]]
    assert kinds == ["start", "turn", "end"]
    check_replay(record, log)


async def test_a_second_answer_to_one_turn_is_malformed() -> None:
    log = MessageLog()
    bots = (module_bot(EXAMPLE["random"]), misbehaving("twice", after=1))
    spec = MatchSpec("liars_dice", bots, seed=5, rules=SEAT_0_OPENS)
    record = await run_match(spec, FAST, observer=log)
    assert faults(record) == [(1, FaultKind.MALFORMED_MESSAGE)]
    # Normally the copy arrives at once and is early. On a loaded machine the
    # bot may send it only after its next TurnRequest left (an answer in flight
    # cannot be told from a prompt one): then it answers the wrong turn.
    message = record.faults[0].message
    assert "an answer to turn 2 before the referee asked" in message or message.startswith(
        "answered turn 2 while turn"
    ), message
    check_replay(record, log)


async def test_bytes_that_are_not_a_play_response_are_malformed() -> None:
    log = MessageLog()
    bots = (module_bot(EXAMPLE["random"]), misbehaving("bytes", after=1))
    spec = MatchSpec("liars_dice", bots, seed=5, rules=SEAT_0_OPENS)
    record = await run_match(spec, FAST, observer=log)
    assert faults(record) == [(1, FaultKind.MALFORMED_MESSAGE)]
    message = record.faults[0].message
    assert "INTERNAL" in message and "not a PlayResponse" in message
    check_replay(record, log)


async def test_a_stream_closed_before_ready_is_a_startup_fault() -> None:
    log = MessageLog()
    bots = (module_bot(EXAMPLE["random"]), misbehaving("no-ready"))
    record = await run_match(MatchSpec("liars_dice", bots, seed=5), FAST, observer=log)
    assert faults(record) == [(1, FaultKind.STARTUP)]
    assert "no Ready" in record.faults[0].message
    assert record.seats[1].start_sent and not record.seats[1].ready
    assert record.events == ()
    check_replay(record, log)


async def test_a_protocol_2_bot_plays_without_nonces_and_is_marked_in_the_record() -> None:
    """A bot of the SDK before protocol 3 (Health says 2, answers carry no nonce)
    still plays a whole match; its seat is sent no nonce and the record says which
    protocol each seat spoke."""
    log = MessageLog()
    bots = (module_bot(EXAMPLE["random"]), misbehaving("protocol2"))
    spec = MatchSpec("liars_dice", bots, seed=5, rules=SEAT_0_OPENS)
    record = await run_match(spec, FAST, observer=log)
    assert record.reason == "completed", record.faults
    assert record.protocol_version == 4
    assert [info.protocol for info in record.seats] == [4, 2]
    assert json.loads(record.to_json())["seats"][1]["protocol"] == 2
    actions = [e for e in record.events if e.seat is not None]
    assert {e.seat for e in actions} == {0, 1}
    for event in actions:
        assert bool(record.nonce_of(event.turn or 0)) == (event.seat == 0), event
    sent = [bot_pb2.PlayRequest.FromString(raw) for raw in log.sent[1]]
    assert all(m.turn.nonce == "" for m in sent if m.WhichOneof("kind") == "turn")
    check_replay(record, log)
    assert MatchRecord.from_json(record.to_json()) == record


async def test_a_record_from_before_protocol_3_still_loads_verifies_and_replays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A format 3 record (no seat protocols, no nonces, the referee's match id sent
    to the seats, state digests over ``repr``) hashes, verifies and regenerates as it did."""
    monkeypatch.setattr(referee.runtime.match, "FORMAT_VERSION", 3)  # its state digests
    bots = (misbehaving("protocol2"), misbehaving("protocol2"))
    record = await run_match(MatchSpec("liars_dice", bots, seed=5, rules=SEAT_0_OPENS), FAST)
    assert record.reason == "completed" and record.nonces == ()
    old = replace(
        record,
        format=3,
        protocol_version=2,
        bot_match_id="",
        seats=tuple(replace(info, protocol=0) for info in record.seats),
    ).sealed()
    data = json.loads(old.to_json())
    assert "nonces" not in data and "bot_match_id" not in data
    assert all("protocol" not in seat for seat in data["seats"])
    loaded = MatchRecord.from_json(old.to_json())
    assert verify(loaded) == []
    start = seat_messages(loaded, 0)[0].start
    assert (start.match_id, start.protocol_version) == (loaded.match_id, 2)
