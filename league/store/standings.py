"""Standings and crosstables of a league, from its finished match rows."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from sqlmodel import Session

from league.domain.population import Population, PopulationError, nash_averaging
from league.domain.ratings import (
    HeadToHead,
    MatchResult,
    head_to_head_from_results,
    league_table,
)
from league.store.bluff import LeagueBluff, league_bluff
from league.store.exploits import as_json as exploit_json
from league.store.exploits import describe, league_exploits
from league.store.leagues import bot_labels, finished_results, league_bots, seat_rows
from league.store.models import LeagueRow
from referee.records.analytics import BluffStats


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int | None
    bot: str
    version: str
    elo: float | None
    lo: float | None
    hi: float | None
    matches: int
    wins: int
    mean_place: float | None
    mean_score: float | None
    incremental_elo: float
    faults: dict[str, int] = field(default_factory=dict)
    los: dict[str, float] = field(default_factory=dict)
    bluff: BluffStats | None = None
    """Claims and challenges judged from the records (:mod:`league.store.bluff`); ``None``
    for a game without claims."""
    name: str = ""
    """The bot's name; ``bot`` is ``name@version`` when the league holds several
    versions of it (:func:`league.store.leagues.bot_labels`)."""
    retired: bool = False
    """An older version a newer one replaced in a rolling ladder."""
    nash_mass: float | None = None
    """The bot's weight in the maximum-entropy Nash mixture of the league's payoff
    matrix (:mod:`league.domain.population`); ``None`` before its first match."""
    nash_value: float | None = None
    """Its payoff against that mixture in Elo points: 0 with mass, negative without."""
    exploitability: dict[str, object] | None = None
    """Its latest stored ``arena exploit`` measurement for exactly the league's game
    and rules (:func:`league.store.exploits.as_json`); ``None`` if there is none."""
    exploit_text: str = "-"
    """That measurement as table text (:func:`league.store.exploits.describe`)."""

    def as_json(self) -> dict[str, object]:
        def finite(value: float | None) -> float | None:
            return None if value is None or not math.isfinite(value) else round(value, 2)

        return {
            "rank": self.rank,
            "bot": self.bot,
            "version": self.version,
            "elo": finite(self.elo),
            "elo_low": finite(self.lo),
            "elo_high": finite(self.hi),
            "matches": self.matches,
            "wins": self.wins,
            "mean_place": finite(self.mean_place),
            "mean_score": finite(self.mean_score),
            "incremental_elo": finite(self.incremental_elo),
            "faults": self.faults,
            "los": {k: round(v, 4) for k, v in self.los.items()},
            "bluff": None if self.bluff is None else self.bluff.as_json(),
            "name": self.name or self.bot,
            "retired": self.retired,
            "nash_mass": None if self.nash_mass is None else round(self.nash_mass, 4),
            "nash_value": finite(self.nash_value),
            "exploitability": self.exploitability,
        }


def standings(
    *,
    session: Session,
    league: LeagueRow,
    samples: int = 1000,
    seed: int = 0,
    bluff: LeagueBluff | None = None,
    include_retired: bool = False,
) -> list[Standing]:
    """Ranked by the batch Bradley–Terry fit; bots without a finished match last.

    Retired entries (older versions in a rolling ladder, :mod:`league.store.rolling_ladders`) are
    fitted with everybody — their games are evidence about their opponents — but
    left out of the rows unless ``include_retired``; ranks count the rows shown.

    ``bluff``: the league's bluff analytics if the caller already has them (it
    also wants their skipped matches); judged from the records here otherwise.
    """
    if bluff is None:
        bluff = league_bluff(session=session, league=league)
    results = finished_results(session=session, league=league)
    table = (
        {row.bot: row for row in league_table(results, samples=samples, seed=seed)}
        if results
        else {}
    )
    population = league_population(results)
    labels = bot_labels(session=session, league=league)
    scores: dict[str, list[float]] = {}
    faults: dict[str, dict[str, int]] = {}
    for seat, bot in seat_rows(session=session, league=league):
        label = labels[bot.id]  # type: ignore[index]
        if seat.score is not None:
            scores.setdefault(label, []).append(seat.score)
        if seat.fault:
            kinds = faults.setdefault(label, {})
            kinds[seat.fault] = kinds.get(seat.fault, 0) + 1
    entered = league_bots(session=session, league=league)
    measured = league_exploits(
        session=session, league=league, bot_ids=[bot.id for _, bot in entered if bot.id]
    )
    rows: list[Standing] = []
    for entry, bot in entered:
        if entry.retired and not include_retired:
            continue
        label = labels[bot.id]  # type: ignore[index]
        row = table.get(label)
        nash = None if population is None else population.row(label)
        exploit = measured.get(bot.id or 0)
        bot_scores = scores.get(label, [])
        rows.append(
            Standing(
                rank=row.rank if row else None,
                bot=label,
                version=bot.version,
                elo=row.elo if row else None,
                lo=row.lo if row else None,
                hi=row.hi if row else None,
                matches=row.games if row else 0,
                wins=row.wins if row else 0,
                mean_place=row.mean_place if row else None,
                mean_score=sum(bot_scores) / len(bot_scores) if bot_scores else None,
                incremental_elo=entry.elo,
                faults=faults.get(label, {}),
                los=dict(row.los) if row else {},
                bluff=None if bluff is None else bluff.bots.get(label, BluffStats()),
                name=bot.name,
                retired=entry.retired,
                nash_mass=nash.mass if nash else None,
                nash_value=nash.value if nash else None,
                exploitability=None if exploit is None else exploit_json(exploit),
                exploit_text="-" if exploit is None else describe(exploit),
            )
        )
    rows.sort(key=lambda s: (s.rank is None, s.rank or 0, s.bot))
    if any(entry.retired for entry, _ in league_bots(session=session, league=league)):
        # Ranks among the rows shown: a hidden retired version leaves no gap.
        rated = [s for s in rows if s.rank is not None]
        rows = [replace(s, rank=i) for i, s in enumerate(rated, 1)] + rows[len(rated) :]
    return rows


def league_population(results: list[MatchResult]) -> Population | None:
    """Nash averaging of the finished matches (every version, retired ones too: their
    games are evidence); ``None`` before the first match or if the equilibrium cannot
    be found within tolerance (:class:`PopulationError`): the view is then left out
    rather than shown wrong."""
    if not results:
        return None
    try:
        return nash_averaging(results)
    except PopulationError:
        return None


def crosstable(*, session: Session, league: LeagueRow) -> dict[str, dict[str, HeadToHead]]:
    """``table[a][b]``: a's head-to-head record against b."""
    results = finished_results(session=session, league=league)
    names = list(bot_labels(session=session, league=league).values())
    return {
        a: {b: head_to_head_from_results(results, a, b) for b in names if b != a} for a in names
    }
