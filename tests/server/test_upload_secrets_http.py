"""Issue 42, item 4, over HTTP: the real ``arena serve`` refuses an archive packed by
hand (``tar czf``, not ``arena submit``) that holds a key or a database however it
is named and wherever in the file it sits, answers 400 naming the member without
quoting the secret, records the submission as refused and stores no bot; and it
leaves out a compressed or mixed-case copy of the database silently, as it always
left out ``arena.db``."""

from __future__ import annotations

import base64
import gzip
import io
import random
import sqlite3
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.harness import (
    Served,
    add_author,
    arena,
    bot_project,
    start_server,
    stop_server,
    submit_http,
)

pytestmark = pytest.mark.e2e

DASHES = "-----"
FAST = ["--submission-interval", "0", "--submissions-per-hour", "100", "--check-matches", "2"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str, Path]]:
    tmp = tmp_path_factory.mktemp("secrets")
    db = f"sqlite:///{tmp / 'arena.db'}"
    arena("league", "list", db=db)  # creates the schema
    token = add_author(db, "ada")
    served = start_server(db, tmp / "store", tmp / "serve.log", extra=FAST)
    yield served, token, tmp
    assert stop_server(served) == 0, (tmp / "serve.log").read_text()


def database(tmp: Path) -> bytes:
    path = tmp / "real.db"
    path.unlink(missing_ok=True)
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE author (name TEXT, token_hash TEXT)")
    connection.commit()
    connection.close()
    return path.read_bytes()


def dsa_key() -> tuple[bytes, str]:
    """A DSA key block after a 70-byte comment, and a piece of its body."""
    body = base64.encodebytes(random.Random(3).randbytes(400)).decode()
    label = "DSA PRIVATE KEY"
    block = f"{DASHES}BEGIN {label}{DASHES}\n{body}{DASHES}END {label}{DASHES}\n"
    return ("#" * 69 + "\n" + block).encode(), body.splitlines()[2]


def trees(served: Served) -> set[str]:
    bots = served.store / "bots"
    return {tree.name for tree in bots.iterdir()} if bots.exists() else set()


def upload(project: Path, extra: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(project, arcname="my_bot")
        for name, data in extra.items():
            info = tarfile.TarInfo(f"my_bot/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_key_or_a_database_in_an_upload_is_refused_400_naming_it(
    site: tuple[Served, str, Path],
) -> None:
    served, token, tmp = site
    project = bot_project(tmp, "my_bot")
    key, piece = dsa_key()
    cases = {
        "settings.py": key,
        "notes.txt": database(tmp),
        "weights.bin": gzip.compress(database(tmp)),
    }
    before = trees(served)
    for name, data in cases.items():
        reply = submit_http(served, token, "my_bot", "my_bot.tgz", upload(project, {name: data}))
        assert reply.status == 400, reply.text
        answer = reply.json()
        assert answer["status"] == "refused"
        assert any(
            f"'my_bot/{name}' looks like a key or a database" in r for r in answer["reasons"]
        )
        assert piece not in reply.text
    assert trees(served) == before  # no bot stored
    listed = served.request("/api/submissions", headers={"authorization": f"Bearer {token}"})
    assert [s["status"] for s in listed.json()["submissions"]][:3] == ["refused"] * 3


def test_compressed_and_mixed_case_database_copies_are_left_out(
    site: tuple[Served, str, Path],
) -> None:
    served, token, tmp = site
    project = bot_project(tmp, "tidy_bot")
    copies = {
        "ARENA.DB": b"harmless",
        "arena.db.gz": b"harmless",
        "Arena-Store/server.json": b"{}",
        "league.sqlite3.bz2": b"harmless",
    }
    reply = submit_http(served, token, "tidy_bot", "tidy_bot.tgz", upload(project, copies))
    assert reply.status == 200, reply.text
    version = reply.json()["version"]
    (tree,) = [t for t in (served.store / "bots").iterdir() if t.name.startswith(version)]
    stored = {p.name for p in tree.rglob("*") if p.is_file()}
    assert stored == {".arena-bot-tree", "README.md", "tidy_bot.py", "test_tidy_bot.py"}
