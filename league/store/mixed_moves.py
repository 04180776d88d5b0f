"""Each seat's mixed moves in a league match, kept for the seat's author.

A seat that answers a turn with probabilities (protocol 4) has the referee draw the
action; the public record holds only a commitment to them
(:mod:`referee.core.mixed`). The probabilities and the salt of each commitment go to
whoever ran the match, and a league keeps them here, one ``match_mixed`` row per
match and seat (zlib-compressed JSON, :mod:`referee.records.mixed_answers`), written
with the match's result (:func:`league.store.leagues.record_result`) and deleted with
its match.

They are for the seat's author, as the bot's output is: ``arena league logs`` and the
server's author-only log page show them, and ``arena league verify`` and ``arena
rerun`` check every draw against them once the league's secret is revealed. No
public page, API answer, report or record reads this table.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence

from sqlmodel import Session, select

from league.store.models import LeagueRow, MatchMixedRow, MatchRow
from referee.core.mixed import MixedAnswer
from referee.records.mixed_answers import MixedAnswersError, answers_from_json, answers_to_json

MIXED_CAP_BYTES = 16 << 20
"""Most compressed bytes kept per seat and match (as a record's cap); a seat's mixed
moves over it are not kept at all (``arena league verify`` then counts its draws as
unchecked), never cut: a part of them would not check against the record."""


def write_mixed(
    *,
    session: Session,
    match_id: int,
    game: str,
    mixed: Mapping[int, Sequence[MixedAnswer]],
) -> None:
    """Add a row per seat of ``mixed`` that has any (the caller commits)."""
    for seat, answers in sorted(mixed.items()):
        if not answers:
            continue
        text = json.dumps(answers_to_json(game, answers), separators=(",", ":"))
        data = zlib.compress(text.encode(), 6)
        if len(data) > MIXED_CAP_BYTES:
            continue
        session.add(MatchMixedRow(match_id=match_id, seat=seat, moves=len(answers), data=data))


def match_mixed(*, session: Session, match: MatchRow, seat: int) -> list[MixedAnswer] | None:
    """The mixed moves of the bot in ``seat`` during ``match`` (None: none kept)."""
    row = session.exec(
        select(MatchMixedRow).where(MatchMixedRow.match_id == match.id, MatchMixedRow.seat == seat)
    ).first()
    return None if row is None else _answers(session, match, row)


def mixed_count(*, session: Session, match: MatchRow, seat: int) -> int:
    """How many mixed moves are kept for ``seat`` of ``match`` (0: none)."""
    row = session.exec(
        select(MatchMixedRow).where(MatchMixedRow.match_id == match.id, MatchMixedRow.seat == seat)
    ).first()
    return 0 if row is None else row.moves


def stored_mixed(*, session: Session, match: MatchRow) -> dict[int, list[MixedAnswer]]:
    """Every seat's mixed moves kept for ``match`` (seats without any left out): what
    :func:`referee.records.replay.verify` takes as ``mixed``."""
    rows = session.exec(select(MatchMixedRow).where(MatchMixedRow.match_id == match.id))
    return {row.seat: _answers(session, match, row) for row in rows}


def _answers(session: Session, match: MatchRow, row: MatchMixedRow) -> list[MixedAnswer]:
    league = session.get(LeagueRow, match.league_id)
    assert league is not None  # a foreign key
    try:
        data = json.loads(zlib.decompress(row.data))
        return answers_from_json(league.game, data)
    except (zlib.error, UnicodeDecodeError, ValueError) as error:  # MixedAnswersError too
        raise MixedAnswersError(
            f"the kept mixed moves of seat {row.seat} are unreadable: {error}"
        ) from None
