"""The submission flow (issue 14): an author's upload is rate-limited, size-capped,
unpacked safely, checked in the sandbox, and registered as their bot — or refused
with reasons; and ``arena submit`` speaks the server's protocol."""

from __future__ import annotations

import email.parser
import email.policy
import http.server
import io
import json
import sys
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from sqlalchemy import Engine
from sqlmodel import select
from typer.testing import CliRunner

from league.cli import app
from league.cli.authors import pack_directory
from league.cli.scaffold import write_project
from league.execution.submissions import (
    BadSubmission,
    RateLimited,
    SubmissionLimits,
    SubmissionRefused,
    list_submissions,
    submit_bot_sync,
)
from league.server.submit import error_json, http_status
from league.store.authors import AuthError, add_author
from league.store.db import open_database, session_scope
from league.store.models import AuthorRow, BotRow, SubmissionRow
from league.store.registry import add_bot
from league.store.uploads import UploadRejected, UploadTooLarge, find_entry, unpack

GAME = "liars_dice"
FAST = SubmissionLimits(min_interval_s=0.0, per_hour=100)
CRASH = b"import sys\nsys.exit(3)\n"


@pytest.fixture
def db(tmp_path: Path) -> Iterator[tuple[Engine, Path]]:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    engine = open_database(url)
    yield engine, tmp_path / "work" / "store"
    engine.dispose()


def author(engine: Engine, name: str) -> AuthorRow:
    with session_scope(engine) as session:
        row, _ = add_author(session=session, name=name)
    return row


def submit(
    engine: Engine,
    store: Path,
    who: AuthorRow,
    name: str,
    data: bytes,
    filename: str = "bot.tar.gz",
    limits: SubmissionLimits = FAST,
) -> object:
    return submit_bot_sync(
        engine=engine,
        store=store,
        author=who,
        name=name,
        game=GAME,
        filename=filename,
        data=data,
        limits=limits,
        check_matches=2,
    )


def submissions(engine: Engine) -> list[SubmissionRow]:
    with session_scope(engine) as session:
        return list(session.exec(select(SubmissionRow).order_by(SubmissionRow.id)))  # type: ignore[arg-type]


def test_scaffolded_bot_is_accepted_as_dir_and_tarball_and_plays_a_league(
    db: tuple[Engine, Path], tmp_path: Path
) -> None:
    engine, store = db
    ada = author(engine, "ada")
    project = tmp_path / "sub_bot"
    write_project("sub_bot", GAME, project)
    (project / "__pycache__").mkdir()
    (project / "__pycache__" / "junk.pyc").write_bytes(b"junk")
    (project / ".env").write_text("SECRET=1")
    packed = pack_directory(project)
    with tarfile.open(fileobj=io.BytesIO(packed)) as archive:
        assert sorted(archive.getnames()) == ["README.md", "sub_bot.py", "test_sub_bot.py"]
    first = submit(engine, store, ada, "sub_bot", packed)
    # As `tar czf sub_bot.tgz sub_bot/` would pack it: one top directory.
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(project / "sub_bot.py", arcname="sub_bot/sub_bot.py")
        archive.add(project / "README.md", arcname="sub_bot/README.md")
    second = submit(engine, store, ada, "sub_bot", buffer.getvalue(), "sub_bot.tgz")
    assert first.version != second.version  # type: ignore[attr-defined]
    with session_scope(engine) as session:
        rows = list(session.exec(select(BotRow).where(BotRow.name == "sub_bot")))
        assert {r.author_id for r in rows} == {ada.id} and len(rows) == 2
        assert all(str(store) in r.command for r in rows)
        add_bot(
            session=session,
            name="opponent",
            command=f"{sys.executable} -m example_bots.liars_dice_random",
            games=[GAME],
        )
    assert [s.status for s in submissions(engine)] == ["accepted", "accepted"]
    assert json.loads(json.dumps(first.to_json()))["status"] == "accepted"  # type: ignore[attr-defined]

    runner = CliRunner()
    dbarg = ["--db", str(engine.url)]
    made = runner.invoke(
        app,
        [
            *dbarg,
            "league",
            "create",
            "open",
            "--game",
            GAME,
            "--bot",
            "sub_bot",
            "--bot",
            "opponent",
        ],
    )
    assert made.exit_code == 0, made.output
    ran = runner.invoke(app, [*dbarg, "league", "run", "open", "--no-progress"])
    assert ran.exit_code == 0, ran.output
    status = json.loads(runner.invoke(app, [*dbarg, "league", "status", "open", "--json"]).output)
    assert status["done"] == status["matches"] > 0
    assert status["forfeits"] == 0 and not status["faults"], status


