"""What the pages and the API show, as plain JSON-able data, from one ``Session``.

Synchronous functions: the routes run them in a worker thread
(:meth:`league.server.state.Server.db`). Every number comes from the library the
command line uses — standings from :func:`league.store.standings.standings` with the
bluff analytics of :func:`league.store.bluff.league_bluff`, match lists from
:func:`league.store.leagues.list_matches` — with the same defaults as
``arena league standings`` (1000 bootstrap samples, seed 0), so the web page and
the terminal print the same table.

Nothing here returns a bot's command line, address, token settings or a
league's secret: those are the operator's. Match records are served through
:func:`public_record` (no seat's command or address), and matches are listed only
once finished (:data:`PUBLIC_STATUSES`). The secret appears only as
``arena league show`` reveals it (once no match is pending).
"""

from __future__ import annotations

import math
import shlex
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from league.server import inputs
from league.server.readme import strip_local_paths
from league.store.bluff import league_bluff
from league.store.exploits import as_json as exploit_json
from league.store.exploits import bot_exploits, describe
from league.store.leagues import (
    decompress_record,
    find_match,
    get_league,
    league_bots,
    league_json,
    league_status,
    list_leagues,
    list_matches,
    match_key,
    revealed_secret,
)
from league.store.models import AuthorRow, BotRow, EntryRow, LeagueRow, MatchRow, SeatRow
from league.store.registry import NotFoundError
from league.store.rolling_ladders import is_rolling, rolling_settings
from league.store.standings import Standing, standings
from league.web.report import rating_figures
from referee.core.faults import FaultKind
from referee.records.analytics import BluffStats, format_ratio
from referee.records.record import MatchRecord, without_bot_output

STANDINGS_SAMPLES = 1000
"""Bootstrap resamples of the standings table (``arena league standings``' default)."""

LATENCY_MATCHES = 200
"""A bot page's latency is measured over the bot's most recent finished matches."""


class Missing(NotFoundError):
    """A page or API object that does not exist (404); the message is short and public."""


def league_summary(row: LeagueRow) -> dict[str, Any]:
    """The league's public settings (never its secret); a rolling ladder's rate and
    concurrency under ``rolling``."""
    return {
        **league_json(row),
        "rolling": rolling_settings(row).to_dict() if is_rolling(row) else None,
    }


def leagues(session: Session) -> list[dict[str, Any]]:
    out = []
    for row in list_leagues(session=session):
        status = league_status(session=session, league=row)
        out.append(
            {
                **league_summary(row),
                "matches": status.total,
                "done": status.done,
                "pending": status.pending,
                "aborted": status.aborted,
            }
        )
    return out


def league_row(session: Session, name: str) -> LeagueRow:
    name = inputs.name(name, "league")
    try:
        return get_league(session=session, name=name)
    except NotFoundError:
        raise Missing(f"no league named {name!r}") from None


def league_detail(session: Session, name: str) -> dict[str, Any]:
    row = league_row(session, name)
    status = league_status(session=session, league=row)
    secret = revealed_secret(session=session, league=row)
    return {
        **league_summary(row),
        "secret": secret.hex() if secret is not None else None,
        "bots": [bot.name for _, bot in league_bots(session=session, league=row)],
        "matches": status.total,
        "done": status.done,
        "pending": status.pending,
        "forfeits": status.forfeits,
        "aborted": status.aborted,
        "faults": status.faults,
    }


def league_standings(session: Session, name: str) -> dict[str, Any]:
    """The standings table of ``arena league standings --json``, with the league's
    progress and the bluff analytics' coverage."""
    row = league_row(session, name)
    # The progress first: each SELECT may see a newer database than the one before it
    # (a league runner commits between them), so read this way the table covers at
    # least the ``done`` matches it is shown with, never fewer.
    status = league_status(session=session, league=row)
    bluff = league_bluff(session=session, league=row)
    table = standings(session=session, league=row, samples=STANDINGS_SAMPLES, bluff=bluff)
    rated = [s for s in table if s.rank is not None]
    return {
        "league": row.name,
        "game": row.game,
        "matches": status.total,
        "done": status.done,
        "pending": status.pending,
        "samples": STANDINGS_SAMPLES,
        "standings": [standing.as_json() for standing in table],
        "bluff": None
        if bluff is None
        else {"matches": bluff.matches, "skipped": list(bluff.skipped)},
        # The same numbers as display text, formatted once here for the page and its script.
        "display": {
            "rows": [_display_row(s, with_bluff=bluff is not None) for s in table],
            "los": {
                "bots": [s.bot for s in rated],
                "cells": [
                    ["" if a.bot == b.bot else f"{a.los.get(b.bot, 0.5):.0%}" for b in rated]
                    for a in rated
                ],
            },
        },
    }


