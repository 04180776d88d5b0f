"""Submissions over HTTP against the real ``arena serve``: accepted, refused with the
check's reasons, and hostile input — wrong or missing tokens, archives escaping the
store, oversized bodies (413 before they are read), floods (429), script in a README
— each refused or rendered harmless, nothing written outside the store."""

from __future__ import annotations

import html
import http.client
import io
import re
import socket
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.server.harness import (
    CRASHER,
    GAME,
    ROOT,
    Served,
    add_author,
    arena,
    bot_project,
    packed,
    start_server,
    stop_server,
    submit_http,
)

pytestmark = pytest.mark.e2e

README_SCRIPT = "# Sly\n\n<script>alert(3)</script> <img src=x onerror=alert(4)>\n"
FAST = ["--submission-interval", "0", "--submissions-per-hour", "100", "--check-matches", "2"]


@dataclass
class Site:
    served: Served
    tmp: Path
    ada: str
    bob: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("submit")
    db = f"sqlite:///{tmp / 'arena.db'}"
    arena("league", "list", db=db)  # creates the schema
    ada, bob = add_author(db, "ada"), add_author(db, "bob")
    served = start_server(db, tmp / "store", tmp / "serve.log", extra=FAST)
    yield Site(served, tmp, ada, bob)
    assert stop_server(served) == 0, (tmp / "serve.log").read_text()


