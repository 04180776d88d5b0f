"""Playing an SPRT (``arena sprt``, ``docs/sprt.md``): :func:`run_sprt`.

The pairs are played by :class:`~league.execution.league_run.LeagueRun` itself, so an SPRT
has a league's transactional writes, resuming, sandbox, warm pool and Ctrl-C. This
module only adds :class:`SprtSchedule`, the run's schedule source: the next pairs
from :func:`league.store.sprt_tests.extend_pairs` while the test has not decided.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Engine

from league.execution.league_run import AbortedMatch, LeagueRun, RunOptions
from league.store.db import session_scope
from league.store.leagues import PendingMatch, get_league
from league.store.sprt_tests import SprtState, extend_pairs, sprt_settings, sprt_state


@dataclass(frozen=True, slots=True)
class SprtSummary:
    state: SprtState
    """The test when the run ended."""
    played: int
    """Matches written by this run."""
    interrupted: bool
    """Ended by Ctrl-C or SIGTERM (run again to resume)."""
    elapsed_s: float
    aborted: tuple[AbortedMatch, ...] = ()


class SprtSchedule:
    """The test's :class:`~league.execution.league_run.ScheduleSource`: more pairs
    until it decides (with ``decide=False``: until ``max_pairs``, for ``bench/no_lean.py``)."""

    def __init__(self, engine: Engine, name: str, *, decide: bool = True) -> None:
        self.engine = engine
        self.name = name
        self.decide = decide

    async def pace(self) -> None:
        """No rate limit: a test plays as fast as its concurrency allows."""

    async def more(self) -> list[PendingMatch]:
        with session_scope(self.engine) as session:
            league = get_league(session=session, name=self.name)
            return extend_pairs(session=session, league=league, decide=self.decide)


async def run_sprt(
    engine: Engine,
    name: str,
    *,
    on_pair: Callable[[SprtState], None] | None = None,
    handle_signals: bool = False,
    workers: int | None = 1,
) -> SprtSummary:
    """Play test ``name`` until it decides, reaches ``max_pairs``, or is interrupted.

    Pending matches first (those of a stopped or killed run), then pair after pair.
    ``on_pair(state)`` after each match that completes a pair. Matches already
    running when the test decides are finished and kept (as fastchess does), so
    the final counts may hold a pair or two beyond the crossing.
    """
    with session_scope(engine) as session:
        league = get_league(session=session, name=name)
        settings = sprt_settings(league)
        seen = [sprt_state(session=session, league=league).penta.pairs]

    def record(_match_id: str) -> None:
        if on_pair is None:
            return
        with session_scope(engine) as session:
            state = sprt_state(session=session, league=get_league(session=session, name=name))
        if state.penta.pairs != seen[0]:
            seen[0] = state.penta.pairs
            on_pair(state)

    options = RunOptions(
        concurrency=settings.concurrency, workers=workers, handle_signals=handle_signals
    )
    run = LeagueRun(engine, name, options, schedule=SprtSchedule(engine, name), on_result=record)
    summary = await run.play()
    with session_scope(engine) as session:
        state = sprt_state(session=session, league=get_league(session=session, name=name))
    return SprtSummary(
        state=state,
        played=summary.played,
        interrupted=summary.interrupted,
        elapsed_s=summary.elapsed_s,
        aborted=summary.aborted,
    )
