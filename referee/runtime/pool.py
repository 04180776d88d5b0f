"""A warm pool of bot processes, reused across matches.

Starting a Python bot costs a few hundred milliseconds; a league plays thousands
of matches, so processes are kept and handed out again. A process is leased to
exactly one seat at a time (never two seats of one match), and one that faulted,
died or did not end its stream cleanly is stopped instead of returned.

Duplicate deals without memory: the seat rotations of one deal group share the
deal, so a process that played one rotation could remember the other seats'
dice. A process is therefore never leased twice within one deal group (it may
serve many groups); with the sandbox, nothing it wrote survives the process.

Nor does it run while another rotation of its group is played: it could still
signal the process playing it (timing channels cannot be closed on shared cores).
A sandboxed process whose match was not the last of its deal (``last_of_deal``) is
*parked*: every process of it stopped (SIGSTOP, :meth:`BotProcess.pause`) until the
last match of the deal ends, then handed out again for other deals. (A league run
plays the rotations of a deal one after the other, so the last one ends last.) A
process that cannot be stopped is stopped for good instead.

The cost: a league needs at least as many processes per bot as a group has
rotations in flight, and a bot's processes are retired after ``max_uses``
matches (bounding the CPU-time rlimit of long-lived processes).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from referee.runtime.launcher import Lease, connect, release, start_process
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig


class WarmPool:
    """Implements :class:`referee.runtime.launcher.Launcher`; call :meth:`aclose` at the end."""

    def __init__(
        self,
        *,
        stop_grace_s: float = 1.0,
        max_idle_per_bot: int = 8,
        max_uses: int = 200,
        sandbox: SandboxConfig = DEFAULT_SANDBOX,
        park: bool = True,
    ) -> None:
        self.stop_grace_s = stop_grace_s
        self.max_idle_per_bot = max_idle_per_bot
        self.max_uses = max_uses
        self.sandbox = sandbox
        self.park = park
        """Park the processes of a deal's earlier rotations (off only in a guard test)."""
        self._idle: dict[BotSpec, list[Lease]] = {}
        self._parked: dict[str, list[Lease]] = {}
        """Stopped processes, by the deal group whose remaining rotations they wait out."""
        self.max_parked = 4 * max_idle_per_bot
        """Parked processes kept at most; beyond, the longest parked is stopped for good
        (a deal whose last rotation this pool never sees: another worker played it)."""
        self.started = 0
        """Processes started so far (for tests and benchmarks)."""
        self.reused = 0
        self.parked = 0
        """Times a process was parked (for tests and benchmarks)."""
        self._slots: dict[BotSpec, set[int]] = {}
        """The :attr:`Lease.slot` numbers held by live processes, by bot."""

    @asynccontextmanager
    async def lease(
        self, spec: BotSpec, startup_s: float, *, group: str = "", last_of_deal: bool = True
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
            elif group and not last_of_deal and self.park and self.sandbox.enabled:
                await self._park(group, leased)
            else:
                idle.append(leased)
            if group and last_of_deal:
                await self._wake(group)

    async def _park(self, group: str, leased: Lease) -> None:
        """Stop ``leased``'s processes until ``group``'s last match has ended."""
        assert leased.process is not None
        if not leased.process.pause():
            await self._discard(leased)
            return
        self._parked.setdefault(group, []).append(leased)
        self.parked += 1
        while sum(len(waiting) for waiting in self._parked.values()) > self.max_parked:
            oldest = next(iter(self._parked))
            waiting = self._parked[oldest]
            await self._discard(waiting.pop(0))
            if not waiting:
                del self._parked[oldest]

    async def _wake(self, group: str) -> None:
        """``group``'s deal is over: its parked processes serve other deals."""
        for leased in self._parked.pop(group, []):
            assert leased.process is not None
            leased.process.resume()
            idle = self._idle.setdefault(leased.spec, [])
            if leased.process.returncode is not None or len(idle) >= self.max_idle_per_bot:
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
        held = self._slots.setdefault(spec, set())
        leased.slot = min(set(range(len(held) + 1)) - held)
        held.add(leased.slot)
        return leased

    async def _discard(self, leased: Lease) -> None:
        self._slots.get(leased.spec, set()).discard(leased.slot)
        await release(leased, self.stop_grace_s)

    async def aclose(self) -> None:
        """Stop every idle process."""
        idle, self._idle = self._idle, {}
        parked, self._parked = self._parked, {}
        for leases in [*idle.values(), *parked.values()]:
            for leased in leases:
                await self._discard(leased)
