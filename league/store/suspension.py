"""Suspension: a bot version that faults in each of its first real matches plays no more.

The pre-submission check cannot catch a bot that behaves there and faults in the
ladder (a bot that learns it is in a real match). So after its first
:data:`SUSPEND_AFTER` finished league matches (the check's matches are never stored,
so every stored match is a real one), a version that faulted in every one of them is
suspended: ``BotRow.suspended_at`` and ``BotRow.suspension`` (the reason) are set,
rolling ladders stop scheduling it (matches already scheduled are still played), and
its author sees the notice (``GET /api/submissions``, the upload page, the bot's
page while logged in). Its results stay. A bot that faults only now and then is not
suspended: its faults cost it its matches and show on its page.

The operator lifts a suspension by submitting (or registering) a new version.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from sqlmodel import Session, col, select

from league.store.models import BotRow, MatchRow, SeatRow, utcnow

log = logging.getLogger("arena.suspension")

SUSPEND_AFTER = 3
"""A version faulting in each of its first this many finished matches is suspended."""


def first_faults(session: Session, bot_id: int, first: int) -> list[str]:
    """The fault (``""`` for none) of ``bot_id`` in each of its first ``first``
    finished matches, oldest first."""
    return list(
        session.exec(
            select(SeatRow.fault)
            .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
            .where(SeatRow.bot_id == bot_id, MatchRow.status == "done")
            .order_by(col(MatchRow.finished_at), col(MatchRow.id))
            .limit(first)
        )
    )


def review(session: Session, bots: Iterable[BotRow], first: int = SUSPEND_AFTER) -> list[BotRow]:
    """Suspend every version in ``bots`` that faulted in each of its first ``first``
    finished matches (``first`` 0: never); returns those suspended now."""
    suspended: list[BotRow] = []
    if first < 1:
        return suspended
    for bot in bots:
        if bot.suspended_at is not None or bot.id is None:
            continue
        faults = first_faults(session, bot.id, first)
        if len(faults) < first or not all(faults):
            continue
        kinds = ", ".join(sorted(set(faults)))
        bot.suspended_at = utcnow()
        bot.suspension = (
            f"suspended: it faulted in each of its first {first} ladder matches ({kinds});"
            " it gets no new matches. Fix it and submit a new version"
            " (the matches' logs are on its page)."
        )
        session.add(bot)
        suspended.append(bot)
        log.warning("bot %s version %s suspended (%s)", bot.name, bot.version, kinds)
    session.flush()
    return suspended


def notices(session: Session, author_id: int) -> list[dict[str, Any]]:
    """What the author is told: each of their suspended versions, newest first."""
    rows = session.exec(
        select(BotRow)
        .where(BotRow.author_id == author_id, col(BotRow.suspended_at).is_not(None))
        .order_by(col(BotRow.suspended_at).desc())
    )
    return [
        {
            "bot": bot.name,
            "version": bot.version,
            "suspended_at": bot.suspended_at.isoformat()[:19] if bot.suspended_at else None,
            "message": bot.suspension,
        }
        for bot in rows
    ]
