"""A submitted tree reaches the bot as a fresh copy with fixed times (referee/runtime/tree_copy.py).

Each start of a bot sees the same metadata of its own files — modification times
fixed, change times as old as the sandbox, inode numbers, link counts, sizes,
modes — whatever the host's tree looks like; the host's tree (bound at a staging
path) is out of the bot's reach, and the copy is read-only to it. A protected file
under the tree is left out of the copy. GUARD: with the copy off the bot sees the
host's times and inode numbers.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.runtime.process import BotProcess, BotSpec, make_workdir
from referee.runtime.sandbox import BOT_TREE_MARKER, SandboxConfig
from referee.runtime.tree_copy import FIXED_MTIME, STAGE_ROOT, bwrap_args, copy_command
from tests.security.support import assert_no_processes_left

pytestmark = [pytest.mark.e2e]

PROBE = Path(__file__).with_name("tree_probe.py")


def make_tree(root: Path) -> Path:
    tree = root / "bots" / "0123abcd"
    (tree / "pkg").mkdir(parents=True)
    shutil.copy(PROBE, tree / "probe.py")
    (tree / "pkg" / "data.txt").write_text("some data\n")
    (tree / "secret.db").write_text("never copied\n")
    (tree / BOT_TREE_MARKER).write_text("files unpacked by arena submit\n")
    for directory, _dirs, names in os.walk(tree):
        for name in names:
            os.chmod(os.path.join(directory, name), 0o444)
    for directory, _dirs, _names in os.walk(tree, topdown=False):
        os.chmod(directory, 0o555)
    for parent in (tree.parent, root):
        os.chmod(parent, 0o755)
    return tree


def probe(tree: Path, config: SandboxConfig) -> dict[str, Any]:
    spec = BotSpec(name="probe", command=(sys.executable, str(tree / "probe.py")))

    async def main() -> str:
        process = await BotProcess.spawn(spec, make_workdir(), config)
        try:
            with trio.fail_after(30):
                while process.returncode is None:
                    await trio.sleep(0.05)
            return process.log_tail(20_000)
        finally:
            await process.stop()
            shutil.rmtree(process.workdir, ignore_errors=True)

    log = trio.run(main)
    lines = [line for line in log.splitlines() if line.startswith("TREE ")]
    assert len(lines) == 1, log
    return dict(json.loads(lines[0][len("TREE ") :]))


def metadata(seen: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every entry's metadata but the change time's age (which is the sandbox's)."""
    return {
        path: {k: v for k, v in entry.items() if k != "ctime_age"}
        for path, entry in seen["entries"].items()
    }


def test_arguments_stage_the_tree_and_copy_it_before_the_command(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    args = bwrap_args([tree])
    assert args[args.index("--ro-bind") + 1 : args.index("--ro-bind") + 3] == [
        str(tree),
        f"{STAGE_ROOT}/0",
    ]
    assert args[-2:] == ["--tmpfs", str(tree)]
    words = copy_command([tree], [tree / "secret.db", tmp_path / "elsewhere"])
    assert words[4:] == ["1", f"{STAGE_ROOT}/0", str(tree), "1", "./secret.db"]
    assert bwrap_args([]) == copy_command([]) == []


def test_every_start_sees_the_same_tree_and_never_the_hosts(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    config = SandboxConfig(protect=(str(tree / "secret.db"),))
    first = probe(tree, config)
    time.sleep(1.1)
    os.utime(tree / "pkg" / "data.txt")  # the host tree changes: the copy does not
    second = probe(tree, config)
    assert metadata(first) == metadata(second)
    assert set(first["entries"]) == {".", "probe.py", "pkg", "pkg/data.txt", BOT_TREE_MARKER}
    for entry in first["entries"].values():
        assert entry["mtime"] == FIXED_MTIME
        assert 0 <= entry["ctime_age"] < 10
    assert first["write"] in ("PermissionError", "OSError")
    if os.geteuid() == 0:  # the bot has a uid of its own: the copy is root's
        assert first["stage"] == "PermissionError"
        assert {e["uid"] for e in first["entries"].values()} == {0}
        assert first["uid"] != 0
    assert_no_processes_left()


def test_guard_without_the_copy_the_bot_sees_the_hosts_tree(tmp_path: Path) -> None:
    """GUARD: bound from the host, the tree shows the host's times and inodes."""
    tree = make_tree(tmp_path)
    seen = probe(tree, SandboxConfig(copy_trees=False))
    host = os.stat(tree / "probe.py")
    assert seen["entries"]["probe.py"]["mtime"] == host.st_mtime
    assert seen["entries"]["probe.py"]["ino"] == host.st_ino
    assert "secret.db" in seen["entries"]
    assert_no_processes_left()
