"""Leagues: creation (the whole schedule written at once), queries, results.

Plain functions taking a keyword-only ``session``. Writing a finished match —
its status, seats, compressed record and rating update — happens in
:func:`record_result` inside the caller's single transaction.

A match the referee aborted (its own error, e.g. a game engine bug; no seat is
at fault) is stored with status ``aborted``: its record is kept, but it has no
places, changes no rating and does not count in standings, which only read
``done`` matches. The next ``arena league run`` plays it again (like a pending
match), so once the bug is fixed the league completes.
"""

# long module: the queries of the leagues and matches tables, written in one transaction by
# record_result; rolling ladders, SPRT tests and standings are modules of their own

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from sqlmodel import Session, col, select

from league.domain.ratings import MatchResult, elo_update
from league.domain.schedules import ScheduleError, make_schedule
from league.store.match_luck import MatchLuck, keep_luck, match_luck
from league.store.mixed_moves import stored_mixed, write_mixed
from league.store.models import BotRow, EntryRow, LeagueRow, MatchLogRow, MatchRow, SeatRow, utcnow
from league.store.registry import AlreadyExistsError, LeagueError, NotFoundError, get_bot
from referee.core.catalogue import get_game
from referee.core.chance import (
    ChanceKeyError,
    commitment,
    deal_key,
    league_secret_from_seed,
    new_secret,
)
from referee.core.faults import FaultKind
from referee.core.mixed import MixedAnswer
from referee.gamekit.base import GameError
from referee.records.mixed_answers import MixedAnswersError
from referee.records.record import MatchRecord, RecordError
from referee.records.replay import verify
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig

RECORD_CAP_BYTES = 16 << 20
"""Largest compressed match record stored (16 MiB); larger ones are refused."""


@dataclass(frozen=True, slots=True)
class LeagueSettings:
    game: str
    bots: tuple[str, ...]
    rules: Mapping[str, str] = field(default_factory=dict)
    table_size: int = 2
    rounds: int = 1
    reproducible_seed: int | None = None
    """Derive the league secret from this seed instead of drawing it: anybody who
    guesses the seed knows every deal. Only for reproducing runs, never for a
    public league."""
    decision_s: float = 2.0
    startup_s: float = 15.0
    k_factor: float = 16.0
    sandbox: SandboxConfig = DEFAULT_SANDBOX


LOG_CAP_BYTES = 64 << 10
"""Most bot output kept per seat and match (the end of it); the rest is dropped."""


def new_league_row(*, session: Session, name: str, settings: LeagueSettings) -> LeagueRow:
    """The league row ``settings`` describe, validated (name free, game, rules, seats,
    time limits) and with its secret drawn; not added to the session. Shared by
    fixed leagues and rolling ladders (:mod:`league.store.rolling_ladders`)."""
    name = name.strip()
    if not name or len(name) > 100 or any(ch.isspace() for ch in name):
        raise LeagueError(f"bad league name {name!r}: use 1-100 characters without spaces")
    if session.exec(select(LeagueRow).where(LeagueRow.name == name)).first() is not None:
        raise AlreadyExistsError(f"league {name!r} already exists")
    try:
        game = get_game(settings.game)
        rules = game.parse_rules(dict(settings.rules))
        game.check_seats(rules, settings.table_size)
    except GameError as error:
        raise LeagueError(str(error)) from None
    if settings.decision_s <= 0 or settings.startup_s <= 0:
        raise LeagueError("time limits must be positive")
    if settings.reproducible_seed is None:
        secret = new_secret()
    else:
        secret = league_secret_from_seed(settings.reproducible_seed)
    return LeagueRow(
        name=name,
        game=settings.game,
        rules=json.dumps(game.format_rules(rules), sort_keys=True),
        table_size=settings.table_size,
        rounds=settings.rounds,
        seed=settings.reproducible_seed,
        secret=secret,
        commitment=commitment(secret),
        decision_s=settings.decision_s,
        startup_s=settings.startup_s,
        k_factor=settings.k_factor,
        sandbox=json.dumps(settings.sandbox.to_dict(), sort_keys=True),
    )


