"""The pre-submission check queue: fair between authors, bounded in time and size.

Each check plays matches in the sandbox, so only :attr:`CheckQueue.slots` run at a
time (one by default). Waiting checks are kept per author, and when a slot frees
the next check is the oldest waiting one **of the author whose last check started
longest ago** (an author with none started yet first): round robin across
authors, first come first served within one author. So one author's burst of
slow uploads delays another author's single upload by at most one of the burst's
checks (the one running when it arrived), instead of all of them.

Bounds (:class:`QueueLimits`, documented in ``docs/server.md``):

- **per check**: :attr:`QueueLimits.check_budget_s` — the check is stopped then and
  fails saying so (:func:`league.execution.botcheck.check_bot_matches`' ``budget_s``);
- **per author**: at most :attr:`QueueLimits.per_author` checks waiting or running;
  one more is refused at once (429, :class:`QueueFull`);
- **global**: at most :attr:`QueueLimits.max_waiting` checks waiting in all, and none
  waits longer than :attr:`QueueLimits.wait_budget_s` (refused then, 503 with
  ``Retry-After``: :class:`QueueBusy`).

:meth:`CheckQueue.position` tells an uploader where their check stands (shown by
``GET /api/submissions`` and the upload page).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import trio

from league.execution.submissions import RateLimited


@dataclass(frozen=True, slots=True)
class QueueLimits:
    slots: int = 1
    """Checks running at a time."""
    check_budget_s: float = 180.0
    """One check's time limit (4 matches of an honest bot take a few seconds to a
    minute; a bot near the 2 s decision limit fails the check's speed rule anyway)."""
    per_author: int = 3
    """Checks of one author waiting or running at a time."""
    max_waiting: int = 32
    """Checks waiting, all authors together."""
    wait_budget_s: float = 900.0
    """Longest a check waits for a slot before it is refused."""
    fair: bool = True
    """Round robin across authors; False: one queue, first come first served (tests
    switch it off to show what the fair order prevents)."""


class QueueFull(RateLimited):
    """This author already has :attr:`QueueLimits.per_author` checks queued (429)."""


class QueueBusy(RateLimited):
    """The queue is full, or a check waited :attr:`QueueLimits.wait_budget_s` (503)."""


@dataclass(eq=False)
class Ticket:
    author_id: int
    submission_id: int
    order: int
    started: trio.Event = field(default_factory=trio.Event)


@dataclass(frozen=True, slots=True)
class Position:
    """Where a submission's check stands: ``checking`` now, or ``waiting`` with
    ``ahead`` checks that will start before it."""

    state: str
    ahead: int

    def to_json(self) -> dict[str, object]:
        return {"state": self.state, "ahead": self.ahead}


class CheckQueue:
    """See the module docstring. Runs on one trio event loop (not thread-safe)."""

    def __init__(self, limits: QueueLimits | None = None) -> None:
        self.limits = limits or QueueLimits()
        self._waiting: dict[int, deque[Ticket]] = {}
        self._running: list[Ticket] = []
        self._last_start: dict[int, int] = {}
        self._counter = itertools.count()
        self.started: list[tuple[int, int]] = []
        """(author id, submission id) of every check started, in order (for the log
        and tests)."""

    def _waiting_count(self) -> int:
        return sum(len(q) for q in self._waiting.values())

    def _admit(self, author_id: int) -> None:
        mine = len(self._waiting.get(author_id, ())) + sum(
            t.author_id == author_id for t in self._running
        )
        if mine >= self.limits.per_author:
            raise QueueFull(
                f"you already have {mine} checks queued or running (at most"
                f" {self.limits.per_author}): wait for one to finish",
                retry_after_s=30,
            )
        if self._waiting_count() >= self.limits.max_waiting:
            raise QueueBusy(
                f"the check queue is full ({self.limits.max_waiting} waiting): try again later",
                retry_after_s=60,
            )

    @staticmethod
    def _pick(
        waiting: dict[int, deque[Ticket]], last_start: dict[int, int], fair: bool
    ) -> Ticket | None:
        candidates = [q[0] for q in waiting.values() if q]
        if not candidates:
            return None
        if fair:
            return min(candidates, key=lambda t: (last_start.get(t.author_id, -1), t.order))
        return min(candidates, key=lambda t: t.order)

    def _dispatch(self) -> None:
        while len(self._running) < self.limits.slots:
            ticket = self._pick(self._waiting, self._last_start, self.limits.fair)
            if ticket is None:
                return
            self._take(ticket)
            self._running.append(ticket)
            self._last_start[ticket.author_id] = next(self._counter)
            self.started.append((ticket.author_id, ticket.submission_id))
            ticket.started.set()

    def _take(self, ticket: Ticket) -> None:
        queue = self._waiting[ticket.author_id]
        queue.remove(ticket)
        if not queue:
            del self._waiting[ticket.author_id]

    def position(self, submission_id: int) -> Position | None:
        """Where ``submission_id``'s check stands; None if it is not in the queue."""
        if any(t.submission_id == submission_id for t in self._running):
            return Position("checking", 0)
        waiting = {a: deque(q) for a, q in self._waiting.items()}
        last = dict(self._last_start)
        clock = itertools.count(max(last.values(), default=0) + 1)
        ahead = 0
        while True:
            ticket = self._pick(waiting, last, self.limits.fair)
            if ticket is None:
                return None
            if ticket.submission_id == submission_id:
                return Position("waiting", ahead)
            waiting[ticket.author_id].popleft()
            last[ticket.author_id] = next(clock)
            ahead += 1

    @asynccontextmanager
    async def slot(self, author_id: int, submission_id: int) -> AsyncIterator[None]:
        """Wait for this check's turn, hold a slot while the body runs, free it."""
        self._admit(author_id)
        ticket = Ticket(author_id, submission_id, next(self._counter))
        self._waiting.setdefault(author_id, deque()).append(ticket)
        self._dispatch()
        try:
            with trio.move_on_after(self.limits.wait_budget_s):
                await ticket.started.wait()
        except BaseException:  # cancelled (the client went away): leave the queue
            self._leave(ticket)
            raise
        if not ticket.started.is_set():
            self._take(ticket)
            raise QueueBusy(
                f"your check waited {self.limits.wait_budget_s:.0f} s for a free slot:"
                " try again later",
                retry_after_s=60,
            )
        try:
            yield
        finally:
            self._leave(ticket)

    def _leave(self, ticket: Ticket) -> None:
        if ticket.started.is_set():
            self._running.remove(ticket)
            self._dispatch()
        else:
            self._take(ticket)
