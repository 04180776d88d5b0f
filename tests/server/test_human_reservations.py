"""Reservations of games against bots cannot race and do not outlive their process
(issue 42, items 3 and 4).

Before: two games starting at the same moment both read the humans league's last
position and both wrote the next one (``UNIQUE constraint failed: match.league_id,
match.position``), and the first two games of a new league both created it
(``UNIQUE constraint failed: league.name``); one person could hold several games
from several processes; and a killed ``arena play`` left its row ``playing`` for a
day. Here reservations start together from threads (each its own connection, as
processes would), on SQLite and on PostgreSQL; ``arena play`` is SIGKILLed for real.
The guards take each protection away and show the race or the stale row come back.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

import league.store.human_games as store
from league.execution.human_play import HumanGame, Reservation, reserve_human_game
from league.store.db import make_engine, open_database, session_scope
from league.store.human_games import PLAYING, AlreadyPlaying, owner_gone, process_owner
from league.store.models import BotRow, MatchRow
from league.store.registry import AlreadyExistsError, add_bot
from tests.pg import PostgresUnavailable, temporary_postgres

RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
THREADS = 8


def _with_bot(engine: Engine) -> Engine:
    with session_scope(engine) as session:
        add_bot(session=session, name="randy", command=RANDOM, games=["liars_dice"])
    return engine


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A new database with one bot, ``randy``; no humans league yet."""
    if request.param == "sqlite":
        made = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
        yield _with_bot(made)
        made.dispose()
        return
    try:
        with temporary_postgres() as server:
            name = f"t_{uuid.uuid4().hex[:12]}"
            admin = make_engine(server)
            with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
            base, _, query = server.partition("?")
            made = open_database(
                f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")
            )
            yield _with_bot(made)
            made.dispose()
            with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    except PostgresUnavailable as why:
        pytest.skip(f"PostgreSQL tests skipped: no server could be started ({why})")


def plan(engine: Engine, player: str) -> HumanGame:
    with session_scope(engine) as session:
        bot = session.exec(select(BotRow).where(BotRow.name == "randy")).one()
        session.expunge(bot)
    return HumanGame(game="liars_dice", player=player, opponents=[bot])


def together(calls: list[Callable[[], Reservation]]) -> list[Reservation | BaseException]:
    """Run ``calls`` in threads released at the same moment; each one's result or error."""
    start = threading.Barrier(len(calls))
    results: list[Reservation | BaseException] = [RuntimeError("did not run")] * len(calls)

    def run(index: int) -> None:
        start.wait()
        try:
            results[index] = calls[index]()
        except BaseException as error:  # reported by the test
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def playing(engine: Engine) -> list[MatchRow]:
    with session_scope(engine) as session:
        rows = list(session.exec(select(MatchRow).where(MatchRow.status == PLAYING)))
        for row in rows:
            session.expunge(row)
        return rows


def test_people_starting_at_the_same_moment_all_get_a_game(engine: Engine) -> None:
    """Eight people start their first games together on a new database: one creates the
    humans league, the others take it; each gets a position of its own."""
    plans = [plan(engine, f"p{i}") for i in range(THREADS)]
    results = together([lambda p=p: reserve_human_game(engine, p) for p in plans])  # type: ignore[misc]
    assert all(isinstance(r, Reservation) for r in results), results
    keys = sorted(r.match.key for r in results if isinstance(r, Reservation))
    assert keys == sorted(f"humans-liars_dice-{i}" for i in range(THREADS))
    assert {row.holder for row in playing(engine)} == {f"human:p{i}" for i in range(THREADS)}


def test_one_person_starting_many_games_at_once_gets_one(engine: Engine) -> None:
    """The same person from eight places at once (a script, two terminals, the web):
    one game, the others refused by name — never a database error."""
    game = plan(engine, "ada")
    results = together([lambda: reserve_human_game(engine, game)] * THREADS)
    won = [r for r in results if isinstance(r, Reservation)]
    assert len(won) == 1, results
    assert all(isinstance(r, AlreadyPlaying) for r in results if r not in won), results
    assert [row.holder for row in playing(engine)] == ["human:ada"]
    other = plan(engine, "bo")  # someone else is not held up
    assert reserve_human_game(engine, other).match.key == "humans-liars_dice-1"


def aligned(real: Callable[..., Any], parties: int) -> Callable[..., Any]:
    """``real``, entered by ``parties`` threads together (or each after 2 s alone, when
    something — the league's lock — lets only one at a time reach it)."""
    barrier = threading.Barrier(parties)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=2)
        return real(*args, **kwargs)

    return wrapper


