"""``arena bot``: register, list, show and remove bots."""

from __future__ import annotations

import functools
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from league.cli.common import (
    SANDBOX_DEFAULTS,
    NoSandboxOption,
    check_sandbox,
    default_sandbox,
    echo_json,
    echo_table,
    fail,
    find_modules_here,
    output_tail,
    registered_bot,
    transaction,
)
from league.cli.scaffold import ScaffoldError, write_project

if TYPE_CHECKING:
    from league.execution.botcheck import CheckReport
    from league.store.models import BotRow
    from referee.runtime.process import BotSpec
    from referee.runtime.sandbox_config import SandboxConfig

app = typer.Typer(help="Register and inspect bots.", no_args_is_help=True, rich_markup_mode=None)


def bot_json(row: BotRow) -> dict[str, object]:
    return {
        "name": row.name,
        "version": row.version,
        "games": row.games.split(",") if row.games else [],
        "command": row.command,
        "address": row.address,
        "token_env": row.token_env,
        "token_file": row.token_file,
        "tls_ca": row.tls_ca,
        "retired": row.retired,
        "created_at": row.created_at.isoformat(),
    }


@app.command("add")
def add_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Bot name (no spaces).")],
    cmd: Annotated[str, typer.Option("--cmd", help="Command line that starts the bot.")] = "",
    address: Annotated[
        str, typer.Option(help="Address of an already running bot (host:port or unix:/path).")
    ] = "",
    game: Annotated[
        list[str] | None, typer.Option("--game", "-g", help="A game it plays (repeatable).")
    ] = None,
    version: Annotated[
        str, typer.Option(help="Version label (default: content hash of its files).")
    ] = "",
    check: Annotated[
        bool,
        typer.Option(
            help="Start it, check that it answers, and play the `arena bot check` matches."
        ),
    ] = True,
    force: Annotated[
        bool, typer.Option("--force", help="Register it even if `arena bot check` fails.")
    ] = False,
    matches: Annotated[
        int, typer.Option(min=1, help="Matches of the check, per game it plays.")
    ] = 6,
    startup_timeout: Annotated[float, typer.Option(min=0.1, help="Seconds to start.")] = 15.0,
    token_env: Annotated[
        str,
        typer.Option(
            help="With --address: environment variable holding the bot's token (read at"
            " run time; only the name is stored)."
        ),
    ] = "",
    token_file: Annotated[
        str, typer.Option(help="With --address: file holding the bot's token (path stored).")
    ] = "",
    tls_ca: Annotated[
        str,
        typer.Option(help="With --address: PEM CA file to verify the bot's TLS certificate."),
    ] = "",
) -> None:
    """Register a bot (a new version if its files changed).

    A relative path in --cmd (an existing file or directory, or a program
    containing a slash) is stored absolute, taken from the directory you run this in.

    Unless --no-check, it first plays the `arena bot check` matches (sandboxed)
    for each game it plays, and a failing bot is refused unless --force.
    """
    from league.execution.botcheck import check_bot
    from league.store.registry import add_bot
    from referee.runtime.process import check_scripts_exist

    try:
        if check:  # --no-check: the command may name files of the machines that run it
            check_scripts_exist(shlex.split(cmd), Path.cwd())
    except ValueError as error:  # a missing script, or an unbalanced quote
        raise fail(str(error)) from None
    with transaction(ctx) as session:
        row = add_bot(
            session=session,
            name=name,
            command=cmd,
            address=address,
            games=game or [],
            version=version,
            check=functools.partial(check_bot, startup_s=startup_timeout) if check else None,
            token_env=token_env,
            token_file=token_file,
            tls_ca=tls_ca,
        )
        if check and row.command:
            _check_before_add(row, matches=matches, startup_s=startup_timeout, force=force)
        typer.echo(f"registered {row.name} version {row.version} (plays {row.games})")


