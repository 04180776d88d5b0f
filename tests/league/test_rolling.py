"""Rolling ladders: entering and retiring versions, batches, rate, stop, and a
SIGKILLed ladder resuming without losing or replaying a match (the pairing itself:
tests/league/test_pairing.py)."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
import zlib
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import trio
from sqlalchemy import Engine, func
from sqlmodel import select

from league.execution.rolling_runs import run_rolling
from league.store.db import open_database, session_scope
from league.store.leagues import decompress_record, get_league, league_bots, revealed_secret
from league.store.models import MatchLogRow, MatchRow, SeatRow
from league.store.registry import AlreadyExistsError, add_bot, get_bot, remove_bot
from league.store.rolling_ladders import (
    RollingError,
    RollingSettings,
    create_rolling_league,
    enter_bot,
    extend_schedule,
    is_rolling,
    ladder_entries,
    rolling_leagues,
    rolling_status,
)
from league.store.standings import standings
from league.web.report import write_league_report
from referee.runtime.sandbox import SandboxConfig
from tests.cli_in_process import arena_in_process
from tests.league.test_resume import bots_of

ROOT = Path(__file__).resolve().parents[2]
RANDOM = f"{sys.executable} -m example_bots.liars_dice_random"
PROBABILITY = f"{sys.executable} -m example_bots.liars_dice_probability"
RULES = {"dice_per_player": "2"}
NO_SANDBOX = SandboxConfig(enabled=False)


def test_bad_settings_name_the_value() -> None:
    with pytest.raises(RollingError, match=r"matches_per_minute .* got 0"):
        RollingSettings(matches_per_minute=0)
    with pytest.raises(RollingError, match="concurrency must be at least 1, got 0"):
        RollingSettings(concurrency=0)


# ----------------------------------------------------------------- entering, retiring


def make_ladder(engine: Engine, name: str = "lad", **settings: float) -> None:
    with session_scope(engine) as session:
        for bot, command in (("random", RANDOM), ("probability", PROBABILITY)):
            add_bot(session=session, name=bot, command=command, games=["liars_dice"])
        league = create_rolling_league(
            session=session,
            name=name,
            game="liars_dice",
            rules=RULES,
            settings=RollingSettings(**settings),  # type: ignore[arg-type]
            sandbox=NO_SANDBOX,
        )
        for bot in ("random", "probability"):
            enter_bot(session=session, league=league, bot=get_bot(session=session, name=bot))


def done_count(engine: Engine) -> int:
    with session_scope(engine) as session:
        return session.exec(
            select(func.count()).select_from(MatchRow).where(MatchRow.status == "done")
        ).one()


def test_entering_a_new_version_retires_the_old_and_places_the_new(engine: Engine) -> None:
    make_ladder(engine, batch_groups=3, placement_matches=4)
    with session_scope(engine) as session:
        league = get_league(session=session, name="lad")
        assert is_rolling(league) and [lg.name for lg in rolling_leagues(session=session)] == [
            "lad"
        ]
        first = extend_schedule(session=session, league=league)
        # Two entries: every table is the pair, one deal per table, both rotations.
        assert [m.position for m in first] == list(range(6))
        assert [m.group for m in first] == ["r0-t0", "r0-t0", "r0-t1", "r0-t1", "r0-t2", "r0-t2"]
        assert {tuple(b.name for b in m.bots) for m in first} == {
            ("random", "probability"),
            ("probability", "random"),
        }
        add_bot(
            session=session,
            name="random",
            command=RANDOM,
            games=["liars_dice"],
            version="v2",
        )
        add_bot(session=session, name="third", command=RANDOM, games=["liars_dice"])
        old = get_bot(session=session, name="random", version=first[0].bots[0].version)
        new = get_bot(session=session, name="random")
        assert new.version == "v2"
        assert enter_bot(session=session, league=league, bot=new) == [old]
        assert (
            enter_bot(session=session, league=league, bot=get_bot(session=session, name="third"))
            == []
        )
        with pytest.raises(AlreadyExistsError, match="version v2 is already in ladder 'lad'"):
            enter_bot(session=session, league=league, bot=new)
        with pytest.raises(AlreadyExistsError, match="is a retired version in ladder"):
            enter_bot(session=session, league=league, bot=old)
        second = extend_schedule(session=session, league=league)
        assert [m.position for m in second] == list(range(6, 12))
        assert {m.group for m in second} == {"r1-t0", "r1-t1", "r1-t2"}
        seated = [[f"{b.name}@{b.version}" for b in m.bots] for m in second]
        # The old version gets nothing new; the two new entries place first (each has
        # 0 matches; the older entry, random v2, is seeded first).
        assert not any(f"random@{old.version}" in s for s in seated)
        assert "random@v2" in seated[0] and "random@v2" in seated[2]
        assert all(any(x == "random@v2" or x.startswith("third@") for x in s) for s in seated)
        status = rolling_status(session=session, league=league)
        assert [(e["bot"], e["retired"]) for e in status["entries"]] == [  # type: ignore[attr-defined]
            (f"random@{old.version}", True),
            ("probability", False),
            ("random@v2", False),
            ("third", False),
        ]
        assert revealed_secret(session=session, league=league) is None


async def test_run_plays_exactly_max_matches_and_extends_the_schedule(engine: Engine) -> None:
    make_ladder(engine, batch_groups=2, matches_per_minute=6000)
    seen: list[str] = []
    summary = await run_rolling(engine, "lad", max_matches=5, on_match=seen.append)
    assert summary.played == 5 == done_count(engine) and len(seen) == 5
    assert sorted(seen) == sorted(summary.match_ids) and not summary.stopped
    assert summary.scheduled == 8 and summary.pending == 3  # two batches of 2 groups × 2
    again = await run_rolling(engine, "lad", max_matches=4)
    # The 3 pending matches first, then a new batch.
    assert again.played == 4 and again.scheduled == 4 and again.pending == 3
    assert {f"lad-{p}" for p in range(8)} - set(seen) < set(again.match_ids)
    with session_scope(engine) as session:
        league = get_league(session=session, name="lad")
        rows = standings(session=session, league=league, samples=50)
        assert {r.bot for r in rows} == {"random", "probability"}
        assert sum(r.matches for r in rows) == 2 * 9


async def test_a_retired_version_is_hidden_from_standings_but_still_rated(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    make_ladder(engine, batch_groups=1, matches_per_minute=6000)
    await run_rolling(engine, "lad", max_matches=2)
    with session_scope(engine) as session:
        league = get_league(session=session, name="lad")
        new = add_bot(
            session=session,
            name="probability",
            command=PROBABILITY,
            games=["liars_dice"],
            version="v2",
        )
        (old,) = enter_bot(session=session, league=league, bot=new)
    summary = await run_rolling(engine, "lad", max_matches=4)
    assert summary.played == 4
    with session_scope(engine) as session:
        league = get_league(session=session, name="lad")
        shown = standings(session=session, league=league, samples=50)
        every = standings(session=session, league=league, samples=50, include_retired=True)
        new_seats = session.exec(
            select(func.count()).select_from(SeatRow).where(SeatRow.bot_id == new.id)
        ).one()
        page = write_league_report(
            session=session, league=league, path=tmp_path / "lad.html", samples=20
        )[0].read_text()
    assert f"probability@{old.version}" in page and "probability@v2" in page
    assert new_seats == 4  # the two placement groups went to the new version
    assert [(r.bot, r.retired) for r in shown] == [(r.bot, False) for r in shown]
    assert {r.bot for r in shown} == {"random", "probability@v2"}
    assert {r.bot for r in every} == {"random", "probability@v2", f"probability@{old.version}"}
    retired = next(r for r in every if r.retired)
    assert retired.matches == 2 and retired.name == "probability" and retired.elo is not None
    assert sorted(r.rank for r in shown) == [1, 2]  # type: ignore[type-var]
    engine.dispose()


# ----------------------------------------------------------------------- rate, stop


async def test_match_starts_respect_the_rate(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    rate = 120.0  # one start every 0.5 s
    make_ladder(engine, matches_per_minute=rate, concurrency=3)
    await run_rolling(engine, "lad", max_matches=7)
    with session_scope(engine) as session:
        records = [
            decompress_record(m.record)
            for m in session.exec(select(MatchRow).where(MatchRow.status == "done"))
            if m.record is not None
        ]
    starts = sorted(datetime.fromisoformat(r.started_at).timestamp() for r in records)
    assert len(starts) == 7
    observed = (len(starts) - 1) / (starts[-1] - starts[0]) * 60.0
    # Upper bound only, generous: a shared machine delays starts, never hastens them.
    assert observed <= rate * 1.5, f"{observed:.0f} matches a minute against a limit of {rate}"
    engine.dispose()


async def test_stop_ends_the_run_promptly_and_leaves_no_bot(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    make_ladder(engine, matches_per_minute=6000)
    stop = trio.Event()
    stopped_at: list[float] = []
    stopped_wall: list[datetime] = []

    def after(match_id: str) -> None:
        if not stop.is_set():
            stop.set()
            stopped_at.append(time.monotonic())
            stopped_wall.append(datetime.now(UTC))

    summary = await run_rolling(engine, "lad", stop=stop, on_match=after, grace_s=5.0)
    assert time.monotonic() - stopped_at[0] < 6.0
    assert summary.stopped and summary.played >= 1
    assert summary.played == done_count(engine)
    # Those running (or finished, waiting to be written) when the stop came may be
    # saved; none started after it.
    with session_scope(engine) as session:
        started = [
            datetime.fromisoformat(decompress_record(m.record).started_at)
            for m in session.exec(select(MatchRow).where(MatchRow.status == "done"))
            if m.record is not None
        ]
    assert len(started) == summary.played
    assert all(moment <= stopped_wall[0] for moment in started), (started, stopped_wall)
    assert bots_of(os.getpid()) == []
    engine.dispose()


async def test_with_one_entry_it_waits_without_playing_until_stopped(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    with session_scope(engine) as session:
        add_bot(session=session, name="solo", command=RANDOM, games=["liars_dice"])
        league = create_rolling_league(
            session=session, name="lad", game="liars_dice", sandbox=NO_SANDBOX
        )
        enter_bot(session=session, league=league, bot=get_bot(session=session, name="solo"))
    stop = trio.Event()
    begun = time.monotonic()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_set_later, stop, 0.6)
        with trio.fail_after(10):
            summary = await run_rolling(engine, "lad", stop=stop, idle_poll_s=0.2)
    assert summary.played == 0 and summary.scheduled == 0 and summary.stopped
    assert 0.5 < time.monotonic() - begun < 5
    engine.dispose()


async def _set_later(event: trio.Event, seconds: float) -> None:
    await trio.sleep(seconds)
    event.set()


# ------------------------------------------------------------------------ kill test


def snapshot(engine: Engine) -> dict[str, tuple[str, bytes, tuple[tuple[int, int | None], ...]]]:
    """Every finished match: its group, record and (seat, place)s."""
    with session_scope(engine) as session:
        found = {}
        for match in session.exec(select(MatchRow).where(MatchRow.status == "done")):
            seats = session.exec(select(SeatRow).where(SeatRow.match_id == match.id)).all()
            assert match.record is not None
            found[f"lad-{match.position}"] = (
                match.group_key,
                zlib.decompress(match.record),
                tuple(sorted((s.seat, s.place) for s in seats)),
            )
        return found


def check_whole(engine: Engine) -> None:
    """Every match once, every group's rotations once, every result whole."""
    with session_scope(engine) as session:
        matches = session.exec(select(MatchRow)).all()
        positions = sorted(m.position for m in matches)
        assert positions == list(range(len(matches)))
        groups = Counter(m.group_key for m in matches)
        assert set(groups.values()) == {2}, groups
        for group in groups:
            assert sorted(m.rotation for m in matches if m.group_key == group) == [0, 1]
        for match in matches:
            seats = session.exec(select(SeatRow).where(SeatRow.match_id == match.id)).all()
            assert sorted(s.seat for s in seats) == [0, 1]
            logs = session.exec(select(MatchLogRow).where(MatchLogRow.match_id == match.id)).all()
            assert len(logs) <= 2
            if match.status == "done":
                assert match.record is not None and all(s.place is not None for s in seats)
                assert decompress_record(match.record).match_id == f"lad-{match.position}"
            else:
                assert match.record is None and all(s.place is None for s in seats)


