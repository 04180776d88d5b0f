"""Finished league matches on their way to the database, written off the event
loop's thread: :class:`ResultWriter`.

Committing a match's result on the event loop's thread took 2-7 ms per match
(SQLite), during which no match in flight moved; the writer takes every match
waiting and writes them in one transaction in a worker thread, in the order they
finished."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import trio

from league.execution.executor import Played
from league.store.leagues import PendingMatch
from referee.runtime.match import MatchSpec


@dataclass(frozen=True, slots=True)
class Finished:
    """A played match on its way to the database."""

    pending: PendingMatch
    spec: MatchSpec
    played: Played


@dataclass(frozen=True, slots=True)
class Leader:
    """The league's leader after a committed batch (for the progress report)."""

    leader: str
    leader_elo: float


BATCH_MAX = 64
"""Most matches one transaction of :class:`ResultWriter` holds."""


class ResultWriter:
    """Writes finished matches off the event loop's thread, in the order they finished.

    :meth:`put` queues a match (never blocks). :meth:`run`, a task, takes every match
    waiting (up to :data:`BATCH_MAX`), hands them to ``write`` in a worker thread
    (``trio.to_thread``: one transaction for the batch, so a batch is written whole
    or not at all), then calls ``on_written`` on the event loop's thread; matches that
    finish meanwhile wait for the next batch. It is shielded from cancellation: what
    was queued is written even when the run is abandoned. :meth:`close` once nothing
    more will be queued: :meth:`run` then writes what is left and returns."""

    def __init__(
        self,
        write: Callable[[list[Finished]], Leader | None],
        on_written: Callable[[list[Finished], Leader | None], None],
        *,
        batch_max: int = BATCH_MAX,
    ) -> None:
        self._write = write
        self._on_written = on_written
        self._batch_max = batch_max
        self._send, self._receive = trio.open_memory_channel[Finished](math.inf)
        self.queued = 0
        self.written = 0
        """Matches queued and written so far (the batches committed)."""
        self.batches = 0
        self._caught_up = trio.Event()

    def put(self, finished: Finished) -> None:
        self._send.send_nowait(finished)
        self.queued += 1

    def close(self) -> None:
        self._send.close()

    async def flush(self) -> None:
        """Wait until every match queued so far is written."""
        while self.written < self.queued:
            await self._caught_up.wait()

    async def run(self) -> None:
        with trio.CancelScope(shield=True):
            async with self._receive:
                async for first in self._receive:
                    batch = [first]
                    while len(batch) < self._batch_max:
                        try:
                            batch.append(self._receive.receive_nowait())
                        except (trio.WouldBlock, trio.EndOfChannel):
                            break
                    written = await trio.to_thread.run_sync(self._write, batch)
                    self.written += len(batch)
                    self.batches += 1
                    self._on_written(batch, written)
                    self._caught_up.set()
                    self._caught_up = trio.Event()
