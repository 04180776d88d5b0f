"""Games registered outside ``referee/core/catalogue.py``: one sub-package per game.

Each sub-package registers its game when imported (``catalogue.register``).
:func:`registered_games` imports them all, so the generic suites (conformance,
leaks, PettingZoo, codecs) cover a game dropped in here without being edited.
"""

from __future__ import annotations

import importlib
from typing import Any

from referee.core import catalogue


def registered_games() -> list[str]:
    """Every game in the catalogue, built-in and plugin, sorted by name."""
    catalogue.load_plugin_package(__name__)
    return sorted(catalogue.game_names())


def plugin_leak_rules() -> dict[str, tuple[Any, ...]]:
    """Per plugin game: its ``leak_rules.LEAK_RULES`` (the leak suite's ``Spec`` fields:
    owners, knowledge and optionally public), written from its rules."""
    found = {}
    for package in catalogue.load_plugin_package(__name__):
        name = importlib.import_module(package).ENTRY.name
        found[name] = importlib.import_module(f"{package}.leak_rules").LEAK_RULES
    return found
