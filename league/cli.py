"""The ``arena`` command line. Commands parse input and call library code."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from league import cli_author, cli_bot, cli_league, cli_replay, cli_rolling, cli_serve
from league.cli_common import (
    SANDBOX_DEFAULTS,
    Context,
    CpuOption,
    CpusOption,
    MemoryOption,
    NoSandboxOption,
    ProcsOption,
    check_sandbox,
    context_of,
    fail,
    parse_rule_options,
    sandbox_config,
)

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
) -> None:
    """Bluff Arena: a referee and league runner for bluffing-game bots."""
    ctx.obj = Context(db_url=db)


app.command("replay")(cli_replay.replay_command)
app.add_typer(cli_bot.app, name="bot")
app.add_typer(cli_league.app, name="league")
app.command("serve")(cli_serve.serve_command)
app.add_typer(cli_author.app, name="author")
app.command("submit")(cli_author.submit_command)
app.add_typer(cli_rolling.app, name="rolling")


@app.command("games")
def games_command(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List the games with their seat counts and rule options (with defaults)."""
    from referee.core.catalogue import entries, get_game

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
        for game in (get_game(entry.name) for entry in entries())
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


@app.command("match")
def match_command(
    game: Annotated[str, typer.Option("--game", "-g", help="Game name (see `arena games`).")],
    bot: Annotated[
        list[str],
        typer.Option("--bot", "-b", help="Bot command line, once per seat in seat order."),
    ],
    seed: Annotated[
        int | None,
        typer.Option(
            help="Draw chance from this seed, for a reproducible local run (guessable:"
            " never for real competition). Default: a fresh secret."
        ),
    ] = None,
    rule: Annotated[
        list[str] | None, typer.Option("--rule", "-r", help="Rule option key=value (repeatable).")
    ] = None,
    time_limit: Annotated[float, typer.Option(help="Seconds per decision.", min=0.001)] = 2.0,
    startup_timeout: Annotated[
        float, typer.Option(help="Seconds a bot has to start.", min=0.001)
    ] = 15.0,
    record: Annotated[
        Path | None, typer.Option(help="Write the match record (JSON) to this file.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only print the result.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the record as JSON.")] = False,
    no_sandbox: NoSandboxOption = False,
    memory_mb: MemoryOption = SANDBOX_DEFAULTS.memory_mb,
    cpu_s: CpuOption = SANDBOX_DEFAULTS.cpu_s,
    max_procs: ProcsOption = SANDBOX_DEFAULTS.max_procs,
    cpus: CpusOption = SANDBOX_DEFAULTS.cpus,
) -> None:
    """Run one match between bot processes over gRPC and print the result.

    Every bot runs in the sandbox (see docs/security.md) unless --no-sandbox.
    """
    from referee.core.catalogue import get_game
    from referee.files import write_atomic
    from referee.games.base import GameError
    from referee.match import Limits, MatchSpec, play_match
    from referee.process import BotSpec
    from referee.transcript import result_lines, transcript_lines

    rules = parse_rule_options(rule or [])
    try:
        engine = get_game(game)
        parsed = engine.parse_rules(rules)
        engine.check_seats(parsed, len(bot))
        bots = tuple(BotSpec.from_command_line(command) for command in bot)
    except (GameError, ValueError) as error:
        raise fail(str(error)) from None
    spec = MatchSpec(game=game, bots=bots, seed=seed, rules=rules)
    limits = Limits(decision_s=time_limit, startup_s=startup_timeout)
    sandbox = sandbox_config(
        no_sandbox=no_sandbox, memory_mb=memory_mb, cpu_s=cpu_s, max_procs=max_procs, cpus=cpus
    )
    check_sandbox(sandbox)
    if record is not None:
        sandbox = replace(sandbox, protect=(str(record.resolve()),))
    result = play_match(spec, limits, sandbox=sandbox)
    if record is not None:
        try:
            write_atomic(record, result.to_json(indent=1).encode())
        except OSError as error:
            raise fail(f"cannot write record to {record}: {error}") from None
    if as_json:
        typer.echo(result.to_json(indent=2))
        raise typer.Exit(3 if result.reason == "aborted" else 0)
    if not quiet:
        typer.echo(
            f"match {result.match_id}: {engine.title}, {result.chance_label}, rules {result.rules}"
        )
        for line in transcript_lines(result):
            typer.echo(line)
        typer.echo("")
    typer.echo(
        f"result ({result.reason}, {len(result.events)} events, {result.duration_ms / 1000:.2f} s):"
    )
    for line in result_lines(result):
        typer.echo(line)
    if result.reason == "aborted":
        raise typer.Exit(3)


@app.command("demo")
def demo_command(
    ctx: typer.Context,
    rounds: Annotated[int, typer.Option(min=1, help="Round-robin repetitions per game.")] = 5,
    concurrency: Annotated[int, typer.Option(min=1, help="Matches at a time.")] = 2,
) -> None:
    """Register the example bots, run a small league per game, print the standings."""
    from league.db import redact, resolve_url
    from league.demo import run_demo

    engine = context_of(ctx).engine()
    typer.echo(f"database: {redact(resolve_url(context_of(ctx).db_url))}")
    for league, summary in run_demo(
        engine,
        rounds=rounds,
        concurrency=concurrency,
        on_progress=lambda _name: cli_league.ProgressPrinter(),
    ):
        typer.echo(
            f"\n== {league}: {summary.played} matches played now,"
            f" {summary.remaining} remaining ({summary.elapsed_s:.1f} s)"
        )
        cli_league.standings_command(ctx, league, samples=500, los=True, as_json=False)


def main() -> None:
    """Entry point of the ``arena`` script."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