def create_league(*, session: Session, name: str, settings: LeagueSettings) -> LeagueRow:
    """Validate everything, then write the league, its entries and its whole schedule."""
    league = new_league_row(session=session, name=name, settings=settings)
    duplicates = sorted(n for n, c in Counter(settings.bots).items() if c > 1)
    if duplicates:
        raise LeagueError(f"bot(s) entered twice: {', '.join(duplicates)}")
    bots: list[BotRow] = []
    for bot_name in settings.bots:
        row = get_bot(session=session, name=bot_name)
        if settings.game not in row.games.split(","):
            raise LeagueError(
                f"bot {bot_name!r} does not play {settings.game} (it plays {row.games})"
            )
        bots.append(row)
    try:
        schedule = make_schedule(
            [b.name for b in bots],
            table_size=settings.table_size,
            rounds=settings.rounds,
        )
    except ScheduleError as error:
        raise LeagueError(str(error)) from None
    session.add(league)
    session.flush()
    assert league.id is not None
    by_name = {b.name: b for b in bots}
    for bot in bots:
        session.add(EntryRow(league_id=league.id, bot_id=bot.id))  # type: ignore[arg-type]
    for scheduled in schedule:
        match = MatchRow(
            league_id=league.id,
            position=scheduled.index,
            round=scheduled.round,
            table=scheduled.table,
            rotation=scheduled.rotation,
            group_key=scheduled.group,
        )
        session.add(match)
        session.flush()
        assert match.id is not None
        for seat, bot_name in enumerate(scheduled.bots):
            session.add(SeatRow(match_id=match.id, seat=seat, bot_id=by_name[bot_name].id))  # type: ignore[arg-type]
    session.flush()
    return league


def get_league(*, session: Session, name: str) -> LeagueRow:
    row = session.exec(select(LeagueRow).where(LeagueRow.name == name)).first()
    if row is None:
        known = [league.name for league in list_leagues(session=session)]
        raise NotFoundError(f"no league named {name!r} (leagues: {', '.join(known) or 'none'})")
    return row


def list_leagues(*, session: Session) -> list[LeagueRow]:
    return list(session.exec(select(LeagueRow).order_by(col(LeagueRow.created_at))))


def delete_league(*, session: Session, name: str) -> None:
    league = get_league(session=session, name=name)
    match_ids = list(session.exec(select(MatchRow.id).where(MatchRow.league_id == league.id)))
    for seat in session.exec(select(SeatRow).where(col(SeatRow.match_id).in_(match_ids))):
        session.delete(seat)
    for match in session.exec(select(MatchRow).where(MatchRow.league_id == league.id)):
        session.delete(match)
    for entry in session.exec(select(EntryRow).where(EntryRow.league_id == league.id)):
        session.delete(entry)
    session.flush()
    session.delete(league)
    session.flush()


def league_bots(*, session: Session, league: LeagueRow) -> list[tuple[EntryRow, BotRow]]:
    rows = session.exec(
        select(EntryRow, BotRow)
        .where(EntryRow.league_id == league.id)
        .join(BotRow, col(BotRow.id) == EntryRow.bot_id)
        .order_by(col(BotRow.name))
    )
    return [(entry, bot) for entry, bot in rows]


def bot_labels(*, session: Session, league: LeagueRow) -> dict[int, str]:
    """Bot id → the name ratings and tables give it: the bot's name, or
    ``name@version`` when the league holds several versions of that name (a rolling
    ladder a newer version entered), so results of different versions are never
    mixed. A version's label changes when a second version of its name enters."""
    return labels_of([bot for _, bot in league_bots(session=session, league=league)])


def labels_of(bots: list[BotRow]) -> dict[int, str]:
    """:func:`bot_labels` of the league's ``bots`` as already read."""
    counts = Counter(bot.name for bot in bots)
    return {
        bot.id: bot.name if counts[bot.name] == 1 else f"{bot.name}@{bot.version}"  # type: ignore[misc]
        for bot in bots
    }


