"""The sandbox's settings, where they are stored, and what it changes around a match:
captured output per seat, the deal-group rule of the warm pool, the private
database file, records never written through a link, clear errors without bwrap."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from league.execution.worker_wire import WorkerConfig, decode_config, encode_config
from referee.runtime import cgroups
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import (
    DEFAULT_SANDBOX,
    UID_BASE,
    UID_BLOCKS,
    UIDS_PER_REFEREE,
    SandboxConfig,
    SandboxError,
    build_command,
    held_uid_block,
    release_bot_uid,
    require_tools,
    share_uids,
)
from tests.e2e.conftest import assert_no_sandboxed_processes, module_bot

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
CHATTY = f"{sys.executable} -m tests.bots.chatty"
RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
LIMITS = Limits(decision_s=5.0, startup_s=20.0)


def arena(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
    return result.exit_code, result.output


def test_settings_round_trip_and_bad_values_name_the_setting() -> None:
    config = SandboxConfig(memory_mb=512, cpu_s=30, max_procs=16, readable=("/opt/x",))
    assert SandboxConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    assert SandboxConfig.from_dict({}) == DEFAULT_SANDBOX
    with pytest.raises(ValueError, match="memory_mb"):
        SandboxConfig.from_dict({"memory_mb": 0})
    with pytest.raises(ValueError, match="max_procs"):
        SandboxConfig.from_dict({"max_procs": True})
    with pytest.raises(ValueError, match=r"unknown sandbox setting.*swap"):
        SandboxConfig.from_dict({"swap": 1})
    with pytest.raises(ValueError, match="enabled"):
        SandboxConfig.from_dict({"enabled": "yes"})


def test_missing_bubblewrap_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(shutil, "which", lambda *a, **k: None)
    with pytest.raises(SandboxError, match=r"bwrap \(Debian package bubblewrap\).*--no-sandbox"):
        require_tools()
    code, out = arena(
        tmp_path / "a.db", "match", "--game", "liars_dice", "--bot", RANDOM, "--bot", RANDOM
    )
    assert code == 2 and "bubblewrap" in out and "--no-sandbox" in out, out


@pytest.mark.e2e
async def test_a_host_that_cannot_start_bots_aborts_the_match_and_blames_nobody(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The host failing (here: the uid block exhausted) is no seat's fault: the
    match ends aborted, with no fault to rate, not as a forfeit of whichever seat
    the referee tried first."""
    from referee.runtime import sandbox

    def exhausted() -> int:
        raise SandboxError("all 1000 bot uids of this referee are in use")

    if os.geteuid() == 0:
        monkeypatch.setattr(sandbox, "next_bot_uid", exhausted)
    else:
        monkeypatch.setattr(sandbox, "require_tools", lambda: exhausted())
    record = await run_match(
        MatchSpec(
            "liars_dice", (module_bot(RANDOM.split()[-1]), module_bot(RANDOM.split()[-1])), seed=1
        ),
        LIMITS,
    )
    assert record.reason == "aborted" and not record.faults, record
    assert "uids of this referee are in use" in record.meta["error"]
    assert_no_sandboxed_processes()


@pytest.mark.e2e
async def test_matches_leave_no_descriptor_open_in_the_referee() -> None:
    """Each poll for a bot's socket walks the sandbox's tree with descriptors; one
    left open per poll ran a long test session out of descriptors (EMFILE)."""
    bots = (module_bot(RANDOM.split()[-1]),) * 2
    await run_match(MatchSpec("liars_dice", bots, seed=1), LIMITS)  # warm: lazy imports
    before = len(os.listdir("/proc/self/fd"))
    for seed in range(3):
        record = await run_match(MatchSpec("liars_dice", bots, seed=seed), LIMITS)
        assert not record.faults
    assert len(os.listdir("/proc/self/fd")) <= before + 2  # grpc may keep a pipe or two


@pytest.mark.e2e
def test_record_is_never_written_through_a_planted_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "record.json"
    link.symlink_to(victim)
    code, out = arena(
        tmp_path / "a.db",
        "match",
        "--game",
        "liars_dice",
        "-q",
        "--bot",
        RANDOM,
        "--bot",
        RANDOM,
        "--record",
        str(link),
    )
    assert code == 0, out
    assert victim.read_text() == "precious"
    assert not link.is_symlink()
    assert json.loads(link.read_text())["game"] == "liars_dice"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.e2e
