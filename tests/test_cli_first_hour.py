"""A newcomer's first hour with `arena`: relative paths reach the sandbox, exit codes
say what happened, bots get readable names, `bot remove` asks and leaves ladders."""

from __future__ import annotations

import os
import pty
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import select

from league.store.db import open_database, session_scope
from league.store.leagues import get_league
from league.store.models import SeatRow
from league.store.registry import get_bot
from league.store.rolling_ladders import extend_schedule, rolling_status
from referee.runtime.process import (
    MissingBotFileError,
    absolute_command,
    check_scripts_exist,
    default_bot_name,
)
from tests.test_no_tracebacks import run_arena
from tests.test_readme_bot import readme_bot_source

RANDOM = "python -m example_bots.liars_dice_random"


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("node path/bot.js", "path-bot"),
        ("python -m pkg.bot", "pkg-bot"),
        ("python -m example_bots.liars_dice_random", "liars_dice_random"),
        ("python -m my_pkg", "my_pkg"),
        ("python my_bot.py --delay 12", "my_bot"),
        ("python -u -X dev my_bot.py --x", "my_bot"),
        ("./bot.sh", "bot"),
        ("./bot.sh --x", "bot"),
        ("./my_bot --x -m", "my_bot"),
        ("java -jar build/strong.jar --depth 3", "strong"),
        ("/opt/bots/main.py", "bots-main"),
        ("python", "python"),
    ],
)
def test_a_bot_is_named_after_what_it_runs(command: str, name: str) -> None:
    assert default_bot_name(shlex.split(command)) == name


@pytest.mark.parametrize("command", ["--x", "-m", "./-x --y", "python --x"])
def test_a_name_is_never_an_option(command: str) -> None:
    assert not default_bot_name(shlex.split(command)).startswith("-")


def test_relative_paths_are_made_absolute_against_the_callers_directory(tmp_path: Path) -> None:
    (tmp_path / "my_bot.py").write_text("")
    (tmp_path / "data").mkdir()
    (tmp_path / "12").mkdir()
    (tmp_path / "pkg").mkdir()
    argv = ["python", "my_bot.py", "--table", "data", "-m", "pkg", "-c", "data", "13", "--x=data"]
    assert absolute_command(argv, tmp_path) == (
        "python", str(tmp_path / "my_bot.py"), "--table", str(tmp_path / "data"),
        "-m", "pkg", "-c", "data", "13", "--x=data",
    )  # fmt: skip
    # The program is a path when it has a slash.
    (tmp_path / "bot.sh").write_text("")
    assert absolute_command(["./bot.sh", "12"], tmp_path) == (
        str(tmp_path / "bot.sh"),
        str(tmp_path / "12"),
    )
    assert absolute_command(["node", "/abs/bot.js"], tmp_path) == ("node", "/abs/bot.js")


@pytest.mark.parametrize(
    "argv", [["python", "nosuch.py", "--x"], ["./nosuch.sh"], ["node", "a/b.js"]]
)
def test_a_missing_script_is_named_where_it_was_looked_for(tmp_path: Path, argv: list[str]) -> None:
    with pytest.raises(MissingBotFileError, match=f"bot file not found: {tmp_path}/"):
        check_scripts_exist(argv, tmp_path)
    (tmp_path / "here.py").write_text("")
    check_scripts_exist(["python", "here.py", "-m", "x.py", "/abs/data.py"], tmp_path)
    with pytest.raises(MissingBotFileError, match=r"bot file not found: /abs/gone$"):
        check_scripts_exist(["/abs/gone", "x"], tmp_path)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A user's directory holding the README's bot as my_bot.py and a bot that
    crashes at import, readable by the sandbox's bot user."""
    tmp_path.chmod(0o755)
    (tmp_path / "my_bot.py").write_text(readme_bot_source())
    (tmp_path / "crash.py").write_text("import no_such_module_anywhere\n")
    return tmp_path


def match(cwd: Path, *bots: str, extra: tuple[str, ...] = ()) -> tuple[int, str]:
    args = ["match", "--game", "liars_dice", "--seed", "3", "--quiet", *extra]
    for bot in bots:
        args += ["--bot", bot]
    return run_arena(cwd, *args)


@pytest.mark.e2e
def test_the_readme_bot_plays_sandboxed_by_its_relative_path(home: Path) -> None:
    code, out = match(home, "python my_bot.py", RANDOM)
    assert code == 0, out
    assert "result (completed" in out and "startup" not in out, out
    assert "my_bot" in out and "liars_dice_random" in out


