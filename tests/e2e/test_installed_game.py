"""A seventh game, installed as a separate package, plays everywhere a built-in game does.

Kuhn Poker (``tests/installed_game``, a distribution of its own) is built and installed
by pip into a temporary directory, and reaches the platform only through its entry
point in the ``bluff_arena.games`` group: no file of the platform is edited, and the
processes below differ from any other only by that directory on their path. With it:

* ``arena games`` lists it, ``arena match`` plays it over gRPC with sandboxed bots (the
  bot finds the installed game inside its sandbox), ``arena replay`` verifies the
  record, writes the HTML viewer with the game's own renderer, and tells its story;
* the generic suites, which iterate the catalogue, run for it unedited: conformance,
  leaks, the codecs' statelessness, observation deltas, the hostile-action fuzzer,
  PettingZoo's ``api_test``, the SDK's generic legality pair, the golden playthrough
  and the locked wire bytes (the package ships its own golden files, beside its
  engine, as the built-in games keep theirs) and ``arena bot new`` with its test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "installed_game"
BOT = f"{sys.executable} -m arena_kuhn_poker.random_bot"

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Kuhn Poker, installed by pip (no network, no dependency) into its own directory."""
    work = tmp_path_factory.mktemp("kuhn")
    source = work / "source"
    shutil.copytree(SOURCE, source, ignore=shutil.ignore_patterns("__pycache__", "build"))
    target = work / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (target / "arena_kuhn_poker" / "kuhn_poker_pb2.py").is_file()
    for path in [target, *target.rglob("*")]:  # sandboxed bots run as other users
        path.chmod(0o755 if path.is_dir() else 0o644)
    target.parent.chmod(0o755)
    work.chmod(0o755)
    return target


def run(site: Path, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """A fresh process with only ``site`` added to its path."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    return subprocess.run(
        list(args), capture_output=True, text=True, timeout=600, check=False, cwd=cwd, env=env
    )


def arena(site: Path, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run(site, sys.executable, "-c", "from league.cli import main; main()", *args, cwd=cwd)


PLATFORM = ("referee", "sdk", "league", "example_bots", "proto", "bench", ".ci", "Makefile",
            "pyproject.toml")  # fmt: skip
"""Everything but the docs and the test suite."""


def test_no_platform_file_names_the_game() -> None:
    named = subprocess.run(
        ["git", "grep", "-l", "-i", "-e", "kuhn", "--", *PLATFORM],
        cwd=ROOT, capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip
    assert named == []


def test_arena_games_lists_it_and_describes_it(site: Path) -> None:
    done = arena(site, "games", "--json")
    assert done.returncode == 0, done.stderr
    names = [game["name"] for game in json.loads(done.stdout)]
    assert names[-1] == "kuhn_poker" and "liars_dice" in names
    described = arena(site, "games", "kuhn_poker", "--describe")
    assert described.returncode == 0, described.stderr
    assert "Kuhn Poker" in described.stdout and "`Action` is `Check | Bet | Fold | Call`" in (
        described.stdout
    )


def test_it_plays_over_grpc_in_the_sandbox_and_replays(site: Path, tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    record = tmp_path / "match.json"
    done = arena(
        site, "match", "--game", "kuhn_poker", "--bot", BOT, "--bot", BOT,
        "--seed", "7", "--record", str(record), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(record.read_text())
    assert data["game"] == "kuhn_poker" and data["reason"] == "completed"
    assert not data["faults"]
    verified = arena(site, "replay", str(record), "--verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    story = arena(site, "replay", str(record))
    assert story.returncode == 0 and "deal" in story.stdout
    seat = arena(site, "replay", str(record), "--seat", "1")
    assert seat.returncode == 0, seat.stderr
    page = tmp_path / "match.html"
    html = arena(site, "replay", str(record), "--html", str(page))
    assert html.returncode == 0, html.stderr
    text = page.read_text()
    assert "window.ArenaGames.kuhn_poker" in text and "window.ArenaKit" in text


GENERIC_SUITES = (
    "tests/games/test_conformance.py",
    "tests/games/test_leak_generic.py",
    "tests/games/test_codec_stateless.py",
    "tests/games/test_observation_deltas.py",
    "tests/games/test_hostile_actions.py",
    "tests/test_pettingzoo_env.py",
    "tests/test_sdk_facades.py",
    "tests/test_catalogue.py",
    "tests/test_golden_playthroughs.py",
    "tests/test_wire_bytes.py",
    "tests/test_cli_bot_scaffold.py",
)


def test_the_generic_suites_run_for_it_unedited(site: Path) -> None:
    done = run(
        site, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
        "-k", "kuhn_poker", *GENERIC_SUITES,
    )  # fmt: skip
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    passed = int(summary.split(" passed")[0].split()[-1])
    assert passed >= 25, summary  # every suite found the game
