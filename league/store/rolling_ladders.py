"""Rolling ladders: a league that never ends (``docs/rolling.md``).

A rolling ladder is a :class:`~league.store.models.LeagueRow` with ``mode = "rolling"``
and its settings (:class:`RollingSettings`) stored as JSON. Bots enter it one
version at a time (:func:`enter_bot`); a new version of a name retires the older
ones, which get no new matches but keep their results.

Its schedule is written in batches (:func:`extend_schedule`): when the runner has
nothing left to play, the next ``batch_groups`` duplicate groups are chosen
(:func:`league.domain.pairing.choose_tables`: the neighbouring pair whose order is
least known, pairs known to be ordered or tied left alone, every entry keeping a
minimum share) and written as pending match rows, every seat rotation of a table sharing
the deal of its group, exactly as in a fixed league. The league run
(:class:`league.execution.league_run.LeagueRun`) plays them, so a rolling ladder has the same
transactional writes, resuming, sandbox, warm pool and Ctrl-C as a fixed league;
:func:`league.execution.rolling_runs.run_rolling` only adds the batches, a rate limit and a
stop event. This module is the ladder's stored side: settings, entries, the schedule.

Resuming needs nothing of its own: a batch is written (in one transaction) before
any of its matches starts, so a restarted run first plays whatever is pending and
only then asks for a new batch, which is chosen from the database alone.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from itertools import combinations

from sqlalchemy import func
from sqlmodel import Session, col, select

from league.domain.bradley_terry import fit_with_differences
from league.domain.pairing import (
    MIN_SHARE,
    SHARE_WINDOW,
    TIE_ZONE,
    LadderEntry,
    Pair,
    adjacent,
    choose_tables,
    difference_sd,
    settled,
    tied,
)
from league.domain.ratings import EXACT_Z95, PRIOR_DRAWS
from league.store.leagues import (
    LeagueSettings,
    PendingMatch,
    bot_labels,
    finished_results,
    labels_of,
    league_bots,
    list_leagues,
    new_league_row,
    settings_from_dict,
    stored_settings,
)
from league.store.models import BotRow, EntryRow, LeagueRow, MatchRow, SeatRow
from league.store.registry import AlreadyExistsError, LeagueError
from league.store.suspension import SUSPEND_AFTER, review
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig

_NO_GAMES_SD = 400.0 / math.log(10.0) / math.sqrt(PRIOR_DRAWS / 4.0)
"""The posterior standard deviation (Elo) of an entry without results: the prior's
virtual draws alone (``PRIOR_DRAWS · ¼`` of Fisher information), about ±480 Elo at 95%."""


class RollingError(LeagueError):
    """A rolling ladder operation with bad input (the message names it)."""


@dataclass(frozen=True, slots=True)
class RollingSettings:
    """What the operator sets for a rolling ladder."""

    matches_per_minute: float = 60.0
    """At most this many matches start per minute (evenly spaced)."""
    concurrency: int = 2
    """Matches played at a time."""
    batch_groups: int = 4
    """Duplicate groups (tables, each played in every seat rotation) per new batch:
    smaller batches follow the ratings more closely, larger ones cost fewer fits."""
    placement_matches: int = 4
    """Matches a new entry is scheduled for before anybody else gets a table."""
    suspend_after: int = SUSPEND_AFTER
    """A version that faulted in each of its first this many matches is suspended
    and scheduled no more (:mod:`league.store.suspension`); 0: never."""
    min_share: float = MIN_SHARE
    """Every active entry sits in at least this fraction of the last matches
    (:func:`league.domain.pairing.choose_tables`); 0: no minimum."""
    tie_zone: float = TIE_ZONE
    """Indifference zone (Elo): a pair whose difference is known at 95% to lie within
    ±this is tied and settled (:func:`league.domain.pairing.tied`); 0: no ties."""

    def __post_init__(self) -> None:
        if not (self.matches_per_minute > 0 and math.isfinite(self.matches_per_minute)):
            raise RollingError(
                f"matches_per_minute must be a positive number, got {self.matches_per_minute}"
            )
        for name in ("concurrency", "batch_groups"):
            if getattr(self, name) < 1:
                raise RollingError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.suspend_after < 0:
            raise RollingError(f"suspend_after must not be negative, got {self.suspend_after}")
        if not 0.0 <= self.min_share <= 1.0:
            raise RollingError(f"min_share must be between 0 and 1, got {self.min_share}")
        if not (self.tie_zone >= 0 and math.isfinite(self.tie_zone)):
            raise RollingError(f"tie_zone must be a finite number >= 0, got {self.tie_zone}")
        if self.placement_matches < 0:
            raise RollingError(
                f"placement_matches must not be negative, got {self.placement_matches}"
            )

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> RollingSettings:
        return settings_from_dict(cls, data, RollingError, "rolling")


# ------------------------------------------------------------------- the ladder rows


def is_rolling(league: LeagueRow) -> bool:
    return league.mode == "rolling"


def rolling_settings(league: LeagueRow) -> RollingSettings:
    return stored_settings(
        league,
        mode="rolling",
        what="a rolling ladder",
        parse=RollingSettings.from_dict,
        error=RollingError,
    )


def set_rolling_settings(*, session: Session, league: LeagueRow, settings: RollingSettings) -> None:
    """Change a ladder's settings; a running :func:`run_rolling` applies the rate and
    batch size from its next batch on, the concurrency when it is started again."""
    rolling_settings(league)
    league.rolling = json.dumps(settings.to_dict(), sort_keys=True)
    session.add(league)
    session.flush()


def create_rolling_league(
    *,
    session: Session,
    name: str,
    game: str,
    rules: dict[str, str] | None = None,
    settings: RollingSettings = RollingSettings(),
    decision_s: float = 2.0,
    startup_s: float = 15.0,
    sandbox: SandboxConfig | None = None,
    table_size: int = 2,
    k_factor: float = 16.0,
    reproducible_seed: int | None = None,
) -> LeagueRow:
    """Write an empty rolling ladder (no entries, no matches yet)."""
    league = new_league_row(
        session=session,
        name=name,
        settings=LeagueSettings(
            game=game,
            bots=(),
            rules=dict(rules or {}),
            table_size=table_size,
            reproducible_seed=reproducible_seed,
            decision_s=decision_s,
            startup_s=startup_s,
            k_factor=k_factor,
            sandbox=sandbox if sandbox is not None else DEFAULT_SANDBOX,
        ),
    )
    league.mode = "rolling"
    league.rounds = 0
    league.rolling = json.dumps(settings.to_dict(), sort_keys=True)
    session.add(league)
    session.flush()
    return league


def rolling_leagues(*, session: Session) -> list[LeagueRow]:
    """Every rolling ladder, oldest first (a server runs each of them)."""
    return [league for league in list_leagues(session=session) if is_rolling(league)]


def enter_bot(*, session: Session, league: LeagueRow, bot: BotRow) -> list[BotRow]:
    """Enter ``bot`` (one version) in the ladder; returns the older versions of its
    name it retired.

    Retired versions get no new matches; matches already scheduled for them are
    still played (one may be running right now), and their results stay and count
    in everybody's ratings. Entering a version that is (or was) in the ladder is an
    error.
    """
    rolling_settings(league)
    if bot.retired:
        raise RollingError(f"bot {bot.name!r} version {bot.version} was removed from the registry")
    if league.game not in bot.games.split(","):
        raise RollingError(f"bot {bot.name!r} does not play {league.game} (it plays {bot.games})")
    retired: list[BotRow] = []
    for entry, other in league_bots(session=session, league=league):
        if other.id == bot.id:
            state = "a retired version" if entry.retired else "already"
            raise AlreadyExistsError(
                f"bot {bot.name!r} version {bot.version} is {state} in ladder {league.name!r}"
            )
        if other.name == bot.name and not entry.retired:
            entry.retired = True
            session.add(entry)
            retired.append(other)
    assert league.id is not None and bot.id is not None
    session.add(EntryRow(league_id=league.id, bot_id=bot.id))
    session.flush()
    return retired


def leave_ladders(*, session: Session, name: str) -> list[str]:
    """Retire every version of bot ``name`` from the rolling ladders it is entered in
    (``arena bot remove``); returns those ladders' names.

    As for a version replaced by :func:`enter_bot`: no new matches, its finished
    matches stay and count in everybody's ratings, and matches already scheduled
    for it (one batch at most) are still played.
    """
    left: list[str] = []
    for league in rolling_leagues(session=session):
        for entry, bot in league_bots(session=session, league=league):
            if bot.name == name and not entry.retired:
                entry.retired = True
                session.add(entry)
                if league.name not in left:
                    left.append(league.name)
    session.flush()
    return left


def active_entries(*, session: Session, league: LeagueRow) -> list[tuple[EntryRow, BotRow]]:
    """The entries that get new matches, in entry order: not retired in the ladder,
    not removed from the registry (``arena bot remove``), not suspended."""
    return _active(league_bots(session=session, league=league))


def _active(rows: list[tuple[EntryRow, BotRow]]) -> list[tuple[EntryRow, BotRow]]:
    active = [(e, b) for e, b in rows if not e.retired and not b.retired and b.suspended_at is None]
    return sorted(active, key=lambda pair: pair[0].id or 0)


@dataclass(frozen=True, slots=True)
class LadderView:
    """What :func:`~league.domain.pairing.choose_tables` needs, from the database alone."""

    entries: list[LadderEntry]
    """The active entries."""
    recent_total: int
    """Matches in the share window (the ladder's last
    :data:`~league.domain.pairing.SHARE_WINDOW`, finished or scheduled)."""
    differences: dict[Pair, float] = field(default_factory=dict)
    """Standard deviation (Elo) of each pair's rating difference, from the fit."""
    pair_recent: Counter[Pair] = field(default_factory=Counter)
    """Matches of each pair of entries in the share window."""


