"""Mixed moves over real gRPC: the referee draws, records a commitment, keeps the
probabilities for the author, faults bad ones, and shows them to nobody else.

The bot under test (:mod:`tests.bots.mixed_answers`) answers every turn with a mixed
move; its opponent is an SDK bot that answers with one action. Each test plays a real
match with real bot processes in the sandbox.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
import trio

from arena.v1 import bot_pb2
from referee.core.chance import key_from_seed
from referee.core.digests import canonical
from referee.core.events import ActionEvent
from referee.core.faults import FaultKind
from referee.core.mixed import MixedAnswer, commit, draw, mixed_key
from referee.records.html_replay import render_replay_html
from referee.records.record import MatchRecord
from referee.records.replay import verify
from referee.runtime.match import Limits, MatchSpec, MessageLog, run_match
from sdk.local import play_local
from tests.bots.mixed_answers import PLANTED
from tests.e2e.conftest import module_bot

pytestmark = pytest.mark.e2e

LIMITS = Limits(decision_s=5.0, startup_s=30.0)
RULES = {"dice_per_player": "2"}


def mixed_bot(mode: str = "planted", after: int = 1) -> Any:
    return module_bot(
        "tests.bots.mixed_answers", "--mode", mode, "--after", str(after), name=f"mixed-{mode}"
    )


def play(
    mode: str = "planted", *, seed: int = 11, after: int = 1
) -> tuple[MatchRecord, MessageLog, dict[int, list[MixedAnswer]]]:
    log = MessageLog()
    answers: dict[int, list[MixedAnswer]] = {}
    spec = MatchSpec(
        "liars_dice",
        (mixed_bot(mode, after), module_bot("example_bots.liars_dice_probability")),
        seed=seed,
        rules=RULES,
    )
    record = trio.run(lambda: run_match(spec, LIMITS, observer=log, mixed=answers))
    return record, log, answers


def test_the_referee_draws_records_a_commitment_and_verify_redoes_the_draw() -> None:
    record, _, answers = play()
    assert record.reason == "completed", record.faults
    own = [e for e in record.events if e.seat == 0]
    assert own and all(e.mixed is not None and len(e.mixed) == 64 for e in own)
    assert all(e.mixed is None for e in record.events if e.seat == 1)  # one action each
    assert [a.turn for a in answers[0]] == [e.turn for e in own] and 1 not in answers
    assert verify(record) == []
    assert verify(record, mixed=answers) == []
    # the draw is the seed's: redone by hand from the author's probabilities
    key = mixed_key(key_from_seed(11))
    for event, answer in zip(own, answers[0], strict=True):
        assert commit(answer.salt, answer.distribution) == event.mixed
        drawn = draw(answer.distribution, key, answer.turn)
        assert canonical(drawn) in {canonical(a) for a in answer.distribution.actions}
    assert record.to_dict()["format"] == 6


def test_verify_refuses_changed_probabilities_or_a_changed_draw() -> None:
    record, _, answers = play()
    first = answers[0][0]
    probabilities = list(first.distribution.probabilities)
    if len(probabilities) > 1:  # move weight between two actions: the commitment breaks
        probabilities[0], probabilities[1] = probabilities[1], probabilities[0]
        changed = MixedAnswer(
            first.turn,
            first.salt,
            type(first.distribution)(first.distribution.actions, tuple(probabilities)),
        )
        problems = verify(record, mixed={0: [changed, *answers[0][1:]]})
        assert problems and "commitment" in problems[0]
    # another key draws other actions somewhere in the match
    other = verify(record, chance_key=key_from_seed(12), mixed=answers)
    assert other  # chance outcomes (and draws) differ under another key
    assert verify(record, mixed={0: answers[0][1:]})  # an answer left out


def test_an_in_process_match_draws_what_the_referee_draws() -> None:
    record, _, _ = play(seed=5)
    from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
    from tests.bots.mixed_answers import MixedAnswersBot

    local = play_local(
        "liars_dice",
        [MixedAnswersBot, ProbabilityLiarsDiceBot],
        seed=5,
        rules=RULES,
        match_id=record.bot_match_id,
    )
    assert list(local.events) == record.engine_events()
    assert all(
        e.policy is not None for e in local.events if isinstance(e, ActionEvent) and e.seat == 0
    )


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("negative", FaultKind.BAD_PROBABILITIES),
        ("above-one", FaultKind.BAD_PROBABILITIES),
        ("sum", FaultKind.BAD_PROBABILITIES),
        ("nan", FaultKind.BAD_PROBABILITIES),
        ("illegal", FaultKind.BAD_PROBABILITIES),
        ("duplicate", FaultKind.BAD_PROBABILITIES),
        ("both", FaultKind.MALFORMED_MESSAGE),
        ("protocol3", FaultKind.MALFORMED_MESSAGE),
        ("empty-one", FaultKind.MALFORMED_MESSAGE),
    ],
)
def test_bad_probabilities_are_the_seats_fault_and_nobody_elses(mode: str, kind: FaultKind) -> None:
    record, _, answers = play(mode, after=2)
    assert record.reason == "forfeit"
    assert [(f.seat, f.kind) for f in record.faults] == [(0, kind)], record.faults
    assert record.places[1] == 1 and record.places[0] == 2  # the victim is not blamed
    assert verify(record) == []
    assert verify(record, mixed=answers) == []  # the sound first turn still checks
    assert PLANTED.hex() not in record.to_json() and str(PLANTED)[:8] not in record.to_json()


def test_a_zero_weight_on_an_illegal_action_is_allowed() -> None:
    record, _, _ = play("zero-illegal")
    assert record.reason == "completed", record.faults


def _public_texts(record: MatchRecord, log: MessageLog) -> dict[str, bytes]:
    sent_to_opponent = b"".join(log.sent.get(1, []))
    readable = "".join(str(bot_pb2.PlayRequest.FromString(m)) for m in log.sent.get(1, []))
    return {
        "record": record.to_json().encode(),
        "replay page": render_replay_html(record).encode(),
        "opponent's messages": sent_to_opponent,
        "opponent's messages (text)": readable.encode(),
    }


def test_no_opponent_and_no_public_record_sees_the_probabilities() -> None:
    record, log, answers = play()
    assert any(PLANTED in a.distribution.probabilities for a in answers[0])  # planted
    needles = {
        "decimal": repr(PLANTED)[:10].encode(),
        "double (BE)": struct.pack(">d", PLANTED),
        "double (LE, protobuf)": struct.pack("<d", PLANTED),
        "rest (decimal)": repr((1 - PLANTED) / 2)[:10].encode(),
    }
    for where, text in _public_texts(record, log).items():
        for what, needle in needles.items():
            assert needle not in text, f"the {what} probability is in the {where}"
    # the guard: the author's own record holds them, so the needles can be found
    author = json.dumps(
        [[list(map(str, a.distribution.actions)), a.distribution.probabilities] for a in answers[0]]
    ).encode()
    assert needles["decimal"] in author
