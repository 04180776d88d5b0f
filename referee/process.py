"""Bot processes: start each in its own process group with a private socket, stop
them for sure (SIGTERM to the group, then SIGKILL), and say how they ended."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.faults import BotStartupError

LOG_NAME = "bot.log"
SOCKET_NAME = "bot.sock"


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to reach one bot: a command line to start, or an address to dial."""

    name: str
    command: tuple[str, ...] = ()
    """Argument vector; ``python``/``python3`` as the program means this interpreter."""
    address: str = ""
    """``unix:/path`` or ``host:port`` of a bot service that is already running."""
    version: str = ""
    """Content hash or label of the bot's build (recorded with every match)."""
    token_env: str = ""
    """For an address: environment variable holding the token sent to the bot as
    ``authorization: Bearer <token>`` (read when the match starts, never stored)."""
    token_file: str = ""
    """For an address: file holding that token instead (surrounding whitespace dropped)."""
    tls_ca: str = ""
    """For an address: PEM file of the CA that signed the bot's TLS certificate;
    set, the connection is TLS and the bot must prove it holds the certificate's key."""

    def __post_init__(self) -> None:
        if bool(self.command) == bool(self.address):
            raise ValueError(f"bot {self.name!r}: give exactly one of command or address")
        if self.command and (self.token_env or self.token_file or self.tls_ca):
            raise ValueError(
                f"bot {self.name!r}: a token or TLS CA is for a bot reached by address,"
                f" not one started by command {self.command!r}"
            )
        if self.token_env and self.token_file:
            raise ValueError(f"bot {self.name!r}: give at most one of token_env and token_file")

    @classmethod
    def from_command_line(cls, text: str, *, name: str | None = None) -> BotSpec:
        """Parse a shell-style command line (``"python -m example_bots.x"``)."""
        argv = tuple(shlex.split(text))
        if not argv:
            raise ValueError("empty bot command")
        return cls(name=name or default_bot_name(argv), command=argv)


def default_bot_name(argv: Sequence[str]) -> str:
    """A readable name for a command: the module after ``-m``, else the file stem."""
    if "-m" in argv[:-1]:
        return argv[argv.index("-m") + 1].rsplit(".", 1)[-1]
    return Path(argv[-1] if len(argv) > 1 else argv[0]).stem


def resolve_argv(command: Sequence[str]) -> list[str]:
    """The argv to exec: a bare ``python``/``python3`` becomes this interpreter."""
    argv = list(command)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


class BotProcess:
    """One started bot process; :meth:`stop` always reaps it and its children."""

    def __init__(self, process: trio.Process, workdir: Path) -> None:
        self.process = process
        self.workdir = workdir

    @property
    def socket_path(self) -> Path:
        return self.workdir / SOCKET_NAME

    @property
    def address(self) -> str:
        return f"unix:{self.socket_path}"

    @property
    def returncode(self) -> int | None:
        return self.process.poll()

    @classmethod
    async def spawn(cls, spec: BotSpec, workdir: Path) -> BotProcess:
        """fork+exec ``spec.command`` in a new session, listening in ``workdir``."""
        argv = resolve_argv(spec.command)
        env = dict(os.environ)
        env["ARENA_LISTEN"] = f"unix:{workdir / SOCKET_NAME}"
        env["PYTHONUNBUFFERED"] = "1"
        # Bots built on the SDK exit when their parent is no longer this process
        # (the referee was killed): no orphaned bots after a SIGKILL.
        env["ARENA_REFEREE_PID"] = str(os.getpid())
        with open(workdir / LOG_NAME, "wb") as log:
            try:
                process = await trio.lowlevel.open_process(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    env=env,
                    start_new_session=True,
                )
            except OSError as error:
                raise BotStartupError(
                    f"cannot start bot {spec.name!r} ({shlex.join(argv)}): {error}"
                ) from None
        return cls(process, workdir)

    def log_tail(self, limit: int = 2000) -> str:
        """The last ``limit`` bytes the bot wrote to stdout/stderr."""
        try:
            with open(self.workdir / LOG_NAME, "rb") as log:
                log.seek(0, os.SEEK_END)
                size = log.tell()
                log.seek(max(0, size - limit))
                return log.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def describe_exit(self) -> str:
        code = self.returncode
        if code is None:
            return "still running"
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exited with code {code}"

    async def stop(self, grace: float = 1.0) -> None:
        """SIGTERM the whole process group, wait ``grace`` s, then SIGKILL it."""
        with trio.CancelScope(shield=True):
            pgid = self.process.pid
            self._signal_group(pgid, signal.SIGTERM)
            with trio.move_on_after(grace):
                await self.process.wait()
            # Children that ignored SIGTERM (or outlived the leader) go now.
            self._signal_group(pgid, signal.SIGKILL)
            await self.process.wait()

    @staticmethod
    def _signal_group(pgid: int, signum: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signum)