def ladder_view(
    *, session: Session, league: LeagueRow, rows: list[tuple[EntryRow, BotRow]] | None = None
) -> LadderView:
    """The active entries with their ratings and intervals, each pair's difference
    (:func:`league.domain.bradley_terry.fit_with_differences`) and the share window.

    ``rows``: the league's entries as already read (:func:`league_bots`). Labels and
    active entries come from one read: a version entered between two reads (a
    submission accepted meanwhile) had an entry but no label (``KeyError``)."""
    rows = league_bots(session=session, league=league) if rows is None else rows
    labels = labels_of([bot for _, bot in rows])
    results = finished_results(session=session, league=league)
    ratings, sd, differences = fit_with_differences(results) if results else ({}, {}, {})
    seats = session.exec(
        select(SeatRow.match_id, SeatRow.bot_id, MatchRow.position)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .where(MatchRow.league_id == league.id)
    ).all()
    counts = Counter(bot_id for _, bot_id, _ in seats)
    positions = sorted({position for *_, position in seats}, reverse=True)[:SHARE_WINDOW]
    window = set(positions)
    recent = Counter(bot_id for _, bot_id, position in seats if position in window)
    tables: dict[int, set[str]] = {}
    for match_id, bot_id, position in seats:
        if position in window and bot_id in labels:
            tables.setdefault(match_id, set()).add(labels[bot_id])
    pair_recent: Counter[Pair] = Counter(
        frozenset(pair) for members in tables.values() for pair in combinations(sorted(members), 2)
    )
    entries = []
    for entry, bot in _active(rows):
        label = labels[bot.id]  # type: ignore[index]
        entries.append(
            LadderEntry(
                key=label,
                rating=ratings.get(label, 1500.0),
                spread=2.0 * EXACT_Z95 * sd.get(label, _NO_GAMES_SD),
                matches=counts.get(bot.id, 0),  # type: ignore[arg-type]
                order=entry.id or 0,
                recent=recent.get(bot.id, 0),  # type: ignore[arg-type]
            )
        )
    return LadderView(entries, len(window), differences, pair_recent)


