"""Duplicate deals without memory: a bot that remembers deals gains nothing.

Seat rotations of a deal group share the deal. ``deal_rememberer`` writes down
every reveal (in its memory and in a file) and plays perfectly when it is dealt
dice it has seen revealed. Under the default sandbox, in a league of 20 rounds
against the probability bot, it never recognises a deal and its win rate in the
second rotations is within noise of the first ones. The guards show the attack
is real: with the disk shared (``--no-sandbox``) it recognises every second
rotation and wins them; and a pool that handed the same process to both
rotations would let it remember in memory alone.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest
import trio
from sqlalchemy import Engine
from sqlmodel import col, select

from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import LeagueSettings, create_league, decompress_record, match_log
from league.store.models import LeagueRow, MatchRow, SeatRow
from league.store.registry import add_bot
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, NO_SANDBOX, SandboxConfig
from tests.e2e.conftest import assert_no_sandboxed_processes

pytestmark = pytest.mark.e2e

REMEMBERER = f"{sys.executable} -m tests.security.deal_rememberer"
PROBABILITY = f"{sys.executable} -m example_bots.liars_dice_probability"
RULES = {"one_round": "true", "dice_per_player": "3"}


def play_league(db: Path, sandbox: SandboxConfig, rounds: int, seed: int | None = None) -> Engine:
    engine = open_database(f"sqlite:///{db}")
    with session_scope(engine) as session:
        add_bot(session=session, name="rememberer", command=REMEMBERER, games=["liars_dice"])
        add_bot(session=session, name="probability", command=PROBABILITY, games=["liars_dice"])
        create_league(
            session=session,
            name="memory",
            settings=LeagueSettings(
                "liars_dice",
                ("rememberer", "probability"),
                rules=RULES,
                rounds=rounds,
                sandbox=sandbox,
                reproducible_seed=seed,
            ),
        )
    summary = trio.run(
        lambda: LeagueRun(engine, "memory", RunOptions(concurrency=1, handle_signals=False)).play()
    )
    assert summary.remaining == 0
    return engine


def rotation_results(engine: Engine) -> dict[int, list[tuple[bool, bool]]]:
    """rotation -> [(rememberer won, rememberer recognised the deal)] per match."""
    found: dict[int, list[tuple[bool, bool]]] = {0: [], 1: []}
    with session_scope(engine) as session:
        league = session.exec(select(LeagueRow)).one()
        for match in session.exec(
            select(MatchRow).where(MatchRow.league_id == league.id).order_by(col(MatchRow.position))
        ):
            seats = {
                s.seat: s for s in session.exec(select(SeatRow).where(SeatRow.match_id == match.id))
            }
            record = decompress_record(match.record or b"")
            seat = next(i for i, info in enumerate(record.seats) if info.bot == "rememberer")
            assert record.reason == "completed", record.faults
            assert not any(s.fault for s in seats.values())
            # The database says what the record says.
            assert seats[seat].place == record.places[seat]
            output = (match_log(session=session, match=match, seat=seat) or b"").decode()
            recognised = "recognised=True" in output
            found[match.rotation].append((record.places[seat] == 1, recognised))
    return found


def win_rate(results: list[tuple[bool, bool]]) -> float:
    return sum(won for won, _ in results) / len(results)


def test_remembering_deals_gains_nothing_in_the_sandbox(tmp_path: Path) -> None:
    # Fixed deals: the win rates below then do not depend on a random league secret
    # (a random one made this comparison fail about once in a few hundred runs).
    engine = play_league(tmp_path / "arena.db", DEFAULT_SANDBOX, rounds=20, seed=20261130)
    results = rotation_results(engine)
    assert len(results[0]) == len(results[1]) == 20
    assert not any(recognised for rotation in results.values() for _, recognised in rotation)
    first, second = win_rate(results[0]), win_rate(results[1])
    print(f"sandbox: rememberer won {first:.0%} of first rotations, {second:.0%} of second")
    pooled = (first + second) / 2
    noise = math.sqrt(max(pooled * (1 - pooled), 0.05) * 2 / 20)
    assert abs(second - first) <= 2.6 * noise, (first, second)
    assert_no_sandboxed_processes()


def test_guard_without_sandbox_the_disk_remembers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = tmp_path / "memory.json"
    monkeypatch.setenv("ARENA_MEMORY_FILE", str(memory))  # reaches unsandboxed bots only
    # Fixed deals, as above: with a random league secret the two win rates came out
    # equal about once in 30 suite runs (here 50% of first rotations, 83% of second).
    engine = play_league(tmp_path / "arena.db", NO_SANDBOX, rounds=12, seed=20261130)
    results = rotation_results(engine)
    assert memory.exists()
    # It recognises the second rotations: it knows every die on the table. (Its
    # file is written when the first rotation ends; on a loaded machine the next
    # process may look before the last write lands, so not quite every time.)
    recognised = sum(recognised for _, recognised in results[1])
    assert recognised >= 0.75 * len(results[1]), results[1]
    first, second = win_rate(results[0]), win_rate(results[1])
    print(f"no sandbox: rememberer won {first:.0%} of first rotations, {second:.0%} of second")
    # Knowing every die does not win every game (a true opening bid at the top of
    # the table leaves only losing answers), but it wins more than without.
    assert second > first


async def test_guard_one_process_for_both_rotations_remembers_in_memory() -> None:
    """Without the deal-group rule (deal_group="") a warm process plays both rotations."""
    rememberer = BotSpec("rememberer", command=tuple(REMEMBERER.split()))
    probability = BotSpec("probability", command=tuple(PROBABILITY.split()))
    pool = WarmPool(sandbox=DEFAULT_SANDBOX)
    recognised = []
    try:
        for index, bots in enumerate([(rememberer, probability), (probability, rememberer)]):
            logs: dict[int, bytes] = {}
            spec = MatchSpec("liars_dice", bots, seed=41, rules=RULES, match_id=f"m{index}")
            record = await run_match(spec, Limits(startup_s=20.0), launcher=pool, logs=logs)
            assert record.reason == "completed", record.faults
            seat = bots.index(rememberer)
            recognised.append(bool(re.search("recognised=True", logs[seat].decode())))
    finally:
        await pool.aclose()
    assert pool.reused >= 1
    assert recognised == [False, True]
    assert_no_sandboxed_processes()
