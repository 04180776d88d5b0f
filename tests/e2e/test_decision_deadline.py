"""The decision deadline the referee enforces is the one it announces, to ~0.5 s.

With ``decision_s=1.0`` and ``grace_s=0.25`` the budget is 1.25 s. A bot that
sleeps 0.5 s on its first turn must be accepted; one that sleeps 1.6 s must be
faulted ``timeout``, and the fault must come between 1.25 s and 1.75 s after the
TurnRequest was sent. A referee that enforced twice the budget (2.5 s) would let
the 1.6 s sleeper answer and fail this test; one that cut early would fail the
lower bound. The margins (0.5 s under the limit, 0.35 s over the budget, 0.5 s of
lateness allowed) are wide enough for a loaded two-core CI machine.
"""

from __future__ import annotations

import time

import pytest
import trio

from arena.v1 import bot_pb2
from referee.core.faults import FaultKind
from referee.records.record import MatchRecord
from referee.records.replay import verify
from referee.runtime.match import Limits, MatchSpec, MessageLog, run_match
from referee.runtime.process import BotSpec
from tests.e2e.conftest import module_bot

pytestmark = pytest.mark.e2e

LIMITS = Limits(decision_s=1.0, grace_s=0.25, startup_s=20.0)
BUDGET_S = LIMITS.decision_s + LIMITS.grace_s
LATE_S = 0.5
"""How late after the budget the fault may arrive (scheduling on a busy machine)."""


class TimedLog(MessageLog):
    """The message log, with when each message was sent (``perf_counter``)."""

    def __init__(self) -> None:
        super().__init__()
        self.times: dict[int, list[tuple[float, str]]] = {}

    def on_send(self, seat: int, message: bot_pb2.PlayRequest) -> None:
        super().on_send(seat, message)
        kind = message.WhichOneof("kind") or ""
        self.times.setdefault(seat, []).append((time.perf_counter(), kind))


def sleepy(seconds: float) -> BotSpec:
    return module_bot("tests.bots.sleepy", "--sleep", str(seconds), name=f"sleep-{seconds:g}")


def play(seconds: float) -> tuple[MatchRecord, TimedLog]:
    """Seat 0 (the sleeper) opens round 1, so the match's first turn is its sleep."""
    log = TimedLog()
    spec = MatchSpec(
        "liars_dice",
        (sleepy(seconds), module_bot("example_bots.liars_dice_random")),
        seed=3,
        rules={"roll_off": "false", "one_round": "true"},
    )
    record = trio.run(lambda: run_match(spec, LIMITS, observer=log))
    return record, log


def test_an_answer_well_inside_the_limit_is_accepted() -> None:
    record, _ = play(0.5)
    assert record.reason == "completed", record.faults
    first = next(e for e in record.events if e.seat is not None)
    assert first.seat == 0 and first.elapsed_ms is not None
    assert 500 <= first.elapsed_ms < LIMITS.decision_s * 1000
    assert verify(record) == []


def test_an_answer_past_the_budget_is_a_timeout_on_time() -> None:
    record, log = play(1.6)
    assert record.reason == "forfeit", "a 1.6 s answer was accepted under a 1.25 s budget"
    assert [(f.seat, f.kind) for f in record.faults] == [(0, FaultKind.TIMEOUT)]
    assert not any(e.seat is not None for e in record.events)  # it was the first turn
    sent = log.times[0]
    asked = next(t for t, kind in sent if kind == "turn")
    ended = next(t for t, kind in sent if kind == "end")
    waited = ended - asked
    assert BUDGET_S - 0.01 <= waited <= BUDGET_S + LATE_S, f"fault after {waited:.3f} s"
    assert verify(record) == []
