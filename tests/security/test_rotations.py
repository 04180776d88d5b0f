"""One rotation of a deal alive at a time (issue: trust, round three).

The seat rotations of a duplicate deal share the deal. A process that played one
rotation knows the other seats' dice; the pool never hands it that deal again, but a
process that merely *runs* while another rotation is played could still tell the
process playing it what it saw, through a channel no sandbox closes (CPU or page-cache
timing: docs/security.md). So while a rotation is played, no process of any bot that
played another rotation of that deal may run: a league run plays a deal's rotations
one after the other, and the warm pool parks (stops) the processes of the earlier
ones until the last has ended.

The test plays a duplicate league of sandboxed bots with two matches at once and looks,
whenever a seat is leased and when it is released, at every process of the pool that
played another rotation of the same deal: each must be stopped (``T``) or gone. The
guard turns parking off and finds them running.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from league.execution import executor
from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import LeagueSettings, create_league
from league.store.registry import add_bot
from referee.runtime.launcher import Lease
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec, _state, _tree
from referee.runtime.sandbox import DEFAULT_SANDBOX
from tests.e2e.conftest import assert_no_sandboxed_processes

pytestmark = pytest.mark.e2e

RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
PROBABILITY = f"{sys.executable} -m example_bots.liars_dice_probability"


class WatchedPool(WarmPool):
    """A warm pool that checks, at every lease's start and end, that no process which
    played another rotation of the lease's deal is running."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.playing: dict[str, list[Lease]] = {}
        self.seen: list[Lease] = []
        self.violations: list[str] = []
        self.checks = 0
        self.over: set[str] = set()
        """Deals whose last match has ended (its earlier rotations' processes wake)."""

    def check(self, group: str, current: Lease) -> None:
        if group in self.over:
            return
        self.checks += 1
        for other in self.seen:
            if other is current or group not in other.groups or other.process is None:
                continue
            if any(other is playing for playing in self.playing.get(group, [])):
                continue  # a seat of this very match (same rotation)
            running = [pid for pid in _tree(other.process.process.pid) if _state(pid) not in "TtZX"]
            if running:
                self.violations.append(f"deal {group}: process {running} of {other.spec.name}")

    @asynccontextmanager
    async def lease(
        self, spec: BotSpec, startup_s: float, *, group: str = "", last_of_deal: bool = True
    ) -> AsyncIterator[Lease]:
        async with super().lease(spec, startup_s, group=group, last_of_deal=last_of_deal) as leased:
            if leased not in self.seen:
                self.seen.append(leased)
            playing = self.playing.setdefault(group, [])
            playing.append(leased)
            await trio.sleep(0.05)  # let the other seat of this match be leased too
            self.check(group, leased)
            try:
                yield leased
            finally:
                self.check(group, leased)
                playing.remove(leased)
                if last_of_deal:
                    self.over.add(group)


def play_league(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, park: bool) -> WatchedPool:
    pools: list[WatchedPool] = []

    def make_pool(**kwargs: object) -> WatchedPool:
        pools.append(WatchedPool(park=park, **kwargs))
        return pools[-1]

    monkeypatch.setattr(executor, "WarmPool", make_pool)
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    with session_scope(engine) as session:
        add_bot(session=session, name="random", command=RANDOM, games=["liars_dice"])
        add_bot(session=session, name="probability", command=PROBABILITY, games=["liars_dice"])
        create_league(
            session=session,
            name="rotations",
            settings=LeagueSettings(
                "liars_dice",
                ("random", "probability"),
                rules={"one_round": "true", "dice_per_player": "2"},
                rounds=4,
                sandbox=DEFAULT_SANDBOX,
            ),
        )
    options = RunOptions(concurrency=2, handle_signals=False)
    summary = trio.run(lambda: LeagueRun(engine, "rotations", options).play())
    assert summary.remaining == 0 and not summary.aborted
    assert len(pools) == 1
    return pools[0]


def test_no_process_of_another_rotation_runs_while_one_is_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool = play_league(tmp_path, monkeypatch, park=True)
    assert pool.checks >= 16
    assert pool.parked >= 4, "no process was ever parked: nothing was tested"
    assert not pool.violations, pool.violations
    assert_no_sandboxed_processes()


def test_guard_without_parking_processes_of_other_rotations_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool = play_league(tmp_path, monkeypatch, park=False)
    assert pool.parked == 0
    assert pool.violations, "the watch found nothing even without parking"
    assert_no_sandboxed_processes()
