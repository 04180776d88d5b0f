"""Each match's luck, stored with its result (``match_seat.luck``, migration 0011).

The stored luck is exactly (bit for bit) :func:`referee.analysis.luck.luck` of the record
with the seats' mixed moves as the policies of the actions drawn from them, salted with
the match's id. Under a baseline that values actions, the mixed moves change it (AIVAT's
action terms): stored with them, a match's luck differs from the chance terms alone. A
match stored before migration 0011 has its luck computed on first read and stored, once;
one whose record does not read keeps today's handling (skipped in the standings, no
correction in an SPRT) without being tried again. The league runner computes it in its
writer's thread, or in a process of its own once a match's takes long
(:class:`league.execution.luck_worker.LuckWorker`): the same values.
"""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine
from sqlmodel import col, select

from league.domain.luck import LuckSprt, adjusted_pair_score
from league.execution.luck_worker import LuckWorker
from league.store.db import MIGRATIONS, make_engine, open_database, session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    get_league,
    match_deal_key,
    match_key,
    record_result,
)
from league.store.luck_standings import finished_luck, league_luck, luck_sprt_state, pair_points
from league.store.match_luck import match_luck
from league.store.models import MatchRow, SeatRow
from league.store.registry import add_bot
from referee.analysis.luck import luck
from referee.core.catalogue import get_game
from referee.core.events import ActionEvent, Event
from referee.core.mixed import MixedAnswer
from referee.games.liars_dice import baseline as liars_dice_baseline
from referee.games.liars_dice.engine import Bid, SumBid
from referee.records.record import MatchRecord
from tests.mixed_records import mixed_record

RULES = {"dice_per_player": "2"}  # mixed_record's


class ActionValued(liars_dice_baseline.LiarsDiceRoundBaseline):
    """Liar's Dice's own baseline, and a value after every action that depends on the
    action (a bid's size for the seat that made it): AIVAT's action terms are not zero."""

    def after_action(self, state: Any, actor: int, action: Any, seat: int) -> float | None:
        if isinstance(action, Bid):
            size = 0.03 * action.quantity + 0.01 * action.face
        elif isinstance(action, SumBid):
            size = 0.01 * action.total
        else:  # a challenge
            size = 0.2
        return 0.5 + (size if seat == actor else -size)


@pytest.fixture
def action_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    fitted = liars_dice_baseline.BASELINE.fitted()
    monkeypatch.setattr(liars_dice_baseline, "BASELINE", ActionValued(fitted))


def with_policies(record: MatchRecord, mixed: dict[int, list[MixedAnswer]]) -> list[Event]:
    """The record's events, each action whose turn has an answer of its seat carrying
    that answer's probabilities (written here apart from the store's own code)."""
    answers = {(seat, a.turn): a.distribution for seat, listed in mixed.items() for a in listed}
    events: list[Event] = []
    for recorded, event in zip(record.events, record.engine_events(), strict=True):
        policy = answers.get((recorded.seat or 0, recorded.turn or 0))
        if isinstance(event, ActionEvent) and policy is not None:
            event = ActionEvent(event.seat, event.action, policy=policy)
        events.append(event)
    return events


def expected_luck(
    record: MatchRecord, mixed: dict[int, list[MixedAnswer]] | None
) -> tuple[float, float]:
    events = with_policies(record, mixed) if mixed else record.engine_events()
    rules = get_game(record.game).parse_rules(record.rules)
    return luck(record.game, rules, 2, events, salt=record.match_id.encode())


Played = tuple[MatchRecord, dict[int, list[MixedAnswer]]]


def store_league(
    engine: Engine,
    name: str = "lucky",
    *,
    with_mixed: bool = True,
    rounds: int = 2,
    records: list[Played] | None = None,
) -> dict[int, Played]:
    """A finished two-bot league of honest mixed-move records (each match's stored
    with its seats' mixed moves, or without them; ``records``: these, in schedule
    order, instead of the league's own deals): match row id → record and moves."""
    stored = {}
    with session_scope(engine) as session:
        for bot in ("ra", "rb"):
            add_bot(session=session, name=f"{name}-{bot}", command="true", games=["liars_dice"])
        league = create_league(
            session=session,
            name=name,
            settings=LeagueSettings(
                "liars_dice", (f"{name}-ra", f"{name}-rb"), rules=RULES, rounds=rounds
            ),
        )
        rows = session.exec(
            select(MatchRow).where(MatchRow.league_id == league.id).order_by(col(MatchRow.position))
        ).all()
        for row in rows:
            assert row.id is not None
            key = match_key(league, row.position)
            record, answers = (
                records[row.position]
                if records is not None
                else mixed_record(
                    match_deal_key(league, row.group_key), match_id=key, seed=row.position
                )
            )
            record_result(
                session=session,
                league=league,
                match_id=row.id,
                record=record,
                mixed=answers if with_mixed else None,
            )
            stored[row.id] = (record, answers)
    return stored


def stored_luck(engine: Engine) -> dict[int, tuple[float | None, float | None]]:
    with session_scope(engine) as session:
        seats = session.exec(select(SeatRow)).all()
    found: dict[int, list[float | None]] = {}
    for seat in seats:
        found.setdefault(seat.match_id, [None, None])[seat.seat] = seat.luck
    return {match: (values[0], values[1]) for match, values in found.items()}


