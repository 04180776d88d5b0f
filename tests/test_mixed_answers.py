"""The JSON form of a seat's mixed moves (:mod:`referee.records.mixed_answers`): what a
league stores and what a referee worker sends its runner. It must read back exactly
(every probability bit for bit, so the commitment still checks), refuse what is not
its form, and the worker's result message must carry it over a real frame."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import trio
import trio.testing

from league.execution.worker_wire import (
    Counters,
    FrameReader,
    JobResult,
    WorkerWireError,
    decode_result,
    encode_frame,
    encode_result,
)
from referee.core.chance import new_secret
from referee.core.mixed import Distribution, MixedAnswer, commit
from referee.records.mixed_answers import (
    MixedAnswersError,
    answer_lines,
    answers_from_json,
    answers_to_json,
    seats_from_json,
    seats_to_json,
)
from referee.records.replay import verify
from sdk.liars_dice import Bid, Challenge
from tests.mixed_records import mixed_record

AWKWARD = (1 / 3, 0.1, 5e-324, 1 - 2**-53, math.nextafter(0.25, 1.0), 0.2718281828459045)
"""Probabilities whose decimal form is easy to get wrong (not a distribution: the
JSON form does not care)."""


def awkward_answer() -> MixedAnswer:
    actions = (Bid(1, 2), Bid(1, 3), Bid(2, 2), Bid(3, 6), Bid(4, 1), Challenge())
    return MixedAnswer(9, bytes(range(16)), Distribution(actions, AWKWARD))


def test_every_probability_reads_back_bit_for_bit_and_the_commitment_still_checks() -> None:
    answer = awkward_answer()
    text = json.dumps(answers_to_json("liars_dice", [answer]), separators=(",", ":"))
    (again,) = answers_from_json("liars_dice", json.loads(text))
    assert again == answer
    assert [p.hex() for p in again.distribution.probabilities] == [p.hex() for p in AWKWARD]
    assert commit(again.salt, again.distribution) == commit(answer.salt, answer.distribution)


def test_a_whole_match_round_trips_and_verifies_against_its_key() -> None:
    key = new_secret()
    record, answers = mixed_record(key, seed=3)
    again = seats_from_json(
        "liars_dice", json.loads(json.dumps(seats_to_json("liars_dice", answers)))
    )
    assert again == answers
    assert verify(record, chance_key=key, mixed=again) == []
    assert seats_to_json("liars_dice", {0: [], 1: answers[1]}).keys() == {"1"}


def good() -> dict[str, Any]:
    return answers_to_json("liars_dice", [awkward_answer()])[0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"turn": -1}, "not a turn number"),
        ({"turn": True}, "not a turn number"),
        ({"salt": "xyz"}, "not hexadecimal"),
        ({"salt": ""}, "not hexadecimal"),
        ({"probabilities": [0.5]}, "as many actions as probabilities"),
        ({"actions": [], "probabilities": []}, "as many actions as probabilities"),
        ({"probabilities": [0.0, *AWKWARD[1:]]}, r"not a number in \(0, 1\]"),
        ({"probabilities": [1.5, *AWKWARD[1:]]}, r"not a number in \(0, 1\]"),
        ({"probabilities": ["0.5", *AWKWARD[1:]]}, r"not a number in \(0, 1\]"),
        ({"probabilities": [math.nan, *AWKWARD[1:]]}, r"not a number in \(0, 1\]"),
        ({"actions": [{"liars_dice": {}}, *good()["actions"][1:]]}, "not an action"),
        ({"actions": [{"poker": {}}, *good()["actions"][1:]]}, "not an action"),
        ({"extra": 1}, "expected turn, salt, actions and probabilities"),
    ],
)
def test_what_is_not_the_form_is_refused(change: dict[str, Any], message: str) -> None:
    with pytest.raises(MixedAnswersError, match=message):
        answers_from_json("liars_dice", [{**good(), **change}])


def test_what_is_not_a_list_of_seats_is_refused() -> None:
    with pytest.raises(MixedAnswersError, match="expected a list"):
        answers_from_json("liars_dice", {"turn": 1})
    with pytest.raises(MixedAnswersError, match="not a seat number"):
        seats_from_json("liars_dice", {"-1": []})
    with pytest.raises(MixedAnswersError, match="seat 0: mixed move 1"):
        seats_from_json("liars_dice", {"0": [{}]})
    with pytest.raises(MixedAnswersError, match="no_such_game"):
        answers_from_json("no_such_game", [])


async def test_a_workers_result_carries_each_seats_mixed_moves_over_a_frame() -> None:
    key = new_secret()
    record, answers = mixed_record(key, seed=5)
    send, receive = trio.testing.memory_stream_pair()
    result = JobResult(4, record, {0: b"out"}, Counters(2, 1), answers)
    await send.send_all(encode_frame(encode_result(result)))
    await send.aclose()
    message = await FrameReader(receive).receive()
    assert message is not None
    assert decode_result(message) == result
    assert verify(record, chance_key=key, mixed=decode_result(message).mixed) == []
    message["mixed"]["0"][0]["probabilities"][0] = 2.0
    with pytest.raises(WorkerWireError, match="bad result message"):
        decode_result(message)


def test_the_author_reads_a_line_per_mixed_move() -> None:
    record, answers = mixed_record(new_secret(), seed=7)
    lines = answer_lines(record, 0, answers[0])
    assert len(lines) == len(answers[0])
    drawn = {e.turn: e for e in record.events if e.seat == 0}
    for line, answer in zip(lines, answers[0], strict=True):
        assert line.startswith(f"turn {answer.turn}: ") and "; drawn: " in line
        assert drawn[answer.turn].mixed is not None