def test_a_crashing_bot_is_refused_with_the_checks_reasons(db: tuple[Engine, Path]) -> None:
    engine, store = db
    ada = author(engine, "ada")
    with pytest.raises(SubmissionRefused) as caught:
        submit(engine, store, ada, "crasher", CRASH, "crasher.py")
    assert any("crash" in reason for reason in caught.value.reasons), caught.value.reasons
    assert http_status(caught.value) == 422
    assert error_json(caught.value)["reasons"] == list(caught.value.reasons)
    [row] = submissions(engine)
    assert row.status == "refused" and json.loads(row.reasons) == list(caught.value.reasons)
    assert row.bot_id is None and len(row.upload_sha256) == 64
    with session_scope(engine) as session:
        assert session.exec(select(BotRow)).first() is None


def test_names_of_other_authors_and_of_the_operator_cannot_be_taken(
    db: tuple[Engine, Path],
) -> None:
    engine, store = db
    ada, bob = author(engine, "ada"), author(engine, "bob")
    with session_scope(engine) as session:
        add_bot(session=session, name="house", command="python x.py", games=[GAME])
        owned = add_bot(session=session, name="adas", command="python y.py", games=[GAME])
        owned.author_id = ada.id
    for who, name in ((bob, "adas"), (ada, "house"), (bob, "house")):
        with pytest.raises(SubmissionRefused, match="belongs to another author"):
            submit(engine, store, who, name, CRASH, "b.py")
    assert [s.status for s in submissions(engine)] == ["refused"] * 3
    with session_scope(engine) as session:
        bobs = list_submissions(session=session, author_id=bob.id)
        assert [s.name for s in bobs] == ["house", "adas"]  # newest first
        assert len(list_submissions(session=session)) == 3
    assert not (store / "uploads").exists(), "a squatting upload was stored"


@pytest.mark.parametrize(
    ("name", "game", "message"),
    [
        ("a b", GAME, "bad bot name"),
        ("<script>", GAME, "bad bot name"),
        ("x" * 65, GAME, "bad bot name"),
        ("ok", "chess", "unknown game 'chess'"),
    ],
)
def test_bad_names_and_games_are_malformed_requests(
    db: tuple[Engine, Path], name: str, game: str, message: str
) -> None:
    engine, store = db
    with pytest.raises(BadSubmission, match=message) as caught:
        submit_bot_sync(
            engine=engine,
            store=store,
            author=author(engine, "ada"),
            name=name,
            game=game,
            filename="b.py",
            data=CRASH,
        )
    assert http_status(caught.value) == 400 and not submissions(engine)


def test_a_flood_is_rate_limited_across_restarts(db: tuple[Engine, Path], tmp_path: Path) -> None:
    engine, store = db
    ada = author(engine, "ada")
    with session_scope(engine) as session:
        add_bot(session=session, name="house", command="python x.py", games=[GAME])
    limits = SubmissionLimits(per_hour=3, min_interval_s=0.0)
    for _ in range(3):
        with pytest.raises(SubmissionRefused):
            submit(engine, store, ada, "house", CRASH, "b.py", limits)
    with pytest.raises(RateLimited, match="3 submissions in the last hour") as caught:
        submit(engine, store, ada, "house", CRASH, "b.py", limits)
    assert 3500 < caught.value.retry_after_s <= 3600
    assert http_status(caught.value) == 429 and error_json(caught.value)["retry_after"]
    restarted = open_database(str(engine.url))
    with pytest.raises(RateLimited):
        submit(restarted, store, ada, "house", CRASH, "b.py", limits)
    restarted.dispose()
    # Another author is not affected; a minimum interval holds on its own.
    bob = author(engine, "bob")
    spaced = SubmissionLimits(per_hour=100, min_interval_s=60.0)
    with pytest.raises(SubmissionRefused):
        submit(engine, store, bob, "house", CRASH, "b.py", spaced)
    with pytest.raises(RateLimited, match="wait 60 s") as caught:
        submit(engine, store, bob, "house", CRASH, "b.py", spaced)
    assert 0 < caught.value.retry_after_s <= 60
    assert len(submissions(engine)) == 4  # limited requests are not recorded