def test_the_stored_luck_is_the_luck_of_the_record_and_its_mixed_moves(
    engine: Engine, action_terms: None
) -> None:
    played = store_league(engine)
    stored = stored_luck(engine)
    assert set(stored) == set(played)
    for match_id, (record, answers) in played.items():
        assert stored[match_id] == expected_luck(record, answers)  # bit for bit
        assert stored[match_id] != expected_luck(record, None)  # the action terms count


def test_without_the_mixed_moves_a_match_gets_chance_terms_only(
    engine: Engine, action_terms: None
) -> None:
    """The same records stored in a second league without their seats' mixed moves: the
    luck is the chance terms' alone, which the action terms change."""
    with_moves = store_league(engine, "with")
    records = [with_moves[match_id] for match_id in sorted(with_moves)]
    without = store_league(engine, "without", with_mixed=False, records=records)
    stored = stored_luck(engine)
    for (with_id, (record, _)), without_id in zip(
        sorted(with_moves.items()), sorted(without), strict=True
    ):
        assert without[without_id][0] is record
        assert stored[without_id] == expected_luck(record, None)
        assert stored[without_id] != stored[with_id]


def test_with_the_games_own_baseline_the_mixed_moves_change_nothing(engine: Engine) -> None:
    """No built-in baseline values actions yet: with or without the moves, the same."""
    played = store_league(engine)
    for match_id, luck_found in stored_luck(engine).items():
        record, _ = played[match_id]
        assert luck_found == expected_luck(record, None)


def old_database(db_url: str, *, rounds: int = 2) -> dict[int, Played]:
    """A finished league written at head, then taken back to migration 0010 (no luck
    stored); the next open brings it to head with every seat's luck NULL."""
    engine = make_engine(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    played = store_league(engine, "old", rounds=rounds)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0010")
    engine.dispose()
    return played


def test_a_match_stored_before_is_computed_on_first_read_and_stored_once(
    db_url: str, action_terms: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    played = old_database(db_url)
    engine = open_database(db_url)
    try:
        assert set(stored_luck(engine).values()) == {(None, None)}
        with session_scope(engine) as session:
            first = league_luck(session=session, league=get_league(session=session, name="old"))
        assert first.computed == len(played) == first.matches and first.skipped == []
        stored = stored_luck(engine)
        for match_id, (record, answers) in played.items():  # with the kept mixed moves
            assert stored[match_id] == expected_luck(record, answers)

        def no_second_time(*args: object) -> None:
            raise AssertionError("a stored luck computed again")

        monkeypatch.setattr("league.store.luck_standings.match_luck", no_second_time)
        with session_scope(engine) as session:
            again = league_luck(session=session, league=get_league(session=session, name="old"))
        assert again.computed == 0 and again.bots == first.bots
    finally:
        engine.dispose()


def test_a_record_that_does_not_read_is_skipped_once_and_no_correction_in_an_sprt(
    db_url: str,
) -> None:
    played = old_database(db_url, rounds=1)
    engine = open_database(db_url)
    try:
        broken = min(played)
        with session_scope(engine) as session:
            row = session.get(MatchRow, broken)
            assert row is not None
            row.record = b"not zlib"
            session.add(row)
        for computed in (len(played), 0):
            with session_scope(engine) as session:
                league = get_league(session=session, name="old")
                found = league_luck(session=session, league=league)
                rows = finished_luck(session=session, league=league)
            assert found.computed == computed
            assert found.matches == len(played) - 1
            assert len(found.skipped) == 1 and "the record does not read" in found.skipped[0]
        assert [r.luck for r in rows if r.match_id == broken] == [None]
        # an SPRT counts it with no correction: its pair score is the raw one
        with session_scope(engine) as session:
            league = get_league(session=session, name="old")
            seat0 = {r.match_id: r.bots[0] for r in rows}[broken]
            seat1 = {r.match_id: r.bots[1] for r in rows}[broken]
            test = LuckSprt(elo0=0.0, elo1=50.0)
            state = luck_sprt_state(
                session=session, league=league, new_bot=seat0, old_bot=seat1, test=test
            )
        halves = [
            (
                pair_points(list(r.places), r.bots.index(seat0)),
                (r.luck or (0.0, 0.0))[r.bots.index(seat0)],
            )
            for r in rows
        ]
        assert halves[0][1] == 0.0 or halves[1][1] == 0.0
        assert test.llr(state) == test.llr(test.start().add(adjusted_pair_score(halves)))
    finally:
        engine.dispose()


def test_the_luck_worker_computes_the_same_in_its_process() -> None:
    """Forced to its process from the second match on (``slow_s=0``), the worker gives
    what the store computes itself."""
    records = [mixed_record(bytes([n]) * 32, match_id=f"w-{n}", seed=n) for n in range(3)]
    with LuckWorker(slow_s=0.0) as worker:
        found = worker.lucks(records)
        assert worker.here == 2 and worker.elsewhere == 1 and worker.failure == ""
    assert found == [match_luck(record, answers) for record, answers in records]
    assert all(f is not None and f.seats is not None for f in found)