def ladder_entries(
    *, session: Session, league: LeagueRow, rows: list[tuple[EntryRow, BotRow]] | None = None
) -> tuple[list[LadderEntry], int]:
    """:func:`ladder_view`'s entries and share window."""
    view = ladder_view(session=session, league=league, rows=rows)
    return view.entries, view.recent_total


def tied_pairs(
    *, session: Session, league: LeagueRow, tie_zone: float | None = None
) -> tuple[float, list[tuple[str, str]]]:
    """The zone and the neighbouring bots (by rating, lower first) among the league's
    finished results whose difference is known at 95% to lie within ``±tie_zone`` Elo
    (:func:`league.domain.pairing.tied`): what ``league standings`` prints as tied.
    The zone: ``tie_zone``, else a rolling ladder's own, else :data:`TIE_ZONE`."""
    if tie_zone is None:
        tie_zone = rolling_settings(league).tie_zone if is_rolling(league) else TIE_ZONE
    results = finished_results(session=session, league=league)
    if not results or tie_zone <= 0:
        return tie_zone, []
    ratings, sd, differences = fit_with_differences(results)
    entries = [
        LadderEntry(
            key=bot, rating=ratings[bot], spread=2.0 * EXACT_Z95 * sd[bot], matches=0, order=i
        )
        for i, bot in enumerate(sorted(ratings))
    ]
    return tie_zone, [
        (a.key, b.key)
        for a, b in adjacent(entries)
        if tied(b.rating - a.rating, difference_sd(a, b, differences), tie_zone)
    ]


def extend_schedule(*, session: Session, league: LeagueRow) -> list[PendingMatch]:
    """Append the next batch of duplicate groups as pending matches; returns them
    (empty: fewer active entries than a table needs).

    First the active versions that faulted in each of their first matches are
    suspended (:func:`league.store.suspension.review`): they get no table.

    Batch ``B`` is round ``B`` of the schedule, its tables ``r{B}-t{T}`` like a fixed
    league's groups, positions continuing after the last one. The choice depends on
    the database alone (entries, finished results, scheduled matches), so the
    same state gives the same batch.
    """
    settings = rolling_settings(league)
    review(
        session,
        [bot for _, bot in active_entries(session=session, league=league)],
        first=settings.suspend_after,
    )
    rows = league_bots(session=session, league=league)
    view = ladder_view(session=session, league=league, rows=rows)
    tables = choose_tables(
        view.entries,
        groups=settings.batch_groups,
        table_size=league.table_size,
        placement_matches=settings.placement_matches,
        min_share=settings.min_share,
        recent_total=view.recent_total,
        differences=view.differences,
        tie_zone=settings.tie_zone,
        pair_recent=view.pair_recent,
    )
    return write_tables(session=session, league=league, tables=tables, rows=rows)