@dataclass(frozen=True, slots=True)
class PendingMatch:
    match_id: int
    position: int
    group: str
    bots: tuple[BotRow, ...]


UNPLAYED = ("pending", "aborted")
"""Match statuses a run plays: never played, or aborted by a referee error."""


def pending_matches(*, session: Session, league: LeagueRow) -> list[PendingMatch]:
    """Scheduled matches without a result (pending or aborted), in schedule order."""
    matches = list(
        session.exec(
            select(MatchRow)
            .where(MatchRow.league_id == league.id, col(MatchRow.status).in_(UNPLAYED))
            .order_by(col(MatchRow.position))
        )
    )
    if not matches:
        return []
    ids = [m.id for m in matches]
    seats: dict[int, dict[int, BotRow]] = {}
    for seat, bot in session.exec(
        select(SeatRow, BotRow)
        .where(col(SeatRow.match_id).in_(ids))
        .join(BotRow, col(BotRow.id) == SeatRow.bot_id)
    ):
        seats.setdefault(seat.match_id, {})[seat.seat] = bot
    return [
        PendingMatch(
            match_id=m.id,  # type: ignore[arg-type]
            position=m.position,
            group=m.group_key,
            bots=tuple(seats[m.id][s] for s in sorted(seats[m.id])),  # type: ignore[index]
        )
        for m in matches
    ]


def compress_record(record: MatchRecord) -> bytes:
    data = zlib.compress(record.to_json().encode(), 6)
    if len(data) > RECORD_CAP_BYTES:
        raise LeagueError(
            f"match record of {record.match_id} is {len(data)} bytes compressed,"
            f" over the {RECORD_CAP_BYTES} byte cap"
        )
    return data


SettingsT = TypeVar("SettingsT")


def settings_from_dict(
    cls: type[SettingsT], data: Mapping[str, object], error: type[Exception], label: str
) -> SettingsT:
    """A settings dataclass stored as JSON in a league column (rolling ladders, SPRTs):
    unknown keys are dropped (settings of a newer version), a bad value is ``error``."""
    known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}  # type: ignore[attr-defined]
    try:
        return cls(**known)
    except TypeError as problem:
        raise error(f"bad {label} settings {dict(data)!r}: {problem}") from None


def stored_settings(
    league: LeagueRow,
    *,
    mode: str,
    what: str,
    parse: Callable[[Mapping[str, object]], SettingsT],
    error: type[Exception],
) -> SettingsT:
    """The settings of a league of ``mode`` (a rolling ladder, an SPRT), read from
    its JSON column; ``error`` when the league is of another mode or the JSON is bad.
    ``what`` names the mode in messages ("a rolling ladder")."""
    if league.mode != mode:
        raise error(f"league {league.name!r} is not {what} (it is {league.mode})")
    try:
        data = json.loads(league.rolling or "{}")
    except ValueError as problem:
        raise error(f"league {league.name!r} has bad settings for {what}: {problem}") from None
    return parse(data)


def decompress_record(data: bytes) -> MatchRecord:
    return MatchRecord.from_json(zlib.decompress(data).decode())


def startup_faults(*, session: Session, league: LeagueRow) -> dict[str, tuple[int, str]]:
    """Bots that failed to start, by name: how many matches, and what the first says.

    That is the fault's message (the referee's words), then the last lines the bot
    wrote before it failed (from the match's log: never in the record), which for a bot
    missing a data file say how to build it: ``league run`` and the ladder print them
    on the operator's terminal, so a ``startup`` count in the table never goes
    unexplained.
    """
    found: dict[str, tuple[int, str]] = {}
    for row in session.exec(
        select(MatchRow).where(MatchRow.league_id == league.id, MatchRow.status == "done")
    ):
        if row.record is None:
            continue
        record = decompress_record(row.record)
        names = {seat.seat: seat.bot for seat in record.seats}
        for fault in record.faults:
            if fault.kind != FaultKind.STARTUP:
                continue
            name = names[fault.seat]
            if name in found:
                found[name] = (found[name][0] + 1, found[name][1])
                continue
            output = match_log(session=session, match=row, seat=fault.seat) or b""
            tail = output.decode("utf-8", "replace").strip().splitlines()[-STARTUP_TAIL_LINES:]
            found[name] = (
                1,
                fault.message + (f"; its output ends: {' | '.join(tail)}" if tail else ""),
            )
    return found


