"""An honest bot that takes long to start is never killed, and never gets its
opponent killed.

Bots die with the referee through ``PR_SET_PDEATHSIG``, which the kernel ties to
the *thread* that forked them. Forked from a trio worker thread (which trio
retires after 10 s idle), a bot was SIGKILLed about 10 s after its start: a seat
that took 12 s to start got itself or its opponent faulted ``crash``/``startup``
in about half of all matches. Every bot is now forked from one thread that lives
as long as the referee (:mod:`referee.runtime.spawn`).
"""

from __future__ import annotations

import signal
import sys

import pytest
import trio

from referee.core.faults import FaultKind
from referee.records.record import MatchRecord
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from referee.runtime.spawn import spawn
from tests.e2e.conftest import EXAMPLE, module_bot, process_alive
from tests.security.support import RULES, assert_no_processes_left

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PDEATHSIG_SLEEPER = ("setpriv", "--pdeathsig", "KILL", "--", "sleep", "60")
TRIO_THREAD_IDLE_S = 10.0
"""trio retires a worker thread idle this long (trio._core._thread_cache)."""


async def test_guard_a_child_forked_by_a_trio_worker_thread_dies_with_that_thread() -> None:
    """The old way (trio.lowlevel.open_process) kills a slow starter after ~10 s;
    the spawner's children live on."""
    old = await trio.lowlevel.open_process(PDEATHSIG_SLEEPER)
    new = await spawn(PDEATHSIG_SLEEPER)
    try:
        await trio.sleep(TRIO_THREAD_IDLE_S + 2.5)
        assert not process_alive(old.pid), "the guard did not reproduce the early kill"
        assert old.returncode == -signal.SIGKILL
        assert process_alive(new.pid), "a child of the spawner thread was killed"
    finally:
        for child in (old, new):
            child.kill()
            await child.wait()


def slow_starter(delay: float) -> BotSpec:
    return module_bot("tests.bots.slow_starter", "--delay", str(delay), name=f"slow-{delay:g}")


async def test_slow_starters_never_get_anyone_faulted() -> None:
    """Ten matches, a 12 s or a 14 s starter (inside the 15 s budget) against the
    random bot, in either seat: no fault anywhere, every match completes."""
    limits = Limits(decision_s=2.0, startup_s=15.0)
    specs = []
    for index in range(10):
        slow = slow_starter(12.0 if index % 2 == 0 else 14.0)
        honest = module_bot(EXAMPLE["random"], name="random")
        bots = (slow, honest) if index < 5 else (honest, slow)
        specs.append(MatchSpec("liars_dice", bots, rules=RULES, match_id=f"slow-{index}"))
    records: list[MatchRecord] = []

    async def play(spec: MatchSpec) -> None:
        records.append(await run_match(spec, limits, launcher=FreshLauncher()))

    # Five at a time; a pause between the batches lets trio retire its idle
    # threads, as happens between matches of a quiet ladder.
    for number, batch in enumerate((specs[:5], specs[5:])):
        if number:
            await trio.sleep(TRIO_THREAD_IDLE_S + 1)
        async with trio.open_nursery() as nursery:
            for spec in batch:
                nursery.start_soon(play, spec)
    assert len(records) == 10
    for record in records:
        faults = [(f.seat, f.kind, f.message) for f in record.faults]
        assert record.reason == "completed", f"{record.match_id}: {record.reason} {faults}"
        assert all(seat.ready for seat in record.seats)
        assert not any(f.kind in (FaultKind.CRASH, FaultKind.STARTUP) for f in record.faults)
    assert_no_processes_left()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
