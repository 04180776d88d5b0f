"""``arena league run --adaptive``: a fixed league whose schedule grows like a
rolling ladder's (``docs/rolling.md``).

After the league's own pending matches, :class:`AdaptiveSchedule` (the run's
:class:`~league.execution.league_run.ScheduleSource`) appends batches of duplicate groups
chosen by :func:`league.store.rolling_ladders.extend_adaptive`: the neighbouring pair
whose order is least known, every bot keeping a minimum share. It ends when every
adjacent pair of ratings is ordered at 95% or tied (its difference known at 95% to lie
within ``±tie_zone`` Elo), or at the run's ``max_matches``.
"""

from __future__ import annotations

from sqlalchemy import Engine

from league.domain.pairing import MIN_SHARE, TIE_ZONE
from league.store.db import session_scope
from league.store.leagues import PendingMatch, get_league
from league.store.registry import LeagueError
from league.store.rolling_ladders import extend_adaptive, is_rolling

ADAPTIVE_GROUPS = 4
"""Duplicate groups per batch (as a rolling ladder's default ``batch_groups``)."""


class AdaptiveError(LeagueError):
    """``--adaptive`` asked for in a way that cannot work (the message says why)."""


class AdaptiveSchedule:
    """Batch after batch from :func:`league.store.rolling_ladders.extend_adaptive`; no pacing."""

    def __init__(
        self,
        engine: Engine,
        name: str,
        *,
        groups: int = ADAPTIVE_GROUPS,
        min_share: float = MIN_SHARE,
        tie_zone: float = TIE_ZONE,
    ) -> None:
        if not (tie_zone >= 0 and tie_zone < float("inf")):
            raise AdaptiveError(f"tie_zone must be a finite number >= 0, got {tie_zone}")
        with session_scope(engine) as session:
            if is_rolling(get_league(session=session, name=name)):
                raise AdaptiveError(
                    f"league {name!r} is a rolling ladder, which always pairs adaptively:"
                    " use `arena rolling run`"
                )
        self.engine = engine
        self.name = name
        self.groups = groups
        self.min_share = min_share
        self.tie_zone = tie_zone
        self.scheduled = 0
        """Matches appended to the schedule so far."""

    async def more(self) -> list[PendingMatch]:
        with session_scope(self.engine) as session:
            league = get_league(session=session, name=self.name)
            batch = extend_adaptive(
                session=session,
                league=league,
                groups=self.groups,
                min_share=self.min_share,
                tie_zone=self.tie_zone,
            )
        self.scheduled += len(batch)
        return batch

    async def pace(self) -> None:
        """No rate limit: a fixed league plays as fast as its slots allow."""
