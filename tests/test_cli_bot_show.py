"""``arena bot show`` prints only the fields a bot has (issue 43, item 4: it printed
empty ``address:``, ``token_env:`` ... lines); ``--json`` keeps every field for a
machine."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from league.cli import app

runner = CliRunner()


def arena(db: Path, *args: str) -> str:
    result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def keys(text: str) -> list[str]:
    return [line.split(":", 1)[0].strip() for line in text.splitlines()]


def test_a_started_bot_shows_its_command_and_no_empty_field(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    arena(db, "bot", "add", "random", "--cmd", "python -m example_bots.liars_dice_random",
          "-g", "liars_dice", "--no-check")  # fmt: skip
    shown = arena(db, "bot", "show", "random")
    assert keys(shown) == ["name", "version", "games", "command", "created_at"]
    assert all(line.split(":", 1)[1].strip() for line in shown.splitlines())
    assert "  command: python -m example_bots.liars_dice_random" in shown


def test_a_service_shows_its_address_and_token_source(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    arena(db, "bot", "add", "svc", "--address", "localhost:5000", "-g", "liars_dice",
          "--token-env", "SVC_TOKEN", "--no-check")  # fmt: skip
    assert keys(arena(db, "bot", "show", "svc")) == [
        "name",
        "version",
        "games",
        "address",
        "token_env",
        "created_at",
    ]


def test_json_keeps_every_field(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    arena(db, "bot", "add", "random", "--cmd", "python -m example_bots.liars_dice_random",
          "-g", "liars_dice", "--no-check")  # fmt: skip
    data = json.loads(arena(db, "bot", "show", "random", "--json"))
    assert data["address"] == "" and data["retired"] is False and data["tls_ca"] == ""
