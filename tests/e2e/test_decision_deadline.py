"""The decision deadline the referee enforces is the one it announces.

With ``decision_s=1.0`` and ``grace_s=0.25`` the budget is 1.25 s. A bot that
sleeps 0.5 s on its first turn must be accepted; one that sleeps 1.6 s must be
faulted ``timeout``, never before 1.25 s after the TurnRequest was sent. A
referee that enforced twice the budget (2.5 s) would let the 1.6 s sleeper
answer; one that cut early would fail the lower bound. A referee that waited for
the late answer and only then judged it late would fault a 60 s sleeper after
60 s: the fault must come long before that.

No bound here shrinks when the machine is busy: load only delays the referee, so
every assertion is either a lower bound on waiting or an upper bound with many
seconds of slack (CI once measured a 1.6 s-sleeper's fault 0.98 s after the
budget on a loaded machine; a 0.5 s upper margin failed there).
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
LONG_SLEEP_S = 60.0
"""The answer a referee that waits for late answers would wait for."""


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
    assert first.elapsed_ms >= 500  # the sleep was timed; accepted, whatever the load added
    assert verify(record) == []


def waited_for_first_turn(log: TimedLog) -> float:
    """Seconds from seat 0's first TurnRequest to the end message it was sent."""
    sent = log.times[0]
    asked = next(t for t, kind in sent if kind == "turn")
    ended = next(t for t, kind in sent if kind == "end")
    return ended - asked


def test_an_answer_past_the_budget_is_a_timeout_not_before_the_budget() -> None:
    record, log = play(1.6)
    assert record.reason == "forfeit", "a 1.6 s answer was accepted under a 1.25 s budget"
    assert [(f.seat, f.kind) for f in record.faults] == [(0, FaultKind.TIMEOUT)]
    assert not any(e.seat is not None for e in record.events)  # it was the first turn
    waited = waited_for_first_turn(log)
    assert waited >= BUDGET_S - 0.01, f"fault after {waited:.3f} s, before the budget"
    assert verify(record) == []


def test_the_referee_stops_waiting_at_the_budget_not_at_the_answer() -> None:
    started = time.perf_counter()
    record, log = play(LONG_SLEEP_S)
    assert [(f.seat, f.kind) for f in record.faults] == [(0, FaultKind.TIMEOUT)]
    waited = waited_for_first_turn(log)
    assert waited < LONG_SLEEP_S / 3, f"fault after {waited:.3f} s: it waited for the answer"
    # the sleeper was stopped, not waited for: the whole match ended long before its answer
    assert time.perf_counter() - started < LONG_SLEEP_S / 2
