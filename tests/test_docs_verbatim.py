"""The README's and docs/writing-a-bot.md's commands work exactly as written.

Each document is followed like a newcomer's terminal session, in a fresh temporary
directory, with the virtual environment's ``bin`` first on ``PATH`` (what
``. .venv/bin/activate`` does, as the README says). Every fenced block of the
document is one of four things, told by the Markdown itself:

* a **file to save**: the last line of text before the block ends with
  ``Save this as `NAME`:`` — the block is written to ``NAME`` in the session's
  current directory;
* **excluded**: the last line of text before the block starts with
  ``*Not run by the docs test:`` and gives a reason (a command that never ends,
  needs a cluster, or takes minutes) — visible to readers, and few;
* **commands** (a ``sh`` block): run as written by bash, one block after another,
  so a ``cd`` carries on to the next block as it does in a terminal;
* **a crash on purpose** (a ``sh`` block whose last line of text before it starts
  with ``*Crashes on purpose:``, visible to readers): commands that show a bot's
  crash, run like the others, but what they must do is show it: a traceback in
  their output, and no exit code above 1 (1 is "a bot faulted"; 2 and above, bad
  input or a failure of arena's own).

Any other fenced block fails the test, so a new example cannot silently go
unchecked. A command fails when it exits non-zero or prints a traceback; every
``arena match`` must end in a completed match with no fault.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "docs/writing-a-bot.md")
SAVE = re.compile(r"[Ss]ave this as `([^`]+)`:\s*$")
EXCLUDED = re.compile(r"^\*Not run by the docs test: (.+)\*\s*$")
CRASH = re.compile(r"^\*Crashes on purpose: (.+)\*\s*$")
FENCE = re.compile(r"^```(\S*)\s*$")
FAILED = "DOCS-TEST-FAILED"
MAX_EXCLUDED = 3
"""Exclusions per document: a few, each with its reason in the document."""

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@dataclass(frozen=True)
class Block:
    """One fenced block: its info string, its text, and the line of prose before it."""

    line: int
    info: str
    text: str
    lead: str


def fenced_blocks(markdown: str) -> list[Block]:
    """Every fenced block of ``markdown``, with the last non-blank line before it."""
    lines = markdown.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
        lead = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        text = "\n".join(lines[index + 1 : end]) + "\n"
        blocks.append(Block(index + 1, opening.group(1), text, lead.strip()))
        index = end + 1
    return blocks


def classify(block: Block) -> tuple[str, str]:
    """``("file", name)``, ``("excluded", reason)``, ``("crash", why)`` or
    ``("commands", "")``."""
    if saved := SAVE.search(block.lead):
        return "file", saved.group(1)
    if excluded := EXCLUDED.match(block.lead):
        return "excluded", excluded.group(1)
    if (crash := CRASH.match(block.lead)) and block.info == "sh":
        return "crash", crash.group(1)
    if block.info == "sh":
        return "commands", ""
    raise AssertionError(
        f"line {block.line}: a ```{block.info} block that is neither a file to save"
        " ('Save this as `NAME`:'), nor commands (```sh), nor excluded"
        " ('*Not run by the docs test: REASON*')"
    )


def session_environment() -> dict[str, str]:
    """The user's environment after ``. .venv/bin/activate``: the venv's bin first."""
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(Path(sys.executable).parent.parent)
    for name in ("ARENA_DB", "PYTHONPATH"):  # a newcomer has neither
        env.pop(name, None)
    return env


def run_commands(
    block: Block, cwd: Path, home: Path, *, crash: bool = False
) -> tuple[list[str], Path]:
    """Run one ``sh`` block; the failures it reports and the directory it ends in.
    ``crash``: a block that crashes on purpose must show a traceback, and may exit 1."""
    where = home / ".docs-test-cwd"
    worst = 1 if crash else 0
    script = (
        f"trap 'code=$?; [ $code -gt {worst} ] && echo \"{FAILED} (exit $code):"
        f" $BASH_COMMAND\" >&2' ERR\n"
        f"cd {str(cwd)!r}\n{block.text}\npwd > {str(where)!r}\n"
    )
    run = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        env=session_environment(),
        timeout=600,
        check=False,
    )
    output = run.stdout + run.stderr
    # (anywhere in a line: what a command wrote before failing may lack its newline)
    failures = [line[line.index(FAILED) :] for line in run.stderr.splitlines() if FAILED in line]
    if crash and "Traceback" not in output:
        failures.append("no traceback from a block that crashes on purpose")
    if not crash:
        if "Traceback" in output:
            failures.append("a traceback")
        failures += match_faults(run.stdout)
    if failures:
        failures.append("output ends:\n" + output[-1500:])
    return [f"block at line {block.line}: {failure}" for failure in failures], Path(
        where.read_text().strip()
    )


def match_faults(stdout: str) -> list[str]:
    """Faults and unfinished matches in ``arena match`` output ("result (completed ...")."""
    problems = []
    for result in re.finditer(r"^result \((\w+)[^\n]*\n(.*?)(?:\n\n|\Z)", stdout, re.M | re.S):
        if result.group(1) != "completed":
            problems.append(f"a match ended {result.group(1)}")
        rows = [row for row in result.group(2).splitlines() if re.match(r"\s*\d+\s+\d+\s", row)]
        for row in rows:
            if row.split()[-1] != "-":
                problems.append(f"a fault: {row.strip()}")
    return problems


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_document_runs_verbatim(document: str, tmp_path: Path) -> None:
    blocks = [(block, *classify(block)) for block in fenced_blocks((ROOT / document).read_text())]
    excluded = [block for block, kind, _ in blocks if kind == "excluded"]
    assert len(excluded) <= MAX_EXCLUDED, f"{document}: too many blocks excluded"
    assert any(kind == "commands" for _, kind, _ in blocks), f"{document}: nothing to run"
    home = tmp_path
    cwd = tmp_path / "session"
    cwd.mkdir()
    for directory in (tmp_path, cwd):  # sandboxed bots run as a user of their own
        directory.chmod(0o755)
    # The session stands where a user stands: beside the checkout's .venv, so
    # `. .venv/bin/activate` works as the README writes it.
    (cwd / ".venv").symlink_to(Path(sys.prefix))
    failures: list[str] = []
    for block, kind, detail in blocks:
        if kind == "file":
            (cwd / detail).write_text(block.text)
        elif kind in ("commands", "crash"):
            found, cwd = run_commands(block, cwd, home, crash=kind == "crash")
            failures += found
    assert not failures, f"{document}:\n" + "\n".join(failures)
    if document == "docs/writing-a-bot.md":
        uploaded_after_the_docs(tmp_path / "session" / "my_bot")


def uploaded_after_the_docs(bot: Path) -> None:
    """The bot folder the docs built holds no database, and what `arena submit`
    would send from it is the bot: no database, no key (issue 32, item 2)."""
    assert not [p.name for p in bot.iterdir() if p.suffix in (".db", ".sqlite")], bot
    done = subprocess.run(
        ["arena", "submit", str(bot), "-g", "liars_dice", "--dry-run"],
        env=session_environment(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    sent = [line.split()[-1] for line in done.stdout.splitlines()[:-1]]
    assert "my_bot.py" in sent and "try_local.py" in sent, sent
    assert not [name for name in sent if name.endswith((".db", ".key", "-wal", "-shm"))], sent


def test_the_block_rules_see_files_exclusions_and_commands() -> None:
    markdown = (
        "Save this as `a.py`:\n\n```python\nprint(1)\n```\n"
        "*Not run by the docs test: it never ends.*\n```sh\nsleep inf\n```\n"
        "Then:\n```sh\npython a.py\n```\n"
        "*Crashes on purpose: it shows a traceback.*\n```sh\npython -c 1/0\n```\n"
    )
    kinds = [classify(block) for block in fenced_blocks(markdown)]
    assert kinds == [
        ("file", "a.py"),
        ("excluded", "it never ends."),
        ("commands", ""),
        ("crash", "it shows a traceback."),
    ]
    with pytest.raises(AssertionError, match="neither a file"):
        classify(fenced_blocks("Look:\n```python\nx = 1\n```\n")[0])


def test_match_output_with_a_fault_is_a_failure() -> None:
    faulted = (
        "result (completed, 3 events, 0.1 s):\n"
        "place  seat  bot  score  fault\n"
        "    1     1  a        5  -\n"
        "    2     0  b        0  startup\n"
    )
    assert match_faults(faulted) == ["a fault: 2     0  b        0  startup"]
    assert match_faults(faulted.replace("startup", "-")) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("python -c '1/0' || true\n", []),  # a traceback, exit 0
        ("python -c 'import sys; sys.stderr.write(\"Traceback x\"); sys.exit(1)'\n", []),
        ("python -c 'import sys; sys.stderr.write(\"Traceback x\"); sys.exit(2)'\n", ["exit 2"]),
        ("echo no crash\n", ["no traceback"]),
    ],
    ids=["traceback", "exit 1", "exit 2", "no traceback"],
)
def test_a_block_that_crashes_on_purpose_must_show_it(
    tmp_path: Path, text: str, expected: list[str]
) -> None:
    block = Block(1, "sh", text, "*Crashes on purpose: a test.*")
    failures, _ = run_commands(block, tmp_path, tmp_path, crash=True)
    found = [f for f in failures if not f.startswith("block at line 1: output ends")]
    assert len(found) == len(expected), failures
    for failure, says in zip(found, expected, strict=True):
        assert says in failure, failure
