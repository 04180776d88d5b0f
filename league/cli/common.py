"""Shared pieces of the ``arena`` commands: errors, the database option, output."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from referee.gamekit.errors import GameError
from referee.runtime.sandbox_config import DEFAULT_SANDBOX, SandboxConfig, SandboxError

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlmodel import Session

    from league.store.models import BotRow


EXIT_OK = 0
EXIT_BOT_FAULT = 1
"""``arena match``: a bot faulted; ``bot check``, ``replay --verify``, ``league
verify``, ``submit``: the check said no."""
EXIT_USAGE = 2
"""Bad input: typer's own usage errors and every :func:`fail` by default."""
EXIT_ABORTED = 3
"""The referee aborted a match (host trouble or a referee bug; nobody is blamed)."""
EXIT_LOST_WORKER = 4
"""``league run``: a referee worker process died (its matches are played next run)."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (or SIGTERM for ``rolling run``): stopped before the end."""


@dataclass
class Context:
    """What the root callback parsed (``--db``) for the subcommands."""

    db_url: str | None = None
    _engine: Engine | None = None

    def engine(self, *, create: bool = True) -> Engine:
        from league.store.db import DatabaseError, open_database

        if self._engine is None:
            try:
                self._engine = open_database(self.db_url, create=create)
            except DatabaseError as error:
                raise fail(str(error)) from None
        return self._engine

    def close(self) -> None:
        """Close the database's connections (when the command is done: a command run
        in another program's process, as tests run them, leaves none open)."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print ``error: message`` to stderr and return the exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def sole_error(error: BaseException) -> BaseException:
    """The one exception inside (nested) exception groups of one member, else ``error``.

    trio's nurseries wrap what a task raised in an exception group, so an expected
    error (a busy league) raised under one arrives wrapped; unwrapped, the command
    prints it as one line instead of a traceback."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def context_of(ctx: typer.Context) -> Context:
    obj = ctx.find_root().obj
    if not isinstance(obj, Context):
        obj = Context()
        ctx.find_root().obj = obj
    return obj


@contextmanager
def transaction(ctx: typer.Context, *, create: bool = True) -> Iterator[Session]:
    """A session that commits on success; a library error becomes a clean exit 2
    with nothing written."""
    from league.store.db import DatabaseError, session_scope
    from league.store.registry import BotCheckError, LeagueError

    engine = context_of(ctx).engine(create=create)
    try:
        with session_scope(engine) as session:
            yield session
    except BotCheckError as error:  # the bot failed its check: exit 1, as bot check's FAIL
        raise fail(str(error), 1) from None
    except (LeagueError, GameError, DatabaseError, SandboxError, ValueError) as error:
        raise fail(str(error)) from None


def registered_bot(ctx: typer.Context, bot: str) -> BotRow | None:
    """BOT as a registered bot's current row, when it is one word that names no file;
    ``None`` when it is a command line. A word that is not registered (or no database)
    is a clean exit 2 that says what BOT may be."""
    from league.store.db import DatabaseError
    from league.store.registry import LeagueError, get_bot

    word = bot.strip()
    if not word or any(c.isspace() for c in word) or os.path.exists(word):
        return None
    try:
        with transaction(ctx, create=False) as session:
            return get_bot(session=session, name=word)
    except typer.Exit:
        raise fail(
            f"{word!r} is not a registered bot (or there is no database): give a"
            ' registered name or a command line such as "python my_bot.py"'
        ) from None
    except (LeagueError, DatabaseError) as error:
        raise fail(str(error)) from None


def find_modules_here(commands: Iterable[Sequence[str]]) -> None:
    """Let ``python -m pkg.bot`` typed in a directory holding ``pkg`` run sandboxed.

    Python puts the current directory on a ``-m`` module's path, but the sandbox
    runs the bot in a private /tmp and binds only the module the referee finds
    (``referee.runtime.sandbox.bot_files``). So the current directory goes at the *end* of
    this process's module path (it never shadows an installed module) when a
    command's ``-m`` names a module found nowhere else."""
    here = os.getcwd()
    if here in sys.path:
        return
    for argv in commands:
        modules = [argv[i + 1] for i, word in enumerate(argv[:-1]) if word == "-m"]
        for module in modules:
            top = module.split(".", 1)[0]
            if not top.isidentifier() or importlib.util.find_spec(top) is not None:
                continue
            if os.path.isdir(os.path.join(here, top)) or os.path.isfile(
                os.path.join(here, f"{top}.py")
            ):
                sys.path.append(here)
                importlib.invalidate_caches()
                return


MATCH_NAME = "LEAGUE-N"
"""How every command names a league's match: the league's name, a dash, the match's
number, as ``arena league matches LEAGUE`` and ``league run --jsonl`` print it."""
MATCH_NAME_HELP = (
    "Match LEAGUE-N: match N of league LEAGUE, as `arena league matches LEAGUE` lists it"
    " (e.g. cup-4)."
)


