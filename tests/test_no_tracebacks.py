"""Every error a user can cause is one clear line and a non-zero exit, never a
traceback: the `arena` command's expected error paths, each run as a real process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy import Engine

from league.store.db import open_database, session_scope
from league.store.leagues import get_league
from league.store.runlock import league_lock

RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
ARENA = str(Path(sys.executable).with_name("arena"))
"""The installed script, as users run it (``python -m league.cli`` would put the
current directory on the module path, which ``arena`` does not)."""


def run_arena(cwd: Path, *args: str, stdin: int | None = subprocess.DEVNULL) -> tuple[int, str]:
    """``arena ARGS`` in ``cwd`` as its own process: exit code, stdout and stderr."""
    env = {**os.environ, "ARENA_DB": f"sqlite:///{cwd / 'arena.db'}", "ARENA_TOKEN": "t0ken"}
    done = subprocess.run(
        [ARENA, *args],
        cwd=cwd,
        env=env,
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout + done.stderr


@dataclass(frozen=True)
class Case:
    """One error path: what to prepare in the directory, the arguments, a piece of
    the one-line message the user must see."""

    args: tuple[str, ...]
    says: str
    setup: Callable[[Path], None] = field(default=lambda _: None)


def with_bots(cwd: Path) -> None:
    """A database holding two registered bots (unchecked, so no bot starts)."""
    for name in ("random", "other"):
        code, out = run_arena(
            cwd, "bot", "add", name, "--cmd", RANDOM, "--game", "liars_dice", "--no-check"
        )
        assert code == 0, out


def with_ladder(cwd: Path) -> None:
    with_bots(cwd)
    code, out = run_arena(cwd, "rolling", "create", "ladder", "--game", "liars_dice")
    assert code == 0, out


def with_league(cwd: Path) -> None:
    with_bots(cwd)
    code, out = run_arena(
        cwd, "league", "create", "cup", "--game", "liars_dice", "--bot", "random", "--bot", "other"
    )  # fmt: skip
    assert code == 0, out


SHARED_SETUPS = (with_bots, with_ladder, with_league)
"""Setups made by the CLI itself (a few `arena` processes each): made once per test
process and copied, since every case that uses one starts from the same database."""
_made: dict[Callable[[Path], None], Path] = {}


def prepare(setup: Callable[[Path], None], cwd: Path, factory: pytest.TempPathFactory) -> None:
    """``setup`` in ``cwd``: a copy of the one made at its first use, for a shared one."""
    if setup not in SHARED_SETUPS:
        setup(cwd)
        return
    if setup not in _made:
        made = factory.mktemp(setup.__name__)
        setup(made)
        _made[setup] = made
    for path in _made[setup].iterdir():
        shutil.copy2(path, cwd / path.name)


def write(name: str, text: str) -> Callable[[Path], None]:
    """Setup: a file ``name`` holding ``text``."""

    def setup(cwd: Path) -> None:
        (cwd / name).write_text(text)

    return setup


CASES: dict[str, Case] = {
    "unknown game": Case(("match", "--game", "poker9", "--bot", "x", "--bot", "y"), "poker9"),
    "unknown rule": Case(
        ("match", "--game", "liars_dice", "--bot", "x", "--bot", "y", "--rule", "nope=1"), "nope"
    ),
    "bad rule value": Case(
        ("match", "-g", "liars_dice", "-b", "x", "-b", "y", "-r", "dice_per_player=many"), "many"
    ),
    "malformed rule": Case(
        ("match", "--game", "liars_dice", "--bot", "x", "--bot", "y", "--rule", "oops"), "oops"
    ),
    "too few seats": Case(("match", "--game", "liars_dice", "--bot", "x"), "seat"),
    "empty bot command": Case(
        ("match", "--game", "liars_dice", "--bot", "", "--bot", "x"), "empty"
    ),
    "unbalanced quote": Case(
        ("match", "--game", "liars_dice", "--bot", "python 'x", "--bot", "x"), "quotation"
    ),
    "malformed number": Case(
        ("match", "--game", "liars_dice", "--bot", "x", "--bot", "y", "--time-limit", "fast"),
        "--time-limit",
    ),
    "number out of range": Case(
        ("match", "--game", "liars_dice", "--bot", "x", "--bot", "y", "--memory-mb", "1"),
        "memory-mb",
    ),
    "unknown option": Case(("match", "--colour"), "--colour"),
    "unknown command": Case(("dance",), "dance"),
    "missing record file": Case(("replay", "no-such-record.json"), "no-such-record.json"),
    "corrupt record": Case(("replay", "bad.json"), "bad.json", write("bad.json", "{not json")),
    "record of the wrong shape": Case(("replay", "odd.json"), "odd.json", write("odd.json", "{}")),
    "bad database URL": Case(("--db", "nosuch://x", "bot", "list"), "nosuch"),
    "missing registered bot": Case(("bot", "show", "ghost"), "ghost", with_bots),
    "bot check of a missing bot": Case(
        ("bot", "check", "ghost", "--game", "liars_dice"), "ghost", with_bots
    ),
    "remove a missing bot": Case(("bot", "remove", "ghost", "--yes"), "ghost", with_bots),
    "remove without a terminal": Case(("bot", "remove", "random"), "--yes", with_bots),
    "bot add with command and address": Case(
        ("bot", "add", "b", "--cmd", "x", "--address", "localhost:1", "--game", "liars_dice"),
        "exactly one",
    ),
    "bot add for an unknown game": Case(
        ("bot", "add", "b", "--cmd", RANDOM, "--game", "chess", "--no-check"), "chess"
    ),
    "league of unknown bots": Case(
        ("league", "create", "cup", "--game", "liars_dice", "--bot", "a", "--bot", "b"),
        "'a'",
        with_bots,
    ),
    "run a missing league": Case(("league", "run", "nope"), "nope", with_bots),
    "standings of a missing league": Case(("league", "standings", "nope"), "nope", with_bots),
    "enter a missing ladder": Case(("rolling", "enter", "nope", "random"), "nope", with_bots),
    "rolling run of a fixed league": Case(("rolling", "run", "cup"), "cup", with_league),
    "scaffold a bad name": Case(("bot", "new", "my-bot!", "--game", "liars_dice"), "my-bot!"),
    "scaffold an unknown game": Case(("bot", "new", "my_bot", "--game", "chess"), "chess"),
    "submit to no server": Case(
        ("submit", "my_bot.py", "--server", "http://127.0.0.1:9", "--game", "liars_dice"),
        "127.0.0.1:9",
        write("my_bot.py", "print()\n"),
    ),
    "a match named in two words": Case(("replay", "cup 3"), "LEAGUE-N, e.g. cup-4 (cup-3?)"),
    "a match name without its number": Case(
        ("rerun", "cup", "--seat", "0", "--bot", RANDOM), "LEAGUE-N", with_league
    ),
    "logs of a match of no league": Case(
        ("league", "logs", "nope-0", "--seat", "0"), "'nope'", with_league
    ),
    "logs of a match the league does not have": Case(
        ("league", "logs", "cup-99", "--seat", "0"), "no match 99", with_league
    ),
    "submit without a server": Case(
        ("submit", "my_bot.py", "--game", "liars_dice"), "--server", write("my_bot.py", "x\n")
    ),
    "postgres:// URL": Case(
        ("--db", "postgres://u:secret@localhost/arena", "bot", "list"), "postgresql+psycopg://"
    ),
    "damaged database file": Case(
        ("--db", "sqlite:///broken.db", "bot", "list"),
        "restore it from a backup",
        write("broken.db", "this is not a database " * 100),
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_an_expected_error_is_one_line_not_a_traceback(
    case: Case, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    prepare(case.setup, tmp_path, tmp_path_factory)
    code, out = run_arena(tmp_path, *case.args)
    assert code != 0, out
    assert "Traceback" not in out, out
    assert case.says in out, out
    errors = [line for line in out.splitlines() if line.startswith(("error:", "Error:"))]
    assert errors, out


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Callable[[str], None]]:
    """Hold a league's run lock as `arena serve` playing it would."""
    engines: list[Engine] = []  # opened at the first hold, on the database set up by then
    stack: list[object] = []

    def hold(name: str) -> None:
        if not engines:
            engines.append(open_database(f"sqlite:///{tmp_path / 'arena.db'}"))
        engine = engines[0]
        with session_scope(engine) as session:
            league = get_league(session=session, name=name)
        lock = league_lock(engine, league)
        lock.__enter__()
        stack.append(lock)

    yield hold
    for lock in stack:
        lock.__exit__(None, None, None)  # type: ignore[attr-defined]
    for engine in engines:
        engine.dispose()


@pytest.mark.parametrize(
    ("setup", "args"),
    [(with_ladder, ("rolling", "run", "ladder")), (with_league, ("league", "run", "cup"))],
    ids=["rolling run", "league run"],
)
def test_a_busy_league_is_refused_in_one_line(
    setup: Callable[[Path], None],
    args: tuple[str, ...],
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    held: Callable[[str], None],
) -> None:
    prepare(setup, tmp_path, tmp_path_factory)
    if args[0] == "rolling":
        code, out = run_arena(tmp_path, "rolling", "enter", "ladder", "random")
        assert code == 0, out
    held(args[-1])
    code, out = run_arena(tmp_path, *args)
    assert code == 2, out
    assert "Traceback" not in out, out
    assert out.strip().splitlines()[-1].startswith("error: league")
    assert "being played by another process" in out
