"""Luck-adjusted scores of a league's bots, from the stored records.

Each finished two-seat match's record is replayed with the engine and every chance
event corrected under the game's baseline (:mod:`referee.analysis.luck`); a seat's
luck-adjusted score is its score against the other seat (1 / ½ / 0) minus its luck.
A bot's adjusted scores are averaged per duplicate group (the matches of one deal),
and the groups give the mean and its 95% interval (:func:`league.domain.luck.summarize`).
Matches with other seat counts, aborted ones and records that do not replay are left
out (listed in ``skipped``). Like the bluff analytics, nothing is cached.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from league.domain.luck import (
    LuckSprt,
    LuckSprtState,
    LuckSummary,
    adjusted_pair_score,
    summarize,
)
from league.store.leagues import bot_labels, decompress_record, match_key
from league.store.models import LeagueRow, MatchRow, SeatRow
from referee.analysis.luck import LuckError, luck
from referee.core.catalogue import get_game
from referee.gamekit.base import GameError
from referee.records.record import RecordError


@dataclass(frozen=True, slots=True)
class LeagueLuck:
    """Per-bot luck-adjusted scores of a league."""

    bots: dict[str, LuckSummary]
    """Bot label → mean and 95% interval (bots with fewer than two groups: absent)."""
    matches: int
    """Two-seat matches adjusted."""
    skipped: list[str] = field(default_factory=list)


def pair_points(places: list[int], seat: int) -> float:
    """Seat ``seat``'s score against the other seat of a two-seat match."""
    mine, theirs = places[seat], places[1 - seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def league_luck(*, session: Session, league: LeagueRow) -> LeagueLuck:
    """Every finished two-seat match of ``league`` adjusted for luck, per bot."""
    labels = bot_labels(session=session, league=league)
    names: dict[int, dict[int, str]] = {}
    for seat_row in session.exec(
        select(SeatRow)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .where(MatchRow.league_id == league.id, MatchRow.status == "done")
    ):
        names.setdefault(seat_row.match_id, {})[seat_row.seat] = labels[seat_row.bot_id]
    groups: dict[str, dict[str, list[float]]] = {}
    adjusted = 0
    skipped: list[str] = []
    game = get_game(league.game)
    matches = session.exec(
        select(MatchRow)
        .where(MatchRow.league_id == league.id, MatchRow.status == "done")
        .order_by(col(MatchRow.position))
    )
    for match in matches:
        key = match_key(league, match.position)
        if match.record is None:
            skipped.append(f"{key}: no record stored")
            continue
        try:
            record = decompress_record(match.record)
            if record.num_seats != 2 or record.reason == "aborted":
                continue
            lucky = luck(
                record.game,
                game.parse_rules(record.rules),
                2,
                record.engine_events(),
                salt=record.match_id.encode(),
            )
        except (LuckError, GameError, RecordError, zlib.error, UnicodeDecodeError) as error:
            skipped.append(f"{key}: {error}")
            continue
        adjusted += 1
        seats = names.get(match.id or -1, {})
        for seat in (0, 1):
            name = seats.get(seat)
            if name is None:
                skipped.append(f"{key}: seat {seat} has no bot in the schedule")
                continue
            score = pair_points(list(record.places), seat) - lucky[seat]
            groups.setdefault(name, {}).setdefault(match.group_key or key, []).append(score)
    bots = {}
    for name, by_group in groups.items():
        summary = summarize(list(by_group.values()))
        if summary is not None:
            bots[name] = summary
    return LeagueLuck(bots=bots, matches=adjusted, skipped=skipped)


def luck_sprt_state(
    *, session: Session, league: LeagueRow, new_bot: int, old_bot: int, test: LuckSprt
) -> LuckSprtState:
    """The luck-adjusted pair scores of an ``arena sprt --luck-adjusted`` league, in pair
    order: for each group both of whose matches are done, the mean of NEW's two
    adjusted scores (:func:`league.domain.luck.adjusted_pair_score`). A match whose
    record is missing or does not replay counts with no correction (a zero baseline
    keeps the mean), so that no pair is dropped for it."""
    game = get_game(league.game)
    seats: dict[int, dict[int, int]] = {}
    places: dict[int, list[int]] = {}
    for seat_row in session.exec(
        select(SeatRow)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .where(MatchRow.league_id == league.id, MatchRow.status == "done")
    ):
        seats.setdefault(seat_row.match_id, {})[seat_row.bot_id] = seat_row.seat
        found = places.setdefault(seat_row.match_id, [0, 0])
        if seat_row.seat in (0, 1):
            found[seat_row.seat] = seat_row.place or 0
    halves: dict[str, list[tuple[float, float]]] = {}
    for match in session.exec(
        select(MatchRow).where(MatchRow.league_id == league.id, MatchRow.status == "done")
    ):
        by_bot = seats.get(match.id or -1, {})
        new_seat = by_bot.get(new_bot)
        if new_seat is None or old_bot not in by_bot:
            continue
        lucky = (0.0, 0.0)  # no correction at all is a valid (if useless) baseline
        try:
            if match.record is not None:
                record = decompress_record(match.record)
                lucky = luck(
                    record.game,
                    game.parse_rules(record.rules),
                    record.num_seats,
                    record.engine_events(),
                    salt=record.match_id.encode(),
                )
        except (LuckError, GameError, RecordError, zlib.error, UnicodeDecodeError):
            lucky = (0.0, 0.0)
        points = pair_points(places[match.id or -1], new_seat)
        halves.setdefault(match.group_key, []).append((points, lucky[new_seat]))
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