def tar_with(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in members:
            info.size = len(data) if info.isfile() else 0
            archive.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buffer.getvalue()


def test_accepted_and_refused_submissions(site: Site) -> None:
    # ada with the real client, `arena submit DIR`
    project = bot_project(site.tmp, "ada_bot")
    done = subprocess.run(
        [sys.executable, "-m", "league.cli", "submit", str(project), "--server", site.served.url,
         "--game", GAME],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
        env={"ARENA_TOKEN": site.ada, "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"accepted"' in done.stdout
    # bob over plain HTTP: one good bot with a hostile README, one that crashes
    sly = bot_project(site.tmp, "sly_bot", readme=README_SCRIPT)
    reply = submit_http(site.served, site.bob, "sly_bot", "sly_bot.tar.gz", packed(sly))
    assert reply.status == 200, reply.text
    assert reply.json()["status"] == "accepted" and reply.json()["bot"] == "sly_bot"
    crash = submit_http(site.served, site.bob, "crash_bot", "crash_bot.py", CRASHER)
    assert crash.status == 422, crash.text
    answer = crash.json()
    assert answer["status"] == "refused" and answer["reasons"]
    bots = {b["name"]: b for b in site.served.get("/api/bots").json()}
    assert bots["ada_bot"]["author"] == "ada" and bots["sly_bot"]["author"] == "bob"
    assert "crash_bot" not in bots
    page = site.served.get("/bots/sly_bot").text
    assert "<script>alert(3)</script>" not in page and "<img src=x" not in page
    assert html.escape("<script>alert(3)</script>") in page  # shown, as text


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (None, "missing token"),
        ("Bearer ", "missing token"),
        ("Basic YWRhOng=", "missing token"),
        ("Bearer nonsense", "malformed token"),
        ("Bearer arena_0123456789ab_" + "A" * 43, "unknown or wrong token"),
    ],
)
def test_bad_tokens_are_401(site: Site, header: str | None, message: str) -> None:
    from league.cli.authors import multipart

    body, content_type = multipart({"name": "x", "game": GAME}, "bot", "x.py", CRASHER)
    headers = {"content-type": content_type}
    if header is not None:
        headers["authorization"] = header
    reply = site.served.request("/api/submissions", method="POST", data=body, headers=headers)
    assert reply.status == 401
    assert reply.headers["www-authenticate"] == "Bearer"
    assert message in reply.json()["error"]


def test_a_wrong_secret_for_a_real_token_id_is_401(site: Site) -> None:
    wrong = site.ada[:-4] + ("AAAA" if not site.ada.endswith("AAAA") else "BBBB")
    reply = submit_http(site.served, wrong, "x", "x.py", CRASHER)
    assert reply.status == 401 and site.ada not in reply.text and wrong not in reply.text


def test_archives_escaping_the_store_are_refused_and_write_nothing(site: Site) -> None:
    target = site.tmp / "escaped.py"
    store = site.served.store
    dotdot = tarfile.TarInfo(f"../../../../../..{target}")
    link = tarfile.TarInfo("evil.py")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    hard = tarfile.TarInfo("hard.py")
    hard.type, hard.linkname = tarfile.LNKTYPE, "/etc/passwd"
    absolute = tarfile.TarInfo(str(target))
    for info, why in ((dotdot, ".."), (link, "link"), (hard, "link"), (absolute, "absolute")):
        data = tar_with([(info, b"print('pwned')\n")])
        reply = submit_http(site.served, site.bob, "escape_bot", "escape.tar.gz", data)
        assert reply.status == 400, reply.text  # a malformed upload; recorded as refused
        assert any(why in reason for reason in reply.json()["reasons"]), reply.json()
    assert not target.exists()
    for path in store.rglob("*"):
        assert path.resolve().is_relative_to(store.resolve()), path


def _raw_post(served: Served, headers: dict[str, str], body: bytes) -> tuple[int, float]:
    """Send headers and ``body`` (not necessarily all the declared length), then
    wait for the status line; (status, seconds it took)."""
    parts = urlsplit(served.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=20) as sock:
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        sock.sendall(
            f"POST /api/submissions HTTP/1.1\r\nhost: {parts.netloc}\r\n{head}\r\n".encode()
        )
        began = time.monotonic()
        sock.sendall(body)
        response = http.client.HTTPResponse(sock)
        response.begin()
        status = response.status
        response.close()
        return status, time.monotonic() - began


def test_an_oversized_upload_is_413_before_it_is_read(site: Site) -> None:
    auth = {
        "authorization": f"Bearer {site.bob}",
        "content-type": "multipart/form-data; boundary=x",
    }
    # Declares 1 GiB and sends none of it: answered at once, from the header alone.
    status, took = _raw_post(site.served, {**auth, "content-length": str(1 << 30)}, b"")
    assert status == 413 and took < 5
    # No length (chunked): read only up to the cap (4 MiB + 64 KiB of framing), then
    # 413 without waiting for the end of the body (it never comes here).
    sizes = [1 << 20] * 4 + [128 << 10]
    chunks = b"".join(b"%x\r\n%s\r\n" % (size, b"x" * size) for size in sizes)
    status, took = _raw_post(site.served, {**auth, "transfer-encoding": "chunked"}, chunks)
    assert status == 413 and took < 10


@pytest.mark.parametrize("token", ["good", "wrong"])
def test_a_client_that_sends_a_whole_oversized_body_is_not_left_hanging(
    site: Site, token: str
) -> None:
    """urllib (``arena submit``) sends the whole body before it reads: the server answers
    early, reads the rest of a body this size only to throw it away, and the client
    reads the answer (it hung until the client's timeout: the server never ended the
    connection)."""
    import urllib.error
    import urllib.request

    from league.cli.authors import multipart

    body, content_type = multipart({"name": "big", "game": GAME}, "bot", "big.py", b"#" * (6 << 20))
    bearer = site.bob if token == "good" else "arena_0123456789ab_" + "A" * 43
    request = urllib.request.Request(
        site.served.url + "/api/submissions",
        data=body,
        method="POST",
        headers={"content-type": content_type, "authorization": f"Bearer {bearer}"},
    )
    began = time.monotonic()
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=20)
    caught.value.close()
    assert caught.value.code == (413 if token == "good" else 401)
    assert time.monotonic() - began < 10
    assert site.served.get("/api/leagues").status == 200  # and the server carries on
    if token == "good":  # and so `arena submit` tells its user why
        big = site.tmp / "big.py"
        big.write_bytes(b"#" * (6 << 20))
        done = subprocess.run(
            [sys.executable, "-m", "league.cli", "submit", str(big), "--server", site.served.url,
             "--game", GAME],
            capture_output=True, text=True, timeout=60, cwd=ROOT,
            env={"ARENA_TOKEN": site.bob, "PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        assert done.returncode == 2
        assert "byte limit" in done.stdout + done.stderr, done.stdout + done.stderr


def test_a_flood_of_submissions_is_429_with_retry_after(site: Site) -> None:
    """A second server on the same database, with the default spacing (20 s)."""
    carol = add_author(site.served.db, "carol")
    strict = start_server(site.served.db, site.served.store, site.tmp / "strict.log")
    try:
        statuses = []
        for index in range(3):
            reply = submit_http(strict, carol, f"flood_{index}", "x.tar.gz", b"not an archive")
            statuses.append(reply.status)
            if reply.status == 429:
                assert int(reply.headers["retry-after"]) >= 1
                assert reply.json()["retry_after"] >= 1
        assert statuses[0] == 400 and statuses[1:] == [429, 429]  # 400: not an archive
    finally:
        assert stop_server(strict) == 0


def test_the_upload_form_needs_a_session_its_token_and_this_origin(site: Site) -> None:
    from league.cli.authors import multipart

    served = site.served
    assert "login-first" in served.get("/submit").text
    form = {"origin": served.url, "content-type": "application/x-www-form-urlencoded"}
    login = served.request("/login", method="POST", data=f"token={site.bob}".encode(), headers=form)
    assert login.status == 303
    cookie = login.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    session = cookie.split(";", 1)[0]
    page = served.get("/submit", headers={"cookie": session}).text
    assert '<span class="muted" id="author-name">bob</span>' in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None

    def post(fields: dict[str, str], origin: str | None) -> tuple[int, str]:
        body, content_type = multipart(fields, "bot", "crash_bot.py", CRASHER)
        headers = {"cookie": session, "content-type": content_type}
        if origin is not None:
            headers["origin"] = origin
        reply = served.request("/submit", method="POST", data=body, headers=headers)
        return reply.status, reply.text

    fields = {"name": "form_bot", "game": GAME}
    assert post({**fields, "csrf": csrf[1]}, "https://evil.example")[0] == 403
    assert post({**fields, "csrf": csrf[1]}, None)[0] == 403
    assert post({**fields, "csrf": "forged"}, served.url)[0] == 403
    assert post(fields, served.url)[0] == 403
    status, text = post({**fields, "csrf": csrf[1]}, served.url)
    assert status == 422 and 'data-status="refused"' in text
    assert re.search(r'<ul id="reasons"><li>.+</li>', text)
    # Without the cookie the same form is not accepted.
    body, content_type = multipart({**fields, "csrf": csrf[1]}, "bot", "x.py", CRASHER)
    anonymous = served.request(
        "/submit", method="POST", data=body,
        headers={"content-type": content_type, "origin": served.url},
    )  # fmt: skip
    assert anonymous.status == 303 and anonymous.headers["location"] == "/login"


def login(served: Served, token: str) -> str:
    """Log in through the form; the session cookie (``name=value``)."""
    form = {"origin": served.url, "content-type": "application/x-www-form-urlencoded"}
    reply = served.request("/login", method="POST", data=f"token={token}".encode(), headers=form)
    assert reply.status == 303, reply.text
    return reply.headers["set-cookie"].split(";", 1)[0]


def bot_acting_first(tmp: Path, name: str, lines: str) -> Path:
    """A scaffolded bot project whose ``act`` runs ``lines`` (indented source) first."""
    project = bot_project(tmp, name)
    source = project / f"{name}.py"
    head = "    def act(self, observation: Observation) -> Action:\n"
    source.write_text(source.read_text().replace(head, head + lines))
    return project


def test_a_bots_logs_are_shown_to_its_author_only(site: Site) -> None:
    served = site.served
    dora = add_author(served.db, "dora")  # disabled at the end
    project = bot_acting_first(
        site.tmp,
        "log_bot",
        "        import sys\n        print('log_bot thinking', file=sys.stderr)\n",
    )
    reply = submit_http(served, dora, "log_bot", "log_bot.tar.gz", packed(project))
    assert reply.status == 200, reply.text
    arena(
        "bot", "add", "house_bot", "--cmd", f"{sys.executable} -m example_bots.liars_dice_random",
        "--game", GAME, "--no-check", db=served.db,
    )  # fmt: skip
    arena("league", "create", "logs", "--game", GAME, "--bot", "log_bot", "--bot", "house_bot",
          db=served.db)  # fmt: skip
    arena("league", "run", "logs", "--max-matches", "1", "--no-progress", db=served.db)
    match = served.get("/api/leagues/logs/matches").json()[0]
    mine = match["bots"].index("log_bot")
    theirs = 1 - mine
    author, bob = login(served, dora), login(served, site.bob)

    def log(seat: int, cookie: str | None) -> int:
        headers = {"cookie": cookie} if cookie else {}
        reply = served.get(f"/matches/{match['key']}/logs/{seat}", headers=headers)
        if reply.status == 200:
            assert reply.headers["content-type"].startswith("text/plain")
            assert "log_bot thinking" in reply.text
            assert "private" in reply.headers["cache-control"]
        return reply.status

    assert log(mine, author) == 200
    assert log(mine, bob) == 403
    assert log(mine, None) == 403
    assert log(theirs, author) == 403  # the operator's bot: nobody on the web
    assert (
        f"/matches/{match['key']}/logs/{mine}"
        in served.get("/bots/log_bot", headers={"cookie": author}).text
    )
    assert "logs-private" in served.get("/bots/log_bot", headers={"cookie": bob}).text
    # A disabled author's cookie reads nothing any more.
    arena("author", "disable", "dora", db=served.db)
    assert log(mine, author) == 403


def test_a_crashed_bots_traceback_reaches_its_author_on_the_server_and_nobody_else(
    site: Site,
) -> None:
    """The SDK prints a crash's traceback on stderr; the server keeps it with the
    match's output, shows it to the bot's author and refuses everyone else."""
    served = site.served
    eve = add_author(served.db, "eve")
    project = bot_acting_first(  # fine under the check's default rules, crashes on two dice
        site.tmp,
        "crash_bot",
        "        if observation.rules.dice_per_player == 2:\n"
        "            raise RuntimeError('crash_bot cannot count two dice')\n",
    )
    reply = submit_http(served, eve, "crash_bot", "crash_bot.tar.gz", packed(project))
    assert reply.status == 200, reply.text
    arena(
        "bot", "add", "house_two", "--cmd", f"{sys.executable} -m example_bots.liars_dice_random",
        "--game", GAME, "--no-check", db=served.db,
    )  # fmt: skip
    arena("league", "create", "twodice", "--game", GAME, "--bot", "crash_bot", "--bot",
          "house_two", "--rule", "dice_per_player=2", db=served.db)  # fmt: skip
    arena("league", "run", "twodice", "--max-matches", "1", "--no-progress", db=served.db)
    match = served.get("/api/leagues/twodice/matches").json()[0]
    mine = match["bots"].index("crash_bot")
    owner, other = login(served, eve), login(served, site.bob)
    path = f"/matches/{match['key']}/logs/{mine}"
    shown = served.get(path, headers={"cookie": owner})
    assert shown.status == 200, shown.text
    assert "Traceback (most recent call last)" in shown.text
    assert "RuntimeError: crash_bot cannot count two dice" in shown.text
    assert served.get(path, headers={"cookie": other}).status == 403
    assert served.get(path).status == 403
    page = served.get("/bots/crash_bot", headers={"cookie": owner}).text
    assert path in page and "(crash)" in page
    record = served.get(f"/api/matches/{match['key']}").text
    assert "cannot count two dice" not in record  # the public record holds no output


def test_script_in_a_submitted_name_is_refused(site: Site) -> None:
    reply = submit_http(site.served, site.bob, "<script>alert(5)</script>", "x.py", CRASHER)
    assert reply.status == 400, reply.text
    assert reply.json()["status"] == "error" and "bot name" in reply.json()["error"]
    assert "<script>alert(5)</script>" not in {
        b["name"] for b in site.served.get("/api/bots").json()
    }
    game = submit_http(site.served, site.bob, "ok_name", "x.py", CRASHER, game="<b>chess</b>")
    assert game.status == 400 and "unknown game" in game.json()["error"]