def league_figures(session: Session, name: str, ranked: Sequence[str]) -> dict[str, str]:
    """The league's rating chart, crosstable and population view (Nash averaging) as
    HTML fragments, drawn by the static report's code
    (:func:`league.web.report.rating_figures`), bots in the standings' order ``ranked``.
    Every name in them is escaped; they hold no script and no style attribute, so the
    page's CSP lets them be."""
    figures = rating_figures(session=session, league=league_row(session, name), ranked=ranked)
    return {
        "chart": figures.chart,
        "crosstable": figures.crosstable,
        "population": figures.population,
        "llr": figures.llr,
    }


def leader(table: dict[str, Any]) -> dict[str, Any] | None:
    """The first row of a :func:`league_standings` table (rank 1), or None before any
    finished match."""
    for row, shown in zip(table["standings"], table["display"]["rows"], strict=True):
        if row["rank"] == 1:
            return {"bot": row["bot"], "name": row["name"], "elo": shown["elo"]}
    return None


def rank_of(table: dict[str, Any], name: str, version: str) -> dict[str, Any] | None:
    """Where bot ``name`` at ``version`` stands in a :func:`league_standings` table:
    its rank (None while unrated) among how many rated rows, or None if not listed."""
    rated = sum(1 for row in table["standings"] if row["rank"] is not None)
    for row in table["standings"]:
        if row["name"] == name and row["version"] == version:
            return {"rank": row["rank"], "of": rated}
    return None


BLUFF_COLUMNS = {
    "bluff_rate": "bluff rate",
    "challenge_rate": "challenge rate",
    "challenge_accuracy": "challenge accuracy",
    "wrongly_challenged": "wrongly challenged",
}
"""The bluff analytics' four rates, as ``arena league standings`` titles them."""


def fmt(value: float | None, digits: int = 0) -> str:
    """A number for a table cell: ``-`` for none, ``inf`` for an unbounded interval end."""
    if value is None:
        return "-"
    if not math.isfinite(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}"


def _display_row(row: Standing, *, with_bluff: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rank": str(row.rank or "-"),
        "bot": row.bot,
        "name": row.name or row.bot,
        "retired": row.retired,
        "elo": fmt(row.elo),
        "interval": f"{fmt(row.lo)} .. {fmt(row.hi)}" if row.elo is not None else "-",
        "matches": str(row.matches),
        "wins": str(row.wins),
        "mean_place": fmt(row.mean_place, 2),
        "mean_score": fmt(row.mean_score, 2),
        "incremental_elo": fmt(row.incremental_elo),
        "faults": ", ".join(f"{k} {v}" for k, v in sorted(row.faults.items())) or "-",
    }
    if with_bluff:
        ratios = (row.bluff or BluffStats()).ratios()
        out["bluff"] = {name: format_ratio(*ratios[name]) for name in BLUFF_COLUMNS}
    return out


RESULTS = ("completed", "forfeit", "aborted", "pending", "won", "lost")
"""The ``result`` filters of a match list (``arena league matches --result``)."""


def match_filters(query: Mapping[str, str]) -> dict[str, str | None]:
    """A match list's filters from a query string (``bot``, ``result``, ``fault``),
    each validated (:mod:`league.server.inputs`); an empty one is no filter."""
    bot, result, fault = (query.get(key) or None for key in ("bot", "result", "fault"))
    return {
        "bot": None if bot is None else inputs.text(bot, "bot", max_len=inputs.MAX_NAME),
        "result": None if result is None else inputs.choice(result, RESULTS, "result"),
        "fault": None
        if fault is None
        else inputs.choice(fault, [kind.value for kind in FaultKind], "fault"),
    }


