"""The import graph keeps its layers: the import-linter contracts of ``make lint``.

``lint-imports`` reads the contracts from pyproject.toml. These tests run it on the
repository (it must pass) and on a copy with one planted violation per layer (it
must fail, naming the broken contract), so a contract that checks nothing cannot
slip in. A second, independent check reads the engines' syntax trees: every import
of the gamekit and of each game's engine, action universe, luck baseline and
registration is of the standard library, the gamekit or that game itself.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGES = {
    "referee": ROOT / "referee",
    "sdk": ROOT / "sdk",
    "example_bots": ROOT / "example_bots",
    "league": ROOT / "league",
    "bench": ROOT / "bench",
    "arena": ROOT / "proto" / "arena",
}
"""Where each root package of ``[tool.importlinter]`` lives (the generated protobuf
package ``arena`` is under proto/)."""

GAMES_EXCEPTIONS: set[str] = set()
"""``path module`` imports of the engines allowed although they break the rule."""


def lint_imports(root: Path, *, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``lint-imports`` on the contracts of ``root``/pyproject.toml."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def contract_names() -> dict[str, str]:
    """Each contract's name by its id."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c["name"] for c in config["tool"]["importlinter"]["contracts"] if "id" in c}


def test_the_repository_keeps_every_contract() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the root packages and pyproject.toml, to plant violations in."""
    root = tmp_path_factory.mktemp("pristine")
    for name, source in PACKAGES.items():
        shutil.copytree(
            source,
            root / name,
            ignore=shutil.ignore_patterns("__pycache__", "*.npz", "*.json", "node_modules"),
        )
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_unplanted_copy_keeps_every_contract(pristine: Path) -> None:
    """So each failure below comes from its plant, not from the copy."""
    done = lint_imports(pristine, pythonpath=pristine)
    assert done.returncode == 0, done.stdout + done.stderr


PLANTS = [
    ("engines-standard-library-only", "referee/gamekit/dice.py", "import trio"),
    ("engines-standard-library-only", "referee/gamekit/cards.py", "import arena.v1.bot_pb2"),
    # the wildcards reach every game's engine and action universe
    ("engines-standard-library-only", "referee/games/liars_dice/engine.py", "import numpy"),
    ("engines-standard-library-only", "referee/games/dice_poker/universe.py", "import sdk"),
    # and every game's luck baseline (it builds on the gamekit's, never on the analysis)
    ("engines-standard-library-only", "referee/games/liars_dice/baseline.py", "import numpy"),
    ("games-independent", "referee/games/liars_dice/codec.py", "import referee.games.dice_poker"),
    ("referee-layers", "referee/gamekit/dice.py", "import referee.core.chance"),
    ("referee-layers", "referee/gamekit/base.py", "import referee.wire.derived"),
    ("referee-layers", "referee/wire/derived.py", "import referee.games.liars_dice.codec"),
    ("referee-layers", "referee/games/cockroach_poker/codec.py", "import referee.core.catalogue"),
    ("referee-layers", "referee/wire/base.py", "import referee.records.record"),
    ("referee-layers", "referee/core/events.py", "import referee.runtime.match"),
    ("batched-engines-only", "referee/batched/liars_dice.py", "import referee.core.chance"),
    ("batched-engines-only", "referee/batched/liars_dice.py", "import sdk"),
    # nothing else in the referee loads the batched engines (nor numpy through them)
    ("referee-layers", "referee/core/driver.py", "import referee.batched.liars_dice"),
    ("referee-layers", "referee/runtime/match.py", "import referee.batched"),
    ("wire-codecs-only", "referee/wire/deltas.py", "import trio"),
    ("core-no-runtime", "referee/core/chance.py", "import grpc"),
    ("referee-layers", "referee/records/replay.py", "import referee.runtime.match"),
    # records and analysis are independent of each other
    ("referee-layers", "referee/analysis/best_response.py", "import referee.records.record"),
    ("sdk-boundary", "sdk/bot.py", "import referee.runtime.process"),
    ("sdk-boundary", "sdk/describe.py", "import referee.records.transcript"),
    ("sdk-boundary", "sdk/local.py", "import trio"),
    ("referee-below-the-league", "referee/runtime/match.py", "import league"),
    # The cycle issue 20 found: the driver builds on events, playouts on the driver.
    ("referee-sdk-acyclic", "referee/core/events.py", "import referee.core.playout"),
    ("referee-sdk-acyclic", "referee/records/record.py", "import referee.records.replay"),
    ("league-layers", "league/domain/schedules.py", "import league.execution.league_run"),
    ("league-layers", "league/execution/demo.py", "import league.web.report"),
    ("league-layers", "league/store/models.py", "import league.web.report"),
    ("league-domain-pure", "league/domain/ratings.py", "import sqlmodel"),
    ("league-domain-pure", "league/domain/pairing.py", "import referee.core.catalogue"),
    ("league-server-never-cli", "league/server/views.py", "import league.cli.common"),
    ("league-store-lowest", "league/store/models.py", "import league.server.state"),
    ("league-acyclic", "league/server/state.py", "import league.server.pages"),
    ("league-acyclic", "league/execution/workers.py", "import league.execution.league_run"),
]


@pytest.mark.parametrize(("contract", "module", "line"), PLANTS)
def test_a_planted_violation_breaks_its_contract(
    pristine: Path, tmp_path: Path, contract: str, module: str, line: str
) -> None:
    root = tmp_path / "repo"
    shutil.copytree(pristine, root)
    planted = root / module
    planted.write_text(planted.read_text(encoding="utf-8") + f"\n{line}  # planted\n")
    done = lint_imports(root, pythonpath=root)
    assert done.returncode != 0, done.stdout
    name = contract_names()[contract]
    broken = " ".join(done.stdout.split())  # the report wraps long names
    assert f"{name} BROKEN" in broken, done.stdout


SDK_MAY_IMPORT = {"gamekit", "games", "wire", "core", "analysis", "batched"}
"""The parts of referee/ a bot may load: the rules, their wire form, the play core,
exact analysis and the batched engines (for training). Everything else (the runtime,
the records) is forbidden."""


def test_the_sdk_boundary_forbids_every_other_part_of_the_referee() -> None:
    """A new part of referee/ is forbidden to the SDK unless it is named here."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = {c.get("id"): c for c in config["tool"]["importlinter"]["contracts"]}
    parts = {path.parent.name for path in (ROOT / "referee").glob("*/__init__.py")}
    assert parts >= SDK_MAY_IMPORT
    forbidden = {
        m for m in contracts["sdk-boundary"]["forbidden_modules"] if m.startswith("referee")
    }
    assert forbidden == {f"referee.{part}" for part in parts - SDK_MAY_IMPORT}
    modules = sorted(path.name for path in (ROOT / "referee").glob("*.py"))
    assert modules == ["__init__.py"], f"referee/ holds parts, not modules: {modules}"