def extend_adaptive(
    *,
    session: Session,
    league: LeagueRow,
    groups: int,
    min_share: float = MIN_SHARE,
    tie_zone: float = TIE_ZONE,
) -> list[PendingMatch]:
    """``arena league run --adaptive``: append ``groups`` duplicate groups chosen as a
    rolling ladder's are (:func:`~league.domain.pairing.choose_tables`, no placement:
    a fixed league's own schedule places everyone), or nothing once the ratings are
    :func:`~league.domain.pairing.settled` (every adjacent pair ordered at 95%, or
    tied: its difference known at 95% to lie within ``±tie_zone`` Elo)."""
    rows = league_bots(session=session, league=league)
    view = ladder_view(session=session, league=league, rows=rows)
    if settled(view.entries, view.differences, tie_zone=tie_zone):
        return []
    tables = choose_tables(
        view.entries,
        groups=groups,
        table_size=league.table_size,
        placement_matches=0,
        min_share=min_share,
        recent_total=view.recent_total,
        differences=view.differences,
        tie_zone=tie_zone,
        pair_recent=view.pair_recent,
    )
    return write_tables(session=session, league=league, tables=tables, rows=rows)


def write_tables(
    *,
    session: Session,
    league: LeagueRow,
    tables: list[tuple[str, ...]],
    rows: list[tuple[EntryRow, BotRow]] | None = None,
) -> list[PendingMatch]:
    """Write ``tables`` (entry labels) as the next round: one duplicate group each,
    played in every cyclic seat rotation; returns the pending matches. ``rows``: the
    entries the labels were made from (:func:`ladder_entries`), else read now."""
    if not tables:
        return []
    last_position, last_round = session.exec(
        select(func.max(MatchRow.position), func.max(MatchRow.round)).where(
            MatchRow.league_id == league.id
        )
    ).one()
    position = 0 if last_position is None else last_position + 1
    batch = 0 if last_round is None else last_round + 1
    rows = league_bots(session=session, league=league) if rows is None else rows
    labels = labels_of([bot for _, bot in rows])
    bots = {labels[bot.id]: bot for _, bot in _active(rows)}  # type: ignore[index]
    created: list[PendingMatch] = []
    assert league.id is not None
    for table, members in enumerate(tables):
        group = f"r{batch}-t{table}"
        for rotation in range(len(members)):
            seated = members[rotation:] + members[:rotation]
            match = MatchRow(
                league_id=league.id,
                position=position,
                round=batch,
                table=table,
                rotation=rotation,
                group_key=group,
            )
            session.add(match)
            session.flush()
            assert match.id is not None
            for seat, key in enumerate(seated):
                session.add(SeatRow(match_id=match.id, seat=seat, bot_id=bots[key].id))  # type: ignore[arg-type]
            created.append(PendingMatch(match.id, position, group, tuple(bots[k] for k in seated)))
            position += 1
    session.flush()
    return created


# --------------------------------------------------------------------------- status


def rolling_status(*, session: Session, league: LeagueRow) -> dict[str, object]:
    """The ladder at a glance (``arena rolling status``): settings, entries, counts."""
    settings = rolling_settings(league)
    statuses = Counter(session.exec(select(MatchRow.status).where(MatchRow.league_id == league.id)))
    labels = bot_labels(session=session, league=league)
    counts = Counter(
        session.exec(
            select(SeatRow.bot_id)
            .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
            .where(MatchRow.league_id == league.id, MatchRow.status == "done")
        )
    )
    entries = sorted(league_bots(session=session, league=league), key=lambda p: p[0].id or 0)
    return {
        "name": league.name,
        "game": league.game,
        "rules": json.loads(league.rules),
        "table_size": league.table_size,
        "settings": settings.to_dict(),
        "commitment": league.commitment,
        "matches": sum(statuses.values()),
        "done": statuses.get("done", 0),
        "pending": statuses.get("pending", 0) + statuses.get("aborted", 0),
        "aborted": statuses.get("aborted", 0),
        "entries": [
            {
                "bot": labels[bot.id],  # type: ignore[index]
                "name": bot.name,
                "version": bot.version,
                "retired": entry.retired,
                "played": counts.get(bot.id, 0),  # type: ignore[arg-type]
            }
            for entry, bot in entries
        ],
    }