@pytest.mark.e2e
def test_a_package_in_the_callers_directory_plays_sandboxed_by_module(home: Path) -> None:
    (home / "mine").mkdir(mode=0o755)
    (home / "mine" / "__init__.py").write_text("")
    (home / "mine" / "bot.py").write_text(readme_bot_source())
    code, out = match(home, "python -m mine.bot", RANDOM)
    assert code == 0, out
    assert "mine-bot" in out and "startup" not in out, out
    # Registered, it would not import where a league runs it: refused, with the fix.
    code, out = run_arena(
        home, "bot", "add", "m", "--cmd", "python -m mine.bot", "--no-check", "-g", "liars_dice"
    )
    assert code == 2 and "only found in this directory" in out and "pip install -e" in out, out


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("bot", "code"),
    [
        ("python crash.py", 1),  # crashes at import
        ("no-such-program-anywhere --x", 1),  # the program is missing
    ],
    ids=["crash at import", "missing program"],
)
def test_a_bot_that_cannot_start_exits_1(home: Path, bot: str, code: int) -> None:
    got, out = match(home, bot, RANDOM)
    assert got == code, out
    assert "startup" in out, out


def test_a_missing_script_is_a_usage_error_under_the_authors_path(home: Path) -> None:
    """README: an unreadable file is exit 2. It was exit 1, a startup fault naming
    the sandbox's folder (/tmp/no_such_file.py) instead of the author's."""
    code, out = match(home, "python no_such_file.py", RANDOM)
    assert code == 2, out
    assert f"bot file not found: {home / 'no_such_file.py'}" in out, out
    for command in (
        ("bot", "check", "python no_such_file.py", "-g", "liars_dice"),
        ("bot", "add", "x", "--cmd", "python no_such_file.py", "-g", "liars_dice"),
    ):
        code, out = run_arena(home, *command)
        assert code == 2 and str(home / "no_such_file.py") in out, out


def test_bot_add_exits_1_when_the_bot_fails_its_check(home: Path) -> None:
    """README: ``bot add`` whose check failed is exit 1, as ``bot check``'s FAIL (it
    was 2 when the bot did not even start)."""
    code, out = run_arena(home, "bot", "add", "c", "--cmd", "python crash.py", "-g", "liars_dice")
    assert code == 1 and "failed its check" in out, out


@pytest.mark.e2e
def test_json_output_has_the_same_exit_codes(home: Path) -> None:
    code, out = match(home, "python crash.py", RANDOM, extra=("--json",))
    assert code == 1 and '"reason": "forfeit"' in out, out


def test_a_usage_error_exits_2(home: Path) -> None:
    code, out = match(home, "python my_bot.py", RANDOM, extra=("--time-limit", "soon"))
    assert code == 2, out
    code, out = match(home, "python my_bot.py", extra=("--rule", "no_such_rule=1"))
    assert code == 2, out


PLANTED_ENGINE_BUG = """
import sys
from league.cli import main
from referee.core.catalogue import get_game

def broken(self, state, seat, action):
    raise RuntimeError("planted engine bug")

type(get_game("liars_dice")).transition = broken
sys.argv = ["arena", *sys.argv[1:]]
main()
"""


@pytest.mark.e2e
def test_a_match_the_referee_aborts_exits_3(home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PLANTED_ENGINE_BUG, "match", "--game", "liars_dice", "--quiet",
         "--bot", "python my_bot.py", "--bot", RANDOM],
        cwd=home, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 3, out
    assert "result (aborted" in out and "planted engine bug" in out, out
    assert "Traceback" not in out


def test_the_exit_codes_are_in_the_help() -> None:
    code, out = run_arena(Path.cwd(), "match", "--help")
    assert code == 0
    text = " ".join(out.split())
    for line in (
        "0 the match completed and no bot faulted",
        "1 a bot faulted",
        "2 usage error",
        "3 the referee aborted the match",
    ):
        assert line in text, out


def test_version_is_the_installed_packages() -> None:
    from importlib.metadata import version

    code, out = run_arena(Path.cwd(), "--version")
    assert code == 0 and out.strip() == f"arena (bluff-arena) {version('bluff-arena')}"


@pytest.mark.e2e
def test_a_registered_bot_keeps_its_absolute_path_for_leagues(home: Path) -> None:
    code, out = run_arena(home, "bot", "add", "mine", "--cmd", "python my_bot.py", "--matches", "1")
    assert code == 0 and "plays liars_dice" in out, out
    code, out = run_arena(
        home, "bot", "check", "python my_bot.py", "-g", "liars_dice", "--matches", "1"
    )
    assert code == 0 and "PASS" in out, out
    engine = open_database(f"sqlite:///{home / 'arena.db'}")
    with session_scope(engine) as session:
        assert get_bot(session=session, name="mine").command == f"python {home / 'my_bot.py'}"
    engine.dispose()
    code, out = run_arena(
        home, "bot", "add", "random", "--cmd", RANDOM, "--no-check", "-g", "liars_dice"
    )
    assert code == 0, out
    code, out = run_arena(
        home, "league", "create", "cup", "-g", "liars_dice", "--bot", "mine", "--bot", "random",
        "--rounds", "1",
    )  # fmt: skip
    assert code == 0, out
    elsewhere = home / "elsewhere"
    elsewhere.mkdir()
    code, out = run_arena(
        elsewhere, "--db", f"sqlite:///{home / 'arena.db'}", "league", "run", "cup", "--no-progress"
    )
    assert code == 0 and "played 2 matches" in out, out
    code, out = run_arena(home, "league", "matches", "cup", "--result", "forfeit")
    assert "cup-" not in out, out


