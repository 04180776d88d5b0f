"""Issue 42, item 4: the upload filters find keys and databases however they are named
and wherever they sit in a file's first kilobytes.

The attack round against 849f112 found the filters of ``league/domain/bot_files.py``
case-sensitive (``Arena-Store/``, ``ARENA.DB`` went up), blind to compressed copies
(``arena.db.gz``), blind to a DSA key, and looking only at a file's first 64 bytes
(an OpenSSH key after a 70-byte comment went up). Now names match case-insensitively
and without a compression or backup suffix, and a file's first 64 KiB — and what a
gzip, bzip2, xz or zip head decompresses to — is searched for private keys and
tokens with detect-secrets' plugins and for SQLite's headers.

Every case is tried three ways: :func:`looks_secret` itself, ``arena submit``'s
packer (``RefusedFileError``) and the server's unpacker (``SecretInUpload``); and
the message names the file and never holds the secret. The guards run the old rules
(a frozen copy, :func:`old_looks_secret` and :func:`old_excluded`) on the issue's
cases and show them pass.
"""

from __future__ import annotations

import base64
import bz2
import gzip
import io
import lzma
import os
import random
import secrets
import shutil
import socket
import sqlite3
import subprocess
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

import pytest

from league.cli.authors import bot_files, pack_directory
from league.cli.scaffold import write_project
from league.domain import bot_files as bot_files_module
from league.domain.bot_files import (
    HEAD_BYTES,
    SCAN_BYTES,
    RefusedFileError,
    excluded,
    looks_secret,
    unwrapped,
)
from league.store.uploads import SecretInUpload, unpack
from referee.core.catalogue import game_names

ROOT = Path(__file__).resolve().parents[2]
LIMITS = {"max_files": 500, "max_unpacked_bytes": 32 << 20}
BOT = b"import sys\nprint('bot')\n"
DASHES = "-----"


def pem(label: str, body: bytes) -> bytes:
    """A PEM block (the header is built here, so this file does not trip scanners)."""
    lines = base64.encodebytes(body).decode().strip()
    return f"{DASHES}BEGIN {label}{DASHES}\n{lines}\n{DASHES}END {label}{DASHES}\n".encode()


KEY_KINDS = {
    # kind: (ssh-keygen arguments, label of the synthetic stand-in)
    "dsa": (["-t", "dsa", "-m", "PEM"], "DSA PRIVATE KEY"),
    "openssh": (["-t", "ed25519"], "OPENSSH PRIVATE KEY"),
    "ec": (["-t", "ecdsa", "-m", "PEM"], "EC PRIVATE KEY"),
    "rsa": (["-t", "rsa", "-b", "1024", "-m", "PEM"], "RSA PRIVATE KEY"),
    "pkcs8": (["-t", "rsa", "-b", "1024", "-m", "PKCS8"], "PRIVATE KEY"),
    "pkcs8-encrypted": (
        ["-t", "rsa", "-b", "1024", "-m", "PKCS8", "-N", "a passphrase"],
        "ENCRYPTED PRIVATE KEY",
    ),
}


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Real keys from ``ssh-keygen`` where it is installed (a synthetic PEM block of
    the same label where not), and the formats it does not write: a PGP private key
    block, PuTTY's version 2 and 3 files, an SSH2 encrypted key."""
    folder = tmp_path_factory.mktemp("keys")
    made: dict[str, bytes] = {}
    rng = random.Random(42)
    for kind, (args, label) in KEY_KINDS.items():
        path = folder / kind
        if shutil.which("ssh-keygen") is not None:
            passphrase = [] if "-N" in args else ["-N", ""]
            subprocess.run(
                ["ssh-keygen", "-q", *args, *passphrase, "-C", "", "-f", str(path)],
                check=True,
                capture_output=True,
                timeout=60,
            )
            made[kind] = path.read_bytes()
        else:
            made[kind] = pem(label, rng.randbytes(600))
        assert made[kind].startswith(f"{DASHES}BEGIN {label}{DASHES}".encode())
    made["pgp"] = pem("PGP PRIVATE KEY BLOCK", rng.randbytes(900))
    body = base64.encodebytes(rng.randbytes(200)).decode()
    for version in (2, 3):
        made[f"putty-{version}"] = (
            f"PuTTY-User-Key-File-{version}: ssh-ed25519\nEncryption: none\nComment: x\n"
            f"Public-Lines: 2\n{body}Private-Lines: 1\n{body}"
        ).encode()
    made["ssh2"] = f"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n{body}".encode()
    return made


