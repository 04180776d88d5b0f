"""Bluff analytics of a league: every finished match's record judged, summed per bot.

The numbers come from the stored records alone (:mod:`referee.records.analytics` replays
each one with the engine), over the same matches the standings count: status
``done``, completed or forfeited (a forfeit counts the decisions made before the
fault). Aborted matches are skipped: nobody is rated for them and the next run
plays them again. Bots are keyed like the standings (:func:`league.store.leagues.bot_labels`).

Nothing is cached: judging a record costs 1-2 ms of CPU per match (see
``docs/bots.md``, "Bluff analytics"), so the standings of a league of a few
hundred matches judge every record again in well under a second, and there is
no second copy of the truth to keep in step with the records.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from league.store.leagues import bot_labels, decompress_record, match_key
from league.store.models import LeagueRow, MatchRow, SeatRow
from referee.records.analytics import AnalyticsError, BluffStats, claim_rules
from referee.records.analytics import analyse_record as analyse_one
from referee.records.record import RecordError


@dataclass(frozen=True, slots=True)
class LeagueBluff:
    """Per-bot totals of a league's claims and challenges."""

    bots: dict[str, BluffStats]
    """Bot name → summed counts (every bot of a finished match has an entry)."""
    matches: int
    """Matches judged."""
    skipped: list[str] = field(default_factory=list)
    """``LEAGUE-POSITION: why`` for each finished match whose record could not be
    judged (missing, unreadable, or refused by the engine)."""


def league_bluff(*, session: Session, league: LeagueRow) -> LeagueBluff | None:
    """The league's bluff analytics; ``None`` for a game without claims (Dice Poker)."""
    if claim_rules(league.game) is None:
        return None
    labels = bot_labels(session=session, league=league)
    names: dict[int, dict[int, str]] = {}
    for seat_row in session.exec(
        select(SeatRow)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .where(MatchRow.league_id == league.id, MatchRow.status == "done")
    ):
        names.setdefault(seat_row.match_id, {})[seat_row.seat] = labels[seat_row.bot_id]
    totals: dict[str, BluffStats] = {}
    judged = 0
    skipped: list[str] = []
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
            per_seat = analyse_one(decompress_record(match.record))
        except (AnalyticsError, RecordError, zlib.error, UnicodeDecodeError) as error:
            skipped.append(f"{key}: {error}")
            continue
        if per_seat is None:  # pragma: no cover - the league's game has claims
            continue
        judged += 1
        seats = names.get(match.id or -1, {})
        for seat, stats in enumerate(per_seat):
            name = seats.get(seat)
            if name is None:
                skipped.append(f"{key}: seat {seat} has no bot in the schedule")
                continue
            totals[name] = totals.get(name, BluffStats()) + stats
    return LeagueBluff(bots=totals, matches=judged, skipped=skipped)