def test_league_keeps_each_seats_output_and_its_sandbox_settings(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for name, command in (("chatty", CHATTY), ("random", RANDOM)):
        code, out = arena(db, "bot", "add", name, "--cmd", command, "--game", "liars_dice")
        assert code == 0, out
    assert (db.stat().st_mode & 0o777) == 0o600
    code, out = arena(
        db,
        "league",
        "create",
        "talk",
        "--game",
        "liars_dice",
        "--bot",
        "chatty",
        "--bot",
        "random",
        "--memory-mb",
        "1024",
        "--max-procs",
        "64",
    )
    assert code == 0, out
    code, out = arena(db, "league", "list", "--json")
    settings = json.loads(out)[0]["sandbox"]
    assert settings["enabled"] is True
    assert (settings["memory_mb"], settings["max_procs"]) == (1024, 64)
    code, out = arena(db, "league", "run", "talk", "--no-progress")
    assert code == 0, out
    code, out = arena(db, "league", "matches", "talk", "--json")
    matches = json.loads(out)
    for match in matches:
        chatty_seat = match["bots"].index("chatty")
        code, out = arena(
            db, "league", "logs", f"talk-{match['position']}", "--seat", str(chatty_seat)
        )
        assert code == 0, out
        assert re.search(rf"chatty process=\w+ seat={chatty_seat}", out), out
        code, out = arena(
            db, "league", "logs", f"talk-{match['position']}", "--seat", str(1 - chatty_seat)
        )
        assert code == 0 and "chatty" not in out
        assert out.startswith("(no output: the bot printed nothing"), out  # it printed ""
    code, out = arena(db, "league", "logs", "talk-0", "--seat", "7")
    assert code == 2 and "no output captured for seat 7" in out
    assert_no_sandboxed_processes()


@pytest.mark.e2e
def test_league_created_without_sandbox_says_so(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    code, out = arena(db, "bot", "add", "random", "--cmd", RANDOM, "--game", "liars_dice")
    assert code == 0, out
    code, out = arena(
        db, "league", "create", "open", "--game", "liars_dice", "--bot", "random",
        "--bot", "random", "--no-sandbox",
    )  # fmt: skip
    # (a bot cannot be entered twice: the error is about that, not about the flag)
    assert code == 2 and "entered twice" in out, out


def processes_in(logs: dict[int, bytes], seat: int) -> set[str]:
    return set(re.findall(r"process=(\w+)", logs[seat].decode()))


@pytest.mark.e2e
async def test_pool_never_reuses_a_process_within_a_deal_group() -> None:
    chatty = module_bot("tests.bots.chatty", name="chatty")
    random_bot = BotSpec("random", command=(sys.executable, "-m", "example_bots.liars_dice_random"))
    pool = WarmPool(sandbox=DEFAULT_SANDBOX)
    seen: list[set[str]] = []
    try:
        for index, (group, bots) in enumerate(
            [
                ("g1", (chatty, random_bot)),
                ("g1", (random_bot, chatty)),  # the other rotation of the same deal
                ("g2", (chatty, random_bot)),  # another deal: a warm process may serve it
            ]
        ):
            logs: dict[int, bytes] = {}
            spec = MatchSpec("liars_dice", bots, seed=3, match_id=f"pool-{index}", deal_group=group)
            record = await run_match(spec, LIMITS, launcher=pool, logs=logs)
            assert record.reason == "completed", record.faults
            seen.append(processes_in(logs, bots.index(chatty)))
    finally:
        await pool.aclose()
    assert all(len(tokens) == 1 for tokens in seen), seen
    assert seen[0] != seen[1], "the same process played both rotations of one deal"
    assert seen[2] & (seen[0] | seen[1]), "no process was reused across deal groups"
    assert pool.reused >= 1
    assert_no_sandboxed_processes()


def test_cpus_are_stored_and_missing_control_groups_are_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "arena.db"
    code, out = arena(
        db, "bot", "add", "random", "--cmd", RANDOM, "--game", "liars_dice", "--no-check"
    )
    assert code == 0, out
    code, out = arena(db, "bot", "add", "other", "--cmd", RANDOM + " --x", "--game",
                      "liars_dice", "--no-check")  # fmt: skip
    assert code == 0, out
    code, out = arena(
        db, "league", "create", "c", "--game", "liars_dice", "--bot", "random", "--bot", "other",
        "--cpus", "0.5",
    )  # fmt: skip
    assert code == 0, out
    code, out = arena(db, "league", "list", "--json")
    assert json.loads(out)[0]["sandbox"]["cpus"] == 0.5
    monkeypatch.setattr(cgroups, "available", lambda: "no writable cgroup here")
    code, out = arena(db, "league", "run", "c", "--no-progress", "--max-matches", "1")
    assert code == 0, out
    assert out.count("warning: bots are limited per process only") == 1, out
    assert "no writable cgroup here" in out


def start_with_lifeline(script: str) -> tuple[subprocess.Popen[bytes], int, int | None]:
    """A sandboxed ``sh -c script`` whose lifeline this test holds: (the process,
    the lifeline's write end, the bot's uid to release)."""
    read_end, write_end = os.pipe()
    command = build_command(
        DEFAULT_SANDBOX, ["/bin/sh", "-c", script], socket_name="bot.sock", lifeline_fd=read_end
    )
    try:
        process = subprocess.Popen(
            command.argv, env={}, pass_fds=(read_end, *command.fds), stdout=subprocess.PIPE
        )
    finally:
        command.close()
        os.close(read_end)
    return process, write_end, command.uid


@pytest.mark.parametrize("referee_alive", [True, False], ids=["alive", "died-during-setup"])
def test_a_bot_never_starts_once_its_referee_is_gone(tmp_path: Path, referee_alive: bool) -> None:
    """The lifeline: if the referee dies while bubblewrap is still setting up (a window
    no death signal covers), the bot's command is never run."""
    process, write_end, uid = start_with_lifeline("echo started")
    if uid is not None:
        release_bot_uid(uid)
    if not referee_alive:
        os.close(write_end)  # what the kernel does when the referee dies
    out, _ = process.communicate(timeout=30)
    code = process.returncode
    if referee_alive:
        os.close(write_end)
        assert code == 0 and out == b"started\n"
    else:
        assert code == 125 and out == b""


HOLD_BLOCK = """
import sys
from pathlib import Path
from referee.runtime import sandbox
print(sandbox.claim_uid_block(Path(sys.argv[1])), flush=True)
sys.stdin.read()
"""

FIRST_BOT_UID = """
import os, sys
from pathlib import Path
from referee.runtime import sandbox
sandbox.UID_LOCK_DIR = Path(sys.argv[1])
pid = int(sys.argv[2])
os.getpid = lambda: pid  # a referee whose pid agrees with the holder's modulo 1000
os.geteuid = lambda: 0  # a root referee (the only kind that hands out uids)
print(sandbox.next_bot_uid())
"""


def test_two_referees_whose_pids_agree_never_hand_out_one_uid(tmp_path: Path) -> None:
    """Uid blocks are held by lock, not derived from pids: a referee whose pid agrees
    with a live referee's modulo 1000 gives its first bot a uid from another block,
    and anyone can tell from the holder's descriptors which block it holds."""
    locks = tmp_path / "locks"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_BLOCK, str(locks)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert holder.stdout is not None
        block = int(holder.stdout.readline())
        assert block == holder.pid % UID_BLOCKS
        assert held_uid_block(holder.pid, locks) == block
        second = subprocess.run(
            [sys.executable, "-c", FIRST_BOT_UID, str(locks), str(holder.pid)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        )
        held = range(UID_BASE + block * UIDS_PER_REFEREE, UID_BASE + (block + 1) * UIDS_PER_REFEREE)
        assert int(second.stdout) not in held
    finally:
        holder.communicate("")
    # The holder is gone: its lock went with it, and its block is free again.
    assert held_uid_block(holder.pid, locks) is None
    again = subprocess.run(
        [sys.executable, "-c", FIRST_BOT_UID, str(locks), str(holder.pid)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert int(again.stdout) in held


def test_workers_are_told_the_runners_uid_block() -> None:
    config = WorkerConfig(DEFAULT_SANDBOX, uid_index=1, uid_count=2, uid_block=7)
    assert decode_config(json.loads(json.dumps(encode_config(config)))) == config
    with pytest.raises(ValueError, match="uid block 1000"):
        share_uids(0, 1, 1000)


def test_a_running_bot_dies_when_its_lifeline_ends() -> None:
    """However its referee dies, and whatever became of the death signals (a window
    while bubblewrap arms its own, a credential change that clears one), the end of
    the lifeline kills every process of the sandbox. Here the referee (this test)
    lives on, so no death signal fires: only the lifeline's watcher can end the bot."""
    process, write_end, uid = start_with_lifeline("echo started; sleep 120 & sleep 120")
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == b"started\n"
        os.close(write_end)  # what the kernel does with a dead referee's descriptors
        assert process.wait(timeout=20) != 0  # bubblewrap ends with its sandbox
        assert_no_sandboxed_processes()
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()
        if uid is not None:
            release_bot_uid(uid)
