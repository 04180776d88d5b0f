"""The ``arena`` command line: listings, a real match, and clear errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from referee.core.catalogue import game_names
from referee.records.record import MatchRecord

runner = CliRunner()
RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
PROBABILITY = f"{sys.executable} -m example_bots.liars_dice_probability"


def test_games_lists_every_game_with_options_and_defaults() -> None:
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    for name in game_names():
        assert name in result.output
    assert "dice_per_player = 5" in result.output


def test_games_json_is_machine_readable() -> None:
    result = runner.invoke(app, ["games", "--json"])
    assert result.exit_code == 0
    listing = json.loads(result.output)
    liars = next(entry for entry in listing if entry["name"] == "liars_dice")
    options = {o["name"]: o["default"] for o in liars["options"]}
    assert options["dice_per_player"] == "5"
    assert options["wild_face"] == "none"


def test_games_with_a_name_lists_that_game_only() -> None:
    result = runner.invoke(app, ["games", "dice_poker", "--json"])
    assert result.exit_code == 0, result.output
    assert [entry["name"] for entry in json.loads(result.output)] == ["dice_poker"]


def test_an_unknown_game_is_named_as_unknown() -> None:
    result = runner.invoke(app, ["games", "nosuch"])
    assert result.exit_code == 2
    assert "unknown game 'nosuch'; the games are: liars_dice" in result.output
    assert "--describe" not in result.output.split("Error:")[-1]


@pytest.mark.e2e
def test_match_runs_real_bots_and_writes_the_record(tmp_path: Path) -> None:
    out = tmp_path / "match.json"
    result = runner.invoke(
        app,
        [
            "match",
            "--game",
            "liars_dice",
            "--bot",
            PROBABILITY,
            "--bot",
            RANDOM,
            "--seed",
            "3",
            "--rule",
            "wild_face=1",
            "--record",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "result (completed" in result.output
    assert "chance: round 1 roll" in result.output
    record = MatchRecord.from_json(out.read_text())
    assert record.rules["wild_face"] == "1"
    assert record.seed == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "chess", "--bot", RANDOM, "--bot", RANDOM], "unknown game 'chess'"),
        (["--game", "liars_dice", "--bot", RANDOM], "needs 2..10 seats, got 1"),
        (
            ["--game", "liars_dice", "--bot", RANDOM, "--bot", RANDOM, "--rule", "wild_face=7"],
            "rule wild_face='7'",
        ),
        (
            ["--game", "liars_dice", "--bot", RANDOM, "--bot", RANDOM, "--rule", "colour=red"],
            "unknown rule option(s) for liars_dice: colour",
        ),
        (
            ["--game", "liars_dice", "--bot", RANDOM, "--bot", RANDOM, "--rule", "wild_face"],
            "expected key=value",
        ),
        (
            [
                "--game",
                "liars_dice",
                "--bot",
                RANDOM,
                "--bot",
                RANDOM,
                "--rule",
                "dice_per_player=x",
            ],
            "expected a whole number",
        ),
        (["--game", "liars_dice", "--bot", "", "--bot", RANDOM], "empty bot command"),
        (
            ["--game", "liars_dice", "--bot", RANDOM, "--bot", RANDOM, "--time-limit", "0"],
            "time-limit",
        ),
    ],
)
def test_match_rejects_bad_input_clearly(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["match", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_unknown_command_fails() -> None:
    result = runner.invoke(app, ["frobnicate"])
    assert result.exit_code != 0


@pytest.mark.parametrize(
    "command",
    [
        "bot check nobody -g liars_dice",
        "exploit nobody -g liars_dice -r dice_per_player=1 -r roll_off=false",
    ],
    ids=["bot check", "exploit"],
)
def test_an_unregistered_name_is_one_line_that_says_what_bot_may_be(
    tmp_path: Path, command: str
) -> None:
    """Both commands read BOT through one lookup (league.cli.common.registered_bot):
    a word that names no file and no registered bot, in a database that exists."""
    db = ["--db", f"sqlite:///{tmp_path / 'arena.db'}"]
    add = ["bot", "add", "somebody", "--cmd", "x", "-g", "liars_dice", "--no-check"]
    added = runner.invoke(app, [*db, *add])
    assert added.exit_code == 0, added.output
    result = runner.invoke(app, [*db, *command.split()])
    assert result.exit_code == 2, result.output
    assert "'nobody' is not a registered bot" in result.output
    assert "a command line such as" in result.output and "Traceback" not in result.output


def test_every_command_names_its_arguments_in_capitals() -> None:
    """Usage lines read ``arena sprt [OPTIONS] {NEW} {OLD}`` (braces: required), not the
    parameter names ``{new} {old}``; a match is ``{LEAGUE-N}`` wherever one is named."""
    from typer.core import TyperArgument

    from tests.test_cli_help import every_command

    every = list(every_command())
    assert len(every) > 30
    lower = [
        f"{path}: {param.name}"
        for path, command in every
        for param in command.params
        if isinstance(param, TyperArgument)
        and (not param.metavar or param.metavar != param.metavar.upper())
    ]
    assert lower == []
    named = {
        path: param.metavar
        for path, command in every
        for param in command.params
        if isinstance(param, TyperArgument) and param.name == "match"
    }
    assert named == {
        "arena replay": "LEAGUE-N|FILE",
        "arena rerun": "LEAGUE-N",
        "arena league logs": "LEAGUE-N",
    }