def test_oversized_and_unsafe_uploads_are_refused_and_nothing_leaves_the_store(
    db: tuple[Engine, Path],
) -> None:
    engine, store = db
    sentinel = store.parent / "sentinel"
    ada = author(engine, "ada")
    small = SubmissionLimits(max_upload_bytes=1000, min_interval_s=0.0)
    with pytest.raises(UploadTooLarge, match="2000 bytes is over the 1000 limit") as too_big:
        submit(engine, store, ada, "big", b"#" * 2000, "big.py", small)
    assert http_status(too_big.value) == 413 and not (store / "uploads").exists()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in (("b.py", CRASH), ("../sentinel", b"pwned")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    with pytest.raises(SubmissionRefused, match="'\\.\\.' component") as refused:
        submit(engine, store, ada, "evil", buffer.getvalue())
    assert not sentinel.exists() and not (store / "bots").exists()
    assert http_status(refused.value) == 400  # the unpacker rejected it: a malformed upload
    assert http_status(UploadRejected("x")) == 400 and http_status(AuthError("x")) == 401
    assert [s.status for s in submissions(engine)] == ["refused", "refused"]


def test_a_disabled_author_cannot_submit(db: tuple[Engine, Path]) -> None:
    engine, store = db
    ada = author(engine, "ada")
    ada.disabled = True
    with pytest.raises(AuthError, match="disabled"):
        submit(engine, store, ada, "x", CRASH, "x.py")


class FakeServer(http.server.BaseHTTPRequestHandler):
    """Answers ``/api/submissions`` with a canned status and records the request."""

    answers: ClassVar[list[tuple[int, dict[str, object], dict[str, str]]]] = []
    received: ClassVar[list[tuple[dict[str, str], dict[str, tuple[str | None, bytes]]]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        head = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
        parts = {
            str(part.get_param("name", header="content-disposition")): (
                part.get_filename(),
                bytes(part.get_payload(decode=True)),
            )
            for part in message.iter_parts()
        }
        self.received.append((dict(self.headers), parts))
        status, answer, headers = self.answers.pop(0)
        data = json.dumps(answer).encode()
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: object) -> None:
        pass


def test_arena_submit_posts_the_packed_bot_and_maps_answers_to_exit_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "cli_bot"
    write_project("cli_bot", GAME, project)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    runner = CliRunner()
    token_file = tmp_path / "token"
    token_file.write_text("arena_0123456789ab_" + "x" * 43 + "\n")
    FakeServer.answers[:] = [
        (200, {"status": "accepted", "bot": "cli_bot", "version": "v1", "submission": 1}, {}),
        (422, {"status": "refused", "reasons": ["crash in 2 of 2 matches"]}, {}),
        (429, {"status": "error", "error": "slow down"}, {"Retry-After": "42"}),
        (401, {"status": "error", "error": "unknown or wrong token"}, {}),
    ]
    FakeServer.received.clear()
    try:
        args = ["submit", str(project), "--server", url, "--game", GAME]
        done = runner.invoke(app, [*args, "--token-file", str(token_file)])
        assert done.exit_code == 0 and '"accepted"' in done.output, done.output
        headers, parts = FakeServer.received[0]
        assert headers["Authorization"] == "Bearer " + token_file.read_text().strip()
        assert parts["name"][1] == b"cli_bot" and parts["game"][1] == GAME.encode()
        filename, upload = parts["bot"]
        assert filename == "cli_bot.tar.gz"
        tree = unpack(
            tmp_path / "store", filename, upload, max_files=50, max_unpacked_bytes=1 << 20
        )
        assert find_entry(tree, "cli_bot").name == "cli_bot.py"
        monkeypatch.setenv("ARENA_TOKEN", "arena_0123456789ab_" + "y" * 43)
        crash = tmp_path / "crasher.py"
        crash.write_bytes(CRASH)
        refused = runner.invoke(app, ["submit", str(crash), "--server", url, "--game", GAME])
        assert refused.exit_code == 1 and "crash in 2 of 2" in refused.output
        assert FakeServer.received[1][1]["name"][1] == b"crasher"
        assert FakeServer.received[1][0]["Authorization"].endswith("y" * 43)
        limited = runner.invoke(app, ["submit", str(crash), "--server", url, "--game", GAME])
        assert limited.exit_code == 2 and "try again in 42 s" in limited.output
        unauthorized = runner.invoke(app, ["submit", str(crash), "--server", url, "--game", GAME])
        assert unauthorized.exit_code == 2 and "bad or missing token" in unauthorized.output
    finally:
        server.shutdown()
        server.server_close()
    gone = runner.invoke(app, ["submit", str(crash), "--server", url, "--game", GAME])
    assert gone.exit_code == 2 and "cannot reach" in gone.output
    monkeypatch.delenv("ARENA_TOKEN")
    missing = runner.invoke(app, ["submit", str(crash), "--server", url, "--game", GAME])
    assert missing.exit_code == 2 and "no token" in missing.output


def test_the_check_plays_the_rules_and_limits_of_the_games_ladder(
    db: tuple[Engine, Path], tmp_path: Path
) -> None:
    """The bot will play the game's ladder: its check sends the same rules and time
    limit (issue 19 §3: a check must look like a ladder match to the bot)."""
    from league.store.rolling_ladders import create_rolling_league

    engine, store = db
    with session_scope(engine) as session:
        create_rolling_league(
            session=session,
            name="ladder",
            game=GAME,
            rules={"dice_per_player": "3"},
            decision_s=1.5,
            startup_s=12.0,
        )
    project = tmp_path / "ladder_bot"
    write_project("ladder_bot", GAME, project)
    result = submit(engine, store, author(engine, "ada"), "ladder_bot", pack_directory(project))
    lines = result.check_lines  # type: ignore[attr-defined]
    assert any("(limit 1500 ms)" in line for line in lines), lines
    played = [line for line in lines if line.startswith("  match check-")]
    assert len(played) == 2 and all("dice_per_player=3," in line for line in played), lines
