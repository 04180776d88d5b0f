"""The toy games of the test suite, one sub-package per game, installed for the session.

Each sub-package has the layout of a built-in game (``referee/games/<game>/``) and an
``ENTRY`` in its ``__init__``. The suite installs them the way any game is installed:
:func:`install` writes a distribution's metadata declaring an entry point for each in
the ``bluff_arena.games`` group, in a directory put on the path of this process and
of every process it starts (bots in their sandbox too), so the catalogue discovers
them like an installed package. The generic suites (conformance, leaks, PettingZoo,
codecs) iterate :func:`registered_games` and so cover a game dropped in here.
"""

from __future__ import annotations

import os
import pkgutil
import sys
from pathlib import Path

from referee.core import catalogue

DISTRIBUTION = "bluff-arena-test-games"
ROOT = Path(__file__).resolve().parents[2]


def install(site: Path) -> Path:
    """Declare every toy game here as an installed game, in ``site``; put ``site`` on the
    path (``sys.path`` and ``PYTHONPATH``). Return ``site``."""
    info = site / f"{DISTRIBUTION.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: 0.1\n")
    points = [
        f"{module.name} = {__name__}.{module.name}"
        for module in pkgutil.iter_modules(__path__)
        if module.ispkg
    ]
    (info / "entry_points.txt").write_text(
        f"[{catalogue.ENTRY_POINT_GROUP}]\n" + "\n".join(points) + "\n"
    )
    sys.path.append(str(site))
    # The games' modules are under the repository's tests/: on the path too, so that a
    # process started anywhere (a CLI call in a temporary directory) can load them.
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join([*paths, str(site), str(ROOT)])
    return site


def registered_games() -> list[str]:
    """Every game in the catalogue, built-in and installed, sorted by name."""
    return sorted(catalogue.game_names())