def _engine_files(root: Path) -> list[Path]:
    """The gamekit, and each game's engine, action universe, luck baseline and
    registration."""
    games = root / "referee" / "games"
    return sorted(
        [
            *(root / "referee" / "gamekit").rglob("*.py"),
            *games.glob("*/engine.py"),
            *games.glob("*/universe.py"),
            *games.glob("*/baseline.py"),
            *games.glob("*/__init__.py"),
        ]
    )


def foreign_imports(root: Path) -> set[str]:
    """``path module`` for each import of an engine file (:func:`_engine_files`) that is
    neither of the standard library, nor of the gamekit, nor of the file's own game."""
    found = set()
    for path in _engine_files(root):
        rel = path.relative_to(root).as_posix()
        parts = path.relative_to(root).parts
        own_game = ".".join(parts[:3]) if parts[1] == "games" else "referee.gamekit"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:  # a relative import stays inside its package
                continue
            for name in names:
                own = any(
                    name == mine or name.startswith(f"{mine}.")
                    for mine in ("referee.gamekit", own_game)
                )
                if not own and name.partition(".")[0] not in sys.stdlib_module_names:
                    found.add(f"{rel} {name}")
    return found


def test_every_import_in_the_games_is_standard_library_or_the_games() -> None:
    found = foreign_imports(ROOT)
    assert sorted(found - GAMES_EXCEPTIONS) == []
    assert sorted(GAMES_EXCEPTIONS - found) == [], "exceptions that no longer exist: remove them"


def test_the_games_check_sees_planted_foreign_imports(tmp_path: Path) -> None:
    game = tmp_path / "referee" / "games" / "toy"
    game.mkdir(parents=True)
    (tmp_path / "referee" / "gamekit").mkdir()
    (game / "engine.py").write_text(
        "from __future__ import annotations\n"
        "import json\n"
        "from referee.gamekit.base import Game\n"
        "from referee.games.toy import universe\n"
        "from . import cards\n"
        "import numpy as np\n"
        "from referee.games.other.engine import Rules\n"
        "def f():\n"
        "    from referee.core.chance import ChanceStream\n"
    )
    (game / "codec.py").write_text("import arena.v1.bot_pb2\n")  # not an engine file
    assert foreign_imports(tmp_path) == {
        "referee/games/toy/engine.py numpy",
        "referee/games/toy/engine.py referee.games.other.engine",
        "referee/games/toy/engine.py referee.core.chance",
    }
