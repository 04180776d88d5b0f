"""The ``sdk.<game>`` facades: a bot author's whole view of a game (issue 20).

Each facade re-exports the engine's own objects (one implementation of the
rules, no copies), names everything in ``__all__``, and lists it in its module
docstring, so ``help(sdk.liars_dice)`` is the table of contents.
"""

from __future__ import annotations

import importlib
import random
import re
from types import FunctionType, ModuleType

import pytest

import sdk
from referee.core.catalogue import get_game
from referee.core.playout import random_playout
from referee.gamekit.base import RulesError
from tests.game_plugins import registered_games

FACADES = {
    "sdk.liars_dice": (
        "referee.games.liars_dice.engine",
        "referee.gamekit.dice",
        "referee.gamekit.base",
    ),
    "sdk.liars_poker_dice": (
        "referee.games.liars_poker_dice.engine",
        "referee.gamekit.poker_dice",
        "referee.gamekit.base",
    ),
    "sdk.dice_poker": (
        "referee.games.dice_poker.engine",
        "referee.gamekit.poker_dice",
        "referee.gamekit.base",
    ),
    "sdk.cockroach_poker": (
        "referee.games.cockroach_poker.engine",
        "referee.gamekit.cards",
        "referee.gamekit.base",
    ),
    "sdk.liars_poker": (
        "referee.games.liars_poker.engine",
        "referee.gamekit.poker_hands",
        "referee.gamekit.cards",
        "referee.gamekit.base",
    ),
}


def _facade(name: str) -> ModuleType:
    return importlib.import_module(name)


@pytest.mark.parametrize("name", sorted(FACADES))
def test_every_exported_name_exists_and_is_listed_in_the_docstring(name: str) -> None:
    facade = _facade(name)
    doc = facade.__doc__ or ""
    assert len(set(facade.__all__)) == len(facade.__all__), f"{name}: duplicates in __all__"
    for exported in facade.__all__:
        assert getattr(facade, exported, None) is not None, f"{name}.{exported} is missing"
        assert re.search(rf"\b{re.escape(exported)}\b", doc), f"{name}: {exported} not in docstring"


@pytest.mark.parametrize("name", sorted(FACADES))
def test_re_exported_names_are_the_engines_own_objects(name: str) -> None:
    facade = _facade(name)
    engines = [importlib.import_module(module) for module in FACADES[name]]
    re_exported = 0
    for exported in facade.__all__:
        value = getattr(facade, exported)
        owners = [engine for engine in engines if exported in vars(engine)]
        if owners:
            assert value is getattr(owners[0], exported), f"{name}.{exported} is a copy"
            re_exported += 1
        elif isinstance(value, type | FunctionType):  # an SDK helper, built on the engine
            # (its own, or the legality pair every facade binds: sdk.legality)
            assert value.__module__ in (name, "sdk.legality"), (
                f"{name}.{exported} comes from {value.__module__}"
            )
    assert re_exported > len(facade.__all__) // 2


@pytest.mark.parametrize("name", sorted(FACADES))
def test_each_facade_offers_the_engine_its_state_and_its_error(name: str) -> None:
    facade = _facade(name)
    engine_module = importlib.import_module(FACADES[name][0])
    game = next(
        value
        for key, value in vars(facade).items()
        if key.isupper() and getattr(value, "name", None) == name.removeprefix("sdk.")
    )
    assert game.name == name.removeprefix("sdk.")
    assert facade.State is engine_module.State
    assert issubclass(facade.GameError, Exception)
    assert {"legal_actions", "is_legal", "Observation", "Action", "Rules"} <= set(facade.__all__)


@pytest.mark.parametrize("name", registered_games())
def test_the_generic_legality_pair_answers_for_any_game(name: str) -> None:
    """``sdk.legal_actions``/``sdk.is_legal`` find the game from the observation, for
    every game of the catalogue (the plugins too), and agree with the engine."""
    game = get_game(name)
    rules = game.default_rules()
    seats = max(game.min_seats, min(game.max_seats, 3))
    playout = random_playout(game, rules, seats, random.Random(7))
    asked = 0
    for state in playout.states[:40]:
        for seat in range(seats):
            observation = game.observe(state, seat)
            legal = sdk.legal_actions(observation)
            assert legal == list(game.legal_actions(observation))
            if legal:
                asked += 1
                assert sdk.is_legal(observation, legal[-1])
                assert not sdk.is_legal(observation, "not an action")
    assert asked


def test_the_generic_pair_refuses_what_is_no_observation() -> None:
    with pytest.raises(RulesError, match="tuple is not the observation of a registered game"):
        sdk.legal_actions((1, 2))
