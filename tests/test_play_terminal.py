"""``arena play``: a person in a seat, in a terminal (issue 32, item 5; issue 43, item 2).

The command runs on a pseudo-terminal, as a person would use it: the test reads
the screen and types moves at each prompt as the game writes them (``c``, ``1 6s``,
``full house``, ``bat as fly``, ``pair 9 6``: never a number), and checks what it
showed against the stored record: the other seat's moves announced in words on the
next screen, the seat's own holding on every screen and never the bot's before a
reveal, no screen taller than 24 rows; that the match was stored in the humans league
like any other; that resigning is recorded as ``resigned`` (not a fault of a bot's
kind), that the clock is bounded and that Ctrl-C says one thing once, with the
documented exit codes and nothing left running.
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
from dataclasses import replace
from pathlib import Path

import pytest

from referee.core.catalogue import get_game
from referee.records.record import MatchRecord
from referee.records.replay import replay_states, verify
from sdk.human import Resigned, SeatView
from tests.test_no_tracebacks import ARENA

RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
PROMPT = re.compile(rb"your move \(\? lists them all, q resigns\)> ")
ROWS, COLUMNS = 24, 80

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


TRIES: dict[str, tuple[str, ...]] = {
    "liars_dice": ("c", "1 6s"),
    "liars_poker_dice": ("a", "r nothing", "five 6s", "c", "high card"),
    "dice_poker": (
        "r 1 2", "k a b", "chance", "aces", "2s", "threes", "4", "fives", "sixes", "pair",
        "2p", "3k", "4k", "fh", "ss", "ls", "yahtzee",
    ),
    "cockroach_poker": (
        "d", "cockroach as fly", "sc as fly", "toad as bat", "sp as rat", "rat as rat",
        "bat as toad", "ce as fly", "fly as spider",
    ),
    "liars_poker": ("a", "x nothing", "c", "five A"),
}  # fmt: skip
"""What the person types, in the game's notation: the first that is legal (the rest
are refused with the game's own words on the way)."""
RULES = {
    "liars_dice": ("dice_per_player=2",),
    "liars_poker": ("penalty_limit=2",),
    "liars_poker_dice": ("chips=2",),
}
HEADER = re.compile(r"── .* · you are seat 0 of 2 · move (\d+) ──")


def collapsed(text: str) -> str:
    return " ".join(text.split())


def screens(text: str) -> list[str]:
    """What was printed before each prompt, from the end of the one before (the
    answer typed there, echoed by the terminal, ends its row)."""
    parts = re.split(PROMPT.pattern.decode(), text)[:-1]
    return [part if n == 0 else part.split("\n", 1)[-1] for n, part in enumerate(parts)]


