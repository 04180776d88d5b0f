"""A warm pool of bot processes, reused across matches.

Starting a Python bot costs a few hundred milliseconds; a league plays thousands
of matches, so processes are kept and handed out again. A process is leased to
exactly one seat at a time (never two seats of one match), and one that faulted,
died or did not end its stream cleanly is stopped instead of returned.

Duplicate deals without memory: the seat rotations of one deal group share the
deal, so a process that played one rotation could remember the other seats'
dice. A process is therefore never leased twice within one deal group (it may
serve many groups); with the sandbox, nothing it wrote survives the process.
The cost: a league needs at least as many processes per bot as a group has
rotations in flight, and a bot's processes are retired after ``max_uses``
matches (bounding the CPU-time rlimit of long-lived processes).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from referee.launcher import Lease, connect, release, start_process
from referee.process import BotSpec
from referee.sandbox import DEFAULT_SANDBOX, SandboxConfig


class WarmPool:
    """Implements :class:`referee.launcher.Launcher`; call :meth:`aclose` at the end."""

    def __init__(
        self,
        *,
        stop_grace_s: float = 1.0,
        max_idle_per_bot: int = 8,
        max_uses: int = 200,
        sandbox: SandboxConfig = DEFAULT_SANDBOX,
    ) -> None:
        self.stop_grace_s = stop_grace_s
        self.max_idle_per_bot = max_idle_per_bot
        self.max_uses = max_uses
        self.sandbox = sandbox
        self._idle: dict[BotSpec, list[Lease]] = {}
        self.started = 0
        """Processes started so far (for tests and benchmarks)."""
        self.reused = 0

    @asynccontextmanager
    async def lease(
        self, spec: BotSpec, startup_s: float, *, group: str = ""
    ) -> AsyncIterator[Lease]:
        if not spec.command:
            async with connect(spec, startup_s) as remote:
                yield remote
            return
        leased = self._take_idle(spec, group)
        if leased is None:
            leased = await self._start(spec, startup_s)
        else:
            self.reused += 1
        if group:
            leased.groups.add(group)
        leased.uses += 1
        if leased.process is not None:
            leased.log_start = leased.process.log_size()
        try:
            yield leased
        finally:
            process = leased.process
            idle = self._idle.setdefault(spec, [])
            if (
                leased.faulty
                or leased.retire
                or process is None
                or process.returncode is not None
                or leased.uses >= self.max_uses
                or len(idle) >= self.max_idle_per_bot
            ):
                await self._discard(leased)
            else:
                idle.append(leased)

    def _take_idle(self, spec: BotSpec, group: str) -> Lease | None:
        """An idle live process of ``spec`` that has not played in ``group``."""
        idle = self._idle.get(spec, [])
        for index in range(len(idle) - 1, -1, -1):
            candidate = idle[index]
            if candidate.process is None or candidate.process.returncode is not None:
                continue
            if group and group in candidate.groups:
                continue
            del idle[index]
            return candidate
        return None

    async def _start(self, spec: BotSpec, startup_s: float) -> Lease:
        leased = await start_process(
            spec, startup_s, stop_grace_s=self.stop_grace_s, sandbox=self.sandbox
        )
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