def _check_before_add(row: BotRow, *, matches: int, startup_s: float, force: bool) -> None:
    """Play the check for every game of ``row``; a FAIL aborts the registration
    (the transaction rolls back) unless ``force``, which only warns."""
    from league.store.registry import bot_spec

    check_sandbox(SANDBOX_DEFAULTS)
    for game in row.games.split(","):
        report = _run_check(bot_spec(row), game, matches, 2.0, startup_s, SANDBOX_DEFAULTS)
        if report.passed:
            continue
        for line in report.lines():
            typer.echo(line, err=True)
        if not force:
            raise fail(f"bot {row.name!r} failed `arena bot check` for {game}; --force adds it", 1)
        typer.echo(f"warning: adding {row.name!r} despite the failed check (--force)", err=True)


def _run_check(
    spec: BotSpec,
    game: str,
    matches: int,
    decision_s: float,
    startup_s: float,
    sandbox: SandboxConfig,
    *,
    vary_rules: bool = False,
    label: str = "",
) -> CheckReport:
    """Play the check (each match told on stderr as it ends) and return its report."""
    from league.execution.botcheck import BotCheckInputError, check_bot_matches

    def progress(done: int, total: int, line: str) -> None:
        typer.echo(f"  check {done}/{total}: {line}", err=True)

    typer.echo(f"checking {label or spec.name} at {game}: {matches} matches ...", err=True)
    logs: list[bytes] = []
    try:
        report = check_bot_matches(
            spec,
            game,
            matches=matches,
            decision_s=decision_s,
            startup_s=startup_s,
            sandbox=sandbox,
            vary_rules=vary_rules,
            on_match=progress,
            logs=logs,
        )
    except BotCheckInputError as error:
        raise fail(str(error)) from None
    _first_fault_output(report, logs)
    return report


def _first_fault_output(report: CheckReport, logs: list[bytes]) -> None:
    """The last lines the bot wrote in its first faulted match (its traceback when it
    crashed, what it printed before it failed to start), on stderr: for the author at
    the terminal, never in a fault message or record."""
    for checked, output in zip(report.matches, logs, strict=False):
        tail = output_tail(output)
        if not checked.fault or not tail:
            continue
        typer.echo(f"{checked.match_id}: the bot's output, last lines:", err=True)
        for line in tail:
            typer.echo(line, err=True)
        return


@app.command("new")
def new_command(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="Bot name: a Python module name, e.g. my_bot.")
    ],
    game: Annotated[str, typer.Option("--game", "-g", help="Game it plays (see `arena games`).")],
    directory: Annotated[
        Path | None, typer.Option("--dir", help="Project directory (default: ./NAME).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Write into a non-empty directory.")
    ] = False,
) -> None:
    """Write a working bot project: the bot, a test that plays it, a README."""
    target = directory if directory is not None else Path(name)
    try:
        files = write_project(name, game, target, force=force)
    except ScaffoldError as error:
        raise fail(str(error)) from None
    for path in files:
        typer.echo(f"wrote {path}")
    typer.echo(
        f"next: cd {target} && python -m pytest -q; then"
        f' arena bot check "python {files[0].resolve()}" --game {game}'
    )