STARTUP_TAIL_LINES = 5
"""Lines of a bot's output :func:`startup_faults` adds to a start-up fault's message."""


def league_sandbox(league: LeagueRow) -> SandboxConfig:
    """The sandbox the league's bots run in (stored at creation)."""
    try:
        return SandboxConfig.from_dict(json.loads(league.sandbox or "{}"))
    except (ValueError, TypeError) as error:
        raise LeagueError(f"league {league.name!r} has bad sandbox settings: {error}") from None


def record_result(
    *,
    session: Session,
    league: LeagueRow,
    match_id: int,
    record: MatchRecord,
    logs: Mapping[int, bytes] | None = None,
    mixed: Mapping[int, Sequence[MixedAnswer]] | None = None,
    luck: MatchLuck | None = None,
) -> None:
    """Store a finished match: status, seats, record, bot output, the seats' mixed
    moves (:mod:`league.store.mixed_moves`), each seat's luck
    (:mod:`league.store.match_luck`: ``luck``, else computed here from ``record`` and
    ``mixed``) and rating update, together.

    An ``aborted`` record is stored with status ``aborted``, no places, no faults
    and no rating change (see the module docstring).
    The caller commits; nothing here commits, so a crash leaves the match pending.
    """
    match = session.get(MatchRow, match_id)
    if match is None or match.league_id != league.id:
        raise NotFoundError(f"match {match_id} is not in league {league.name!r}")
    if match.status not in UNPLAYED:
        raise LeagueError(f"match {match_id} of league {league.name!r} already has a result")
    if record.reason == "aborted":
        _record_aborted(session=session, match=match, record=record)
        return
    seats = sorted(
        session.exec(select(SeatRow).where(SeatRow.match_id == match_id)), key=lambda s: s.seat
    )
    entries = {
        e.bot_id: e for e in session.exec(select(EntryRow).where(EntryRow.league_id == league.id))
    }
    names = bot_labels(session=session, league=league)
    result = MatchResult(
        bots=tuple(names[s.bot_id] for s in seats),
        places=record.places,
        group=match.group_key,
    )
    current = {names[s.bot_id]: entries[s.bot_id].elo for s in seats}
    updated = elo_update(current, result, k=league.k_factor)
    for seat in seats:
        fault = record.fault_of(seat.seat)
        seat.place = record.places[seat.seat]
        seat.score = record.scores[seat.seat]
        seat.fault = fault.kind.value if fault else ""
        seat.elo_after = updated[names[seat.bot_id]]
        entries[seat.bot_id].elo = updated[names[seat.bot_id]]
        session.add(seat)
        session.add(entries[seat.bot_id])
    found = luck if luck is not None else match_luck(record, mixed)
    if found is not None:
        keep_luck(seats, found)
    match.status = "done"
    match.reason = record.reason
    match.duration_ms = record.duration_ms
    match.finished_at = utcnow()
    match.record = compress_record(record)
    session.add(match)
    for seat_index, output in sorted((logs or {}).items()):
        kept = output[-LOG_CAP_BYTES:]
        session.add(
            MatchLogRow(
                match_id=match_id, seat=seat_index, size=len(kept), data=zlib.compress(kept, 6)
            )
        )
    write_mixed(session=session, match_id=match_id, game=league.game, mixed=mixed or {})
    session.flush()


