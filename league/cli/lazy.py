"""``arena``'s commands, grouped by task, each loaded only when it is used.

``arena --help`` lists the commands under the task they serve, in the order an author
meets them (write a bot, learn from its matches, measure it, publish it) from
:data:`PANELS`, without importing a command's module or building its options: typer
builds a command's options from its function's signature (evaluating every
annotation), which for all of ``arena``'s commands took most of ``arena --help``'s
start-up. :class:`ArenaGroup` builds only the command a line names.

Each entry names its command as ``module:attribute`` (a command function, or the
``typer.Typer`` of a command group) and the line ``arena --help`` shows for it;
tests/test_cli_help.py checks that every entry loads and that the lines fit.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Any

import typer
import typer.main
from typer import _click as click  # the click typer builds on (its own copy)
from typer._click.exceptions import UsageError
from typer.core import TyperGroup


@dataclass(frozen=True, slots=True)
class Entry:
    """One command of ``arena``: its name, where it is, its line in ``arena --help``."""

    name: str
    target: str
    """``module:attribute``: a command function or a ``typer.Typer`` (a group)."""
    summary: str


@dataclass(frozen=True, slots=True)
class Panel:
    """Commands that serve one task, under one heading of ``arena --help``."""

    title: str
    entries: tuple[Entry, ...]


PANELS: tuple[Panel, ...] = (
    Panel(
        "Start here",
        (
            Entry("games", "league.cli.games:games_command", "The games, their seats and rules."),
            Entry("demo", "league.cli.demo:demo_command", "Example bots play a league per game."),
        ),
    ),
    Panel(
        "Write and try a bot",
        (
            Entry("bot", "league.cli.bots:app", "New bot project, check, register, list."),
            Entry("match", "league.cli.match:match_command", "One match between bots."),
            Entry("play", "league.cli.play:play_command", "Play a bot yourself."),
        ),
    ),
    Panel(
        "Learn from a match",
        (
            Entry("replay", "league.cli.replay:replay_command", "Replay, verify, export it."),
            Entry("rerun", "league.cli.rerun:rerun_command", "Its deal again, your new bot in."),
        ),
    ),
    Panel(
        "Measure strength",
        (
            Entry("sprt", "league.cli.sprt:sprt_command", "Is a new version stronger? (SPRT)"),
            Entry("league", "league.cli.leagues:app", "Round-robin leagues, ratings, logs."),
            Entry("rolling", "league.cli.rolling:app", "Ladders that never end."),
            Entry("exploit", "league.cli.exploit:exploit_command", "What a best response wins."),
        ),
    ),
    Panel(
        "Publish on a server",
        (
            Entry("submit", "league.cli.authors:submit_command", "Send a bot to a server."),
            Entry("serve", "league.cli.serve:serve_command", "Run the web server."),
            Entry("author", "league.cli.authors:app", "Who may submit (the operator's)."),
        ),
    ),
)
ENTRIES: dict[str, Entry] = {entry.name: entry for panel in PANELS for entry in panel.entries}


def load(entry: Entry) -> Any:
    """The command function or ``typer.Typer`` an entry names (importing its module)."""
    module, _, attribute = entry.target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def build(entry: Entry) -> click.Command:
    """The click command typer builds for an entry's function or group."""
    target = load(entry)
    if not isinstance(target, typer.Typer):
        single = typer.Typer(add_completion=False, rich_markup_mode=None)
        single.command(entry.name)(target)
        target = single
    command = typer.main.get_command(target)
    command.name = entry.name
    return command


class ArenaGroup(TyperGroup):
    """``arena`` itself: the commands of :data:`PANELS`, each built on first use;
    ``--help`` lists them by panel from the entries alone."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._built: dict[str, click.Command] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*ENTRIES, *super().list_commands(ctx)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = ENTRIES.get(cmd_name)
        if entry is None:
            return super().get_command(ctx, cmd_name)
        if cmd_name not in self._built:
            self._built[cmd_name] = build(entry)
        return self._built[cmd_name]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        for panel in PANELS:
            with formatter.section(panel.title):
                formatter.write_dl([(entry.name, entry.summary) for entry in panel.entries])

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except UsageError as error:
            # typer suggests close names from ``self.commands``, which holds none of ours.
            close = difflib.get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if close and "Did you mean" not in error.message:
                suggestions = ", ".join(repr(name) for name in close)
                error.message = f"{error.message.rstrip('.')}. Did you mean {suggestions}?"
            raise
