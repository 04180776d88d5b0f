"""Every example bot runs under the allow list without meeting a refused call.

The allow list (referee/runtime/syscall_rules.py) must cover what honest bots need:
each example bot plays a match in the default sandbox (several at one table where the
game seats them), and none is faulted or noted by the refusal reporter — neither in
its log nor in the suite's journal (tests/conftest.py ``no_refused_calls``). The
Node.js bot (tests/e2e/test_node_bot.py), the README's bot (tests/test_readme_bot.py)
and the static Go bot (tests/e2e/test_go_bot.py) are played by their own tests under
the same check.

The guard is the reporter's own test: a bot that makes calls off the list is noted,
once per call, in its log (test_the_author_sees_which_call_was_refused).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX
from referee.runtime.seccomp_notify import PREFIX
from tests.e2e.conftest import module_bot
from tests.security.support import assert_no_processes_left

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
GAMES = {
    # game: (seats at most per match, rules that keep the match short)
    "liars_poker_dice": (2, {}),
    "liars_poker": (8, {}),
    "liars_dice": (8, {"dice_per_player": "1"}),
    "dice_poker": (4, {}),
    "cockroach_poker": (6, {}),
}
LIMITS = Limits(decision_s=10.0, startup_s=60.0)
NEEDS_A_BUILT_TABLE = {"dice_poker_optimal": ROOT / "example_bots" / "tables"}


def example_bots(game: str) -> list[str]:
    """Every example bot module of ``game`` (a runnable module named after it)."""
    found = []
    for path in sorted((ROOT / "example_bots").glob(f"{game}_*.py")):
        others = [g for g in GAMES if g != game and g.startswith(game)]
        if any(path.stem.startswith(other) for other in others):
            continue  # liars_poker_dice_* is not a liars_poker bot
        if "__main__" not in path.read_text() or path.stem.endswith("_solver"):
            continue  # a solver's command line trains a table, it plays nothing
        table = NEEDS_A_BUILT_TABLE.get(path.stem)
        if table is not None and not any(table.glob("*")):
            continue  # refuses to play without its table (make dice-poker-table)
        found.append(path.stem)
    return found


def tables(game: str) -> list[list[str]]:
    """The bots in tables of the most seats the game allows here (a table of one gets
    the random bot as its opponent)."""
    seats, _ = GAMES[game]
    bots = example_bots(game)
    return [bots[i : i + seats] for i in range(0, len(bots), seats)]


def spec(module: str) -> BotSpec:
    return module_bot(f"example_bots.{module}", name=module)


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_every_example_bot_plays_under_the_allow_list(game: str) -> None:
    _, rules = GAMES[game]
    played = []
    for index, table in enumerate(tables(game)):
        logs: dict[int, bytes] = {}
        bots = tuple(spec(module) for module in table)
        if len(bots) == 1:
            bots = (*bots, spec(f"{game}_random"))
        record = await run_match(
            MatchSpec(game, bots, seed=index + 1, rules=rules, match_id=f"allow-{game}-{index}"),
            LIMITS,
            launcher=FreshLauncher(sandbox=DEFAULT_SANDBOX),
            logs=logs,
        )
        assert not record.faults, f"{game} table {table}: {record.faults}"
        for seat, log in logs.items():
            assert PREFIX.encode() not in log, (table[seat], log[-2000:])
        played += table
    assert sorted(played) == sorted(example_bots(game))
    assert_no_processes_left()


@pytest.mark.refused_calls
async def test_the_author_sees_which_call_was_refused() -> None:
    """A bot that makes calls off the list: each is noted once, by name, in its log,
    which its author reads (not the record); the bot carries on (ENOSYS)."""
    script = (
        "import ctypes, runpy, sys\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "for _ in range(3):\n"
        "    assert libc.mlock(None, 0) == -1 and ctypes.get_errno() == 38\n"
        "    assert libc.sync() is not None\n"
        "sys.argv = ['bot']\n"
        "runpy.run_module('example_bots.liars_dice_random', run_name='__main__')\n"
    )
    bots = (
        BotSpec(name="offlist", command=(sys.executable, "-c", script)),
        spec("liars_dice_random"),
    )
    logs: dict[int, bytes] = {}
    record = await run_match(
        MatchSpec("liars_dice", bots, seed=3, rules={"dice_per_player": "1"}, match_id="offlist"),
        LIMITS,
        launcher=FreshLauncher(sandbox=DEFAULT_SANDBOX),
        logs=logs,
    )
    assert not record.faults, record.faults
    notes = [line for line in logs[0].decode().splitlines() if line.startswith(PREFIX)]
    assert notes == [
        f"{PREFIX} refused system call 'mlock' (not on the allow list): ENOSYS",
        f"{PREFIX} refused system call 'sync' (not on the allow list): ENOSYS",
    ], logs[0][-2000:]
    assert PREFIX.encode() not in logs[1]
    assert PREFIX not in record.to_json()
    assert_no_processes_left()


OFF_LIST_BOT = """\
import ctypes, runpy, sys
ctypes.CDLL(None, use_errno=True).mlock(None, 0)
sys.argv = ["bot"]
runpy.run_module("example_bots.liars_dice_random", run_name="__main__")
"""


@pytest.mark.refused_calls
def test_bot_check_names_the_refused_calls_to_the_author(tmp_path: Path) -> None:
    """``arena bot check`` (run under the ladder's sandbox) tells the author which calls
    were refused, in how many matches, and still judges the bot by how it played."""
    from league.execution.botcheck import check_bot_matches

    script = tmp_path / "offlist.py"
    script.write_text(OFF_LIST_BOT)
    script.chmod(0o644)
    tmp_path.chmod(0o755)
    offlist = BotSpec(name="offlist", command=(sys.executable, str(script)))
    report = check_bot_matches(offlist, "liars_dice", matches=2)
    assert report.passed, report.lines()
    assert report.refused_calls == {"mlock": 2}
    assert any(line.startswith("refused system calls: mlock (in 2 of 2") for line in report.lines())
    honest = check_bot_matches(spec("liars_dice_random"), "liars_dice", matches=1)
    assert honest.refused_calls == {} and not any("refused" in x for x in honest.lines())


SPAMMER = """\
import ctypes, runpy, sys, time
libc = ctypes.CDLL(None, use_errno=True)
began = time.monotonic()
for _ in range(20000):
    assert libc.mlock(None, 0) == -1 and ctypes.get_errno() == 38
print(f"spent {time.monotonic() - began:.3f}", file=sys.stderr, flush=True)
sys.argv = ["bot"]
runpy.run_module("example_bots.liars_dice_random", run_name="__main__")
"""


async def play_one(script: str) -> tuple[MatchSpec, dict[int, bytes], object]:
    bots = (
        BotSpec(name="offlist", command=(sys.executable, "-c", script)),
        spec("liars_dice_random"),
    )
    logs: dict[int, bytes] = {}
    match = MatchSpec("liars_dice", bots, seed=5, rules={"dice_per_player": "1"}, match_id="spam")
    record = await run_match(
        match, LIMITS, launcher=FreshLauncher(sandbox=DEFAULT_SANDBOX), logs=logs
    )
    return match, logs, record


@pytest.mark.refused_calls
async def test_a_bot_spamming_refused_calls_costs_the_referee_256_answers() -> None:
    """20,000 calls off the list: the reporter answers the first 256, then lets the
    kernel answer (ENOSYS all the same), so a bot cannot keep a referee thread busy."""
    from referee.runtime import seccomp_notify

    answered: list[int] = []
    real_close = seccomp_notify.RefusalWatch.close

    def counting_close(self: seccomp_notify.RefusalWatch) -> None:
        answered.append(self.answered)
        real_close(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(seccomp_notify.RefusalWatch, "close", counting_close)
        _, logs, record = await play_one(SPAMMER)
    assert not record.faults, record.faults  # type: ignore[attr-defined]
    assert b"spent " in logs[0]
    assert max(answered) == seccomp_notify.MAX_NOTICES, answered
    assert_no_processes_left()


@pytest.mark.refused_calls
async def test_a_broken_reporter_never_leaves_a_bot_waiting() -> None:
    """Planted: the reporter fails on every notification. The bot's calls still answer
    ENOSYS at once (its listener is closed, the kernel answers) and it plays on."""
    from referee.runtime import seccomp_notify

    def broken(self: seccomp_notify.RefusalWatch, number: int) -> None:
        raise RuntimeError("planted")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(seccomp_notify.RefusalWatch, "note", broken)
        _, logs, record = await play_one(SPAMMER)
    assert not record.faults, record.faults  # type: ignore[attr-defined]
    assert b"spent " in logs[0] and seccomp_notify.PREFIX.encode() not in logs[0]
    assert_no_processes_left()