PUBLIC_STATUSES = frozenset({"done"})
"""Matches the public pages and API list: finished ones only. A pending, running or
aborted (to be played again) match is not listed, so a bot cannot look itself up
and learn its next opponent before the match is over."""


def league_matches(
    session: Session,
    name: str,
    *,
    bot: str | None = None,
    result: str | None = None,
    fault: str | None = None,
    finished_only: bool = True,
) -> list[dict[str, Any]]:
    """``arena league matches --json`` (raises ``LeagueError`` on a bad filter), but
    (``finished_only``, the server's default) only the finished matches: who plays
    whom in a match not yet over is nobody's business."""
    row = league_row(session, name)
    if bot is not None and not session.exec(select(BotRow.id).where(BotRow.name == bot)).first():
        raise Missing(f"no bot named {bot!r}")
    return [
        asdict(summary)
        for summary in list_matches(
            session=session, league=row, bot=bot, result=result, fault=fault
        )
        if not finished_only or summary.status in PUBLIC_STATUSES
    ]


@dataclass(frozen=True, slots=True)
class StoredMatch:
    league: str
    key: str
    status: str
    record: MatchRecord | None


def stored_match(session: Session, key: str, *, finished_only: bool = True) -> StoredMatch:
    """The match ``key`` with its record as the public may see it (:func:`public_record`),
    or no record while it is not finished."""
    key = inputs.match_key(key)
    try:
        league, match = find_match(session=session, key=key)
    except NotFoundError:
        raise Missing(f"no match {key!r}") from None
    record = None
    if match.record is not None and (match.status in PUBLIC_STATUSES or not finished_only):
        # An aborted match keeps its record, but it will be played again by the same
        # seats: its record would tell them their opponent.
        record = public_record(decompress_record(match.record))
    return StoredMatch(league.name, match_key(league, match.position), match.status, record)


def public_record(record: MatchRecord) -> MatchRecord:
    """``record`` without how its bots were started or reached — every seat's
    ``command`` (store paths, the operator's command lines) and ``address`` emptied —
    and without what an older referee quoted of a bot's own output in a fault message
    (:func:`referee.records.record.without_bot_output`: records stored before that
    stopped). What the server serves (``/api/matches/...``, the replay viewer) is this;
    ``arena replay`` on the server's own machine still reads the full record."""
    cleaned = without_bot_output(record)
    return replace(
        cleaned, seats=tuple(replace(seat, command=(), address="") for seat in cleaned.seats)
    )


def match_seat_bot(
    session: Session, key: str, seat: int, *, finished_only: bool = True
) -> tuple[MatchRow, BotRow]:
    """The match ``key`` and the bot version that sat in ``seat``."""
    key = inputs.match_key(key)
    try:
        _, match = find_match(session=session, key=key)
    except NotFoundError:
        raise Missing(f"no match {key!r}") from None
    if finished_only and match.status not in PUBLIC_STATUSES:
        # Before asking who sits where: a 403 (not your bot) against a 404 would tell
        # an author whether their bot is in this match not yet played.
        raise Missing(f"match {key!r} has not finished")
    found = session.exec(
        select(BotRow)
        .join(SeatRow, col(SeatRow.bot_id) == BotRow.id)
        .where(SeatRow.match_id == match.id, SeatRow.seat == seat)
    ).first()
    if found is None:
        raise Missing(f"match {key!r} has no seat {seat}")
    return match, found


def _author_of(session: Session, bot: BotRow) -> str | None:
    """The name of the author who submitted ``bot`` (None: registered by the operator)."""
    if bot.author_id is None:
        return None
    author = session.get(AuthorRow, bot.author_id)
    return None if author is None else author.name


