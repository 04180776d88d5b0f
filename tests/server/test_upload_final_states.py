"""Issue 28: every upload ends in a final state, and a bad member name is a clear 400.

The attack: a 300-character member name in an upload gave HTTP 500 and left the
submission ``checking`` for good (the file system refused the name; nothing
caught it). Now the unpacker refuses it by name (400, the reason in the answer,
the submission ``refused``), and :func:`league.execution.submissions.submit_bot`
ends every recorded submission ``accepted``, ``refused`` or ``failed`` whatever
goes wrong — swept below over every error path of an upload, with the check
replaced by a stand-in so the sweep takes no sandbox time.
"""

from __future__ import annotations

import functools
import io
import json
import shutil
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from sqlalchemy import Engine
from sqlmodel import select

import league.execution.submissions as submissions
from league.execution.botcheck import CheckReport
from league.execution.submissions import (
    FINAL_STATES,
    RateLimited,
    SubmissionLimits,
    fail_unfinished,
    submit_bot,
)
from league.server.state import Settings
from league.server.submit import http_status
from league.store.authors import add_author
from league.store.db import open_database, session_scope
from league.store.models import AuthorRow, SubmissionRow
from referee.runtime.sandbox import BOT_TREE_MARKER, SandboxConfig
from tests.security.live_server import live_server

GAME = "liars_dice"
BOT = b"print('a bot')\n"
LIMITS = SubmissionLimits(
    min_interval_s=0.0, per_hour=1000, max_upload_bytes=64 << 10, max_unpacked_bytes=4096,
    max_files=5,
)  # fmt: skip


@pytest.fixture(scope="module")
def empty_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated empty database, made once: each test copies it (no migration each)."""
    path = tmp_path_factory.mktemp("template") / "arena.db"
    open_database(f"sqlite:///{path}").dispose()
    return path


@pytest.fixture
def engine(tmp_path: Path, empty_db: Path) -> Iterator[Engine]:
    shutil.copyfile(empty_db, tmp_path / "arena.db")
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    yield engine
    engine.dispose()


def new_author(engine: Engine, name: str) -> AuthorRow:
    with session_scope(engine) as session:
        row, _token = add_author(session=session, name=name)
        session.expunge(row)
    return row


def rows(engine: Engine) -> list[SubmissionRow]:
    with session_scope(engine) as session:
        found = list(session.exec(select(SubmissionRow).order_by(SubmissionRow.id)))  # type: ignore[arg-type]
        for row in found:
            session.expunge(row)
        return found


# --- uploads ---------------------------------------------------------------------


def tar(*members: tuple[str, bytes], kind: bytes = tarfile.REGTYPE, gz: bool = True) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gz else "w", format=tarfile.PAX_FORMAT) as a:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            if kind == tarfile.REGTYPE:
                info.size = len(data)
                a.addfile(info, io.BytesIO(data))
            else:
                info.linkname = "/etc/passwd"
                a.addfile(info)
    return buffer.getvalue()


def zipped(*members: tuple[str, bytes], patch: tuple[bytes, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)
    raw = buffer.getvalue()
    return raw.replace(*patch) if patch else raw


def encrypted_zip() -> bytes:
    raw = bytearray(zipped(("bot.py", BOT)))
    raw[6] |= 0x1  # local header flag: encrypted
    central = raw.index(b"PK\x01\x02")
    raw[central + 8] |= 0x1
    return bytes(raw)


def non_utf8_tar() -> bytes:
    """A member whose name's bytes are not UTF-8 (b"b\\xfft.py")."""
    buffer = io.BytesIO()
    with tarfile.open(
        fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT, errors="surrogateescape"
    ) as archive:
        info = tarfile.TarInfo("b\udcfft.py")
        info.size = len(BOT)
        archive.addfile(info, io.BytesIO(BOT))
    return buffer.getvalue()


def gzip_bomb() -> bytes:
    import gzip

    return gzip.compress(b"\0" * (8 << 20))