def match_log(*, session: Session, match: MatchRow, seat: int) -> bytes | None:
    """What the bot in ``seat`` wrote during ``match`` (None: nothing captured)."""
    row = session.exec(
        select(MatchLogRow).where(MatchLogRow.match_id == match.id, MatchLogRow.seat == seat)
    ).first()
    return None if row is None else zlib.decompress(row.data)


def _record_aborted(*, session: Session, match: MatchRow, record: MatchRecord) -> None:
    for seat in session.exec(select(SeatRow).where(SeatRow.match_id == match.id)):
        seat.place = seat.score = seat.elo_after = None
        seat.fault = ""
        session.add(seat)
    match.status = "aborted"
    match.reason = "aborted"
    match.duration_ms = record.duration_ms
    match.finished_at = utcnow()
    match.record = compress_record(record)
    session.add(match)
    session.flush()


def finished_results(*, session: Session, league: LeagueRow) -> list[MatchResult]:
    """Every finished match as rating input, in the order they finished; bots are
    named by :func:`bot_labels`."""
    matches = list(
        session.exec(
            select(MatchRow)
            .where(MatchRow.league_id == league.id, MatchRow.status == "done")
            .order_by(col(MatchRow.finished_at), col(MatchRow.id))
        )
    )
    labels = bot_labels(session=session, league=league)
    seats: dict[int, list[tuple[int, str, int]]] = {}
    for seat in session.exec(
        select(SeatRow)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .where(MatchRow.league_id == league.id, MatchRow.status == "done")
    ):
        seats.setdefault(seat.match_id, []).append(
            (seat.seat, labels[seat.bot_id], seat.place or 0)
        )
    results = []
    for match in matches:
        ordered = sorted(seats.get(match.id or -1, []))
        results.append(
            MatchResult(
                bots=tuple(name for _, name, _ in ordered),
                places=tuple(place for _, _, place in ordered),
                group=match.group_key,
            )
        )
    return results


@dataclass(frozen=True, slots=True)
class LeagueStatus:
    total: int
    done: int
    forfeits: int
    faults: dict[str, dict[str, int]]
    """bot name → fault kind → count."""
    aborted: int = 0
    """Matches aborted by a referee error (not done; the next run plays them again)."""

    @property
    def pending(self) -> int:
        """Matches a run would play: never played, or aborted."""
        return self.total - self.done


def league_status(*, session: Session, league: LeagueRow) -> LeagueStatus:
    statuses = Counter(session.exec(select(MatchRow.status).where(MatchRow.league_id == league.id)))
    forfeits = len(
        list(
            session.exec(
                select(MatchRow.id).where(
                    MatchRow.league_id == league.id, MatchRow.reason == "forfeit"
                )
            )
        )
    )
    faults: dict[str, dict[str, int]] = {}
    for seat, bot in session.exec(
        select(SeatRow, BotRow)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .join(BotRow, col(BotRow.id) == SeatRow.bot_id)
        .where(MatchRow.league_id == league.id, SeatRow.fault != "")
    ):
        kinds = faults.setdefault(bot.name, {})
        kinds[seat.fault] = kinds.get(seat.fault, 0) + 1
    return LeagueStatus(
        total=sum(statuses.values()),
        done=statuses.get("done", 0),
        forfeits=forfeits,
        faults=faults,
        aborted=statuses.get("aborted", 0),
    )


def seat_rows(*, session: Session, league: LeagueRow) -> Sequence[tuple[SeatRow, BotRow]]:
    """Every seat of every finished match with its bot (for standings)."""
    return list(
        session.exec(
            select(SeatRow, BotRow)
            .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
            .join(BotRow, col(BotRow.id) == SeatRow.bot_id)
            .where(MatchRow.league_id == league.id, MatchRow.status == "done")
        )
    )


def match_key(league: LeagueRow, position: int) -> str:
    """The id of a league match in records and on the command line: ``LEAGUE-POSITION``."""
    return f"{league.name}-{position}"


