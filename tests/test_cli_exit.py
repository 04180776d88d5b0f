"""How an ``arena`` process ends (:func:`league.cli.leave_now`): at once, without the
interpreter's teardown, yet with everything a normal ending does for others done:
``atexit`` handlers run, output flushed, the exit code kept, another thread waited for."""

from __future__ import annotations

import subprocess
import sys

ENDING = """
import atexit, sys, threading, time
atexit.register(lambda: print("atexit ran", flush=True))
late = threading.Thread(target=lambda: (time.sleep(0.3), print("the thread finished")))
if "--thread" in sys.argv:
    sys.argv.remove("--thread")
    late.start()
sys.argv = ["arena", *sys.argv[1:]]
from league.cli import main
main()
print("AFTER-MAIN")
"""


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", ENDING, *args], capture_output=True, text=True, timeout=60
    )


def test_a_command_ends_with_its_output_its_code_and_the_atexit_handlers() -> None:
    done = arena("games")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "liars_dice" in done.stdout and lines[-1] == "atexit ran", done.stdout
    assert "AFTER-MAIN" not in done.stdout  # it ended in main, as the script does


def test_a_usage_error_keeps_exit_code_2() -> None:
    done = arena("games", "no_such_game")
    assert done.returncode == 2, done
    assert done.stdout.splitlines() == ["atexit ran"] and "no_such_game" in done.stderr


def test_another_running_thread_is_waited_for_as_python_would() -> None:
    done = arena("--thread", "games")
    assert done.returncode == 0, done.stderr
    assert "the thread finished" in done.stdout and "atexit ran" in done.stdout, done.stdout
