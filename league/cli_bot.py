"""``arena bot``: register, list, show and remove bots."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from league.cli_common import echo_json, echo_table, transaction

if TYPE_CHECKING:
    from league.models import BotRow

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
    name: Annotated[str, typer.Argument(help="Bot name (no spaces).")],
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
    check: Annotated[bool, typer.Option(help="Start it and check that it answers.")] = True,
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
    """Register a bot (a new version if its files changed)."""
    from league.registry import add_bot

    with transaction(ctx) as session:
        row = add_bot(
            session=session,
            name=name,
            command=cmd,
            address=address,
            games=game or [],
            version=version,
            check=check,
            startup_s=startup_timeout,
            token_env=token_env,
            token_file=token_file,
            tls_ca=tls_ca,
        )
        typer.echo(f"registered {row.name} version {row.version} (plays {row.games})")


@app.command("list")
def list_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    all_versions: Annotated[bool, typer.Option("--all", help="Include removed bots.")] = False,
) -> None:
    """List registered bots."""
    from league.registry import list_bots

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
    name: Annotated[str, typer.Argument(help="Bot name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Show one bot (its newest version)."""
    from league.registry import get_bot

    with transaction(ctx) as session:
        data = bot_json(get_bot(session=session, name=name))
        if as_json:
            echo_json(data)
            return
        for key, value in data.items():
            typer.echo(f"{key:>10}: {value}")


@app.command("remove")
def remove_command(
    ctx: typer.Context, name: Annotated[str, typer.Argument(help="Bot name.")]
) -> None:
    """Remove a bot. Versions with recorded matches are kept, marked removed."""
    from league.registry import remove_bot

    with transaction(ctx) as session:
        count = remove_bot(session=session, name=name)
        typer.echo(f"removed {name} ({count} version{'s' if count != 1 else ''})")