def split_match_key(key: str) -> tuple[str, int]:
    """``LEAGUE-POSITION`` (:func:`match_key`) → (league name, position)."""
    name, sep, position = key.rpartition("-")
    if not sep or not position.isdigit():
        raise NotFoundError(f"{key!r} is not a match id (LEAGUE-POSITION) or a record file")
    return name, int(position)


def find_match(*, session: Session, key: str) -> tuple[LeagueRow, MatchRow]:
    """The match ``LEAGUE-POSITION`` (as listed by ``arena league matches``)."""
    name, position = split_match_key(key)
    league = get_league(session=session, name=name)
    match = session.exec(
        select(MatchRow).where(MatchRow.league_id == league.id, MatchRow.position == position)
    ).first()
    if match is None:
        raise NotFoundError(f"league {name!r} has no match {position}")
    return league, match


@dataclass(frozen=True, slots=True)
class MatchSummary:
    key: str
    position: int
    status: str
    reason: str
    group: str
    bots: tuple[str, ...]
    places: tuple[int | None, ...]
    faults: tuple[str, ...]
    duration_ms: float


def list_matches(
    *,
    session: Session,
    league: LeagueRow,
    bot: str | None = None,
    result: str | None = None,
    fault: str | None = None,
) -> list[MatchSummary]:
    """The league's matches in schedule order, filtered.

    ``result``: ``completed``, ``forfeit`` or ``aborted`` (how it ended), ``pending``, or — with
    ``bot`` — ``won`` (the bot placed first) or ``lost`` (it did not). ``fault``:
    some seat (the ``bot``'s, if given) committed that fault.
    """
    if result in ("won", "lost") and not bot:
        raise LeagueError(f"--result {result} needs --bot")
    if result not in (None, "completed", "forfeit", "aborted", "pending", "won", "lost"):
        raise LeagueError(
            f"unknown result {result!r} (use completed, forfeit, aborted, pending, won or lost)"
        )
    if bot is not None:
        get_bot(session=session, name=bot)
    seats: dict[int, list[tuple[int, str, int | None, str]]] = {}
    for seat, bot_row in session.exec(
        select(SeatRow, BotRow)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .join(BotRow, col(BotRow.id) == SeatRow.bot_id)
        .where(MatchRow.league_id == league.id)
    ):
        seats.setdefault(seat.match_id, []).append(
            (seat.seat, bot_row.name, seat.place, seat.fault)
        )
    found = []
    for match in session.exec(
        select(MatchRow).where(MatchRow.league_id == league.id).order_by(col(MatchRow.position))
    ):
        rows = sorted(seats.get(match.id or -1, []))
        mine = [r for r in rows if r[1] == bot] if bot else rows
        if bot and not mine:
            continue
        if result in ("completed", "forfeit", "aborted") and match.reason != result:
            continue
        if result == "pending" and match.status != "pending":
            continue
        if result == "won" and not any(r[2] == 1 for r in mine):
            continue
        if result == "lost" and (match.status != "done" or any(r[2] == 1 for r in mine)):
            continue
        if fault and not any(r[3] == fault for r in mine):
            continue
        found.append(
            MatchSummary(
                key=match_key(league, match.position),
                position=match.position,
                status=match.status,
                reason=match.reason,
                group=match.group_key,
                bots=tuple(r[1] for r in rows),
                places=tuple(r[2] for r in rows),
                faults=tuple(r[3] for r in rows),
                duration_ms=match.duration_ms,
            )
        )
    return found


# ---------------------------------------------------------------------------
# The league secret: commitment, reveal, verification


def match_deal_key(league: LeagueRow, group: str) -> bytes:
    """The chance key of duplicate group ``group``: every rotation gets the same deal."""
    return deal_key(league.secret, group)


def revealed_secret(*, session: Session, league: LeagueRow) -> bytes | None:
    """The league's secret once every match has been played, else None (still secret).

    A rolling ladder never ends — its next batch is drawn from the same secret — so
    its secret is never revealed, even when no match happens to be pending."""
    if league.mode != "fixed":  # rolling, sprt: the schedule may still grow
        return None
    status = league_status(session=session, league=league)
    if status.total == 0 or status.pending > 0:
        return None
    return league.secret


