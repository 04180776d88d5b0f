"""Leasing a ready bot connection for one seat of one match.

:class:`FreshLauncher` starts a new process per seat and stops it afterwards.
A warm pool (league runs) implements the same ``lease`` so the match loop does
not care where its bots come from.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import trio

from referee.channel import BotConnection
from referee.faults import BotStartupError
from referee.process import BotProcess, BotSpec


@dataclass(slots=True)
class Lease:
    """A ready connection to one bot, and its process if the referee started it."""

    spec: BotSpec
    connection: BotConnection
    process: BotProcess | None
    faulty: bool = False
    """Set by the match when this bot faulted: a pool must not hand it out again."""

    def describe_exit(self) -> str:
        return self.process.describe_exit() if self.process else "service unreachable"

    def has_exited(self) -> bool:
        return self.process is not None and self.process.returncode is not None


class Launcher(Protocol):
    def lease(self, spec: BotSpec, startup_s: float) -> AbstractAsyncContextManager[Lease]: ...


class FreshLauncher:
    """A new process for every lease; stopped (and reaped) when the lease ends."""

    def __init__(self, stop_grace_s: float = 1.0) -> None:
        self.stop_grace_s = stop_grace_s

    @asynccontextmanager
    async def lease(self, spec: BotSpec, startup_s: float) -> AsyncIterator[Lease]:
        if not spec.command:
            async with connect(spec, startup_s) as leased:
                yield leased
            return
        with tempfile.TemporaryDirectory(prefix="arena-bot-") as workdir:
            process = await BotProcess.spawn(spec, Path(workdir))
            connection = BotConnection(process.address, socket_path=process.socket_path)
            try:

                def exited() -> str | None:
                    return None if process.returncode is None else process.describe_exit()

                try:
                    await connection.wait_ready(startup_s, exited=exited)
                except BotStartupError as error:
                    tail = process.log_tail(600).strip()
                    raise BotStartupError(
                        f"{spec.name}: {error.message}"
                        + (f"; its output ends: {tail}" if tail else "")
                    ) from None
                yield Lease(spec, connection, process)
            finally:
                connection.close()
                await process.stop(self.stop_grace_s)


@asynccontextmanager
async def connect(spec: BotSpec, startup_s: float) -> AsyncIterator[Lease]:
    """Lease a bot service that is already running at ``spec.address``."""
    connection = BotConnection(spec.address)
    try:
        try:
            await connection.wait_ready(startup_s)
        except BotStartupError as error:
            raise BotStartupError(f"{spec.name}: {error.message}") from None
        yield Lease(spec, connection, None)
    finally:
        connection.close()
        await trio.lowlevel.checkpoint()