LONG = "x" * 300 + ".py"

Upload = tuple[str, bytes]
UPLOADS: dict[str, tuple[Upload, str]] = {
    # name: ((file name, bytes), what the reason says)
    "member-name-300-chars-tar": (("b.tar.gz", tar((LONG, BOT))), "longer than 255"),
    "member-name-300-chars-zip": (("b.zip", zipped((LONG, BOT))), "longer than 255"),
    "member-dir-300-chars": (("b.tar.gz", tar(("d" * 300 + "/bot.py", BOT))), "longer than 255"),
    "member-path-over-1024": (("b.tar.gz", tar(("d/" * 600 + "bot.py", BOT))), "longer than"),
    "absolute": (("b.tar.gz", tar(("/tmp/bot.py", BOT))), "absolute"),
    "dotdot": (("b.tar.gz", tar(("../bot.py", BOT))), "'..'"),
    "backslash": (("b.zip", zipped(("a\\bot.py", BOT))), "backslash"),
    "non-utf8-zip": (("b.zip", zipped(("Zx.py", BOT), patch=(b"Zx.py", b"\xffx.py"))), "UTF-8"),
    "non-utf8-tar": (("b.tar", non_utf8_tar()), "UTF-8"),
    "symlink": (("b.tar.gz", tar(("bot.py", b""), kind=tarfile.SYMTYPE)), "symbolic link"),
    "hard-link": (("b.tar.gz", tar(("bot.py", b""), kind=tarfile.LNKTYPE)), "hard link"),
    "device": (("b.tar.gz", tar(("bot.py", b""), kind=tarfile.CHRTYPE)), "device"),
    "fifo": (("b.tar.gz", tar(("bot.py", b""), kind=tarfile.FIFOTYPE)), "FIFO"),
    "too-many-members": (("b.tar.gz", tar(*[(f"m{k}.py", BOT) for k in range(6)])), "more than 5"),
    "unpacks-too-big": (("b.tar.gz", tar(("bot.py", b"#" * 5000))), "unpacks to more than"),
    "gzip-bomb": (("b.tar.gz", gzip_bomb()), "decompresses to more than"),
    "not-gzip": (("b.tgz", b"not gzip at all"), "not valid gzip"),
    "not-a-tar": (("b.tar", b"not a tar" * 100), "tar"),
    "truncated-tar": (("b.tar", tar(("bot.py", BOT * 100), gz=False)[:700]), "damaged"),
    "not-a-zip": (("b.zip", b"PK not a zip"), "zip"),
    "encrypted-zip": (("b.zip", encrypted_zip()), "encrypted"),
    "bad-extension": (("b.exe", BOT), "cannot unpack"),
    "bad-file-name": (("../b.py", BOT), "plain file name"),
    "empty-archive": (("b.tar.gz", tar()), "contains no file"),
    "duplicate-member": (("b.tar.gz", tar(("bot.py", BOT), ("./bot.py", BOT))), "twice"),
    "reserved-name": (("b.tar.gz", tar((BOT_TREE_MARKER, BOT))), "reserved"),
    "file-inside-file": (("b.tar.gz", tar(("bot.py", BOT), ("bot.py/x.py", BOT))), "inside"),
    "no-entry-point": (("b.tar.gz", tar(("a.py", BOT), ("b.py", BOT))), "no entry point"),
    "bad-manifest": (("b.tar.gz", tar(("arena-bot.toml", b"entry = ["), ("bot.py", BOT))), "TOML"),
    "manifest-escapes": (
        ("b.tar.gz", tar(("arena-bot.toml", b'entry = "../x.py"'), ("bot.py", BOT))),
        "'..'",
    ),
}


# --- the check's stand-ins -------------------------------------------------------------


def passing(*_args: Any, **_kwargs: Any) -> CheckReport:
    return CheckReport(bot="bot", game=GAME, time_limit_ms=2000.0)