def rows_of(screen: str) -> int:
    """Rows a screen and its prompt take on an 80-column terminal."""
    return sum(max(1, -(-len(line) // COLUMNS)) for line in screen.split("\n"))


def play_through(screen: Screen, tries: tuple[str, ...]) -> int:
    """Answer every prompt with the first of ``tries`` not refused yet; the moves made."""
    attempt, made, since = 0, 0, 0
    while (prompt := screen.read_until(PROMPT, timeout_s=60)) is not None:
        if b"\n\xe2\x94\x80\xe2\x94\x80 " in screen.text[since : prompt.start()]:  # a new screen
            attempt, made = 0, made + 1
        since = prompt.end()
        assert attempt < len(tries), screen.text.decode()[-3000:]
        screen.type(tries[attempt])
        attempt += 1
    return made


@pytest.mark.parametrize("game", sorted(TRIES))
def test_a_person_plays_a_whole_game_in_the_games_own_notation(game: str, tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    record_file = tmp_path / "game.json"
    rules = [arg for rule in RULES.get(game, ()) for arg in ("--rule", rule)]
    screen = Screen(db, "--game", game, "--bot", f"{sys.executable} -m example_bots.{game}_random",
                    "--seat", "0", "--name", "ada", "--seed", "11", "--record", str(record_file),
                    *rules)  # fmt: skip
    made = play_through(screen, TRIES[game])
    code, text = screen.finish()
    text = text.replace("\r\n", "\n")
    assert code == 0 and "game over: you placed" in text, text[-3000:]
    record = stored_record(db, str(record_file))
    assert record.reason == "completed" and record.seats[0].bot == "human:ada", record.faults
    assert sum(1 for e in record.events if e.seat == 0) == made
    # Every screen, the first (the rules in force) included, fits in 24 rows.
    shown = screens(text)
    assert shown and max(map(rows_of, shown)) <= ROWS, max(shown, key=rows_of)
    assert "rules:" in shown[0] and "rules:" not in "".join(shown[1:])
    # Each decision's screen: the seat's holding, and the moves since its last decision
    # in words, exactly as the engine says them from the record's observations.
    engine = get_game(game)
    states = replay_states(record)
    views = [engine.observe(states[i], 0) for i, e in enumerate(record.events) if e.seat == 0]
    by_move = {int(m.group(1)): part for part in shown if (m := HEADER.search(part))}
    assert sorted(by_move) == list(range(1, made + 1))
    previous = None
    announced: list[str] = []
    for number, view in enumerate(views, start=1):
        page = collapsed(by_move[number])
        for line in engine.holding(view):
            assert collapsed(line) in page, (number, line, by_move[number])
        news = engine.announce_news(previous, view, 0)
        if "earlier lines: type history" in page:
            news = news[-3:]
        for line in news:
            assert collapsed(line) in page, (number, line, by_move[number])
        announced.extend(news)
        previous = view
    assert any(line.startswith("seat 1") for line in announced), announced  # the bot's moves


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
    assert [(f.seat, f.kind.value) for f in record.faults] == [(1, "resigned")]
    assert not record.faults[0].kind.by_a_bot
    assert verify(record) == []  # a resignation is a fault on the person's own turn
    moved = replace(record, faults=(replace(record.faults[0], seat=0),)).sealed()
    assert any("resigned is a fault on its turn" in p for p in verify(moved)), verify(moved)
    assert re.search(r"human:me +\S+ +resigned", text), text  # the result table says so
    standings = arena(db, "league", "standings", "humans-liars_dice", "--json")
    rows = {r["bot"]: r for r in json.loads(standings.stdout)}
    assert rows["human:me"]["faults"] == {"resigned": 1}
    assert not any(r["faults"] for name, r in rows.items() if name != "human:me")
    # No input at all (stdin closed): the seat leaves at its first turn.
    closed = subprocess.run(
        [ARENA, "--db", f"sqlite:///{db}", "play", "-g", "liars_dice", "--bot", RANDOM,
         "--seat", "0", "--seed", "2"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert closed.returncode == 1 and "(forfeit)" in closed.stdout, closed.stdout + closed.stderr
    assert re.search(r"human:me +\S+ +resigned", closed.stdout), closed.stdout


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


def opening_view() -> SeatView:
    from referee.games.liars_dice.engine import LIARS_DICE

    game = LIARS_DICE
    state = game.new_game(game.parse_rules({"roll_off": "false", "dice_per_player": "2"}), 2)
    observation = game.observe(game.apply_chance(state, (3, 4, 6, 6)), 0)
    actions = tuple(game.legal_actions(observation))
    return SeatView(
        "liars_dice", 0, 2, ("own dice: 3 4",),
        choices=tuple(game.describe_action(a, 0, 0) for a in actions), decision=1,
        written=tuple(game.write_move(a, observation) for a in actions),
        title=game.title, rules=game.rules_summary(observation.rules, 2),
        holding=game.holding(observation), summary=game.move_summary(observation),
        observation=observation, actions=actions,
    )  # fmt: skip


def test_the_terminal_asker_reads_the_games_notation_and_asks_again_until_a_move() -> None:
    from league.cli.play import TerminalAsker
    from referee.games.liars_dice.engine import Bid

    view = opening_view()
    out = io.StringIO()
    asker = TerminalAsker(io.StringIO("bid\n0\n#99\n?\n5 4s\nthree 4s\n"), out)
    assert view.actions[asker.ask(view)] == Bid(3, 4)
    shown = out.getvalue()
    assert "rules:" in shown and "your dice: 3 4" in shown and "moves: bid 1-4 x any face" in shown
    assert shown.count("is not a move") == 2 and "there is no move #99" in shown
    assert "only 4 dice on the table" in shown  # 5 4s: the game's words for why not
    # The list, on request: each move as it is typed, which reads back to it.
    assert "#1 1 1s " in shown and "#24 4 6s\n" in shown and "#25 " not in shown
    assert all(view.parse(typed) == k for k, typed in enumerate(view.written))
    assert TerminalAsker(io.StringIO("#2\n"), io.StringIO()).ask(view) == 1
    with pytest.raises(Resigned):
        TerminalAsker(io.StringIO(""), io.StringIO()).ask(view)
    with pytest.raises(Resigned):
        TerminalAsker(io.StringIO("resign\n"), io.StringIO()).ask(view)


def test_a_long_history_gives_way_so_the_screen_fits() -> None:
    from dataclasses import replace

    from league.cli.play import TerminalAsker

    view = replace(opening_view(), announced=tuple(f"seat 1 bids {n} 4s" for n in range(40)))
    lines = TerminalAsker(io.StringIO(), io.StringIO()).screen(view)
    assert len(lines) + 2 <= ROWS  # a blank line before, the prompt after
    assert any("earlier lines: type history" in line for line in lines)
    assert all(line in lines for line in view.holding)  # the holding never gives way
    assert "  · seat 1 bids 39 4s" in lines


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
    after = text.replace("\r\n", "\n").rsplit("q resigns)> ", 1)[-1]
    said = [line.strip() for line in after.splitlines() if line.strip() not in ("", "^C")]
    assert said == ["error: interrupted: the game was not stored"], said  # one line, once
    deadline = time.monotonic() + 5
    while sandboxed_processes(screen.process.pid, uids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sandboxed_processes(screen.process.pid, uids) == []
    matches = arena(db, "league", "matches", "humans-liars_dice", "--json")
    assert matches.returncode == 0 and json.loads(matches.stdout) == [], matches.stdout
