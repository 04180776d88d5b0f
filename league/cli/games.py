"""``arena games``: the games this checkout has, their seats and rule options, and
(``--describe``) each game's observation and action fields."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated

import typer


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
