"""Pages served per second by ``arena serve`` while its rolling ladder plays.

A temporary SQLite database holds a rolling Liar's Dice ladder of example bots;
``arena serve`` plays it in the background (as a server does: the same process
referees and serves; one match at a time, no sandbox) and serves it on a loopback
port. N client threads, each with its own
keep-alive connection, then request one URL a fixed number of times in total —
the leaderboard page ``/leagues/NAME`` and its JSON ``/api/leagues/NAME/standings``
— and the wall time gives pages per second. The standings are recomputed whenever
a match lands (the server caches them per league state), so the number includes
that work. Loopback only; every number is measured in this run.

    python -m bench.server_load [--clients 8] [--requests 400]
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from referee.runtime.sandbox import NO_SANDBOX

ROOT = Path(__file__).resolve().parent.parent
LEAGUE = "bench"
URLS = (f"/leagues/{LEAGUE}", f"/api/leagues/{LEAGUE}/standings")


@dataclass(frozen=True)
class Load:
    path: str
    clients: int
    requests: int
    wall_s: float
    latencies_ms: tuple[float, ...]
    errors: int
    matches_during: int
    """Matches the background league finished while this URL was loaded."""

    @property
    def pages_per_s(self) -> float:
        return self.requests / self.wall_s

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies_ms)

    @property
    def p99_ms(self) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[max(0, int(len(ordered) * 0.99 + 0.5) - 1)]


def _prepare(db: str, bots: int) -> None:
    from league.store.db import open_database, session_scope
    from league.store.registry import add_bot, get_bot
    from league.store.rolling_ladders import RollingSettings, create_rolling_league, enter_bot

    engine = open_database(db)
    modules = ("liars_dice_probability", "liars_dice_random", "liars_dice_heuristic")
    with session_scope(engine) as session:
        ladder = create_rolling_league(
            session=session,
            name=LEAGUE,
            game="liars_dice",
            settings=RollingSettings(matches_per_minute=6000, concurrency=1),
            sandbox=NO_SANDBOX,
        )
        for index in range(bots):
            module = modules[index % len(modules)]
            name = f"{module.removeprefix('liars_dice_')}-{index}"
            add_bot(
                session=session,
                name=name,
                command=f"{sys.executable} -m example_bots.{module}",
                games=["liars_dice"],
            )
            enter_bot(session=session, league=ladder, bot=get_bot(session=session, name=name))
    engine.dispose()


def _done(db: str) -> int:
    from sqlmodel import Session, col, func, select

    from league.store.db import make_engine
    from league.store.models import MatchRow

    engine = make_engine(db)
    try:
        with Session(engine) as session:
            return int(
                session.exec(
                    select(func.count(col(MatchRow.id))).where(MatchRow.status == "done")
                ).one()
            )
    finally:
        engine.dispose()


def _load(port: int, path: str, clients: int, requests: int) -> tuple[float, list[float], int]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    share = [requests // clients + (1 if i < requests % clients else 0) for i in range(clients)]
    start = threading.Barrier(clients + 1)

    def client(count: int) -> None:
        nonlocal errors
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine: list[float] = []
        bad = 0
        start.wait()
        for _ in range(count):
            began = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            mine.append((time.perf_counter() - began) * 1000)
            bad += response.status != 200
        connection.close()
        with lock:
            latencies.extend(mine)
            errors += bad

    threads = [threading.Thread(target=client, args=(n,)) for n in share]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began, latencies, errors


def server_load(clients: int = 8, requests: int = 400, *, bots: int = 4) -> list[Load]:
    """Load each of :data:`URLS` while the ladder plays; one :class:`Load` per URL."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-server-") as tmp:
        db = f"sqlite:///{Path(tmp) / 'arena.db'}"
        _prepare(db, bots)
        env = {**os.environ, "ARENA_DB": db}
        arena = [sys.executable, "-m", "league.cli"]
        with open(Path(tmp) / "serve.log", "w") as log:
            server = subprocess.Popen(
                [*arena, "serve", "--port", "0", "--store", str(Path(tmp) / "store")],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                env=env,
                cwd=ROOT,
            )
        try:
            assert server.stdout is not None
            port = 0
            for line in server.stdout:
                if line.startswith("serving on "):
                    port = int(line.rsplit(":", 1)[1])
                    break
            if not port:
                raise RuntimeError(
                    f"arena serve did not start: {(Path(tmp) / 'serve.log').read_text()}"
                )
            deadline = time.monotonic() + 60
            while _done(db) < 2 and time.monotonic() < deadline:  # the ladder is under way
                time.sleep(0.2)
            if _done(db) < 2:
                raise RuntimeError(
                    "the server's ladder played no match in 60 s:"
                    f" {(Path(tmp) / 'serve.log').read_text()[-2000:]}"
                )
            for path in URLS:  # warm the page and the cache once
                _load(port, path, 1, 1)
            results = []
            for path in URLS:
                before = _done(db)
                wall, latencies, errors = _load(port, path, clients, requests)
                results.append(
                    Load(
                        path, clients, requests, wall, tuple(latencies), errors, _done(db) - before
                    )
                )
            return results
        finally:
            if server.poll() is None:
                server.send_signal(2)  # SIGINT: it stops its ladder and exits cleanly
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            if server.stdout is not None:
                server.stdout.close()


def describe(load: Load) -> str:
    return (
        f"{load.requests} requests by {load.clients} keep-alive clients in {load.wall_s:.2f} s;"
        f" median {load.median_ms:.1f} ms, p99 {load.p99_ms:.1f} ms; {load.errors} errors;"
        f" {load.matches_during} matches finished meanwhile (the server's rolling ladder,"
        f" concurrency 1, in the same process); {os.cpu_count()} cores shared by server,"
        " bots and clients"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.server_load", description=__doc__)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=400)
    options = parser.parse_args(argv)
    for load in server_load(options.clients, options.requests):
        print(f"{load.path}: {load.pages_per_s:.1f} pages/s — {describe(load)}")


if __name__ == "__main__":
    main()
