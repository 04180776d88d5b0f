"""An engine bug is the referee's error: the match is aborted, nobody faults."""

from __future__ import annotations

from typing import Any

import pytest

from referee.core.catalogue import get_game
from referee.games.liars_dice.engine import Challenge
from referee.records.html_replay import render_replay_html
from referee.records.record import MatchRecord
from referee.records.replay import seat_messages, verify
from referee.records.transcript import result_lines, transcript_lines
from referee.runtime.match import Limits, MatchSpec, MessageLog, run_match
from tests.e2e.conftest import EXAMPLE, module_bot

pytestmark = pytest.mark.e2e

FAST = Limits(decision_s=5.0, startup_s=20.0)


def plant_engine_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """Liar's Dice fails on every challenge, a legal action (a bug, not a GameError)."""
    engine_class = type(get_game("liars_dice"))
    correct = engine_class.transition

    def buggy(self: Any, state: Any, seat: int, action: Any) -> Any:
        if isinstance(action, Challenge):
            raise RuntimeError("planted engine bug")
        return correct(self, state, seat, action)

    monkeypatch.setattr(engine_class, "transition", buggy)


async def test_an_engine_error_aborts_the_match_and_faults_nobody(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plant_engine_bug(monkeypatch)
    log = MessageLog()
    bots = (module_bot(EXAMPLE["random"]), module_bot(EXAMPLE["probability"]))
    record = await run_match(
        MatchSpec("liars_dice", bots, seed=4, match_id="abort"), FAST, observer=log
    )
    monkeypatch.undo()
    assert record.reason == "aborted"
    assert record.faults == ()
    error = record.meta["error"]
    assert "RuntimeError('planted engine bug')" in error and "Challenge()" in error
    # Every bot saw the end of the match, told it was aborted with no fault.
    from arena.v1 import bot_pb2

    for seat in (0, 1):
        end = bot_pb2.PlayRequest.FromString(log.sent[seat][-1]).end
        assert end.reason == bot_pb2.END_REASON_ABORTED
        assert all(r.fault == bot_pb2.FAULT_KIND_UNSPECIFIED for r in end.results)
    # The record reads back, verifies, replays byte for byte and renders.
    assert MatchRecord.from_json(record.to_json()) == record
    assert verify(record) == []
    for seat in (0, 1):
        replayed = [m.SerializeToString(deterministic=True) for m in seat_messages(record, seat)]
        assert replayed == log.sent[seat]
    assert "planted engine bug" in render_replay_html(record, title="aborted match")
    assert transcript_lines(record)
    assert "planted engine bug" in result_lines(record)[-1]
