"""Start the real ``arena serve`` on a free loopback port, over a league played by
``arena league run``, and talk to it with the standard library's HTTP client."""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from tests.cli_in_process import arena_in_process

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_BOT = "<script>alert(1)</script>"
"""A bot name the registry accepts (no spaces) that must never run as script."""
SCRIPT_LEAGUE = "<svg/onload=alert(2)>"


def arena(*args: str, db: str, check: bool = True) -> str:
    """Run ``arena ARGS`` on the database ``db``, in this process
    (:mod:`tests.cli_in_process`); its stdout."""
    done = arena_in_process("--db", db, *args)
    if check and done.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def played_league(tmp: Path, *, played: int = 6, db: str | None = None) -> str:
    """A database (``db``, else a SQLite file in ``tmp``) with league ``cup`` (3
    Liar's Dice bots, one named :data:`SCRIPT_BOT`, 12 matches) of which ``played``
    were played by ``arena league run``, and an empty league named :data:`SCRIPT_LEAGUE`."""
    from league.store.db import open_database, session_scope
    from league.store.leagues import LeagueSettings, create_league
    from league.store.registry import add_bot
    from referee.runtime.sandbox import SandboxConfig

    db = db or f"sqlite:///{tmp / 'arena.db'}"
    engine = open_database(db)
    python = sys.executable
    with session_scope(engine) as session:
        for name, module in (
            ("probability", "liars_dice_probability"),
            ("random", "liars_dice_random"),
            (SCRIPT_BOT, "liars_dice_random"),
        ):
            add_bot(
                session=session,
                name=name,
                command=f"{python} -m example_bots.{module}",
                games=["liars_dice"],
            )
        for league, rounds in (("cup", 2), (SCRIPT_LEAGUE, 1)):
            create_league(
                session=session,
                name=league,
                settings=LeagueSettings(
                    game="liars_dice",
                    bots=("probability", "random", SCRIPT_BOT),
                    rounds=rounds,
                    sandbox=SandboxConfig(enabled=False),
                ),
            )
    engine.dispose()
    if played:
        arena(
            "league", "run", "cup", "--max-matches", str(played), "--concurrency", "2",
            "--workers", "1", "--no-progress", db=db,
        )  # fmt: skip
    return db


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


@dataclass
class Served:
    url: str
    db: str
    store: Path
    process: subprocess.Popen[str]
    log: Path

    def request(
        self,
        path: str,
        *,
        method: str = "GET",
        data: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 30,
    ) -> Reply:
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers=headers or {}
        )
        try:
            with _OPENER.open(request, timeout=timeout) as reply:
                return Reply(
                    reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
                )
        except urllib.error.HTTPError as error:
            return Reply(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read())

    def get(self, path: str, **kwargs: Any) -> Reply:
        return self.request(path, **kwargs)

    @contextmanager
    def events(self, league: str, timeout: float = 30) -> Iterator[Iterator[dict[str, Any]]]:
        """The league's server-sent ``results`` events, parsed, as they come."""
        parts = urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
        connection.request("GET", f"/leagues/{quote(league, safe='')}/events")
        response = connection.getresponse()
        assert response.status == 200, response.status
        assert response.getheader("content-type", "").startswith("text/event-stream")

        def parsed() -> Iterator[dict[str, Any]]:
            event = ""
            while True:
                line = response.readline().decode()
                if not line:
                    return
                line = line.rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "results":
                    yield json.loads(line[6:])

        try:
            yield parsed()
        finally:
            response.close()
            connection.close()


def start_server(db: str, store: Path, log: Path, *, extra: Sequence[str] = ()) -> Served:
    """``arena serve --port 0`` in a subprocess; returns once it printed its address."""
    with log.open("w") as stderr:  # the child keeps its own descriptor
        process = subprocess.Popen(
            [
                sys.executable, "-m", "league.cli", "serve", "--port", "0",
                "--store", str(store), *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env={**os.environ, "ARENA_DB": db},
            cwd=ROOT,
        )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            if process.poll() is not None:
                break
            continue
        if line.startswith("serving on "):
            return Served(line.split()[-1], db, store, process, log)
    process.kill()
    process.wait()
    if process.stdout is not None:
        process.stdout.close()
    raise AssertionError(f"arena serve did not start:\n{log.read_text()}")


def stop_server(served: Served, *, sig: int = signal.SIGINT, timeout: float = 15) -> int:
    """Stop it (SIGINT: graceful); its exit code."""
    if served.process.poll() is None:
        served.process.send_signal(sig)
        try:
            served.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            served.process.kill()
            served.process.wait()
            raise AssertionError(f"arena serve did not stop on signal {sig}") from None
        finally:
            if served.process.stdout is not None:
                served.process.stdout.close()
    return served.process.returncode


GAME = "liars_dice"
CRASHER = b"import sys\nsys.exit(3)\n"
"""A bot that dies at once: the pre-submission check refuses it."""


def add_author(db: str, name: str) -> str:
    """``arena author add NAME``; the token it printed."""
    out = arena("author", "add", name, db=db)
    return next(line.strip() for line in out.splitlines() if line.strip().startswith("arena_"))


def bot_project(tmp: Path, name: str, *, readme: str | None = None) -> Path:
    """A working bot project (``arena bot new NAME``), optionally with its own README."""
    from league.cli.scaffold import write_project

    directory = tmp / name
    write_project(name, GAME, directory)
    if readme is not None:
        (directory / "README.md").write_text(readme)
    return directory


def packed(directory: Path) -> bytes:
    from league.cli.authors import pack_directory

    return pack_directory(directory)


def submit_http(
    served: Served,
    token: str | None,
    name: str,
    filename: str,
    data: bytes,
    *,
    game: str = GAME,
    timeout: float = 120,
) -> Reply:
    """``POST /api/submissions`` as ``arena submit`` sends it."""
    from league.cli.authors import multipart

    body, content_type = multipart({"name": name, "game": game}, "bot", filename, data)
    headers = {"content-type": content_type}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return served.request(
        "/api/submissions", method="POST", data=body, headers=headers, timeout=timeout
    )