def sqlite_database(tmp: Path) -> bytes:
    """A real SQLite database (what ``arena`` commands leave as ``arena.db``)."""
    path = tmp / "real.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE author (name TEXT, token_hash TEXT)")
    connection.execute("INSERT INTO author VALUES ('ada', 'sha256:00')")
    connection.commit()
    connection.close()
    data = path.read_bytes()
    path.unlink()
    return data


def sqlite_wal(tmp: Path) -> bytes:
    """A real write-ahead log, copied while its database is open (``arena.db-wal``)."""
    connection = sqlite3.connect(tmp / "wal.db")
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("CREATE TABLE t (x)")
    connection.execute("INSERT INTO t VALUES ('secret row')")
    connection.commit()
    data = (tmp / "wal.db-wal").read_bytes()
    connection.close()
    return data


def tar_of(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def zip_of(name: str, data: bytes, method: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        archive.writestr("README.txt", "weights for my bot\n")
        archive.writestr(name, data)
    return buffer.getvalue()


def padded(prefix_bytes: int, secret: bytes) -> bytes:
    """``secret`` after ``prefix_bytes`` of ordinary Python (comment lines)."""
    prefix = b"".join(b"# notes on my bot, line %06d\n" % i for i in range(prefix_bytes // 30 + 1))
    return prefix[:prefix_bytes] + b"\n" + secret + b"\nx = 1\n"


Case = Callable[[Path, dict[str, bytes]], bytes]


def placed(kind: str, at: int) -> Case:
    """The key of ``kind`` after ``at`` bytes of code (at the start for 0)."""

    def make(_tmp: Path, keys: dict[str, bytes]) -> bytes:
        return padded(at, keys[kind]) if at else keys[kind]

    return make


KEY_PLACES = {"at 0": 0, "after 70 bytes": 70, "after 2 KiB": 2048, "after 60 KiB": 60 << 10}
CONTENT: dict[str, tuple[str, Case]] = {
    **{
        f"{kind} key {place}": ("settings.py", placed(kind, at))
        for kind in (*KEY_KINDS, "pgp", "putty-2", "putty-3", "ssh2")
        for place, at in KEY_PLACES.items()
    },
    "an AWS access key": (
        "config.py",
        lambda _t, _k: b'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"\n',
    ),
    "a GitHub token": (
        "deploy.py",
        lambda _t, _k: (
            b'TOKEN = "ghp_' + random.Random(1).randbytes(27).hex()[:36].encode() + b'"\n'
        ),
    ),
    "an arena author token": (
        "submit.sh",
        lambda _t, _k: padded(
            100,
            f"export ARENA_TOKEN=arena_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}".encode(),
        ),
    ),
    "a SQLite database renamed notes.txt": ("notes.txt", lambda tmp, _k: sqlite_database(tmp)),
    "a SQLite database after 3 KiB of text": (
        "data.bin",
        lambda tmp, _k: padded(3 << 10, sqlite_database(tmp)),
    ),
    "a SQLite write-ahead log renamed log.txt": ("log.txt", lambda tmp, _k: sqlite_wal(tmp)),
    "a SQLite rollback journal's header": (
        "cache.bin",
        lambda _t, _k: bytes.fromhex("d9d505f920a163d7") + bytes(504),
    ),
    "a gzip copy of a database": (
        "weights.bin",
        lambda tmp, _k: gzip.compress(sqlite_database(tmp)),
    ),
    "a zlib copy of a database": ("table.bin", lambda tmp, _k: zlib.compress(sqlite_database(tmp))),
    "a bzip2 copy of a database": (
        "weights.bin",
        lambda tmp, _k: bz2.compress(sqlite_database(tmp)),
    ),
    "an xz copy of a database": (
        "weights.bin",
        lambda tmp, _k: lzma.compress(sqlite_database(tmp)),
    ),
    "a database in a deflated zip": (
        "model.dat",
        lambda tmp, _k: zip_of("arena.db", sqlite_database(tmp), zipfile.ZIP_DEFLATED),
    ),
    "a database in a stored zip": (
        "model.npz",
        lambda tmp, _k: zip_of("arena.db", sqlite_database(tmp), zipfile.ZIP_STORED),
    ),
    "a database in a tar": ("bundle.dat", lambda tmp, _k: tar_of("arena.db", sqlite_database(tmp))),
    "a database in a tar.gz": (
        "bundle.dat",
        lambda tmp, _k: gzip.compress(tar_of("arena.db", sqlite_database(tmp))),
    ),
    "a key in a gzip": ("notes.gz", lambda _t, keys: gzip.compress(padded(500, keys["openssh"]))),
    "a key in a zip in a gzip": (
        "notes.bin",
        lambda _t, keys: gzip.compress(zip_of("k.txt", keys["rsa"], zipfile.ZIP_DEFLATED)),
    ),
}

REFUSED_NAMES = (
    "Server.KEY",
    "server.key.gz",
    "ID_RSA",
    "id_dsa",
    "id_ed25519.bak",
    "deploy.PEM",
    "tls.pem.xz",
    "cert.P12",
    "me.pfx",
    "putty.PPK",
)
EXCLUDED_NAMES = (
    "Arena-Store/server.key",
    "ARENA-STORE/uploads/x.tgz",
    "sub/Arena-Store/bots/x.py",
    "ARENA.DB",
    "Arena.Db-Wal",
    "arena.DB-shm",
    "league.SQLite",
    "x.SQLITE3",
    "arena.db.gz",
    "arena.DB.GZ",
    "league.sqlite3.bz2",
    "arena.db.xz",
    "arena.db.zst",
    "arena.db.zip",
    "arena.db.tar.gz",
    "arena.db.tgz",
    "arena.db.bak",
    "arena.db.1",
    "arena.db~",
    "backups/arena.sqlite.gz.1",
    "Arena-Store.tar.gz",
    "arena-store.zip",
    "__PYCACHE__/x.pyc",
    ".Git/config",
)


def secret_slice(data: bytes) -> bytes:
    """A distinctive piece of the secret's middle: a message must not hold it."""
    middle = len(data) // 2
    return data[middle : middle + 24]


@pytest.mark.parametrize("case", list(CONTENT))
def test_a_key_token_or_database_in_a_file_is_refused_three_ways(
    case: str, tmp_path: Path, keys: dict[str, bytes]
) -> None:
    name, make = CONTENT[case]
    data = make(tmp_path, keys)
    assert len(data) <= HEAD_BYTES
    why = looks_secret(name, data[:HEAD_BYTES])
    assert why is not None, case
    assert secret_slice(data).decode("latin-1") not in why
    # arena submit: packing the folder stops at the file, naming it
    folder = tmp_path / "my_bot"
    folder.mkdir()
    (folder / "my_bot.py").write_bytes(BOT)
    (folder / name).write_bytes(data)
    with pytest.raises(RefusedFileError, match=f"refusing to pack {name}: ") as refused:
        pack_directory(folder)
    assert secret_slice(data).decode("latin-1") not in str(refused.value)
    # the server: an archive packed by hand is refused, nothing stored
    upload = io.BytesIO()
    with tarfile.open(fileobj=upload, mode="w:gz") as archive:
        archive.add(folder, arcname="my_bot")
    store = tmp_path / "store"
    with pytest.raises(SecretInUpload, match=f"'my_bot/{name}' looks like a key") as rejected:
        unpack(store, "my_bot.tgz", upload.getvalue(), **LIMITS)
    assert secret_slice(data).decode("latin-1") not in str(rejected.value)
    assert not (store / "bots").exists() or not any((store / "bots").iterdir())


@pytest.mark.parametrize("name", REFUSED_NAMES)
def test_a_key_s_name_is_refused_in_any_case_and_compressed(name: str, tmp_path: Path) -> None:
    assert looks_secret(name, b"harmless") is not None
    (tmp_path / "bot.py").write_bytes(BOT)
    (tmp_path / name).write_bytes(b"harmless")
    with pytest.raises(RefusedFileError, match=f"refusing to pack {name}: its name"):
        pack_directory(tmp_path)


@pytest.mark.parametrize("relative", EXCLUDED_NAMES)
def test_a_database_or_the_store_is_left_out_in_any_case_and_compressed(
    relative: str, tmp_path: Path
) -> None:
    """Left out (never packed, never stored), as ``arena.db`` and ``arena-store/``
    always were: the content here is harmless, so only the name leaves it out."""
    assert excluded(relative), relative
    folder = tmp_path / "my_bot"
    (folder / relative).parent.mkdir(parents=True, exist_ok=True)
    (folder / relative).write_bytes(b"harmless")
    (folder / "my_bot.py").write_bytes(BOT)
    assert [r for r, _ in bot_files(folder)] == ["my_bot.py"]
    upload = io.BytesIO()
    with tarfile.open(fileobj=upload, mode="w:gz") as archive:
        archive.add(folder, arcname=".")
    tree = unpack(tmp_path / "store", "my_bot.tgz", upload.getvalue(), **LIMITS)
    assert tree.files == ("my_bot.py",)


def test_arenaignore_patterns_match_in_any_case() -> None:
    assert excluded("Notes/Plan.TXT", ("notes/",)) and excluded("BIG.BIN", ("*.bin",))


def test_unwrapped_names() -> None:
    assert unwrapped("Arena.DB.tar.GZ") == "arena.db"
    assert unwrapped("arena.db.1") == "arena.db"
    assert unwrapped("league.sqlite3.bz2") == "league.sqlite3"
    assert unwrapped("my_bot.py") == "my_bot.py"
    assert unwrapped(".gz") == ".gz"


def test_arena_submit_says_which_file_and_exits_2(tmp_path: Path, keys: dict[str, bytes]) -> None:
    from typer.testing import CliRunner

    from league.cli import app

    (tmp_path / "bot.py").write_bytes(BOT)
    (tmp_path / "settings.py").write_bytes(padded(70, keys["openssh"]))
    result = CliRunner().invoke(
        app, ["submit", str(tmp_path), "--server", "http://x", "-g", "liars_dice", "--dry-run"]
    )
    assert result.exit_code == 2
    assert "refusing to pack settings.py: it holds a private key" in result.output
    assert secret_slice(keys["openssh"]).decode() not in result.output


# --- what must pass -------------------------------------------------------------------


def project_files() -> list[Path]:
    return sorted(
        path
        for top in ("example_bots", "sdk", "referee")
        for path in (ROOT / top).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )


def test_no_file_of_the_example_bots_sdk_or_referee_is_flagged() -> None:
    """Every file of the bots, the SDK and the referee (code, tables, the ``.npz``
    zips of the CFR bots) reads as no key, token or database."""
    files = project_files()
    assert len(files) > 100
    flagged = {}
    for path in files:
        with path.open("rb") as handle:
            why = looks_secret(path.relative_to(ROOT).as_posix(), handle.read(HEAD_BYTES))
        if why is not None:
            flagged[str(path.relative_to(ROOT))] = why
    assert flagged == {}


@pytest.mark.parametrize("top", ["example_bots", "sdk", "referee"])
def test_every_example_bot_tree_packs_and_unpacks(top: str, tmp_path: Path) -> None:
    files = pack_directory(ROOT / top)
    tree = unpack(tmp_path / "store", f"{top}.tgz", files, **LIMITS)
    kept = {r for r, _ in bot_files(ROOT / top)}
    assert set(tree.files) == kept and len(kept) > 10


def test_every_game_s_new_project_packs(tmp_path: Path) -> None:
    for game in game_names():
        folder = tmp_path / game
        write_project("my_bot", game, folder)
        assert [r for r, _ in bot_files(folder)] == ["README.md", "my_bot.py", "test_my_bot.py"]


def test_ordinary_files_pass() -> None:
    """What a bot may hold: code naming the markers as text, random binary tables,
    compressed tables, a zip of arrays, a file exactly at the scan's edge."""
    rng = random.Random(7)
    code = b'MAGIC = b"SQLite format 3\\x00"  # the header, as an escaped literal\n'
    code += b"# see -----BEGIN PUBLIC KEY----- for the format; a private key never goes here\n"
    assert looks_secret("bot.py", code) is None
    table = rng.randbytes(HEAD_BYTES)
    assert looks_secret("table.bin", table) is None
    assert looks_secret("table.bin.gz", gzip.compress(table[:200_000])) is None
    assert (
        looks_secret("arrays.npz", zip_of("a.npy", table[:100_000], zipfile.ZIP_DEFLATED)) is None
    )
    assert looks_secret("edge.txt", b"x" * SCAN_BYTES) is None


def test_a_key_past_the_scanned_head_is_not_found_as_documented(keys: dict[str, bytes]) -> None:
    """The documented limit: only the first :data:`SCAN_BYTES` are searched."""
    assert looks_secret("big.py", padded(SCAN_BYTES + 10, keys["openssh"])) is None


# --- guards: the old rules (849f112), frozen here, miss the issue's cases -------------

OLD_EXCLUDES = ("arena-store/", "*.db", "*.db-wal", "*.db-shm", "*.db-journal", "*.sqlite",
                "*.sqlite3")  # fmt: skip
OLD_SECRET_NAMES = ("*.key", "*.pem", "id_rsa*", "id_ed25519*", "id_ecdsa*", "*.p12")
OLD_HEADERS = (
    b"SQLite format 3\x00",
    f"{DASHES}BEGIN OPENSSH PRIVATE KEY{DASHES}".encode(),
    f"{DASHES}BEGIN RSA PRIVATE KEY{DASHES}".encode(),
    f"{DASHES}BEGIN EC PRIVATE KEY{DASHES}".encode(),
    f"{DASHES}BEGIN PRIVATE KEY{DASHES}".encode(),
    f"{DASHES}BEGIN ENCRYPTED PRIVATE KEY{DASHES}".encode(),
)
OLD_HEAD_BYTES = 64


def old_excluded(relative: str) -> bool:
    """``excluded`` of 849f112 for the database and store patterns (``fnmatch``:
    case-sensitive on POSIX)."""
    path = PurePosixPath(relative)
    folders = path.parts[:-1]
    for pattern in OLD_EXCLUDES:
        if pattern.endswith("/"):
            if any(fnmatch(folder, pattern.rstrip("/")) for folder in folders):
                return True
        elif fnmatch(relative, pattern) or fnmatch(path.name, pattern):
            return True
    return False


def old_looks_secret(relative: str, head: bytes) -> bool:
    """``looks_secret`` of 849f112, fed the 64 bytes ``arena submit`` read."""
    head = head[:OLD_HEAD_BYTES]
    name = PurePosixPath(relative).name
    return any(fnmatch(name, p) for p in OLD_SECRET_NAMES) or any(
        head.startswith(h) or h in head for h in OLD_HEADERS
    )


def test_guard_the_old_rules_upload_the_issue_s_cases(
    tmp_path: Path, keys: dict[str, bytes]
) -> None:
    database = sqlite_database(tmp_path)
    assert old_excluded("arena.db") and old_looks_secret("notes.txt", database)  # the copy is true
    for relative in ("Arena-Store/server.json", "ARENA.DB", "arena.db.gz", "x.sqlite3.bz2"):
        assert not old_excluded(relative), relative
        assert excluded(relative), relative
    issue = {
        "dsa key": ("settings.py", keys["dsa"]),
        "openssh key after 70 bytes": ("settings.py", padded(70, keys["openssh"])),
        "openssh key after 2 KiB": ("settings.py", padded(2048, keys["openssh"])),
        "pgp key": ("settings.py", keys["pgp"]),
        "gzip copy of a database": ("backup.bin", gzip.compress(database)),
        "database in a zip": ("model.dat", zip_of("arena.db", database, zipfile.ZIP_DEFLATED)),
        "database after 3 KiB": ("data.bin", padded(3 << 10, database)),
        "write-ahead log": ("log.txt", sqlite_wal(tmp_path)),
        "name ID_RSA": ("ID_RSA", b"harmless"),
        "name Server.KEY": ("Server.KEY", b"harmless"),
    }
    for case, (name, data) in issue.items():
        assert not old_looks_secret(name, data), case
        assert looks_secret(name, data[:HEAD_BYTES]) is not None, case


def test_guard_without_decompression_a_compressed_database_passes(tmp_path: Path) -> None:
    """The database's header is nowhere in its compressed bytes: only decompressing
    the head finds it."""
    database = sqlite_database(tmp_path)
    for compress in (gzip.compress, bz2.compress, lzma.compress):
        packed = compress(database)
        assert b"SQLite format 3\x00" not in packed
        assert looks_secret("weights.bin", packed) is not None


def test_the_scan_runs_no_network_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """detect-secrets' plugins are used for their regular expressions only: no
    verification request (a socket connecting fails the test), no baseline file."""

    def no_network(*_args: object) -> None:
        raise AssertionError("the scan opened a connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.chdir(tmp_path)
    for data in (b'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"\n', b'T = "ghp_' + b"a1" * 18 + b'"'):
        assert looks_secret("config.py", data) is not None
    assert os.listdir(tmp_path) == []


def test_a_zip_of_many_members_is_one_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """A crafted zip of thousands of empty members: its heads are read into one
    buffer, scanned once (a scan per member would cost thousands of scans per file)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for i in range(5000):
            archive.writestr(f"{i}", b"")
    calls: list[int] = []
    real = bot_files_module.content_secret

    def counted(head: bytes, depth: int = 0) -> str | None:
        calls.append(depth)
        return real(head, depth)

    monkeypatch.setattr(bot_files_module, "content_secret", counted)
    assert looks_secret("many.zip", buffer.getvalue()[:HEAD_BYTES]) is None
    assert calls == [0, 1]


def test_inside_compressed_data_keys_and_databases_are_found_tokens_not(tmp_path: Path) -> None:
    """As documented (``NESTED_DETECTORS``): a compressed layer is searched for keys
    and databases, not for every service's token."""
    assert looks_secret("a.gz", gzip.compress(b"-----BEGIN " + b"EC PRIVATE KEY-----\n"))
    assert looks_secret("a.gz", gzip.compress(sqlite_database(tmp_path)))
    assert looks_secret("a.py", b'K = "AKIAIOSFODNN7EXAMPLE"')
    assert looks_secret("a.gz", gzip.compress(b'K = "AKIAIOSFODNN7EXAMPLE"')) is None