def rolling_run(url: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "league.cli", "--db", url, "rolling", "run", "lad", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_sigkilled_ladder_resumes_losing_and_replaying_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'kill.db'}"
    engine = open_database(url)
    make_ladder(engine, batch_groups=2, matches_per_minute=6000, concurrency=2)
    for at_least in (3, 7):
        runner = rolling_run(url, "--quiet")
        deadline = time.monotonic() + 60
        while done_count(engine) < at_least and time.monotonic() < deadline:
            assert runner.poll() is None, runner.communicate()
            time.sleep(0.02)
        time.sleep(0.05)  # into the middle of the next matches
        os.kill(runner.pid, signal.SIGKILL)
        runner.communicate()
        deadline = time.monotonic() + 10
        while bots_of(runner.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert bots_of(runner.pid) == []
        check_whole(engine)
    before = snapshot(engine)
    with session_scope(engine) as session:
        left = {m.position for m in session.exec(select(MatchRow).where(MatchRow.status != "done"))}
    assert len(left) <= 5  # a batch of 4, and one match another slot was playing
    runner = rolling_run(url, "--max-matches", "5", "--quiet")
    out, err = runner.communicate(timeout=60)
    assert runner.returncode == 0, err
    assert "finished: played 5 matches" in out
    after = snapshot(engine)
    check_whole(engine)
    assert len(after) == len(before) + 5
    assert {k: after[k] for k in before} == before  # finished results unchanged
    assert {f"lad-{p}" for p in left} <= set(after)  # what the kill left is played first
    engine.dispose()


def test_cli_create_enter_status(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"

    def arena(*args: str) -> str:
        done = arena_in_process("--db", url, *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    arena("bot", "add", "r", "--cmd", RANDOM, "--game", "liars_dice", "--no-check")
    arena("rolling", "create", "lad", "--game", "liars_dice", "--rate", "30", "--no-sandbox")
    assert '"min_share": 0.1' in arena("rolling", "status", "lad", "--json")
    assert "entered r version" in arena("rolling", "enter", "lad", "r")
    arena("rolling", "set", "lad", "--rate", "90", "--min-share", "0.25")
    status = arena("rolling", "status", "lad", "--json")
    assert '"matches_per_minute": 90.0' in status and '"retired": false' in status
    assert '"min_share": 0.25' in status
    assert math.isfinite(float(status.split('"matches_per_minute": ')[1].split(",")[0]))
    text = arena("rolling", "status", "lad")
    assert "{'" not in text and "matches_per_minute=90.0" in text and "rules: " in text


def test_shares_are_counted_over_the_last_matches_of_the_ladder(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_ladder(engine, batch_groups=2, placement_matches=0)
    monkeypatch.setattr("league.store.rolling_ladders.SHARE_WINDOW", 6)
    with session_scope(engine) as session:
        league = get_league(session=session, name="lad")
        assert ladder_entries(session=session, league=league)[1] == 0
        extend_schedule(session=session, league=league)  # positions 0-3
        add_bot(session=session, name="late", command=RANDOM, games=["liars_dice"])
        enter_bot(session=session, league=league, bot=get_bot(session=session, name="late"))
        entries, window = ladder_entries(session=session, league=league)
        assert window == 4 and {e.key: (e.matches, e.recent) for e in entries} == {
            "random": (4, 4),
            "probability": (4, 4),
            "late": (0, 0),
        }
        # Positions 4-7: "late" (0 of 4 recent matches, below 10%) gets the first table.
        batch = extend_schedule(session=session, league=league)
        assert "late" in [b.name for b in batch[0].bots]
        entries, window = ladder_entries(session=session, league=league)
        # The window holds the last 6 matches (positions 2-7) only. Without results
        # no pair can be settled soon (all out of reach), so pairs take turns: late's
        # other pair, which has no recent match, gets the second table.
        assert window == 6 and {e.key: (e.matches, e.recent) for e in entries} == {
            "random": (6, 4),
            "probability": (6, 4),
            "late": (4, 4),
        }


def test_a_bot_removed_from_the_registry_gets_no_new_matches(engine: Engine) -> None:
    make_ladder(engine, batch_groups=2, placement_matches=0)
    with session_scope(engine) as session:
        league = get_league(session=session, name="lad")
        add_bot(session=session, name="gone", command=RANDOM, games=["liars_dice"])
        enter_bot(session=session, league=league, bot=get_bot(session=session, name="gone"))
        remove_bot(session=session, name="gone")
        batch = extend_schedule(session=session, league=league)
    assert len(batch) == 4 and all("gone" not in [b.name for b in m.bots] for m in batch)


def test_a_version_entered_while_a_batch_is_chosen_does_not_break_it(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A submission accepted while the server's ladder picks its next batch enters a
    version between two reads of the entries. Labels and active entries came from
    separate reads, so the new entry had no label: ``KeyError`` killed the ladder
    (seen once in tests/server/test_server_ladder.py). Now one read serves both."""
    import league.store.rolling_ladders as rolling

    make_ladder(engine, placement_matches=0)
    real = league_bots
    calls: list[int] = []

    def racing(*, session: Any, league: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:  # review read first; the batch's read sees a new entry
            add_bot(session=session, name="late", command=RANDOM, games=["liars_dice"])
            enter_bot(session=session, league=league, bot=get_bot(session=session, name="late"))
        return real(session=session, league=league)

    # Before, the labels were read (through league.store.leagues) before this second
    # read of the entries, which then held "late" without a label: KeyError.
    monkeypatch.setattr(rolling, "league_bots", racing)
    with session_scope(engine) as session:
        batch = extend_schedule(session=session, league=get_league(session=session, name="lad"))
    assert batch
