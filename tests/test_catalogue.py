"""The game catalogue: registrations, rosters, and how plugin games are found."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core import catalogue
from referee.core.catalogue import (
    BUILTIN_GAMES,
    CatalogueError,
    GameEntry,
    Roster,
    get_entry,
    register,
)
from tests.game_plugins import registered_games

ROOT = Path(__file__).resolve().parent.parent


def test_the_five_builtin_games_are_registered_in_listing_order() -> None:
    assert BUILTIN_GAMES == (
        "liars_dice",
        "liars_poker_dice",
        "dice_poker",
        "cockroach_poker",
        "liars_poker",
    )
    assert catalogue.game_names()[:5] == BUILTIN_GAMES


def test_a_roster_orders_check_demo_and_ladder_bots() -> None:
    roster = Roster("r", "h", strong="s", counters=("c1", "c2"))
    assert roster.check == ("r", "h")
    assert roster.demo == ("r", "c1", "c2", "h")
    assert roster.ladder == ("r", "c1", "c2", "h", "s")
    assert Roster("r", "h").ladder == ("r", "h")


def test_registering_again_is_harmless_but_a_taken_name_is_refused() -> None:
    entry = get_entry("liars_dice")
    assert register(entry) is entry
    with pytest.raises(CatalogueError, match="'liars_dice' is already registered"):
        register(dataclasses.replace(entry, title="Something else"))
    assert get_entry("liars_dice") is entry


def test_a_registration_naming_another_games_engine_or_codec_is_refused() -> None:
    wrong = dataclasses.replace(
        get_entry("liars_dice"),
        name="not_liars_dice",
        engine="referee.games.dice_poker.engine:DICE_POKER",
        codec="referee.games.dice_poker.codec:CODEC",
    )
    register(wrong)
    try:
        with pytest.raises(CatalogueError, match="registered with the engine of 'dice_poker'"):
            catalogue.get_game("not_liars_dice")
        with pytest.raises(CatalogueError, match="registered with the codec of 'dice_poker'"):
            catalogue.get_codec("not_liars_dice")
    finally:
        catalogue._ENTRIES.pop("not_liars_dice")


def test_every_builtin_registration_loads_what_it_names() -> None:
    for name in BUILTIN_GAMES:
        entry = get_entry(name)
        assert isinstance(entry, GameEntry)
        assert catalogue.get_game(name).name == name
        assert catalogue.action_universe(name)(catalogue.get_game(name).default_rules(), 2)
        assert entry.roster is not None and entry.viewer.renderer == name


def _arena_games(site: Path | None) -> subprocess.CompletedProcess[str]:
    """``arena games --json`` in a fresh process, with ``site`` on its path."""
    code = "import sys\nsys.argv = ['arena', 'games', '--json']\n"
    code += "from league.cli import main\nmain()\n"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=ROOT,
        env=env,
    )


def _listing(site: Path | None) -> list[str]:
    done = _arena_games(site)
    assert done.returncode == 0, done.stderr
    return [game["name"] for game in json.loads(done.stdout)]


def installed(site: Path, distribution: str, point: str, value: str) -> Path:
    """Install (as pip would) a distribution that only declares ``point = value`` in the
    ``bluff_arena.games`` entry point group; return ``site``, to put on the path."""
    info = site / f"{distribution}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{catalogue.ENTRY_POINT_GROUP}]\n{point} = {value}\n")
    return site


def test_an_installed_distribution_adds_its_game_through_its_entry_point(tmp_path: Path) -> None:
    assert _listing(None) == list(BUILTIN_GAMES)
    site = installed(tmp_path, "tcb", "three_card_bluff", "tests.game_plugins.three_card_bluff")
    assert _listing(site) == [*BUILTIN_GAMES, "three_card_bluff"]


def test_a_broken_entry_point_is_named_not_a_traceback(tmp_path: Path) -> None:
    site = installed(tmp_path, "broken_game", "broken", "no_such_module_anywhere")
    done = _arena_games(site)
    assert done.returncode != 0
    assert "entry point 'broken' of broken_game 0.1" in done.stderr
    assert "No module named 'no_such_module_anywhere'" in done.stderr
    assert "Traceback" not in done.stderr
    site = installed(tmp_path / "other", "empty_game", "empty", "json")
    assert "holds no GameEntry" in _arena_games(site).stderr


def test_the_suites_toy_games_are_discovered_as_installed_games() -> None:
    """tests/game_plugins installs its games as entry points (conftest.py): found the
    way any installed game is, after the built-in games."""
    assert catalogue.game_names() == (*BUILTIN_GAMES, "three_card_bluff")
    assert not any(name.startswith("three_card") for name in BUILTIN_GAMES)


def test_a_new_folder_under_referee_games_is_a_built_in_game(tmp_path: Path) -> None:
    """No list of built-in games to edit: the catalogue finds every package there."""
    assert set(BUILTIN_GAMES) == {
        path.parent.name for path in (ROOT / "referee" / "games").glob("*/__init__.py")
    }


@pytest.mark.parametrize("name", registered_games())
def test_each_registration_names_an_sdk_module_with_the_bot_authors_surface(name: str) -> None:
    module = importlib.import_module(get_entry(name).sdk)
    for attribute in ("Action", "Observation", "legal_actions", "is_legal"):
        assert hasattr(module, attribute), f"{module.__name__} has no {attribute}"
    game = catalogue.get_game(name)
    assert game.name == name
