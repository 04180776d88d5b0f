"""``arena submit --dry-run`` needs no server and no token, takes a folder, a ``.py``
file or an archive, and names the bot, its entry file and its version as the server
would (issue 43, item 4): it unpacks the upload with the server's own code and limits
(``league.store.uploads``), so what it says is what a submission would get."""

from __future__ import annotations

import io
import tarfile
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from league.cli.authors import pack_files
from league.cli.scaffold import write_project
from league.store.uploads import find_entry, unpack

runner = CliRunner()
LIMITS = {"max_files": 500, "max_unpacked_bytes": 32 << 20}


@pytest.fixture(autouse=True)
def private_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The dry run unpacks under the temporary directory: a private one, to check it
    leaves nothing there; and no token in the environment (it needs none)."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    return temp


def dry_run(path: Path, *options: str) -> tuple[int, list[str], str]:
    result = runner.invoke(app, ["submit", str(path), "-g", "liars_dice", "--dry-run", *options])
    return result.exit_code, result.stdout.splitlines(), result.stderr


def server_version(tmp_path: Path, filename: str, data: bytes, name: str) -> tuple[str, str]:
    """What the server's unpacking makes of the upload: (version, entry file)."""
    tree = unpack(tmp_path / "store", filename, data, **LIMITS)
    entry = find_entry(tree, name).relative_to(tree.root).as_posix()
    return tree.digest[:16], entry


def test_a_folder_lists_its_files_and_names_the_bot_its_entry_and_version(
    tmp_path: Path, private_temp: Path
) -> None:
    project = tmp_path / "my_bot"
    write_project("my_bot", "liars_dice", project)
    code, lines, err = dry_run(project)
    assert code == 0, err
    assert [line.split()[-1] for line in lines[:-1]] == [
        "README.md",
        "my_bot.py",
        "test_my_bot.py",
    ]
    version, entry = server_version(tmp_path, "my_bot.tar.gz", pack_files(project)[0], "my_bot")
    assert entry == "my_bot.py"
    assert lines[-1].startswith("3 files, ")
    assert lines[-1].endswith(
        f": bot my_bot (liars_dice), entry file my_bot.py, version {version};"
        " nothing sent (--dry-run)"
    )
    assert list(private_temp.iterdir()) == []  # the unpacked copy is gone


def test_a_python_file_is_its_own_entry(tmp_path: Path) -> None:
    project = tmp_path / "my_bot"
    write_project("my_bot", "liars_dice", project)
    script = project / "my_bot.py"
    code, lines, err = dry_run(script, "--name", "counting")
    assert code == 0, err
    version, _ = server_version(tmp_path, "my_bot.py", script.read_bytes(), "counting")
    assert lines[0].split() == [f"{script.stat().st_size:,}", "my_bot.py"]
    assert lines[-1].startswith("1 file, ")
    assert "bot counting (liars_dice), entry file my_bot.py, version " + version in lines[-1]


def test_an_archive_names_the_entry_its_manifest_gives(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    files = {
        "bot/arena-bot.toml": b'entry = "src/main.py"\n',
        "bot/src/main.py": b"print()\n",
        "bot/src/helper.py": b"x = 1\n",
    }
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    upload = tmp_path / "packed.tgz"
    upload.write_bytes(buffer.getvalue())
    code, lines, err = dry_run(upload)
    assert code == 0, err
    assert [line.split()[-1] for line in lines[:-1]] == sorted(files)
    assert "bot packed (liars_dice), entry file bot/src/main.py, version " in lines[-1]


def test_what_the_server_would_refuse_is_one_error_line_and_exit_1(
    tmp_path: Path, private_temp: Path
) -> None:
    (tmp_path / "one.py").write_text("print()\n")
    (tmp_path / "two.py").write_text("print()\n")
    code, lines, err = dry_run(tmp_path, "--name", "neither")
    assert code == 1 and lines == []
    assert err.startswith("error: the server would refuse it: no entry point:"), err
    assert err.count("\n") == 1
    assert list(private_temp.iterdir()) == []


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (("--name", "bad name"), "bad bot name 'bad name'"),
        (("-g", "chess"), "unknown game 'chess'"),
    ],
)
def test_a_bad_name_or_game_is_a_usage_error(
    tmp_path: Path, options: tuple[str, ...], says: str
) -> None:
    (tmp_path / "bot.py").write_text("print()\n")
    code, lines, err = dry_run(tmp_path / "bot.py", *options)
    assert code == 2 and lines == []
    assert err.startswith("error: ") and says in err, err


def test_sending_needs_a_server(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print()\n")
    result = runner.invoke(app, ["submit", str(tmp_path / "bot.py"), "-g", "liars_dice"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --server URL is needed to send the bot (--dry-run sends nothing)\n"
    )
