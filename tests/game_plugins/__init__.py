"""Games registered outside ``referee/core/catalogue.py``: one sub-package per game.

Each sub-package registers its game when imported (``catalogue.register``).
:func:`registered_games` imports them all, so the generic suites (conformance,
leaks, PettingZoo, codecs) cover a game dropped in here without being edited.
"""

from __future__ import annotations

from referee.core import catalogue


def registered_games() -> list[str]:
    """Every game in the catalogue, built-in and plugin, sorted by name."""
    catalogue.load_plugin_package(__name__)
    return sorted(catalogue.game_names())
