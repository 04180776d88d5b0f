"""``arena play``: a person in a seat, in a terminal (issue 32, item 5).

The command runs on a pseudo-terminal, as a person would use it: the test reads
the screen, answers at each ``move [...]`` prompt (a bad answer first, then legal
numbers), and checks what it showed (the seat's own dice, never the bot's before
a reveal), that the match was stored in the humans league like any other, and that
leaving, resigning or letting the clock run out forfeits with the documented exit
code and nothing left running.
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.records.record import MatchRecord
from sdk.human import HumanLeft, SeatView
from tests.test_no_tracebacks import ARENA

RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
PROMPT = re.compile(rb"move \[1-(\d+), q resigns\]: ")

pytestmark = pytest.mark.e2e


class Screen:
    """``arena play`` on a pseudo-terminal: everything it printed, and typing."""

    def __init__(self, db: Path, *args: str) -> None:
        self.controller, terminal = pty.openpty()
        self.process = subprocess.Popen(
            [ARENA, "--db", f"sqlite:///{db}", "play", *args],
            stdin=terminal,
            stdout=terminal,
            stderr=terminal,
            cwd=db.parent,
            close_fds=True,
        )
        os.close(terminal)
        self.text = b""
        self.seen = 0

    def read_until(
        self, pattern: re.Pattern[bytes], timeout_s: float = 60
    ) -> re.Match[bytes] | None:
        """The first match of ``pattern`` in output not consumed yet; None if the
        program ended (or ``timeout_s`` passed) first."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = pattern.search(self.text, self.seen)
            if found:
                self.seen = found.end()
                return found
            if time.monotonic() > deadline:
                return None
            ready, _, _ = select.select([self.controller], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.controller, 65536)
                except OSError:  # the program closed the terminal
                    chunk = b""
                if not chunk:
                    return None
                self.text += chunk
            elif self.process.poll() is not None:
                return None

    def type(self, line: str) -> None:
        os.write(self.controller, line.encode() + b"\n")

    def finish(self, timeout_s: float = 60) -> tuple[int, str]:
        """Read to the end of the output; the exit code and everything printed."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.controller], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.controller, 65536)
                except OSError:  # the program ended and closed the terminal
                    break
                if not chunk:
                    break
                self.text += chunk
            elif self.process.poll() is not None:
                break
        try:
            code = self.process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.process.kill()  # never leave it running for a later test to trip on
            self.process.wait()
            os.close(self.controller)
            raise AssertionError(
                f"arena play still running after {timeout_s:g} s; it printed:\n"
                + self.text.decode("utf-8", "replace")[-2000:]
            ) from None
        os.close(self.controller)
        return code, self.text.decode("utf-8", "replace")


def arena(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ARENA, "--db", f"sqlite:///{db}", *args],
        capture_output=True, text=True, timeout=120, check=False, cwd=db.parent,
    )  # fmt: skip


def stored_record(db: Path, key: str) -> MatchRecord:
    replay = arena(db, "replay", key, "--json")
    assert replay.returncode == 0, replay.stderr
    return MatchRecord.from_json(replay.stdout)


def test_a_person_plays_a_whole_game_and_it_is_stored_in_the_humans_league(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    added = arena(db, "bot", "add", "randy", "--cmd", RANDOM, "-g", "liars_dice", "--no-check")
    assert added.returncode == 0, added.stderr
    screen = Screen(db, "--game", "liars_dice", "--bot", "randy", "--seat", "0",
                    "--name", "ada", "--rule", "dice_per_player=2")  # fmt: skip
    first = screen.read_until(PROMPT)
    assert first is not None, screen.text.decode()
    first_view = screen.text[: first.start()].decode()
    screen.type("x")  # not a move: asked again
    again = screen.read_until(PROMPT)
    assert again is not None and b"not a move: 'x'" in screen.text
    screen.type("99")  # out of range: asked again
    assert screen.read_until(PROMPT) is not None
    screen.type(first.group(1).decode())  # the last choice
    moves = 1
    while screen.read_until(PROMPT, timeout_s=60) is not None:
        screen.type("1")
        moves += 1
    code, text = screen.finish()
    assert "game over: you placed" in text, text
    assert code == 0, text
    key = re.search(r"match (humans-liars_dice-[0-9a-f]{8}-\d+) \(completed\)", text)
    assert key is not None, text
    record = stored_record(db, key.group(1))
    assert record.reason == "completed" and record.seats[0].bot == "human:ada"
    assert record.seats[1].bot == "randy"
    assert sum(1 for e in record.events if e.seat == 0) == moves
    # The first view shows the person's own first-round dice, not the bot's.
    first_move = next(i for i, e in enumerate(record.events) if e.seat is not None)
    rolls = [e.outcome or () for e in record.events[:first_move] if e.seat is None]
    round_one = rolls[-1]  # after the roll-off (and its ties): seat 0's 2 dice, then seat 1's
    own, theirs = " ".join(map(str, round_one[:2])), " ".join(map(str, round_one[2:4]))
    assert f"own dice: {own}\n" in first_view.replace("\r\n", "\n"), first_view
    assert "your move" in first_view
    # The roll-off's dice are public ("roll offs: (seat 1, dice a b)"): the bot's
    # round-one dice may be the same two numbers by chance, so that line is left out.
    hidden_view = "\n".join(
        line
        for line in first_view.replace("\r\n", "\n").splitlines()
        if not line.strip().startswith("roll offs:")
    )
    rolled_off = rolls[:-1]
    if own != theirs:
        assert f"dice {theirs}" not in hidden_view and f": {theirs}\n" not in hidden_view, (
            rolled_off,
            first_view,
        )
    # Stored like any match, in its own league; no other league moved.
    standings = arena(db, "league", "standings", key.group(1).rsplit("-", 1)[0], "--json")
    assert standings.returncode == 0, standings.stderr
    rows = {r["bot"]: r for r in json.loads(standings.stdout)}
    assert set(rows) == {"human:ada", "randy"} and rows["human:ada"]["matches"] == 1
    listed = arena(db, "bot", "list", "--json")
    assert "human:ada" not in listed.stdout  # a person is not a bot anyone can schedule


def test_a_seeded_game_is_practice_rated_nowhere(tmp_path: Path) -> None:
    """``--seed`` tells every die to whoever knows the seed: the game is played, its
    record can be kept (``--record``), but it is stored in no league and rates nobody
    (issue 42, item 4: seeded games were rated in the humans league)."""
    db = tmp_path / "arena.db"
    record_file = tmp_path / "practice.json"
    ran = subprocess.run(
        [ARENA, "--db", f"sqlite:///{db}", "play", "-g", "liars_dice", "--bot", RANDOM,
         "--seat", "0", "--seed", "7", "--name", "ada", "--record", str(record_file)],
        input="q\n", capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 1, ran.stdout + ran.stderr  # resigned: a forfeit
    assert "practice game (--seed 7)" in ran.stdout and "not rated" in ran.stdout, ran.stdout
    assert "stored in league" not in ran.stdout, ran.stdout
    record = stored_record(db, str(record_file))
    assert record.match_id == "practice-liars_dice-seed7" and record.seats[0].bot == "human:ada"
    listed = arena(db, "league", "list", "--json")
    assert "humans-" not in listed.stdout, listed.stdout  # no humans league, no rating


def test_resigning_forfeits_and_end_of_input_too(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    screen = Screen(db, "--game", "liars_dice", "--bot", RANDOM, "--seat", "1")
    assert screen.read_until(PROMPT) is not None, screen.text.decode()
    screen.type("q")
    code, text = screen.finish()
    assert code == 1, text
    assert "Traceback" not in text
    key = re.search(r"match (\S+) \(forfeit\)", text)
    assert key is not None, text
    record = stored_record(db, key.group(1))
    assert [f.seat for f in record.faults] == [1]
    # No input at all (stdin closed): the seat leaves at its first turn.
    closed = subprocess.run(
        [ARENA, "--db", f"sqlite:///{db}", "play", "-g", "liars_dice", "--bot", RANDOM,
         "--seat", "0", "--seed", "2"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert closed.returncode == 1 and "(forfeit)" in closed.stdout, closed.stdout + closed.stderr


def test_the_clock_is_bounded(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    screen = Screen(db, "--game", "liars_dice", "--bot", RANDOM, "--seat", "0",
                    "--think-time", "1")  # fmt: skip
    assert screen.read_until(PROMPT) is not None, screen.text.decode()
    code, text = screen.finish()  # nobody answers
    assert code == 1, text
    key = re.search(r"match (\S+) \(forfeit\)", text)
    assert key is not None, text
    fault = stored_record(db, key.group(1)).faults[0]
    assert fault.seat == 0 and fault.kind.value == "timeout" and "within 1 s" in fault.message


def test_bad_input_is_one_error_line(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for args, says in (
        (["-g", "nosuch", "--bot", RANDOM], "nosuch"),
        (["-g", "liars_dice", "--bot", RANDOM, "--seat", "2"], "seats 0 to 1"),
        (["-g", "liars_dice", "--bot", RANDOM, "--rule", "dice_per_player=x"], "dice_per_player"),
        (["-g", "liars_dice", "--bot", RANDOM, "--name", "a b"], "bad player name"),
    ):
        ran = arena(db, "play", *args)
        assert ran.returncode == 2, ran.stdout + ran.stderr
        assert says in ran.stderr and "Traceback" not in ran.stderr, ran.stderr


def test_the_terminal_asker_asks_again_until_a_legal_number() -> None:
    from league.cli.play import TerminalAsker

    out = io.StringIO()
    asker = TerminalAsker(io.StringIO("bid\n0\n3\n2\n"), out)
    view = SeatView("liars_dice", 0, 2, ("own dice: 1 2",), choices=("bid 1 x 1s", "challenge"))
    assert asker.ask(view) == 1
    shown = out.getvalue()
    assert shown.count("not a move") == 3 and "  own dice: 1 2\n" in shown
    assert "    1. bid 1 x 1s\n" in shown and "    2. challenge\n" in shown
    with pytest.raises(HumanLeft):
        TerminalAsker(io.StringIO(""), io.StringIO()).ask(view)
    with pytest.raises(HumanLeft):
        TerminalAsker(io.StringIO("resign\n"), io.StringIO()).ask(view)


def test_ctrl_c_stops_the_game_stores_nothing_and_leaves_no_bot_running(tmp_path: Path) -> None:
    from referee.runtime.sandbox import referee_uids
    from tests.e2e.conftest import sandboxed_processes

    db = tmp_path / "arena.db"
    screen = Screen(db, "--game", "liars_dice", "--bot", RANDOM, "--seat", "0")
    assert screen.read_until(PROMPT) is not None, screen.text.decode()
    uids = referee_uids(screen.process.pid)
    assert sandboxed_processes(screen.process.pid, uids), "the bot runs sandboxed"
    screen.process.send_signal(signal.SIGINT)
    code, text = screen.finish()
    assert code == 130, f"exit {code}: {text[-1500:]}"
    assert "interrupted: the game was not stored" in text and "Traceback" not in text, text
    deadline = time.monotonic() + 5
    while sandboxed_processes(screen.process.pid, uids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sandboxed_processes(screen.process.pid, uids) == []
    matches = arena(db, "league", "matches", "humans-liars_dice", "--json")
    assert matches.returncode == 0 and json.loads(matches.stdout) == [], matches.stdout