def test_guard_without_the_league_lock_positions_collide(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reservation without :func:`lock_league`: threads that read the last position
    together write the same next one, and the database refuses all but one."""
    plans = [plan(engine, f"p{i}") for i in range(4)]
    reserve_human_game(engine, plan(engine, "first"))  # the league exists: only positions race
    monkeypatch.setattr(store, "lock_league", lambda session, league: None)
    monkeypatch.setattr(store, "drop_abandoned", aligned(store.drop_abandoned, len(plans)))
    results = together([lambda p=p: reserve_human_game(engine, p) for p in plans])  # type: ignore[misc]
    collided = [r for r in results if isinstance(r, IntegrityError)]
    assert collided and "position" in str(collided[0]), results


def test_with_the_league_lock_the_aligned_threads_take_turns(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard's alignment with the lock in place: no collision."""
    plans = [plan(engine, f"p{i}") for i in range(4)]
    reserve_human_game(engine, plan(engine, "first"))
    monkeypatch.setattr(store, "drop_abandoned", aligned(store.drop_abandoned, len(plans)))
    results = together([lambda p=p: reserve_human_game(engine, p) for p in plans])  # type: ignore[misc]
    assert all(isinstance(r, Reservation) for r in results), results


def test_guard_creating_the_league_once_without_looking_again_collides(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first games of a new league, each creating it once, with no second look
    (:data:`PREPARE_ATTEMPTS` 1): all but one insert fail on the league's name."""
    plans = [plan(engine, f"p{i}") for i in range(4)]
    monkeypatch.setattr(store, "PREPARE_ATTEMPTS", 1)
    real = store.new_league_row  # type: ignore[attr-defined]
    monkeypatch.setattr(store, "new_league_row", aligned(real, len(plans)))
    results = together([lambda p=p: reserve_human_game(engine, p) for p in plans])  # type: ignore[misc]
    collided = [r for r in results if isinstance(r, IntegrityError | AlreadyExistsError)]
    assert collided and "league" in str(collided[0]), results


def test_guard_without_the_holder_one_person_gets_many_games(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reservations held for nobody (no ``holder``): the same person starts a game
    from each of eight places at once."""
    monkeypatch.setattr(store, "_holder", lambda seats: None)
    game = plan(engine, "ada")
    results = together([lambda: reserve_human_game(engine, game)] * THREADS)
    assert sum(isinstance(r, Reservation) for r in results) == THREADS, results


def test_process_owner_names_this_process_and_tells_a_dead_one() -> None:
    owner = process_owner()
    host, boot, tag = owner.split("/")
    assert host and boot and tag.startswith(f"{__import__('os').getpid()}.")
    assert not owner_gone(owner)
    assert owner_gone(f"{host}/{boot}/{tag.split('.')[0]}.1")  # same pid, another start
    assert owner_gone(f"{host}/another-boot/{tag}")  # this host restarted since
    assert not owner_gone(f"elsewhere/{boot}/{tag}")  # another host's: cannot tell
    assert not owner_gone("")  # an older row: cannot tell (the day rule applies)


@pytest.mark.e2e
@pytest.mark.parametrize("released", [True, False], ids=["released", "guard-day-rule-only"])
def test_a_killed_arena_play_releases_its_game_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, released: bool
) -> None:
    """``arena play`` is SIGKILLed while it waits for a move: its row is still
    ``playing``, naming its process. The next reservation of the same person sees that
    process gone and releases the row at once (the guard: with only the day rule, the
    person is locked out and the row stays)."""
    from tests.e2e.conftest import sandboxed_processes
    from tests.test_play_terminal import PROMPT, Screen

    db = tmp_path / "arena.db"
    screen = Screen(db, "--game", "liars_dice", "--bot", RANDOM, "--seat", "0", "--name", "ada")
    assert screen.read_until(PROMPT) is not None, screen.text.decode()
    from referee.runtime.sandbox import referee_uids

    uids = referee_uids(screen.process.pid)
    engine = _with_bot(open_database(f"sqlite:///{db}"))
    try:
        [row] = playing(engine)
        assert row.holder == "human:ada" and f"/{screen.process.pid}." in row.owner
        screen.process.send_signal(signal.SIGKILL)
        screen.finish()
        deadline = time.monotonic() + 10  # its sandbox dies with it
        while sandboxed_processes(screen.process.pid, uids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sandboxed_processes(screen.process.pid, uids) == []
        assert [r.group_key for r in playing(engine)] == [row.group_key]  # nobody said a word
        if not released:
            monkeypatch.setattr(store, "owner_gone", lambda owner: False)
            with pytest.raises(AlreadyPlaying):
                reserve_human_game(engine, plan(engine, "ada"))
            assert [r.group_key for r in playing(engine)] == [row.group_key]  # for a day
            return
        reserve_human_game(engine, plan(engine, "ada"))
        [now] = playing(engine)  # the dead one's row is gone, the new game's is there
        assert now.group_key != row.group_key and now.holder == "human:ada"
    finally:
        engine.dispose()
