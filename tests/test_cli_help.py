"""``arena --help`` groups the commands by task and builds none of them; every option
and argument of every command says what it is (issue 43, item 4)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
import typer
import typer.main
from typer.core import TyperArgument, TyperGroup

from league.cli import app
from league.cli.lazy import ENTRIES, PANELS, build
from tests.test_lazy_imports import _modules_after, _run_cli
from tests.test_no_tracebacks import ARENA


def every_command() -> Iterator[tuple[str, Any]]:
    """``(path, command)`` of ``arena`` and every command and group under it, each
    built as its line would build it (a group's ``list_commands``/``get_command``)."""

    def walk(command: Any, path: str, ctx: Any) -> Iterator[tuple[str, Any]]:
        yield path, command
        if isinstance(command, TyperGroup):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None, f"{path} {name}"
                yield from walk(sub, f"{path} {name}", ctx)

    root = typer.main.get_command(app)
    yield from walk(root, "arena", root.make_context("arena", [], resilient_parsing=True))


def test_every_option_and_argument_has_help() -> None:
    commands = list(every_command())
    assert len(commands) > 40
    missing = [
        f"{path}: {'/'.join(getattr(param, 'opts', ())) or param.name}"
        for path, command in commands
        for param in command.params
        if not (getattr(param, "help", None) or "").strip()
    ]
    assert missing == []


def test_the_walk_sees_an_option_without_help() -> None:
    sample = typer.Typer()

    @sample.command()
    def bare(count: int = 1, name: str = typer.Argument("x", help="Has help.")) -> None:
        """A command with one option left bare."""

    params = typer.main.get_command(sample).params
    assert [p.name for p in params if not (getattr(p, "help", None) or "").strip()] == ["count"]
    assert any(isinstance(p, TyperArgument) for p in params)


def test_help_lists_the_commands_by_task_from_the_panels() -> None:
    shown = subprocess.run([ARENA, "--help"], capture_output=True, text=True, check=True).stdout
    headings = [line[:-1] for line in shown.splitlines() if line.endswith(":") and line[0] != " "]
    assert headings == ["Options", *(panel.title for panel in PANELS)], shown
    for panel in PANELS:
        block = shown.split(f"\n{panel.title}:\n", 1)[1].split("\n\n", 1)[0]
        assert [line.split()[0] for line in block.splitlines()] == [
            entry.name for entry in panel.entries
        ]
        for entry in panel.entries:
            assert entry.summary in block, (entry.name, block)  # one line, never cut


def test_every_entry_builds_the_command_its_module_defines() -> None:
    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    ctx = root.make_context("arena", [], resilient_parsing=True)
    assert root.list_commands(ctx) == list(ENTRIES)
    for name, entry in ENTRIES.items():
        command = build(entry)
        assert command.name == name
        assert (command.help or "").strip(), name
        assert len(entry.summary) <= 45, f"{name}: its --help line would wrap"


@pytest.mark.parametrize("args", [("--help",), ()], ids=["arena --help", "arena"])
def test_the_help_imports_no_command_module(args: tuple[str, ...]) -> None:
    """Start-up: listing the commands loads the group and the shared options only;
    each command's module (and its typer signature) waits for its command."""
    modules = _modules_after(_run_cli(*args))
    loaded = sorted(m for m in modules if m.startswith("league.cli."))
    assert loaded == ["league.cli.common", "league.cli.lazy"]


def test_a_command_loads_only_its_own_module() -> None:
    modules = _modules_after(_run_cli("rerun", "--help"))
    loaded = sorted(m for m in modules if m.startswith("league.cli."))
    assert loaded == ["league.cli.common", "league.cli.lazy", "league.cli.rerun"]


def test_a_mistyped_command_is_offered_the_close_names() -> None:
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["replya"])
    assert result.exit_code == 2
    assert "No such command 'replya'. Did you mean 'replay'" in result.output
