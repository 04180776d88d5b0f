"""``arena`` commands run inside the test's own process (typer's ``CliRunner``), for
tests that use a command to set up or to look, not to test how a process ends: the
same command code without a fresh interpreter, whose imports cost 0.7 s of CPU per
call (a few hundred calls in the suite). Tests of the process itself (exit codes of
the script, tracebacks, signals) start ``arena`` as a subprocess."""

from __future__ import annotations

import subprocess

from typer.testing import CliRunner

from league.cli import app

_runner = CliRunner()


def arena_in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` as a finished process would report it: exit code, stdout,
    stderr. A command that crashes raises its exception here (a subprocess would
    print its traceback and exit 1)."""
    result = _runner.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(
        ["arena", *args], result.exit_code, result.stdout, result.stderr
    )
