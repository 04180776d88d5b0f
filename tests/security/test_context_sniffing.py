"""The pre-submission check looks like a ladder match to the bot it checks.

The attack (:mod:`tests.security.context_sniffer`): a bot that plays honestly
when it believes it is being checked and crashes in real matches, so it is
accepted and then faults in every ladder match. It looks at everything the
referee sends it: the match id (``check-3`` against ``ladder-246``), whether its
deal is one a small seed draws (the old check played seeds 0, 1, ...), and
whether the rules are the defaults (the old check toured the rule options).

GUARDS: against the old check setup, reproduced match for match, the bot tells
the check from the ladder and passes it while faulting in the ladder; a seeded
deal alone is enough for it. With the fix (opaque ids drawn per match, secret
deals, the ladder's rules and limits and placement pattern), every field it can
observe — all of MatchStart and of its TurnRequests besides its dice — has the
same values or shape in the check as in a ladder, so it cannot tell: it faults
in the check too, and fails it.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio
from sqlmodel import select

from league.execution.botcheck import check_bot_matches, check_opponents, rule_variants
from league.execution.rolling_runs import run_rolling
from league.store.db import open_database, session_scope
from league.store.leagues import decompress_record, get_league, match_log
from league.store.models import BotRow, MatchRow, SeatRow
from league.store.registry import get_bot
from league.store.rolling_ladders import RollingSettings, create_rolling_league, enter_bot
from referee.core.faults import FaultKind
from referee.records.record import MatchRecord
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX
from tests.e2e.conftest import module_bot
from tests.security.context_sniffer import sniffs
from tests.security.support import add_unchecked, assert_no_processes_left

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GAME = "liars_dice"
MATCHES = 4
SNIFFER = module_bot("tests.security.context_sniffer", name="sniffer")
OPPONENT_SPECS = [
    BotSpec(name=module, command=(sys.executable, "-m", f"example_bots.{module}"))
    for module in check_opponents(GAME) or ()
]
SAME_EVERYWHERE = (
    "id_shape",
    "game",
    "rules",
    "num_seats",
    "protocol_version",
    "turn_fields",
    "time_limit_ms",
    "nonce_shape",
    "dice_counts",
    "env",
    "argv",
    "cwd",
)
"""Fields of the sniffer's report whose values must be the same sets in the check
and in the ladder (the rest, its id and its seat, are compared by shape)."""


@dataclass
class Seen:
    """One match from the sniffer's side: its seat, what it reported, its fault,
    and every seat that faulted."""

    seat: int
    sniff: dict[str, Any]
    fault: FaultKind | None
    faulted: tuple[int, ...]

    @classmethod
    def of(cls, record: MatchRecord, seat: int, log: bytes) -> Seen:
        fault = record.fault_of(seat)
        faulted = tuple(f.seat for f in record.faults)
        return cls(seat, one_sniff(log), None if fault is None else fault.kind, faulted)


def one_sniff(log: bytes) -> dict[str, Any]:
    found = sniffs(log)
    assert len(found) == 1, f"expected one SNIFF line, got {found}; log ends {log[-1500:]!r}"
    return found[0]


def old_check(*, old_ids: bool, seeded: bool, toured_rules: bool) -> list[Seen]:
    """The check as it was, match for match: a warm pool, seats 0, 1, 0, 1 against
    the random then the heuristic bot, and (as chosen) ``check-N`` ids sent to the
    bot, seeds 0, 1, ... and the tour of rule options."""
    variants = rule_variants(GAME, MATCHES)

    async def main() -> list[Seen]:
        pool = WarmPool(sandbox=DEFAULT_SANDBOX)
        seen = []
        try:
            for k in range(MATCHES):
                opponent = OPPONENT_SPECS[(k // 2) % len(OPPONENT_SPECS)]
                seat = k % 2
                spec = MatchSpec(
                    GAME,
                    (SNIFFER, opponent) if seat == 0 else (opponent, SNIFFER),
                    seed=k if seeded else None,
                    rules=variants[k] if toured_rules else {},
                    match_id=f"check-{k + 1}",
                    bot_match_id=f"check-{k + 1}" if old_ids else "",
                )
                logs: dict[int, bytes] = {}
                record = await run_match(spec, Limits(), launcher=pool, logs=logs)
                seen.append(Seen.of(record, seat, logs[seat]))
        finally:
            await pool.aclose()
        return seen

    return trio.run(main)


def the_check() -> tuple[bool, list[Seen]]:
    """The real check (:func:`league.execution.botcheck.check_bot_matches`): its verdict and
    the matches from the sniffer's side."""
    logs: list[bytes] = []
    report = check_bot_matches(SNIFFER, GAME, matches=MATCHES, sandbox=DEFAULT_SANDBOX, logs=logs)
    assert len(logs) == len(report.matches) == MATCHES
    seen = []
    for match, log in zip(report.matches, logs, strict=True):
        fault = FaultKind(match.fault) if match.fault else None
        faulted = (match.seat,) if fault else ()
        seen.append(Seen(match.seat, one_sniff(log), fault, faulted))
    return report.passed, seen


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Seen]]:
    """A rolling ladder as the server runs one (default rules, limits and sandbox)
    with the example bots and the sniffer, new, playing its placement matches."""
    path: Path = tmp_path_factory.mktemp("ladder") / "arena.db"
    engine = open_database(f"sqlite:///{path}")
    try:
        with session_scope(engine) as session:
            for spec in (*OPPONENT_SPECS, SNIFFER):
                add_unchecked(session, spec, GAME)
            league = create_rolling_league(
                session=session,
                name="ladder",
                game=GAME,
                settings=RollingSettings(matches_per_minute=6000, concurrency=1),
            )
            for spec in (SNIFFER, *OPPONENT_SPECS):
                enter_bot(
                    session=session, league=league, bot=get_bot(session=session, name=spec.name)
                )
        trio.run(functools.partial(run_rolling, engine, "ladder", max_matches=6))
        seen = []
        with session_scope(engine) as session:
            league = get_league(session=session, name="ladder")
            for match in session.exec(
                select(MatchRow).where(MatchRow.league_id == league.id, MatchRow.status == "done")
            ):
                assert match.record is not None
                record = decompress_record(match.record)
                for seat, bot in session.exec(
                    select(SeatRow, BotRow)
                    .join(BotRow, BotRow.id == SeatRow.bot_id)  # type: ignore[arg-type]
                    .where(SeatRow.match_id == match.id)
                ):
                    if bot.name == SNIFFER.name:
                        log = match_log(session=session, match=match, seat=seat.seat) or b""
                        seen.append(Seen.of(record, seat.seat, log))
    finally:
        engine.dispose()
    assert_no_processes_left()
    assert len(seen) >= 2, "the sniffer played too few ladder matches to compare"
    yield seen


