"""Which leagues changed: a database watcher that feeds the server-sent events.

The watcher asks the database one cheap grouped question about once a second —
per league and match status, how many matches and when the last one finished —
so it sees results written by any process: the server's own ladder, or an
``arena league run`` in another terminal or on another machine sharing the
database. :meth:`LeagueWatcher.notify` (called by the server's background
ladder after each match) makes it ask at once instead of at the next tick.

Every league's *state* is that tuple; a page's event stream sends one event
whenever its league's state changes, and the standings cache
(:meth:`league.server.state.Server.cached`) is keyed by it.
"""

from __future__ import annotations

import logging
import math
from datetime import datetime
from typing import TypeAlias

import trio
from sqlalchemy import Engine, func
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from league.store.models import MatchRow

log = logging.getLogger("arena.server")

State: TypeAlias = tuple[int, int, str, int]
"""(matches done, matches aborted, when the last one finished, matches scheduled)
of one league: a finished match changes it, and so does a rolling ladder's new batch."""

EMPTY: State = (0, 0, "", 0)


def league_states(session: Session) -> dict[int, State]:
    """Every league with a scheduled match → its :data:`State`."""
    states: dict[int, list[object]] = {}
    for league_id, status, count, last in session.exec(
        select(
            MatchRow.league_id,
            MatchRow.status,
            func.count(col(MatchRow.id)),
            func.max(col(MatchRow.finished_at)),
        ).group_by(col(MatchRow.league_id), col(MatchRow.status))
    ).all():
        state = states.setdefault(league_id, [0, 0, "", 0])
        if status == "done":
            state[0] = int(count)
        elif status == "aborted":
            state[1] = int(count)
        if status in ("done", "aborted"):
            stamp = last.isoformat() if isinstance(last, datetime) else str(last or "")
            state[2] = max(str(state[2]), stamp)
        state[3] = int(state[3]) + int(count)  # type: ignore[call-overload]
    return {
        league_id: (int(s[0]), int(s[1]), str(s[2]), int(s[3]))  # type: ignore[call-overload]
        for league_id, s in states.items()
    }


class LeagueWatcher:
    """Polls :func:`league_states`; tasks wait for a league's state to change.

    Everything here runs in the server's trio thread (the query itself in a
    worker thread). ``notify`` must be called from the trio thread too.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        interval_s: float = 1.0,
    ) -> None:
        self.engine = engine
        self.interval_s = interval_s
        self.states: dict[int, State] = {}
        self.polls = 0
        self.closed = False
        self._changed = trio.Event()
        self._wake = trio.Event()
        self._limiter = trio.CapacityLimiter(1)

    def _poll_sync(self) -> dict[int, State]:
        with Session(self.engine) as session:
            return league_states(session)

    async def poll(self) -> None:
        """Ask the database now; wake every waiter whose league changed."""
        try:
            states = await trio.to_thread.run_sync(self._poll_sync, limiter=self._limiter)
        except SQLAlchemyError as error:  # the database is away: keep the old states
            log.warning("league watcher: %s", error)
            return
        self.polls += 1
        if states != self.states:
            self.states = states
            changed, self._changed = self._changed, trio.Event()
            changed.set()

    def notify(self) -> None:
        """A match was just written: poll now rather than at the next tick."""
        self._wake.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Poll until cancelled (the first poll is done when this has started)."""
        await self.poll()
        task_status.started()
        while not self.closed:
            with trio.move_on_after(self.interval_s):
                await self._wake.wait()
            self._wake = trio.Event()
            await self.poll()

    def state(self, league_id: int) -> State:
        return self.states.get(league_id, EMPTY)

    async def wait_change(self, league_id: int, seen: State | None, timeout_s: float) -> State:
        """The league's state once it differs from ``seen`` (at once if it already
        does), or ``seen`` unchanged after ``timeout_s`` or when closing."""
        deadline = trio.current_time() + (timeout_s if math.isfinite(timeout_s) else 1e9)
        while not self.closed:
            current = self.state(league_id)
            if current != seen:
                return current
            with trio.move_on_at(deadline) as scope:
                await self._changed.wait()
            if scope.cancelled_caught:
                break
        return seen if seen is not None else self.state(league_id)

    def close(self) -> None:
        """End every waiting stream (the server is shutting down)."""
        self.closed = True
        self._changed.set()
        self._wake.set()