def bots(session: Session) -> list[dict[str, Any]]:
    """Every bot name with its newest version (retired names included, marked)."""
    rows = list(session.exec(select(BotRow).order_by(col(BotRow.name), col(BotRow.created_at))))
    newest: dict[str, BotRow] = {}
    versions: dict[str, int] = {}
    for row in rows:  # oldest first: the newest active version wins, else the newest
        versions[row.name] = versions.get(row.name, 0) + 1
        current = newest.get(row.name)
        if current is None or not row.retired or current.retired:
            newest[row.name] = row
    seats = dict(
        session.exec(
            select(BotRow.name, func.count(col(SeatRow.id)))
            .join(SeatRow, col(SeatRow.bot_id) == BotRow.id)
            .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
            .where(MatchRow.status == "done")
            .group_by(col(BotRow.name))
        ).all()
    )
    return [
        {
            "name": name,
            "version": row.version,
            "versions": versions[name],
            "games": [g for g in row.games.split(",") if g],
            "retired": row.retired,
            "author": _author_of(session, row),
            "matches": int(seats.get(name, 0)),
        }
        for name, row in sorted(newest.items())
    ]


def _percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (as ``docs/ladder.md`` reports it)."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def bot_exploitability(session: Session, name: str) -> list[dict[str, Any]]:
    """Every stored ``arena exploit`` measurement of the bot's versions, newest first
    (:mod:`league.store.exploits`), with the text the standings show."""
    versions = {v.id: v.version for v in session.exec(select(BotRow).where(BotRow.name == name))}
    rows = [
        row for bot_id in versions if bot_id for row in bot_exploits(session=session, bot_id=bot_id)
    ]
    rows.sort(key=lambda row: (row.created_at, row.id or 0), reverse=True)
    return [
        {**exploit_json(row), "version": versions[row.bot_id], "text": describe(row)}
        for row in rows
    ]


def bot_with_exploitability(session: Session, name: str) -> dict[str, Any]:
    """:func:`bot_detail` plus its stored exploitability measurements: the bot page
    and ``/api/bots/NAME`` show the same."""
    detail = bot_detail(session, name)
    detail["exploitability"] = bot_exploitability(session, name)
    return detail


def bot_detail(session: Session, name: str) -> dict[str, Any]:
    """A bot's versions, its results per league, faults and measured latency."""
    name = inputs.name(name, "bot")
    versions = list(
        session.exec(select(BotRow).where(BotRow.name == name).order_by(col(BotRow.created_at)))
    )
    if not versions:
        raise Missing(f"no bot named {name!r}")
    ids = [v.id for v in versions]
    by_id = {v.id: v for v in versions}
    leagues_by_id = {row.id: row for row in session.exec(select(LeagueRow))}
    results: dict[tuple[int, int], dict[str, Any]] = {}
    faults: dict[str, int] = {}
    recent: list[tuple[Any, int, int]] = []  # (finished_at, match id, seat)
    for seat, match in session.exec(
        select(SeatRow, MatchRow)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .where(col(SeatRow.bot_id).in_(ids), MatchRow.status == "done")
    ):
        entry = results.setdefault(
            (match.league_id, seat.bot_id),
            {"matches": 0, "wins": 0, "places": [], "faults": {}},
        )
        entry["matches"] += 1
        entry["wins"] += seat.place == 1
        if seat.place is not None:
            entry["places"].append(seat.place)
        if seat.fault:
            entry["faults"][seat.fault] = entry["faults"].get(seat.fault, 0) + 1
            faults[seat.fault] = faults.get(seat.fault, 0) + 1
        recent.append((match.finished_at, match.id or 0, seat.seat))
    entries = {
        (e.league_id, e.bot_id): e
        for e in session.exec(select(EntryRow).where(col(EntryRow.bot_id).in_(ids)))
    }
    per_league = []
    for league_id, bot_id in sorted(set(results) | set(entries)):
        league = leagues_by_id.get(league_id)
        if league is None:
            continue
        entry = results.get((league_id, bot_id), {"matches": 0, "wins": 0, "places": []})
        places = entry["places"]
        elo = entries.get((league_id, bot_id))
        per_league.append(
            {
                "league": league.name,
                "game": league.game,
                "version": by_id[bot_id].version,
                "matches": entry["matches"],
                "wins": entry["wins"],
                "mean_place": round(statistics.fmean(places), 3) if places else None,
                "incremental_elo": round(elo.elo, 1) if elo is not None else None,
                "faults": entry.get("faults", {}),
            }
        )
    latency = _latency(session, recent)
    newest = versions[-1]
    readme = _readme(newest)
    if readme is not None:
        readme = strip_local_paths(readme)  # never where the author or the server keeps files
    return {
        "name": name,
        "author": _author_of(session, newest),
        "games": [g for g in newest.games.split(",") if g],
        "retired": all(v.retired for v in versions),
        "versions": [_version_json(v) for v in versions],
        "leagues": per_league,
        "matches": sum(r["matches"] for r in per_league),
        "wins": sum(r["wins"] for r in per_league),
        "faults": faults,
        "latency": latency,
        "readme": readme,
    }


