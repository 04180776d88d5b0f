"""A league run with its database: matches/s through :class:`LeagueRun`, with finished
matches written by the result writer (batched, in a worker thread) and, for
comparison, each committed on the event loop's thread as it finished (as runs did
before: ``RunOptions.write_behind=False``).

    python -m bench.league_db [--matches 200] [--concurrency 8] [--rounds 3]
                              [--postgres postgresql+psycopg://USER@HOST/DB]

Two :mod:`bench.instant_bot` bots in a SQLite league (no sandbox, a warm pool): the
run is what is measured — its referee, its slots and its writes. An instant bot
answers from a plan of its seeded match, so the run's matches are given seeds
(:class:`SeededRun`) instead of the league's secret deals; everything else is the
league runner's own. The two ways alternate, each round on a fresh database, and a
rate counts the matches after the first ``concurrency`` were written (the warm
pool's processes are started by then) up to the last. ``--postgres``: each round on
a fresh database created on that server (whose commits wait for the server and its
disk) instead of a SQLite file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import trio
from sqlalchemy import text

from bench.instant_bot import match_id_for
from league.execution.league_run import LeagueRun, RunOptions
from league.execution.result_writer import Finished, Leader
from league.store.db import make_engine, open_database, session_scope
from league.store.leagues import LeagueSettings, PendingMatch, create_league
from league.store.registry import add_bot
from referee.runtime.match import MatchSpec
from referee.runtime.sandbox import NO_SANDBOX

GAME = "liars_dice"
MODES = {"writer": True, "commit per match": False}
"""The ways of writing results: label -> ``RunOptions.write_behind``."""


class SeededRun(LeagueRun):
    """A league run whose match at position ``k`` is dealt from seed ``k`` and named
    ``bench-k`` to its bots, which is what an instant bot plays from."""

    loop_write_s = 0.0
    """Time the event loop's thread spent writing results (the matches in flight
    stood still meanwhile): all of it when each is committed there, none with the
    writer (its transactions run in a worker thread)."""

    def _write(self, batch: list[Finished]) -> Leader | None:
        began = time.perf_counter()
        try:
            return super()._write(batch)
        finally:
            if threading.current_thread() is threading.main_thread():
                self.loop_write_s += time.perf_counter() - began

    def _spec(self, pending: PendingMatch) -> MatchSpec:
        spec = super()._spec(pending)
        return replace(
            spec,
            chance_key=None,
            seed=pending.position,
            bot_match_id=match_id_for(pending.position),
        )


@dataclass(frozen=True)
class DbRun:
    matches: int
    wall_s: float
    steady: int
    """Matches counted by :attr:`matches_per_s` (those after the first ``concurrency``)."""
    steady_s: float
    batches: int
    """Transactions the run's writes took."""
    loop_write_ms: float
    """Per match: how long the event loop's thread was held by writing results."""

    @property
    def matches_per_s(self) -> float:
        return self.steady / self.steady_s if self.steady_s > 0 else 0.0


@contextmanager
def fresh_database(postgres: str | None) -> Iterator[str]:
    """The URL of an empty database: a SQLite file in a temporary folder, or one
    created on the PostgreSQL server ``postgres`` (dropped afterwards)."""
    if postgres is None:
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{Path(folder) / 'arena.db'}"
        return
    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = make_engine(postgres)
    try:
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        base, _, query = postgres.partition("?")
        yield f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")
    finally:
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def db_run(
    matches: int, concurrency: int, *, write_behind: bool, postgres: str | None = None
) -> DbRun:
    """One league of ``matches`` instant-bot matches, ``concurrency`` at a time."""
    command = f"{sys.executable} -m bench.instant_bot --prepare {GAME}:0-{matches - 1}"
    with fresh_database(postgres) as url:
        engine = open_database(url)
        try:
            with session_scope(engine) as session:
                for name in ("instant-a", "instant-b"):
                    add_bot(session=session, name=name, command=command, games=[GAME])
                create_league(
                    session=session,
                    name="bench",
                    settings=LeagueSettings(
                        GAME,
                        ("instant-a", "instant-b"),
                        rounds=(matches + 1) // 2,
                        sandbox=NO_SANDBOX,
                    ),
                )
            stamps: list[float] = []
            options = RunOptions(
                concurrency=concurrency, handle_signals=False, write_behind=write_behind
            )
            run = SeededRun(
                engine, "bench", options, on_result=lambda _: stamps.append(time.perf_counter())
            )
            began = time.perf_counter()
            summary = trio.run(run.play)
            wall = time.perf_counter() - began
        finally:
            engine.dispose()
    if summary.played != len(stamps) or summary.remaining:
        raise RuntimeError(f"the league did not finish: {summary}")
    first = min(concurrency, len(stamps) - 1)
    batches = run.writer.batches if write_behind else summary.played
    return DbRun(
        len(stamps),
        wall,
        len(stamps) - 1 - first,
        stamps[-1] - stamps[first],
        batches,
        run.loop_write_s * 1000 / len(stamps),
    )


def compare(
    matches: int, concurrency: int, rounds: int, postgres: str | None = None
) -> dict[str, list[DbRun]]:
    """``rounds`` runs of each way, alternating."""
    runs: dict[str, list[DbRun]] = {label: [] for label in MODES}
    for _ in range(rounds):
        for label, write_behind in MODES.items():
            runs[label].append(
                db_run(matches, concurrency, write_behind=write_behind, postgres=postgres)
            )
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", help="a PostgreSQL server's URL (default: SQLite files)")
    options = parser.parse_args()
    # The bots run `python -m bench.instant_bot` from their own directory.
    root = str(Path(__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH", "")) if p
    )
    runs = compare(options.matches, options.concurrency, options.rounds, options.postgres)
    for label, done in runs.items():
        rates = [run.matches_per_s for run in done]
        print(
            f"{label:<17} {statistics.median(rates):6.1f} matches/s"
            f" (rounds {', '.join(f'{r:.1f}' for r in rates)};"
            f" transactions {[run.batches for run in done]};"
            f" event loop held by writes {statistics.median(r.loop_write_ms for r in done):.2f}"
            " ms per match)"
        )


if __name__ == "__main__":
    main()