def failing(*_args: Any, **_kwargs: Any) -> CheckReport:
    report = CheckReport(bot="bot", game=GAME, time_limit_ms=2000.0)
    report.verdict, report.reasons = "FAIL", ["crash in 4 of 4 matches"]
    return report


def exploding(*_args: Any, **_kwargs: Any) -> CheckReport:
    raise RuntimeError("a bug in the check")


def run_submit(
    engine: Engine, store: Path, author: AuthorRow, filename: str, data: bytes, **kwargs: Any
) -> Any:
    return trio.run(
        functools.partial(
            submit_bot,
            engine=engine,
            store=store,
            author=author,
            name=kwargs.pop("name", "bot"),
            game=GAME,
            filename=filename,
            data=data,
            limits=kwargs.pop("limits", LIMITS),
            sandbox=SandboxConfig(enabled=False),
            **kwargs,
        )
    )


@pytest.mark.parametrize("case", sorted(UPLOADS))
def test_every_upload_the_unpacker_rejects_is_400_and_ends_refused_with_the_reason(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.setattr(submissions, "check_bot_matches", passing)
    (filename, data), why = UPLOADS[case]
    author = new_author(engine, "ada")
    with pytest.raises(submissions.SubmissionRefused) as refused:
        run_submit(engine, tmp_path / "store", author, filename, data)
    assert http_status(refused.value) == 400
    assert any(why in reason for reason in refused.value.reasons), refused.value.reasons
    [row] = rows(engine)
    assert row.status == "refused" and json.loads(row.reasons) == list(refused.value.reasons)


def test_names_no_archive_reader_passes_through_are_refused_by_the_unpacker() -> None:
    """A NUL cannot reach the unpacker through Python's tar and zip readers (they cut
    the name there); the unpacker refuses it anyway."""
    from league.store.uploads import UploadRejected, safe_member_path

    for name, why in (("a\0b.py", "NUL"), ("x" * 256, "longer than 255"), ("é" * 128, "255")):
        with pytest.raises(UploadRejected, match=why):
            safe_member_path(name)
    assert str(safe_member_path("é" * 127)) == "é" * 127


@asynccontextmanager
async def rate_limited_slot(_author: int, _submission: int) -> Any:
    raise RateLimited("3 checks of this author are queued already", 30)
    yield  # pragma: no cover


OTHER_PATHS: dict[str, tuple[Callable[..., CheckReport], dict[str, Any], str, int]] = {
    # name: (check stand-in, submit_bot arguments, final state, HTTP status)
    "accepted": (passing, {}, "accepted", 200),
    "check-fails": (failing, {}, "refused", 422),
    "check-raises": (exploding, {}, "failed", 500),
    "too-large": (passing, {"data": b"#" * (65 << 10)}, "refused", 413),
    "queue-full": (passing, {"slot": rate_limited_slot}, "refused", 429),
}


@pytest.mark.parametrize("case", sorted(OTHER_PATHS))
def test_every_other_path_of_an_upload_ends_in_a_final_state(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    check, arguments, state, status = OTHER_PATHS[case]
    monkeypatch.setattr(submissions, "check_bot_matches", check)
    author = new_author(engine, "ada")
    data = arguments.pop("data", BOT)
    try:
        run_submit(engine, tmp_path / "store", author, "bot.py", data, **arguments)
        got = 200
    except Exception as error:
        got = http_status(error)
    [row] = rows(engine)
    assert (row.status, got) == (state, status), row.reasons
    assert row.status in FINAL_STATES


@pytest.mark.parametrize("where", ["store", "unpack", "ladder-look", "register", "refuse"])
def test_an_unexpected_error_anywhere_ends_failed_not_checking(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(submissions, "check_bot_matches", failing if where == "refuse" else passing)
    target = {
        "store": "store_upload",
        "unpack": "unpack",
        "ladder-look": "ladder_look",
        "register": "add_bot",
    }.get(where)
    if target is not None:
        monkeypatch.setattr(submissions, target, broken)
    else:  # the refusal itself cannot be written the first time
        real = submissions._refuse
        calls = []

        def refuse_once(*args: Any) -> Any:
            calls.append(args)
            if len(calls) == 1:
                raise OSError(5, "I/O error")
            return real(*args)

        monkeypatch.setattr(submissions, "_refuse", refuse_once)
    author = new_author(engine, "ada")
    with pytest.raises(OSError):
        run_submit(engine, tmp_path / "store", author, "bot.py", BOT)
    [row] = rows(engine)
    assert row.status == "failed", row.status
    assert "internal error (OSError)" in json.loads(row.reasons)[0]


def test_a_cancelled_check_ends_failed(engine: Engine, tmp_path: Path) -> None:
    """The request is cancelled (the server stops) while the check waits for a slot."""
    author = new_author(engine, "ada")
    entered = trio.Event()

    @asynccontextmanager
    async def forever(_author: int, _submission: int) -> Any:
        entered.set()
        await trio.sleep_forever()
        yield  # pragma: no cover

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                functools.partial(
                    submit_bot,
                    engine=engine,
                    store=tmp_path / "store",
                    author=author,
                    name="bot",
                    game=GAME,
                    filename="bot.py",
                    data=BOT,
                    limits=LIMITS,
                    slot=forever,
                )
            )
            await entered.wait()
            nursery.cancel_scope.cancel()

    trio.run(main)
    [row] = rows(engine)
    assert row.status == "failed" and "interrupted" in json.loads(row.reasons)[0]


def test_a_submission_left_checking_by_a_dead_server_is_failed_at_start(engine: Engine) -> None:
    author = new_author(engine, "ada")
    with session_scope(engine) as session:
        session.add(SubmissionRow(author_id=author.id or 0, name="bot", game=GAME))
    assert fail_unfinished(engine) == 1
    [row] = rows(engine)
    assert row.status == "failed" and "server stopped" in json.loads(row.reasons)[0]


# --- over HTTP ---------------------------------------------------------------------------


def test_a_300_character_member_name_over_http_is_400_with_the_reason(
    engine: Engine, tmp_path: Path
) -> None:
    from league.cli.authors import multipart

    with session_scope(engine) as session:
        _row, token = add_author(session=session, name="ada")
    body, content_type = multipart({"name": "long_bot", "game": GAME}, "bot", "b.tar.gz", tar((LONG, BOT)))  # fmt: skip  # noqa: E501
    settings = Settings(store=tmp_path / "store", watch_interval_s=0.2, limits=LIMITS)
    with live_server(engine, tmp_path / "store", settings=settings) as site:
        reply = site.request(
            "/api/submissions",
            method="POST",
            body=body,
            headers={"authorization": f"Bearer {token}", "content-type": content_type},
        )
        assert reply.status == 400, reply.text
        answer = reply.json()
        assert answer["status"] == "refused" and "longer than 255" in answer["reasons"][0]
        listed = site.request("/api/submissions", headers={"authorization": f"Bearer {token}"})
        [entry] = listed.json()["submissions"]
        assert entry["status"] == "refused" and entry["reasons"] == answer["reasons"]


def test_an_unexpected_error_over_http_is_500_and_the_submission_failed(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from league.cli.authors import multipart

    monkeypatch.setattr(submissions, "check_bot_matches", exploding)
    with session_scope(engine) as session:
        _row, token = add_author(session=session, name="ada")
    body, content_type = multipart({"name": "bot", "game": GAME}, "bot", "bot.py", BOT)
    settings = Settings(store=tmp_path / "store", watch_interval_s=0.2, limits=LIMITS)
    with live_server(engine, tmp_path / "store", settings=settings) as site:
        reply = site.request(
            "/api/submissions",
            method="POST",
            body=body,
            headers={"authorization": f"Bearer {token}", "content-type": content_type},
        )
        assert reply.status == 500
        listed = site.request("/api/submissions", headers={"authorization": f"Bearer {token}"})
        [entry] = listed.json()["submissions"]
        assert entry["status"] == "failed"
