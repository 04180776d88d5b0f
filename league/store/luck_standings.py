"""Luck-adjusted scores of a league's bots, from the luck stored with each result.

Each finished two-seat match's luck (both seats', :mod:`referee.analysis.luck`, action
terms included) is computed once, when its result is stored, and kept on its seat rows
(:mod:`league.store.match_luck`); a match stored before that was kept is computed here
the first time it is read, and stored (:func:`finished_luck`). A seat's luck-adjusted
score is its score against the other seat (1 / ½ / 0) minus its luck. A bot's adjusted
scores are averaged per duplicate group (the matches of one deal), and the groups give
the mean and its 95% interval (:func:`league.domain.luck.summarize`). Matches with other
seat counts and aborted ones are left out; so are those whose luck cannot be computed
(their record does not replay: listed in ``skipped``).
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import NamedTuple

from sqlalchemy import select as columns
from sqlmodel import Session, col, select

from league.domain.luck import (
    LuckSprt,
    LuckSprtState,
    LuckSummary,
    adjusted_pair_score,
    summarize,
)
from league.store.leagues import bot_labels, decompress_record, match_key
from league.store.match_luck import MatchLuck, keep_luck, match_luck
from league.store.models import LeagueRow, MatchMixedRow, MatchRow, SeatRow
from referee.core.mixed import MixedAnswer
from referee.records.mixed_answers import answers_from_json
from referee.records.record import RecordError


@dataclass(frozen=True, slots=True)
class LeagueLuck:
    """Per-bot luck-adjusted scores of a league."""

    bots: dict[str, LuckSummary]
    """Bot label → mean and 95% interval (bots with fewer than two groups: absent)."""
    matches: int
    """Two-seat matches adjusted."""
    skipped: list[str] = field(default_factory=list)
    computed: int = 0
    """Matches whose luck was not stored yet, computed (and stored) by this call."""


@dataclass(frozen=True, slots=True)
class FinishedLuck:
    """A finished two-seat match as the luck readers need it (no record read)."""

    match_id: int
    position: int
    group: str
    bots: tuple[int, int]
    """The bot (version) id in seat 0 and in seat 1."""
    places: tuple[int, int]
    luck: tuple[float, float] | None
    """Seat 0's and seat 1's luck; None: not computable (:attr:`error`)."""
    error: str
    computed: bool = False
    """Computed by this read (a match stored before luck was kept with results)."""


def pair_points(places: list[int], seat: int) -> float:
    """Seat ``seat``'s score against the other seat of a two-seat match."""
    mine, theirs = places[seat], places[1 - seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def finished_luck(*, session: Session, league: LeagueRow) -> list[FinishedLuck]:
    """Every finished two-seat match of ``league`` with its stored luck, in schedule
    order (one query of plain columns: ``arena sprt --luck-adjusted`` reads it after
    every pair). A match stored without it (before migration 0011) has it computed now,
    from its record and the seats' kept mixed moves, and stored on its seat rows (the
    caller commits), so it is computed once."""
    found: dict[int, list[_Seat]] = {}
    session.flush()  # what follows reads the connection's rows, not the session's objects
    for row in session.connection().execute(
        columns(  # more columns than sqlmodel's select() and exec() type
            col(SeatRow.match_id),
            col(SeatRow.seat),
            col(SeatRow.bot_id),
            col(SeatRow.place),
            col(SeatRow.luck),
            col(SeatRow.luck_error),
            col(MatchRow.position),
            col(MatchRow.group_key),
        )
        .join(MatchRow, col(MatchRow.id) == col(SeatRow.match_id))
        .where(col(MatchRow.league_id) == league.id, col(MatchRow.status) == "done")
    ):
        found.setdefault(row[0], []).append(_Seat(*row[1:]))
    out = []
    for match_id, seats in sorted(found.items(), key=lambda m: m[1][0].position):
        seats.sort(key=lambda s: s.seat)
        if [s.seat for s in seats] != [0, 1]:
            continue  # another seat count: no luck
        first, second = seats
        lucky = None if first.luck is None or second.luck is None else (first.luck, second.luck)
        error = first.error or second.error
        computed = lucky is None and not error
        if computed:
            stored = _stored_match_luck(session, league, match_id)
            rows = session.exec(select(SeatRow).where(SeatRow.match_id == match_id)).all()
            keep_luck(rows, stored)
            session.add_all(rows)
            lucky, error = stored.seats, rows[0].luck_error
        out.append(
            FinishedLuck(
                match_id=match_id,
                position=first.position,
                group=first.group,
                bots=(first.bot, second.bot),
                places=(first.place or 0, second.place or 0),
                luck=lucky,
                error=error,
                computed=computed,
            )
        )
    session.flush()
    return out


class _Seat(NamedTuple):
    seat: int
    bot: int
    place: int | None
    luck: float | None
    error: str
    position: int
    group: str


def _stored_match_luck(session: Session, league: LeagueRow, match_id: int) -> MatchLuck:
    """The luck of a stored match, from its record and the seats' kept mixed moves (a
    seat's unreadable moves: none, so chance terms only for it)."""
    data = session.exec(select(MatchRow.record).where(MatchRow.id == match_id)).one()
    if data is None:
        return MatchLuck(None, "no record stored")
    try:
        record = decompress_record(data)
    except (RecordError, zlib.error, UnicodeDecodeError) as error:
        return MatchLuck(None, f"the record does not read: {error}")
    mixed: dict[int, list[MixedAnswer]] = {}
    for row in session.exec(select(MatchMixedRow).where(MatchMixedRow.match_id == match_id)):
        try:
            mixed[row.seat] = answers_from_json(league.game, json.loads(zlib.decompress(row.data)))
        except (zlib.error, UnicodeDecodeError, ValueError):  # MixedAnswersError too
            continue
    return match_luck(record, mixed) or MatchLuck(None, "not a finished two-seat match")


def league_luck(*, session: Session, league: LeagueRow) -> LeagueLuck:
    """Every finished two-seat match of ``league`` adjusted for luck, per bot."""
    labels = bot_labels(session=session, league=league)
    groups: dict[str, dict[str, list[float]]] = {}
    adjusted = computed = 0
    skipped: list[str] = []
    for match in finished_luck(session=session, league=league):
        computed += match.computed
        key = match_key(league, match.position)
        if match.luck is None:
            skipped.append(f"{key}: {match.error}")
            continue
        adjusted += 1
        for seat in (0, 1):
            name = labels.get(match.bots[seat])
            if name is None:
                skipped.append(f"{key}: seat {seat} has no bot in the schedule")
                continue
            score = pair_points(list(match.places), seat) - match.luck[seat]
            groups.setdefault(name, {}).setdefault(match.group or key, []).append(score)
    bots = {}
    for name, by_group in groups.items():
        summary = summarize(list(by_group.values()))
        if summary is not None:
            bots[name] = summary
    return LeagueLuck(bots=bots, matches=adjusted, skipped=skipped, computed=computed)


def luck_sprt_state(
    *, session: Session, league: LeagueRow, new_bot: int, old_bot: int, test: LuckSprt
) -> LuckSprtState:
    """The luck-adjusted pair scores of an ``arena sprt --luck-adjusted`` league, in pair
    order: for each group both of whose matches are done, the mean of NEW's two
    adjusted scores (:func:`league.domain.luck.adjusted_pair_score`), from the luck
    stored with each result. A match whose luck cannot be computed (its record is
    missing or does not replay) counts with no correction (a zero baseline keeps the
    mean), so that no pair is dropped for it."""
    halves: dict[str, list[tuple[float, float]]] = {}
    for match in finished_luck(session=session, league=league):
        if new_bot not in match.bots or old_bot not in match.bots:
            continue
        new_seat = match.bots.index(new_bot)
        lucky = match.luck or (0.0, 0.0)  # no correction at all is a valid (if useless) baseline
        points = pair_points(list(match.places), new_seat)
        halves.setdefault(match.group, []).append((points, lucky[new_seat]))
    state = test.start()
    for group in sorted(halves, key=lambda g: (len(g), g)):
        if len(halves[group]) == 2:
            state = state.add(adjusted_pair_score(halves[group]))
    return state


def luck_verdict(
    *,
    session: Session,
    league: LeagueRow,
    new_bot: int,
    old_bot: int,
    test: LuckSprt,
) -> tuple[float, float, float, str]:
    """LLR, lower bound, upper bound and decision of ``arena sprt --luck-adjusted``."""
    state = luck_sprt_state(
        session=session, league=league, new_bot=new_bot, old_bot=old_bot, test=test
    )
    return test.llr(state), test.lower, test.upper, test.decision(state)
