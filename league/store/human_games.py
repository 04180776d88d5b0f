"""Games a person plays against a bot, kept in a league of their own.

Every game's human matches go into the league ``humans-GAME`` (``humans-GAME-DIGEST``
for other rules), mode ``humans``, created on first use: its own entries and Elo,
so a human game never moves a bot's rating in any other league. Its secret is
never revealed (like a rolling ladder's, :func:`league.store.leagues.revealed_secret`):
each game's deal comes from it and a fresh random group, so nobody can know a deal
before it is played.

A person's seat is a bot row ``human:NAME`` (version ``human``), stored retired so
no schedule, ladder or bot list ever takes it. A bot given as a command rather than
a registered name is stored likewise (retired; ``arena bot add`` of the same
version makes it active).

A match row is written, status ``playing``, when the game starts (it reserves the
match key the record carries); :func:`finish_human_match` stores the result, or
deletes the row of a game that was abandoned or aborted; a row whose process died
without a word is dropped a day later (:func:`drop_abandoned`).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, func, select

from league.domain.errors import LeagueError
from league.store.leagues import (
    LeagueSettings,
    match_deal_key,
    match_key,
    new_league_row,
    record_result,
)
from league.store.models import BotRow, EntryRow, LeagueRow, MatchLogRow, MatchRow, SeatRow
from referee.core.catalogue import get_game
from referee.records.record import MatchRecord

MODE = "humans"
PLAYING = "playing"
ABANDONED_S = 24 * 3600
"""A reservation still ``playing`` this long after its game started was abandoned (no
game lasts a day: its moves are each bounded by the person's clock)."""
HUMAN_VERSION = "human"
HUMAN_PREFIX = "human:"


def humans_league_name(game: str, rules: Mapping[str, str]) -> str:
    """``humans-GAME``, or ``humans-GAME-DIGEST`` when ``rules`` are not the defaults."""
    engine = get_game(game)
    formatted = engine.format_rules(engine.parse_rules(dict(rules)))
    if formatted == engine.format_rules(engine.default_rules()):
        return f"humans-{game}"
    digest = hashlib.sha256(json.dumps(formatted, sort_keys=True).encode()).hexdigest()
    return f"humans-{game}-{digest[:8]}"


def humans_league(*, session: Session, game: str, rules: Mapping[str, str]) -> LeagueRow:
    """The humans league of ``game`` under ``rules``, created on first use."""
    name = humans_league_name(game, rules)
    row = session.exec(select(LeagueRow).where(LeagueRow.name == name)).first()
    if row is not None:
        if row.mode != MODE:
            raise LeagueError(f"league {name!r} exists and is not a humans league")
        return row
    row = new_league_row(
        session=session, name=name, settings=LeagueSettings(game=game, bots=(), rules=rules)
    )
    row.mode = MODE
    session.add(row)
    session.flush()
    return row


def human_row(*, session: Session, player: str, game: str) -> BotRow:
    """The bot row of person ``player`` (created retired on first use)."""
    player = player.strip()
    if not player or len(player) > 64 or any(ch.isspace() for ch in player):
        raise LeagueError(f"bad player name {player!r}: use 1-64 characters without spaces")
    name = HUMAN_PREFIX + player
    row = session.exec(
        select(BotRow).where(BotRow.name == name, BotRow.version == HUMAN_VERSION)
    ).first()
    if row is None:
        row = BotRow(name=name, version=HUMAN_VERSION, games=game, address="human", retired=True)
    elif game not in row.games.split(","):
        row.games = ",".join([*filter(None, row.games.split(",")), game])
    session.add(row)
    session.flush()
    return row


@dataclass(frozen=True, slots=True)
class HumanMatch:
    league: str
    match_id: int
    key: str
    """The match key (``humans-liars_dice-3``): the record's match id."""
    chance_key: bytes


def _started_at(group: str) -> int | None:
    """When a reservation's game started (its group ``h-UNIXTIME-RANDOM``), if it says."""
    parts = group.split("-")
    return int(parts[1]) if len(parts) == 3 and parts[0] == "h" and parts[1].isdigit() else None


def drop_abandoned(*, session: Session, league: LeagueRow, now: float | None = None) -> int:
    """Delete reservations of ``league`` still ``playing`` after :data:`ABANDONED_S`:
    their process died without a word (SIGKILL, power cut), since a game ended any
    other way stores its result or deletes its row. Returns how many."""
    now = time.time() if now is None else now
    dropped = 0
    for row in list(
        session.exec(
            select(MatchRow).where(MatchRow.league_id == league.id, MatchRow.status == PLAYING)
        )
    ):
        started = _started_at(row.group_key)
        if started is not None and now - started > ABANDONED_S:
            _delete_match(session, row)
            dropped += 1
    return dropped


def _delete_match(session: Session, row: MatchRow) -> None:
    for table in (SeatRow, MatchLogRow):
        for item in session.exec(select(table).where(col(table.match_id) == row.id)):
            session.delete(item)
    session.delete(row)
    session.flush()


def start_human_match(
    *, session: Session, league: LeagueRow, seats: Sequence[BotRow]
) -> HumanMatch:
    """Reserve the next match of ``league`` for ``seats`` (status ``playing``) and
    draw its deal key (a fresh group under the league's secret); first drop the
    reservations of games abandoned long ago (:func:`drop_abandoned`)."""
    assert league.id is not None
    drop_abandoned(session=session, league=league)
    last = session.exec(
        select(func.max(MatchRow.position)).where(MatchRow.league_id == league.id)
    ).one()
    position = 0 if last is None else last + 1
    group = f"h-{int(time.time())}-{secrets.token_hex(8)}"
    match = MatchRow(
        league_id=league.id,
        position=position,
        round=position,
        table=0,
        rotation=0,
        group_key=group,
        status=PLAYING,
    )
    session.add(match)
    session.flush()
    assert match.id is not None
    entered = set(session.exec(select(EntryRow.bot_id).where(EntryRow.league_id == league.id)))
    for seat, bot in enumerate(seats):
        assert bot.id is not None
        session.add(SeatRow(match_id=match.id, seat=seat, bot_id=bot.id))
        if bot.id not in entered:
            session.add(EntryRow(league_id=league.id, bot_id=bot.id))
            entered.add(bot.id)
    session.flush()
    return HumanMatch(
        league.name, match.id, match_key(league, position), match_deal_key(league, group)
    )


def finish_human_match(
    *,
    session: Session,
    match: HumanMatch,
    record: MatchRecord | None,
    logs: Mapping[int, bytes] | None = None,
) -> bool:
    """Store ``record`` (the league's Elo only); with no record, or an aborted one,
    delete the reserved match instead. Returns whether a result was stored."""
    row = session.get(MatchRow, match.match_id)
    league = session.exec(select(LeagueRow).where(LeagueRow.name == match.league)).one()
    if row is None:
        return False
    if record is None or record.reason == "aborted":
        _delete_match(session, row)
        return False
    row.status = "pending"
    session.add(row)
    session.flush()
    record_result(session=session, league=league, match_id=match.match_id, record=record, logs=logs)
    return True
