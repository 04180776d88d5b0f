"""One match per process (``MatchSpec.single_use``): the pool stops such a process
after its match, and the flag survives the trip to referee workers and Ray tasks."""

from __future__ import annotations

import sys

import trio

from league.execution.worker_wire import Job, decode_job, encode_job
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX

BOT = BotSpec("random", command=(sys.executable, "-m", "example_bots.liars_dice_random"))


def test_the_flag_travels_to_workers() -> None:
    for single_use in (True, False):
        spec = MatchSpec("liars_dice", (BOT, BOT), match_id="m", single_use=single_use)
        assert decode_job(encode_job(Job(1, spec, Limits()))).spec.single_use is single_use


def test_a_single_use_match_never_shares_a_process_and_a_warm_one_does() -> None:
    async def play(single_use: bool) -> tuple[int, int]:
        pool = WarmPool(sandbox=DEFAULT_SANDBOX)
        try:
            for index in range(2):
                spec = MatchSpec(
                    "liars_dice", (BOT, BOT), match_id=f"m{index}", single_use=single_use
                )
                record = await run_match(spec, Limits(startup_s=30.0), launcher=pool)
                assert not record.faults
            return pool.started, pool.reused
        finally:
            await pool.aclose()

    assert trio.run(play, True) == (4, 0)
    started, reused = trio.run(play, False)  # guard: a warm pool reuses them
    assert reused >= 1 and started < 4
