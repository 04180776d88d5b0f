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
deletes the row of a game that was abandoned or aborted.

**Reservations cannot race** (:func:`start_human_match`):

* the league's row is locked first (an ``UPDATE`` of it: a row lock on PostgreSQL,
  the write lock on SQLite), so two games starting at the same moment — two people,
  two processes — take positions one after the other, never the same one;
* the row is held for its person (``MatchRow.holder``, ``human:NAME``, a unique
  index): one game per person at a time, whichever process reserves it; a second
  is :class:`AlreadyPlaying`, never a database error;
* the rows a reservation creates on first use (the league, the person's row) are
  made by :func:`prepare_humans`, which takes a row another process just made.

**A dead process's reservation is released at once.** The row names the process
playing it (``MatchRow.owner``: host, boot, pid and the pid's start time, as
:mod:`referee.runtime.owners` tells processes apart). Before each reservation,
:func:`drop_abandoned` deletes every ``playing`` row whose process on this host is
gone (SIGKILL, a crash, a reboot), and — for rows of another host or of an older
version, which cannot be checked from here — every one started over a day ago.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

from sqlalchemy import Engine, delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from league.domain.errors import LeagueError
from league.store.db import session_scope
from league.store.leagues import (
    LeagueSettings,
    match_deal_key,
    match_key,
    new_league_row,
    record_result,
)
from league.store.models import (
    BotRow,
    EntryRow,
    LeagueRow,
    MatchLogRow,
    MatchMixedRow,
    MatchRow,
    SeatRow,
)
from league.store.registry import AlreadyExistsError
from referee.core.catalogue import get_game
from referee.core.mixed import MixedAnswer
from referee.records.record import MatchRecord
from referee.runtime.owners import start_ticks, tag_is_alive

T = TypeVar("T")

MODE = "humans"
PLAYING = "playing"
ABANDONED_S = 24 * 3600
"""A reservation still ``playing`` this long after its game started was abandoned (no
game lasts a day: its moves are each bounded by the person's clock). The fallback for
a row whose process cannot be checked from here (another host's)."""
PREPARE_ATTEMPTS = 5
"""Times :func:`prepare_humans` looks again for rows another process made meanwhile."""


class AlreadyPlaying(LeagueError):
    """The person already has a game being played (one at a time, whatever process
    holds it)."""


@cache
def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id") as source:
            return source.read().strip()
    except OSError:
        return ""


def process_owner(pid: int | None = None) -> str:
    """The process ``pid`` (this one by default) as a reservation names its owner:
    ``HOST/BOOT/PID.START`` — the host, this boot of it, the pid and when that pid's
    process started (so a later process given the same pid is not taken for it)."""
    pid = os.getpid() if pid is None else pid
    started = start_ticks(pid)
    if started is None or not _boot_id():
        return ""  # cannot be told apart later: the row falls back to the day rule
    return f"{socket.gethostname()}/{_boot_id()}/{pid}.{started}"


def owner_gone(owner: str) -> bool:
    """Whether the process ``owner`` (:func:`process_owner`) is known to be gone: it
    ran on this host, and this host has restarted since or no process with that pid
    and start time runs. False when it cannot be told (another host's, or empty)."""
    host, boot, tag = [*owner.split("/"), "", ""][:3]
    if not host or host != socket.gethostname() or not boot or not _boot_id():
        return False
    if boot != _boot_id():
        return True
    return tag_is_alive(tag) is False or _zombie(tag.partition(".")[0])


def _zombie(pid: str) -> bool:
    """Whether ``pid`` has ended and waits to be reaped (its pid and start time are
    still listed, but it plays no game)."""
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            return stat_file.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return False


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


def check_player(player: str) -> str:
    """``player`` stripped, if it is 1-64 characters without spaces; else :class:`LeagueError`."""
    player = player.strip()
    if not player or len(player) > 64 or any(ch.isspace() for ch in player):
        raise LeagueError(f"bad player name {player[:80]!r}: use 1-64 characters without spaces")
    return player


def human_row(*, session: Session, player: str, game: str) -> BotRow:
    """The bot row of person ``player`` (created retired on first use)."""
    name = HUMAN_PREFIX + check_player(player)
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


def drop_abandoned(
    *, session: Session, league: LeagueRow | None = None, now: float | None = None
) -> int:
    """Delete the reservations (of ``league``, else of every humans league) whose game
    can no longer end: their process is gone (:func:`owner_gone`), or — when that
    cannot be told from here — they started over :data:`ABANDONED_S` ago. A game that
    ended any other way stored its result or deleted its row. Returns how many."""
    now = time.time() if now is None else now
    query = select(MatchRow).where(MatchRow.status == PLAYING)
    if league is not None:
        query = query.where(MatchRow.league_id == league.id)
    dropped = 0
    for row in list(session.exec(query)):
        started = _started_at(row.group_key)
        if owner_gone(row.owner) or (started is not None and now - started > ABANDONED_S):
            _delete_match(session, row)
            dropped += 1
    return dropped


def _delete_match(session: Session, row: MatchRow) -> None:
    """Delete a reservation and its seats (plain ``DELETE`` statements: a row another
    transaction deleted first is no error)."""
    for table in (SeatRow, MatchLogRow, MatchMixedRow):
        session.execute(delete(table).where(col(table.match_id) == row.id))
    session.execute(delete(MatchRow).where(col(MatchRow.id) == row.id))
    session.expunge(row)


def lock_league(session: Session, league: LeagueRow) -> None:
    """Hold ``league``'s row until this transaction ends: an ``UPDATE`` of it, which
    waits while another transaction holds it (a row lock on PostgreSQL; on SQLite the
    database's write lock, taken by the transaction's first write). Whatever this
    transaction reads afterwards, no concurrent reservation changes under it."""
    session.execute(update(LeagueRow).where(col(LeagueRow.id) == league.id).values(mode=MODE))


def _holder(seats: Sequence[BotRow]) -> str | None:
    people = [
        b.name for b in seats if b.version == HUMAN_VERSION and b.name.startswith(HUMAN_PREFIX)
    ]
    return people[0] if len(people) == 1 else None


def playing_match(session: Session, holder: str) -> MatchRow | None:
    """The match ``holder`` (``human:NAME``) is playing now, if any."""
    return session.exec(
        select(MatchRow).where(MatchRow.holder == holder, MatchRow.status == PLAYING)
    ).first()


def start_human_match(
    *, session: Session, league: LeagueRow, seats: Sequence[BotRow], owner: str | None = None
) -> HumanMatch:
    """Reserve the next match of ``league`` for ``seats`` (status ``playing``), held
    for its person and owned by the process ``owner`` (this one by default), and draw
    its deal key (a fresh group under the league's secret).

    The league's row is locked first (:func:`lock_league`), then the reservations
    whose game can no longer end are dropped (:func:`drop_abandoned`), and the next
    position taken: concurrent reservations cannot collide. A person already playing
    (here or in any humans league, by any process) is :class:`AlreadyPlaying`."""
    assert league.id is not None
    lock_league(session, league)
    drop_abandoned(session=session)
    holder = _holder(seats)
    if holder is not None:
        current = playing_match(session, holder)
        if current is not None:
            raise AlreadyPlaying(f"{holder} is already playing a game: finish it first")
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
        holder=holder,
        owner=process_owner() if owner is None else owner,
    )
    session.add(match)
    try:
        session.flush()
    except IntegrityError as error:
        # The position is ours (the league is locked): the holder's unique index refuses
        # it when another league's reservation for the person just landed.
        if "holder" not in str(error.orig):
            raise
        raise AlreadyPlaying(f"{holder} is already playing a game: finish it first") from None
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
    mixed: Mapping[int, Sequence[MixedAnswer]] | None = None,
) -> bool:
    """Store ``record`` (the league's Elo only) with the bots' ``logs`` and ``mixed``
    moves; with no record, or an aborted one, delete the reserved match instead.
    Returns whether a result was stored."""
    row = session.get(MatchRow, match.match_id)
    league = session.exec(select(LeagueRow).where(LeagueRow.name == match.league)).one()
    if row is None:
        return False
    if record is None or record.reason == "aborted":
        _delete_match(session, row)
        return False
    row.status, row.holder, row.owner = "pending", None, ""
    session.add(row)
    session.flush()
    record_result(
        session=session,
        league=league,
        match_id=match.match_id,
        record=record,
        logs=logs,
        mixed=mixed,
    )
    return True


def prepare_humans(
    engine: Engine, game: str, rules: Mapping[str, str], player: str
) -> tuple[LeagueRow, BotRow]:
    """The humans league of ``game`` under ``rules`` and the row of ``player``, each
    created on first use, in a transaction of their own: when another process creates
    the same row at the same moment, one insert wins and the other takes its row
    (looked up again, at most :data:`PREPARE_ATTEMPTS` times). Detached rows."""

    def make(session: Session) -> tuple[LeagueRow, BotRow]:
        league = humans_league(session=session, game=game, rules=rules)
        person = human_row(session=session, player=player, game=game)
        session.flush()
        session.expunge(league)
        session.expunge(person)
        return league, person

    return _created_once(engine, make)


def _created_once(engine: Engine, make: Callable[[Session], T]) -> T:
    for attempt in range(PREPARE_ATTEMPTS):
        try:
            with session_scope(engine) as session:
                return make(session)
        except (IntegrityError, AlreadyExistsError):  # made by another just now: take it
            if attempt == PREPARE_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")
