"""What an upload holds (issue 32, item 2): ``arena submit`` packs only the bot, lists
it with ``--dry-run``, refuses a file that looks like a key or a database, and the
server keeps none of what the defaults leave out.

Before, following docs/writing-a-bot.md left ``arena.db`` (with ``-wal``/``-shm``)
and ``arena-store/server.key`` in the bot folder, and ``arena submit`` sent them all.
"""

from __future__ import annotations

import io
import sqlite3
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from league.cli.authors import pack_directory
from league.cli.scaffold import write_project
from league.domain.bot_files import RefusedFileError, excluded, ignore_patterns, looks_secret
from league.store.uploads import UploadRejected, unpack

runner = CliRunner()
LIMITS = {"max_files": 100, "max_unpacked_bytes": 1 << 20}
KEY = b"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"


def litter(project: Path) -> None:
    """What the docs' commands and a developer's tools leave in a bot folder."""
    connection = sqlite3.connect(project / "arena.db")
    connection.execute("CREATE TABLE t (x)")
    connection.commit()
    connection.close()
    (project / "arena.db-wal").write_bytes(b"wal")
    (project / "arena.db-shm").write_bytes(b"shm")
    (project / "arena-store").mkdir()
    (project / "arena-store" / "server.key").write_bytes(KEY)
    for folder in (".git", ".venv/lib", "__pycache__", ".pytest_cache"):
        (project / folder).mkdir(parents=True)
        (project / folder / "x").write_bytes(b"x")


def names(data: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return sorted(archive.getnames())


def test_a_littered_folder_packs_only_the_bot(tmp_path: Path) -> None:
    project = tmp_path / "my_bot"
    write_project("my_bot", "liars_dice", project)
    litter(project)
    assert names(pack_directory(project)) == ["README.md", "my_bot.py", "test_my_bot.py"]


def test_arenaignore_leaves_out_more(tmp_path: Path) -> None:
    project = tmp_path / "my_bot"
    write_project("my_bot", "liars_dice", project)
    (project / "notes").mkdir()
    (project / "notes" / "plan.txt").write_text("x")
    (project / "big.bin").write_bytes(b"0" * 10)
    (project / ".arenaignore").write_text("# mine\nnotes/\n*.bin\n")
    assert names(pack_directory(project)) == ["README.md", "my_bot.py", "test_my_bot.py"]


@pytest.mark.parametrize(
    ("name", "content"),
    [("keys.txt", KEY), ("state.dat", b"SQLite format 3\x00" + b"\x00" * 20), ("id_rsa", b"x")],
)
def test_a_file_that_looks_like_a_secret_stops_the_packing(
    tmp_path: Path, name: str, content: bytes
) -> None:
    (tmp_path / "bot.py").write_text("print()")
    (tmp_path / name).write_bytes(content)
    with pytest.raises(RefusedFileError, match=f"refusing to pack {name}: .*\\.arenaignore"):
        pack_directory(tmp_path)


def test_dry_run_lists_what_would_go_and_sends_nothing(tmp_path: Path) -> None:
    project = tmp_path / "my_bot"
    write_project("my_bot", "liars_dice", project)
    litter(project)
    # no token, no reachable server: --dry-run needs neither
    result = runner.invoke(
        app, ["submit", str(project), "--server", "http://127.0.0.1:9", "-g", "liars_dice",
              "--dry-run"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    listed = [line.split()[-1] for line in result.stdout.splitlines()[:-1]]
    assert listed == ["README.md", "my_bot.py", "test_my_bot.py"]
    assert result.stdout.splitlines()[-1].startswith("3 files, ")


def test_a_refused_file_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print()")
    (tmp_path / "server.key").write_bytes(KEY)
    result = runner.invoke(
        app, ["submit", str(tmp_path), "--server", "http://x", "-g", "liars_dice", "--dry-run"]
    )
    assert result.exit_code == 2
    assert "refusing to pack server.key: its name looks like a key's" in result.output


def test_the_rules() -> None:
    assert ignore_patterns("# c\n\n a/ \n*.x\n") == ("a/", "*.x")
    for path in ("arena.db", "x/arena.db-wal", "arena-store/server.key", ".env", "a/.git/x"):
        assert excluded(path), path
    for path in ("my_bot.py", "data/table.npz", "envoy.py"):
        assert not excluded(path), path
    assert excluded("notes/a.txt", ("notes/",)) and excluded("a.bin", ("*.bin",))
    assert looks_secret("ok.py", b"import x") is None
    assert looks_secret("k.pem", b"") is not None


def test_the_server_keeps_none_of_it(tmp_path: Path) -> None:
    """An archive packed by hand (``tar czf``) with the litter in it: the server
    stores the bot without it, and rejects a key it would have stored."""
    project = tmp_path / "my_bot"
    write_project("my_bot", "liars_dice", project)
    litter(project)
    (project / "arena-store" / "server.key").unlink()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(project, arcname="my_bot")
    tree = unpack(tmp_path / "store", "my_bot.tgz", buffer.getvalue(), **LIMITS)
    assert sorted(tree.files) == ["my_bot/README.md", "my_bot/my_bot.py", "my_bot/test_my_bot.py"]
    (project / "keys.txt").write_bytes(KEY)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(project, arcname="my_bot")
    with pytest.raises(UploadRejected, match=r"'my_bot/keys\.txt' looks like a key"):
        unpack(tmp_path / "store", "my_bot.tgz", buffer.getvalue(), **LIMITS)
