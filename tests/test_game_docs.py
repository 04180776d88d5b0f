"""The per-game field reference (sdk/describe.py, docs/games/) matches the SDK's dataclasses."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from referee.core.catalogue import BUILTIN_GAMES, entries
from sdk.describe import attribute_docstrings, describe_game, expected_docs, format_type

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "games"


def test_the_committed_game_docs_equal_the_generator_output() -> None:
    """Drift check, like the proto check: regenerate with `make docs` when this fails.

    The built-in games only: a plugin game (the toy game of tests/game_plugins, which
    other tests register in this process) documents itself where it is shipped.
    """
    expected = expected_docs(BUILTIN_GAMES)
    committed = {path.name: path.read_text(encoding="utf-8") for path in DOCS.glob("*.md")}
    assert sorted(committed) == sorted(expected), "docs/games/ has stale or missing files"
    for name, text in expected.items():
        assert committed[name] == text, f"docs/games/{name} is stale: run `make docs`"


def test_every_catalogued_game_has_a_page() -> None:
    assert set(expected_docs()) == {f"{entry.name}.md" for entry in entries()}


@pytest.mark.parametrize("game", BUILTIN_GAMES)
def test_every_field_of_a_builtin_game_has_a_meaning(game: str) -> None:
    """An undocumented field fails here: give it an attribute docstring in its class."""
    doc = describe_game(game)
    missing = [
        f"{part.name}.{field.name}"
        for part in (doc.observation, *doc.actions, *doc.parts)
        if not part.is_enum  # members are named for what they mean
        for field in part.fields
        if not field.meaning
    ]
    assert not missing, f"{game}: fields without a docstring: {', '.join(missing)}"


def test_a_plugin_game_is_described_from_its_own_sdk_module() -> None:
    page = expected_docs(["three_card_bluff"])["three_card_bluff.md"]
    assert "`card` | `int \\| None` | The observer's own card" in page
    assert "`Action` is `Claim | Believe | Call`." in page


@dataclass
class _Documented:
    plain: int
    described: tuple[int, ...]
    """How many there are."""
    optional: str | None = None
    """Either a name or nothing."""


def test_attribute_docstrings_are_read_from_the_class_body() -> None:
    assert attribute_docstrings(_Documented) == {
        "described": "How many there are.",
        "optional": "Either a name or nothing.",
    }
    assert format_type(tuple[int, ...]) == "tuple[int, ...]"
    assert format_type(str | None) == "str | None"


def test_the_liars_dice_reference_names_fields_types_meanings_and_an_example() -> None:
    doc = describe_game("liars_dice")
    fields = {f.name: f for f in doc.observation.fields}
    assert fields["own_dice"].type == "tuple[int, ...]"
    assert "order rolled" in fields["own_dice"].meaning
    assert [action.name for action in doc.actions] == ["Bid", "SumBid", "Challenge"]
    assert "RoundResult" in {part.name for part in doc.parts}
    assert doc.example.startswith("Observation(")


def test_arena_games_describe_prints_the_page() -> None:
    result = CliRunner().invoke(app, ["games", "liars_dice", "--describe"])
    assert result.exit_code == 0, result.output
    assert result.output == (DOCS / "liars_dice.md").read_text(encoding="utf-8") + "\n"


def test_arena_games_describe_json_is_the_reference_as_json() -> None:
    result = CliRunner().invoke(app, ["games", "liars_dice", "--describe", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["name"] == "liars_dice" and doc["sdk"] == "sdk.liars_dice"
    assert "own_dice" in {field["name"] for field in doc["observation"]["fields"]}
    assert [action["name"] for action in doc["actions"]] == ["Bid", "SumBid", "Challenge"]


def test_an_unknown_game_is_one_line_and_no_traceback() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "league.cli", "games", "no_such_game", "--describe"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert "unknown game 'no_such_game'" in run.stderr


def test_write_docs_writes_every_page(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["games", "--write-docs", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(expected_docs())


def test_the_count_to_add_a_game_is_the_one_the_guide_states() -> None:
    """docs/adding-a-game.md states how many files and lines Kuhn Poker took; count them."""
    package = ROOT / "tests" / "installed_game"
    files = [p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    generated = [p for p in files if "_pb2" in p.name]
    golden = [p for p in files if p.name.startswith("golden_")]
    written = [p for p in files if p not in generated and p not in golden]
    lines = sum(len(p.read_text().splitlines()) for p in written)
    guide = (ROOT / "docs" / "adding-a-game.md").read_text()
    table = guide.split("<!-- counted -->")[1].split("<!-- /counted -->")[0]
    assert f"| {len(written)} | {lines} |" in table, (len(written), lines, table)
    assert f"| {len(generated)} | |" in table.split("generated")[1].splitlines()[0]
    assert f"| {len(golden)} | |" in table.split("golden files")[1].splitlines()[0]
