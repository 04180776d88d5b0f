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
        engine="referee.games.dice_poker:DICE_POKER",
        codec="referee.wire.dice_poker:CODEC",
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


def _listing(env: dict[str, str]) -> list[str]:
    code = (
        "import json, sys; sys.argv = ['arena', 'games', '--json']\n"
        "import contextlib, io\n"
        "from league.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        "    main()\n"
        "print(json.dumps([g['name'] for g in json.loads(out.getvalue())]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, **env},
    )
    names: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return names


def test_arena_games_lists_the_plugins_named_in_the_environment() -> None:
    assert _listing({catalogue.PLUGINS_ENV: ""}) == list(BUILTIN_GAMES)
    plugin = "tests.game_plugins.three_card_bluff"
    assert _listing({catalogue.PLUGINS_ENV: plugin}) == [*BUILTIN_GAMES, "three_card_bluff"]


def test_a_plugin_package_is_found_by_scanning_its_parent() -> None:
    found = catalogue.load_plugin_package("tests.game_plugins")
    assert "tests.game_plugins.three_card_bluff" in found
    assert "three_card_bluff" in catalogue.game_names()


@pytest.mark.parametrize("name", registered_games())
def test_each_registration_names_an_sdk_module_with_the_bot_authors_surface(name: str) -> None:
    module = importlib.import_module(get_entry(name).sdk)
    for attribute in ("Action", "Observation", "legal_actions", "is_legal"):
        assert hasattr(module, attribute), f"{module.__name__} has no {attribute}"
    game = catalogue.get_game(name)
    assert game.name == name