@dataclass(frozen=True, slots=True)
class LeagueVerification:
    commitment: str
    matches: int
    """Finished matches checked."""
    chance_events: int
    """Chance outcomes compared with the deal drawn from the secret."""
    problems: tuple[str, ...]
    mixed_events: int = 0
    """Actions drawn from a seat's mixed move (the record holds a commitment)."""
    mixed_checked: int = 0
    """Of those, the ones checked against the seat's kept probabilities: the
    commitment, and the draw redone from the secret."""

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_league(
    *, session: Session, league: LeagueRow, secret: bytes | None = None
) -> LeagueVerification:
    """Check a finished league against its revealed secret.

    ``secret`` (default: the stored one, which is what ``show`` reveals) must hash
    to the commitment published at creation, and every stored record must be
    intact, replay legally, and hold exactly the chance outcomes that
    ``deal_key(secret, group)`` draws. Every mixed move kept for a seat's author
    (:mod:`league.store.mixed_moves`) must match its event's commitment, and the
    action must be what the secret draws from it. Raises :class:`LeagueError` while
    matches are pending (the secret is not revealed before).
    """
    status = league_status(session=session, league=league)
    if status.pending:
        raise LeagueError(
            f"league {league.name!r} has {status.pending} pending match(es):"
            " its secret is revealed, and can be verified, only when all are played"
        )
    if secret is None:
        secret = league.secret
    try:
        published = commitment(secret)
    except ChanceKeyError as error:
        raise LeagueError(str(error)) from None
    if published != league.commitment:
        return LeagueVerification(
            league.commitment,
            0,
            0,
            (
                f"secret: its SHA-256 is {published}, not the commitment"
                f" {league.commitment} published when the league was created",
            ),
        )
    problems: list[str] = []
    checked = chance_events = mixed_events = mixed_checked = 0
    for match in session.exec(
        select(MatchRow)
        .where(MatchRow.league_id == league.id, MatchRow.status == "done")
        .order_by(col(MatchRow.position))
    ):
        key = match_key(league, match.position)
        checked += 1
        if match.record is None:
            problems.append(f"match {key}: finished but no record stored")
            continue
        try:
            record = decompress_record(match.record)
        except (RecordError, zlib.error, UnicodeDecodeError) as error:
            problems.append(f"match {key}: unreadable record: {error}")
            continue
        if record.match_id != key:
            problems.append(f"match {key}: the stored record is of match {record.match_id!r}")
            continue
        chance_events += sum(1 for event in record.events if event.seat is None)
        try:
            mixed = stored_mixed(session=session, match=match)
        except MixedAnswersError as error:
            problems.append(f"match {key}: {error}")
            continue
        mixed_events += sum(1 for event in record.events if event.mixed is not None)
        mixed_checked += sum(
            1 for event in record.events if event.mixed is not None and event.seat in mixed
        )
        found = verify(record, chance_key=deal_key(secret, match.group_key), mixed=mixed)
        problems.extend(f"match {key}: {problem}" for problem in found)
    return LeagueVerification(
        league.commitment, checked, chance_events, tuple(problems), mixed_events, mixed_checked
    )


def league_json(row: LeagueRow) -> dict[str, object]:
    """The league's public settings (never its secret: ``arena league show`` adds it
    with ``--secret``); what the CLI's ``--json`` and the server's API both print."""
    return {
        "name": row.name,
        "game": row.game,
        "rules": json.loads(row.rules),
        "table_size": row.table_size,
        "rounds": row.rounds,
        "reproducible_seed": row.seed,
        "commitment": row.commitment,
        "time_limit": row.decision_s,
        "startup_timeout": row.startup_s,
        "k_factor": row.k_factor,
        "sandbox": league_sandbox(row).to_dict(),
        "mode": row.mode,
        "created_at": row.created_at.isoformat(),
    }
