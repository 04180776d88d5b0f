"""A warm pool of bot processes, reused across matches.

Starting a Python bot costs a few hundred milliseconds; a league plays thousands
of matches, so processes are kept and handed out again. A process is leased to
exactly one seat at a time (never two seats of one match), and one that faulted,
died or did not end its stream cleanly is stopped instead of returned.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from referee.launcher import Lease, connect, release, start_process
from referee.process import BotSpec


class WarmPool:
    """Implements :class:`referee.launcher.Launcher`; call :meth:`aclose` at the end."""

    def __init__(self, *, stop_grace_s: float = 1.0, max_idle_per_bot: int = 8) -> None:
        self.stop_grace_s = stop_grace_s
        self.max_idle_per_bot = max_idle_per_bot
        self._idle: dict[BotSpec, list[Lease]] = {}
        self.started = 0
        """Processes started so far (for tests and benchmarks)."""
        self.reused = 0

    @asynccontextmanager
    async def lease(self, spec: BotSpec, startup_s: float) -> AsyncIterator[Lease]:
        if not spec.command:
            async with connect(spec, startup_s) as remote:
                yield remote
            return
        leased = self._take_idle(spec)
        if leased is None:
            leased = await self._start(spec, startup_s)
        else:
            self.reused += 1
        try:
            yield leased
        finally:
            process = leased.process
            idle = self._idle.setdefault(spec, [])
            if (
                leased.faulty
                or process is None
                or process.returncode is not None
                or len(idle) >= self.max_idle_per_bot
            ):
                await self._discard(leased)
            else:
                idle.append(leased)

    def _take_idle(self, spec: BotSpec) -> Lease | None:
        idle = self._idle.get(spec, [])
        while idle:
            candidate = idle.pop()
            if candidate.process is not None and candidate.process.returncode is None:
                return candidate
        return None

    async def _start(self, spec: BotSpec, startup_s: float) -> Lease:
        leased = await start_process(spec, startup_s, stop_grace_s=self.stop_grace_s)
        self.started += 1
        return leased

    async def _discard(self, leased: Lease) -> None:
        await release(leased, self.stop_grace_s)

    async def aclose(self) -> None:
        """Stop every idle process."""
        idle, self._idle = self._idle, {}
        for leases in idle.values():
            for leased in leases:
                await self._discard(leased)