def test_guard_the_old_check_is_told_apart_from_the_ladder(ladder: list[Seen]) -> None:
    """GUARD: with the old check's ids, seeds and rule tour the sniffer knows it is
    checked, plays well and passes; in the ladder it faults in every match."""
    checked = old_check(old_ids=True, seeded=True, toured_rules=True)
    assert all(s.sniff["context"] == "check" and s.sniff["tells"]["check_id"] for s in checked)
    assert [s.fault for s in checked] == [None] * MATCHES
    assert all(s.sniff["context"] == "ladder" for s in ladder)
    assert all(s.fault is FaultKind.CRASH for s in ladder), ladder
    for seen in ladder:  # the opponent is never blamed for the sniffer's crash
        assert seen.faulted == (seen.seat,)
    assert_no_processes_left()


def test_guard_a_seeded_deal_alone_gives_the_check_away() -> None:
    """GUARD: opaque ids and default rules are not enough while the check deals from
    seeds 0, 1, ...: the sniffer recognises its dice."""
    checked = old_check(old_ids=False, seeded=True, toured_rules=False)
    for seen in checked:
        assert seen.sniff["tells"] == {
            "check_id": False,
            "seeded_deal": True,
            "custom_rules": False,
        }, seen.sniff
    assert [s.fault for s in checked] == [None] * MATCHES
    assert_no_processes_left()


def test_the_check_looks_like_a_ladder_match(ladder: list[Seen]) -> None:
    """Everything the sniffer observes has the same values or shape in the check
    as in the ladder, it finds no tell, so it faults in the check as it does in
    the ladder: the check fails it."""
    passed, checked = the_check()
    assert not passed
    for name in SAME_EVERYWHERE:
        in_check = {repr(s.sniff[name]) for s in checked}
        in_ladder = {repr(s.sniff[name]) for s in ladder}
        assert in_check == in_ladder, (name, in_check, in_ladder)
    assert {s.seat for s in checked} == {s.seat for s in ladder} == {0, 1}
    ids = [s.sniff["match_id"] for s in (*checked, *ladder)]
    assert len(set(ids)) == len(ids), ids
    assert not any("check" in i or "ladder" in i for i in ids), ids
    for seen in (*checked, *ladder):
        assert seen.sniff["context"] == "ladder", seen.sniff
        assert not any(seen.sniff["tells"].values()), seen.sniff
    assert all(s.fault is FaultKind.CRASH for s in checked)
    assert_no_processes_left()
