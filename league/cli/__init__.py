"""The ``arena`` command line. Commands parse input and call library code."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from league.cli import (
    authors,
    bots,
    exploit,
    leagues,
    match,
    play,
    replay,
    rerun,
    rolling,
    serve,
    sprt,
)
from league.cli.common import EXIT_INTERRUPTED, EXIT_USAGE, Context, context_of

app = typer.Typer(
    name="arena",
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


app.command("replay")(replay.replay_command)
app.add_typer(bots.app, name="bot")
app.add_typer(leagues.app, name="league")
app.command("serve")(serve.serve_command)
app.add_typer(authors.app, name="author")
app.command("submit")(authors.submit_command)
app.add_typer(rolling.app, name="rolling")
app.command("sprt")(sprt.sprt_command)


@app.command("games")
def games_command(
    game: Annotated[
        str | None,
        typer.Argument(metavar="GAME", help="Only this game (with --describe: its fields)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    describe: Annotated[
        bool,
        typer.Option(
            "--describe",
            help="Print GAME's observation and action fields: types, meanings, an example.",
        ),
    ] = False,
    write_docs: Annotated[
        Path | None,
        typer.Option(
            "--write-docs",
            metavar="DIR",
            help="Write every game's field reference to DIR/<game>.md (docs/games/).",
        ),
    ] = None,
) -> None:
    """List the games with their seat counts and rule options (with defaults).

    With GAME --describe: the fields of GAME's observation and actions, as
    docs/games/GAME.md has them.
    """
    if describe or write_docs is not None:
        _describe_games(game, describe=describe, write_docs=write_docs, as_json=as_json)
        return
    from referee.core.catalogue import entries, get_game

    names = [entry.name for entry in entries()]
    if game is not None and game not in names:
        raise typer.BadParameter(
            f"unknown game {game!r}; the games are: {', '.join(names)}", param_hint="GAME"
        )
    listing = [
        {
            "name": game.name,
            "title": game.title,
            "min_seats": game.min_seats,
            "max_seats": game.max_seats,
            "options": [
                {
                    "name": option.name,
                    "default": option.format(option.default),
                    "values": option.describe_values(),
                    "doc": option.doc,
                }
                for option in game.options
            ],
        }
        for game in (get_game(name) for name in names if game in (None, name))
    ]
    if as_json:
        typer.echo(json.dumps(listing, indent=2))
        return
    for entry in listing:
        typer.echo(
            f"{entry['name']}  —  {entry['title']}"
            f"  ({entry['min_seats']}–{entry['max_seats']} seats)"
        )
        for option in entry["options"]:  # type: ignore[attr-defined]
            typer.echo(
                f"    {option['name']} = {option['default']}  [{option['values']}]\n"
                f"        {option['doc']}"
            )


def _describe_games(
    game: str | None, *, describe: bool, write_docs: Path | None, as_json: bool
) -> None:
    """``--describe`` and ``--write-docs``: the field reference of sdk/describe.py
    (with ``--json``, the reference's fields as JSON, not its Markdown page)."""
    from sdk import describe as reference  # the SDK and its engines: only this option

    if write_docs is not None:
        for path in reference.write_docs(write_docs):
            typer.echo(f"wrote {path}")
    if not describe:
        return
    if game is None:
        raise typer.BadParameter("--describe needs a GAME (arena games lists them)")
    try:
        doc = reference.describe_game(game)
        if as_json:
            typer.echo(json.dumps(dataclasses.asdict(doc), indent=2))
        else:
            typer.echo(reference.render_markdown(doc))
    except reference.UnknownGameError as error:
        raise typer.BadParameter(str(error), param_hint="GAME") from None


app.command("match")(match.match_command)
app.command("rerun")(rerun.rerun_command)
app.command("play")(play.play_command)
app.command("exploit")(exploit.exploit_command)


@app.command("demo")
def demo_command(
    ctx: typer.Context,
    rounds: Annotated[int, typer.Option(min=1, help="Round-robin repetitions per game.")] = 5,
    concurrency: Annotated[int, typer.Option(min=1, help="Matches at a time.")] = 2,
) -> None:
    """Register the example bots, run a small league per game, print the standings."""
    from league.execution.demo import run_demo
    from league.store.db import redact, resolve_url

    engine = context_of(ctx).engine()
    typer.echo(f"database: {redact(resolve_url(context_of(ctx).db_url))}")
    for league, summary in run_demo(
        engine,
        rounds=rounds,
        concurrency=concurrency,
        on_progress=lambda _name: leagues.ProgressPrinter(),
    ):
        typer.echo(
            f"\n== {league}: {summary.played} matches played now,"
            f" {summary.remaining} remaining ({summary.elapsed_s:.1f} s)"
        )
        leagues.standings_command(ctx, league, samples=500, los=True, as_json=False)


def main() -> None:
    """Entry point of the ``arena`` script."""
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
