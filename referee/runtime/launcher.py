"""Leasing a ready bot connection for one seat of one match.

:class:`FreshLauncher` starts a new process per seat and stops it afterwards.
A warm pool (league runs) implements the same ``lease`` so the match loop does
not care where its bots come from.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol

import trio

from referee.core.faults import AUTHOR_LOG_BYTES, BotStartupError
from referee.runtime.channel import BotConnection
from referee.runtime.process import BotProcess, BotSpec, make_workdir
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig


@dataclass(slots=True)
class Lease:
    """A ready connection to one bot, and its process if the referee started it."""

    spec: BotSpec
    connection: BotConnection
    process: BotProcess | None
    faulty: bool = False
    """Set by the match when this bot faulted: a pool must not hand it out again."""
    retire: bool = False
    """Set by a match that is this process's only one (``MatchSpec.single_use``): a
    pool stops it when the lease ends."""
    log_start: int = 0
    """Offset in the process's log where this lease's output begins."""
    groups: set[str] = field(default_factory=set)
    """Deal groups this process has played (a pool never reuses it within one)."""
    uses: int = 0
    """Matches this process has been leased for."""
    slot: int = -1
    """Which of a warm pool's live processes of this bot it is (0, 1, …: the lowest
    number no other live process of the bot holds; -1 outside a pool). A match
    record notes it (``meta["pool_slots"]``) so a lean by pool slot can be looked for."""

    def log(self, limit: int = AUTHOR_LOG_BYTES) -> bytes:
        """What the bot wrote during this lease (at most ``limit`` bytes, the end kept)."""
        if self.process is None:
            return b""
        end = self.process.log_size()
        start = max(self.log_start, end - limit)
        return self.process.read_log(start, end - start)

    def describe_exit(self) -> str:
        return self.process.describe_exit() if self.process else "service unreachable"

    def has_exited(self) -> bool:
        return self.process is not None and self.process.returncode is not None


class Launcher(Protocol):
    def lease(
        self, spec: BotSpec, startup_s: float, *, group: str = "", last_of_deal: bool = True
    ) -> AbstractAsyncContextManager[Lease]:
        """A ready bot for one seat of a match of deal group ``group`` ("" = none);
        ``last_of_deal``: no other match of the group is left to play after it."""
        ...


class FreshLauncher:
    """A new process for every lease; stopped (and reaped) when the lease ends."""

    def __init__(
        self, stop_grace_s: float = 1.0, *, sandbox: SandboxConfig = DEFAULT_SANDBOX
    ) -> None:
        self.stop_grace_s = stop_grace_s
        self.sandbox = sandbox

    @asynccontextmanager
    async def lease(
        self, spec: BotSpec, startup_s: float, *, group: str = "", last_of_deal: bool = True
    ) -> AsyncIterator[Lease]:
        if not spec.command:
            async with connect(spec, startup_s) as leased:
                yield leased
            return
        leased = await start_process(
            spec, startup_s, stop_grace_s=self.stop_grace_s, sandbox=self.sandbox
        )
        try:
            yield leased
        finally:
            await release(leased, self.stop_grace_s)


async def start_process(
    spec: BotSpec,
    startup_s: float,
    *,
    stop_grace_s: float = 1.0,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
) -> Lease:
    """Start ``spec.command`` in a private directory and wait until it answers Health.

    On failure the process is stopped, its directory removed, and
    :class:`BotStartupError` says why in the referee's words; the end of what the bot
    wrote rides along as its ``output``, for the bot's author only (the message goes
    into the public record: never a byte of the bot's output in it).
    """
    workdir = make_workdir()
    try:
        process = await BotProcess.spawn(spec, workdir, sandbox)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    leased = Lease(spec, BotConnection.local(process.locate_socket), process)

    def exited() -> str | None:
        return None if process.returncode is None else process.describe_exit()

    try:
        await leased.connection.wait_ready(startup_s, exited=exited)
    except BaseException as error:
        await process.stop(stop_grace_s)
        output = leased.log(AUTHOR_LOG_BYTES)
        await release(leased, stop_grace_s)
        if isinstance(error, BotStartupError):
            raise BotStartupError(f"{spec.name}: {error.message}", output=output) from None
        raise
    return leased


async def release(leased: Lease, stop_grace_s: float = 1.0) -> None:
    """Close the connection, stop the process group, remove the private directory."""
    leased.connection.close()
    if leased.process is not None:
        await leased.process.stop(stop_grace_s)
        shutil.rmtree(leased.process.workdir, ignore_errors=True)


@asynccontextmanager
async def connect(
    spec: BotSpec, startup_s: float, connection: BotConnection | None = None
) -> AsyncIterator[Lease]:
    """Lease a bot service that is already running at ``spec.address`` (through
    ``connection`` when the caller made its own kind of connection to it)."""
    connection = BotConnection.remote(spec) if connection is None else connection
    try:
        try:
            await connection.wait_ready(startup_s)
        except BotStartupError as error:
            raise BotStartupError(f"{spec.name}: {error.message}") from None
        yield Lease(spec, connection, None)
    finally:
        connection.close()
        await trio.lowlevel.checkpoint()