@dataclass(frozen=True, slots=True)
class MatchName:
    """A league's match as the commands name it: ``LEAGUE-N``."""

    league: str
    number: int

    def __str__(self) -> str:
        return f"{self.league}-{self.number}"


def parse_match_name(text: str) -> MatchName:
    """``LEAGUE-N`` as :class:`MatchName`, the one parser of every command that names a
    match (``replay``, ``rerun``, ``league logs``); anything else is an ``error:``
    exit 2 that shows the form (and, for ``cup 4``, the name meant)."""
    league, dash, number = text.strip().rpartition("-")
    if dash and league and number.isascii() and number.isdigit():
        return MatchName(league, int(number))
    words = text.split()
    meant = (
        f" ({'-'.join(words)}?)"
        if len(words) == 2 and words[1].isascii() and words[1].isdigit()
        else ""
    )
    raise fail(
        f"{text!r} is not a match name: write {MATCH_NAME}, e.g. cup-4{meant};"
        " `arena league matches LEAGUE` lists a league's matches"
    )


def parse_rule_options(pairs: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` → dict; a malformed pair raises :class:`typer.BadParameter`."""
    rules: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{pair!r}: expected key=value", param_hint="--rule")
        if key.strip() in rules:
            raise typer.BadParameter(f"{key.strip()!r} given twice", param_hint="--rule")
        rules[key.strip()] = value.strip()
    return rules


def echo_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, default=str))


def echo_table(headers: list[str], rows: list[list[str]], *, right: set[int] | None = None) -> None:
    """A plain aligned text table."""
    right = right or set()
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(cells)
        ).rstrip()

    typer.echo(line(headers))
    for row in rows:
        typer.echo(line(row))


NoSandboxOption = Annotated[
    bool,
    typer.Option(
        "--no-sandbox",
        help="Run bots WITHOUT the sandbox (as your user, seeing your files): trusted bots only.",
    ),
]
MemoryOption = Annotated[
    int, typer.Option("--memory-mb", min=64, help="Address-space limit of each bot process, MiB.")
]
CpuOption = Annotated[
    int, typer.Option("--cpu-s", min=1, help="CPU seconds a bot process may use in its life.")
]
ProcsOption = Annotated[
    int, typer.Option("--max-procs", min=1, help="Processes and threads a bot may run.")
]
CpusOption = Annotated[
    float,
    typer.Option("--cpus", min=0.01, max=1024, help="CPU bandwidth of each bot, in cores."),
]


def sandbox_config(
    *, no_sandbox: bool, memory_mb: int, cpu_s: int, max_procs: int, cpus: float
) -> SandboxConfig:
    """The sandbox the CLI options describe."""
    return SandboxConfig(
        enabled=not no_sandbox, memory_mb=memory_mb, cpu_s=cpu_s, max_procs=max_procs, cpus=cpus
    )


def default_sandbox(*, no_sandbox: bool) -> SandboxConfig:
    """The default sandbox (``--no-sandbox``: none), for commands without limit options."""
    return sandbox_config(
        no_sandbox=no_sandbox,
        memory_mb=DEFAULT_SANDBOX.memory_mb,
        cpu_s=DEFAULT_SANDBOX.cpu_s,
        max_procs=DEFAULT_SANDBOX.max_procs,
        cpus=DEFAULT_SANDBOX.cpus,
    )


def check_sandbox(sandbox: SandboxConfig) -> None:
    """Refuse to run without the sandbox's tools (clear error, exit 2); say once on
    stderr when control groups cannot bound bots here (rlimits still apply)."""
    if not sandbox.enabled:
        return
    from referee.runtime import cgroups
    from referee.runtime.sandbox import require_tools

    try:
        require_tools()
    except SandboxError as error:
        raise fail(str(error)) from None
    if sandbox.cgroup and (why := cgroups.available()) is not None:
        typer.echo(
            f"warning: bots are limited per process only (no control group: {why})", err=True
        )


SANDBOX_DEFAULTS = DEFAULT_SANDBOX


OUTPUT_TAIL_LINES = 15
"""Lines of a faulted bot's output shown to its author (its traceback's end)."""


def output_tail(output: bytes) -> list[str]:
    """The last :data:`OUTPUT_TAIL_LINES` lines a bot wrote, indented for display
    (empty when it wrote nothing)."""
    text = output.decode("utf-8", "replace").rstrip()
    return [f"  {line}" for line in text.splitlines()[-OUTPUT_TAIL_LINES:]] if text else []


def first_failure(error: BaseException, kinds: tuple[type[Exception], ...]) -> BaseException | None:
    """The first of the bot's failures if ``error`` holds nothing else: parallel
    questions can fail together, and trio groups their errors; one line says it."""
    if not isinstance(error, BaseExceptionGroup):
        return error if isinstance(error, kinds) else None
    matched, rest = error.split(kinds)
    if matched is None or rest is not None:
        return None
    first: BaseException = matched
    while isinstance(first, BaseExceptionGroup):
        first = first.exceptions[0]
    return first
