"""The ``arena`` command line. Commands parse input and call library code.

The commands are listed in :mod:`league.cli.lazy`, grouped by task; each module is
imported, and its options built, only when its command runs (``arena --help`` builds
none of them).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Annotated

import typer

from league.cli.common import EXIT_INTERRUPTED, EXIT_USAGE, Context
from league.cli.lazy import ArenaGroup

app = typer.Typer(
    name="arena",
    cls=ArenaGroup,
    help="Bluff Arena: a referee and league runner for bluffing-game bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help and errors: rendering them with rich costs ~0.2 s per call
    # (importing and laying out panels), more than everything else `--help` does.
    rich_markup_mode=None,
)


DISTRIBUTION = "bluff-arena"
"""The installed distribution whose version ``arena --version`` prints."""


def print_version(value: bool) -> None:
    """``--version``: print the installed package's version and exit."""
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        typer.echo(f"arena (bluff-arena) {version(DISTRIBUTION)}")
    except PackageNotFoundError:
        typer.echo("arena (bluff-arena) unknown version: the package is not installed")
    raise typer.Exit(0)


@app.callback()
def root(
    ctx: typer.Context,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="ARENA_DB",
            help="Database URL (default: SQLite file arena.db here; or postgresql+psycopg://...).",
        ),
    ] = None,
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=print_version,
            is_eager=True,
            help="Print the installed version and exit.",
        ),
    ] = False,
) -> None:
    """Bluff Arena: a referee and league runner for bluffing-game bots."""
    ctx.obj = Context(db_url=db)
    ctx.call_on_close(ctx.obj.close)


def main() -> None:
    """Entry point of the ``arena`` script (and ``python -m league.cli``): :func:`run`,
    then the process ends at once (:func:`leave_now`)."""
    try:
        run()
    except SystemExit as done:  # how every command ends (click exits with its code)
        leave_now(done.code)
        raise


def run() -> None:
    """The command ``sys.argv`` names, ending in ``SystemExit`` with its exit code, as
    click's commands end; what :func:`main` runs, for callers that go on afterwards."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except Exception as error:
        if not _one_line_error(error):
            raise
        typer.echo(f"error: {error}", err=True)
        sys.exit(EXIT_USAGE)


def leave_now(code: object) -> None:
    """End the process with ``code`` at once, after what ending it normally does for
    others (``atexit`` handlers: logging, temporary directories, …; stdout and stderr
    flushed), but without tearing down the interpreter: freeing every module's objects
    took 0.4 s of CPU after ``arena league list`` had printed (0.8 s), paid by every
    command. Returns (the normal ending follows) when another thread still runs or
    when flushing fails (a closed pipe: the normal ending reports it), and under a
    profiler or tracer."""
    if not (code is None or isinstance(code, int)):
        return  # sys.exit("message"): the interpreter prints it
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return  # under cProfile or a debugger: they report after the program ends
    if any(
        t.is_alive() and not t.daemon
        for t in threading.enumerate()
        if t is not threading.current_thread()
    ):
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code or 0)


def _one_line_error(error: Exception) -> bool:
    """Whether ``error`` is a usage error that no command caught: an installed game
    that does not load (the catalogue's), or a database another process keeps locked
    (met wherever the command wrote). Only a command that used the catalogue or the
    database can raise their errors, and such a command imported them."""
    catalogue = sys.modules.get("referee.core.catalogue")
    database = sys.modules.get("league.store.db")
    return (catalogue is not None and isinstance(error, catalogue.CatalogueError)) or (
        database is not None and isinstance(error, database.DatabaseError)
    )


if __name__ == "__main__":
    main()