def _version_json(version: BotRow) -> dict[str, Any]:
    return {
        "version": version.version,
        "games": [g for g in version.games.split(",") if g],
        "created_at": version.created_at.isoformat(),
        "retired": version.retired,
    }


README_CAP = 20_000
"""Characters of a submitted bot's README shown on its page."""


def _readme(bot: BotRow) -> str | None:
    """The README of a submitted bot's tree (text, capped), else None.

    Only for bots an author submitted: their command is ``python <store>/bots/<hash>/<entry>``
    and the README sits beside the entry; an operator's bot may live anywhere.
    """
    if bot.author_id is None or not bot.command:
        return None
    try:
        argv = shlex.split(bot.command)
    except ValueError:
        return None
    if len(argv) < 2:
        return None
    folder = Path(argv[-1]).parent
    for name in ("README.md", "README.txt", "README"):
        path = folder / name
        try:
            if path.is_file() and not path.is_symlink():
                with path.open("rb") as source:
                    return source.read(README_CAP).decode("utf-8", "replace")
        except OSError:
            return None
    return None


def _latency(session: Session, seats: list[tuple[Any, int, int]]) -> dict[str, Any] | None:
    """Decision times the referee recorded (``elapsed_ms``) over the newest
    :data:`LATENCY_MATCHES` matches."""
    seats.sort(key=lambda s: (s[0] is None, s[0], s[1]), reverse=True)
    chosen = seats[:LATENCY_MATCHES]
    if not chosen:
        return None
    seat_of = {match_id: seat for _, match_id, seat in chosen}
    times: list[float] = []
    for match_id, data in session.exec(
        select(MatchRow.id, MatchRow.record).where(col(MatchRow.id).in_(list(seat_of)))
    ):
        if data is None:
            continue
        record = decompress_record(data)
        seat = seat_of[match_id]  # type: ignore[index]
        times.extend(
            event.elapsed_ms
            for event in record.events
            if event.seat == seat and event.elapsed_ms is not None
        )
    if not times:
        return None
    return {
        "matches": len(chosen),
        "decisions": len(times),
        "mean_ms": round(statistics.fmean(times), 3),
        "median_ms": round(statistics.median(times), 3),
        "p99_ms": round(_percentile(times, 0.99), 3),
    }


def league_id(session: Session, name: str) -> int:
    row = league_row(session, name)
    assert row.id is not None
    return row.id


def bot_versions(session: Session, name: str) -> list[BotRow]:
    return list(session.exec(select(BotRow).where(BotRow.name == name)))


RECENT_LOGS = 50
"""How many of a bot's newest matches its author's page links logs for."""


def recent_seats(session: Session, name: str) -> list[dict[str, Any]]:
    """The bot's newest finished matches with its seat (for its author's log links)."""
    ids = [v.id for v in bot_versions(session, name)]
    leagues_by_id = {row.id: row for row in session.exec(select(LeagueRow))}
    rows = session.exec(
        select(SeatRow, MatchRow)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .where(col(SeatRow.bot_id).in_(ids), MatchRow.status == "done")
        .order_by(col(MatchRow.finished_at).desc(), col(MatchRow.id).desc())
        .limit(RECENT_LOGS)
    )
    return [
        {
            "match": match_key(leagues_by_id[match.league_id], match.position),
            "seat": seat.seat,
            "place": seat.place,
            "fault": seat.fault,
        }
        for seat, match in rows
        if match.league_id in leagues_by_id
    ]