@app.command("check")
def check_command(
    ctx: typer.Context,
    bot: Annotated[
        str,
        typer.Argument(
            metavar="BOT", help="Command line that starts the bot, or a registered bot's name."
        ),
    ],
    game: Annotated[str, typer.Option("--game", "-g", help="Game to check it at.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    matches: Annotated[int, typer.Option(min=1, help="Matches to play.")] = 6,
    time_limit: Annotated[float, typer.Option(min=0.001, help="Seconds per decision.")] = 2.0,
    startup_timeout: Annotated[float, typer.Option(min=0.1, help="Seconds to start.")] = 15.0,
    vary_rules: Annotated[
        bool,
        typer.Option(
            "--vary-rules",
            help="Give every rule option each of its values across the matches (default:"
            " the game's default rules, as a ladder plays).",
        ),
    ] = False,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Play a few matches against the example bots, as a league would run the bot,
    and print PASS or FAIL with reasons (exit 0 on PASS, 1 on FAIL, 2 on bad input)."""
    spec = _resolve_bot(ctx, bot)
    sandbox = default_sandbox(no_sandbox=no_sandbox)
    check_sandbox(sandbox)
    report = _run_check(
        spec, game, matches, time_limit, startup_timeout, sandbox, vary_rules=vary_rules, label=bot
    )
    report.bot = bot  # as the author named it: a registered name or the command line
    if as_json:
        echo_json(report.to_dict())
    else:
        for line in report.lines():
            typer.echo(line)
    raise typer.Exit(0 if report.passed else 1)


def _resolve_bot(ctx: typer.Context, bot: str) -> BotSpec:
    """A registered bot's name (one word, not a file) is looked up in the database;
    anything else is a command line, as in ``arena match --bot``."""
    from league.store.registry import bot_spec
    from referee.runtime.process import BotSpec, absolute_command, check_scripts_exist

    row = registered_bot(ctx, bot)
    if row is not None:
        return bot_spec(row)
    try:
        argv = tuple(shlex.split(bot))
        if not argv:
            raise ValueError("empty command line")
        check_scripts_exist(argv, Path.cwd())
        find_modules_here([argv])
        # Relative paths are the caller's: the sandbox runs the bot elsewhere.
        return BotSpec(
            name="candidate", command=absolute_command(argv, Path.cwd()), version="check"
        )
    except ValueError as error:
        raise fail(f"bad command line {bot!r}: {error}") from None


@app.command("list")
def list_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    all_versions: Annotated[bool, typer.Option("--all", help="Include removed bots.")] = False,
) -> None:
    """List registered bots."""
    from league.store.registry import list_bots

    with transaction(ctx) as session:
        rows = list_bots(session=session, include_retired=all_versions)
        if as_json:
            echo_json([bot_json(r) for r in rows])
            return
        echo_table(
            ["name", "version", "games", "starts with"],
            [
                [
                    r.name + (" (removed)" if r.retired else ""),
                    r.version,
                    r.games,
                    r.command or r.address,
                ]
                for r in rows
            ],
        )


@app.command("show")
def show_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Bot name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Show one bot (its newest version): only the fields it has (--json: every field,
    empty ones too, for a machine)."""
    from league.store.registry import get_bot

    with transaction(ctx) as session:
        data = bot_json(get_bot(session=session, name=name))
    if as_json:
        echo_json(data)
        return
    shown = {key: value for key, value in data.items() if _is_set(value)}
    width = max(len(key) for key in shown)
    for key, value in shown.items():
        text = ", ".join(map(str, value)) if isinstance(value, list) else value
        typer.echo(f"{key:>{width}}: {'yes' if value is True else text}")


def _is_set(value: object) -> bool:
    """Whether ``bot show`` prints a field: not empty, not None, not a False flag."""
    return not (value is None or value is False or value == "" or value == [])


@app.command("remove")
def remove_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Bot name.")],
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Do not ask for confirmation (scripts).")
    ] = False,
) -> None:
    """Remove a bot: it leaves the rolling ladders and gets no new matches. Versions
    with recorded matches are kept, marked removed, and their results stay.

    Asks for confirmation; without a terminal, pass --yes."""
    from league.store.registry import get_bot, remove_bot
    from league.store.rolling_ladders import leave_ladders

    with transaction(ctx, create=False) as session:
        get_bot(session=session, name=name)  # a clear error before asking
    _confirm_removal(name, yes=yes)
    with transaction(ctx, create=False) as session:
        count = remove_bot(session=session, name=name)
        ladders = leave_ladders(session=session, name=name)
    typer.echo(f"removed {name} ({count} version{'s' if count != 1 else ''})")
    if ladders:
        typer.echo(f"{name} left the rolling ladder(s) {', '.join(ladders)}")


def _confirm_removal(name: str, *, yes: bool) -> None:
    """Ask on the terminal unless ``yes``; with no terminal, refuse as not confirmed
    (exit 1): a script must say --yes rather than remove a bot because its input
    happened to say y."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise fail(f"not removing {name!r}: no terminal to confirm on; pass --yes", 1)
    if not typer.confirm(
        f"Remove bot {name!r} (it leaves its rolling ladders; results stay)?", default=False
    ):
        raise fail(f"not removing {name!r}", 1)