def ladder_with_three_bots(cwd: Path) -> None:
    for name in ("a", "b", "c"):
        code, out = run_arena(
            cwd, "bot", "add", name, "--cmd", RANDOM, "--no-check", "-g", "liars_dice"
        )
        assert code == 0, out
    code, out = run_arena(cwd, "rolling", "create", "ladder", "--game", "liars_dice")
    assert code == 0, out
    for name in ("a", "b", "c"):
        code, out = run_arena(cwd, "rolling", "enter", "ladder", name)
        assert code == 0, out


def test_remove_refuses_without_a_terminal_and_yes_removes(tmp_path: Path) -> None:
    ladder_with_three_bots(tmp_path)
    code, out = run_arena(tmp_path, "bot", "remove", "c")
    assert code == 1 and "pass --yes" in out, out  # not confirmed (README: 1)
    code, out = run_arena(tmp_path, "bot", "list", "--json")
    assert '"name": "c"' in out, out  # still there
    code, out = run_arena(tmp_path, "bot", "remove", "c", "--yes")
    assert code == 0 and "removed c" in out and "left the rolling ladder(s) ladder" in out, out


def remove_on_a_terminal(cwd: Path, name: str, answer: str) -> tuple[int, str]:
    """``arena bot remove NAME`` with a pseudo-terminal as its input, answering ``answer``."""
    controller, terminal = pty.openpty()
    try:
        os.write(controller, answer.encode() + b"\n")
        return run_arena(cwd, "bot", "remove", name, stdin=terminal)
    finally:
        os.close(controller)
        os.close(terminal)


def test_remove_asks_on_a_terminal(tmp_path: Path) -> None:
    ladder_with_three_bots(tmp_path)
    code, out = remove_on_a_terminal(tmp_path, "c", "n")
    assert code == 1 and "Remove bot 'c'" in out and "not removing 'c'" in out, out
    code, out = remove_on_a_terminal(tmp_path, "c", "y")
    assert code == 0 and "removed c" in out, out


def test_a_removed_bot_leaves_the_ladder_and_its_results_stay(tmp_path: Path) -> None:
    ladder_with_three_bots(tmp_path)
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    with session_scope(engine) as session:
        ladder = get_league(session=session, name="ladder")
        first = extend_schedule(session=session, league=ladder)
        c_id = get_bot(session=session, name="c").id
        assert any(c_id in (bot.id for bot in match.bots) for match in first)
    code, out = run_arena(tmp_path, "bot", "remove", "c", "--yes")
    assert code == 0, out
    with session_scope(engine) as session:
        ladder = get_league(session=session, name="ladder")
        later = extend_schedule(session=session, league=ladder)
        assert later, "the two bots left still get matches"
        assert all(c_id not in (bot.id for bot in match.bots) for match in later)
        status = rolling_status(session=session, league=ladder)
        entries = {e["name"]: e for e in status["entries"]}  # type: ignore[attr-defined]
        assert entries["c"]["retired"] and not entries["a"]["retired"]
        # What was scheduled before stays (a finished match's results stay too).
        seats = session.exec(select(SeatRow).where(SeatRow.bot_id == c_id)).all()
        assert len(seats) == sum(1 for m in first for b in m.bots if b.id == c_id)
    engine.dispose()


def test_a_crash_in_act_shows_the_authors_traceback_and_keeps_it_out_of_the_record(
    home: Path,
) -> None:
    """`arena match` told only "stream broke: UNKNOWN: Exception iterating responses";
    now the bot's own traceback follows the match (on stderr, for the author at the
    terminal), and the record, which others may read, holds none of it."""
    record = home / "crash.json"
    bot = f"{sys.executable} -m tests.bots.misbehaving --mode raise"
    code, out = match(home, bot, RANDOM, extra=("--record", str(record)))
    assert code == 1, out
    assert "output, last lines:" in out and "Traceback (most recent call last):" in out, out
    assert "RuntimeError: the bot's own bug" in out and "misbehaving.py" in out, out
    assert "the bot's own bug" not in record.read_text()  # not even the exception's text
    assert "Exception iterating responses (the bot's own error message" in record.read_text()
    assert "Traceback" not in record.read_text()
