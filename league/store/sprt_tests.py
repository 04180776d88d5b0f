"""An SPRT stored as a league (``arena sprt``, ``docs/sprt.md``).

A test between NEW and OLD is a :class:`~league.store.models.LeagueRow` with
``mode = "sprt"``, both bots entered, and its :class:`SprtSettings` stored as JSON in
the league's ``rolling`` settings column (the column holds a non-fixed league's
settings; no migration needed). Its schedule grows one duplicate pair at a time
(:func:`extend_pairs`): pair ``P`` is duplicate group ``p{P}``, two matches on the
same deal (``deal_key(league secret, "p{P}")``) with NEW in seat 0 then in seat 1.
So the league run plays it like any league (transactional writes, sandbox, warm
pool, Ctrl-C), and standings, records and replays work unchanged.

Resuming needs nothing of its own: pairs are written before they are played and
the test's state (:func:`sprt_state`) is read from the finished matches alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace

from sqlalchemy import func
from sqlmodel import Session, col, select

from league.domain.luck import LuckError, LuckSprt
from league.domain.sprt_statistics import (
    EloEstimate,
    Pentanomial,
    SprtError,
    SprtParameters,
    decision,
    estimate,
    llr,
)
from league.store.leagues import (
    LeagueSettings,
    PendingMatch,
    new_league_row,
    settings_from_dict,
    stored_settings,
)
from league.store.luck_standings import luck_verdict
from league.store.models import BotRow, EntryRow, LeagueRow, MatchRow, SeatRow
from league.store.registry import LeagueError
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig

MODE = "sprt"


class SprtLeagueError(LeagueError):
    """An SPRT league operation with bad input (the message names it)."""


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """What ``arena sprt`` stores with the league."""

    new_bot: int
    """Bot id of NEW (the version under test)."""
    old_bot: int
    """Bot id of OLD (the baseline)."""
    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    max_pairs: int = 20_000
    """Stop without a decision after this many pairs are scheduled."""
    concurrency: int = 2
    """Matches at a time; pairs are scheduled ``max(1, concurrency // 2)`` at a time."""
    luck_adjusted: bool = False
    """Decide on the luck-adjusted pair scores (:mod:`league.store.luck_standings`): a
    GSPRT on their normal model, ``elo0``/``elo1`` in logistic Elo (``docs/ratings.md``)."""

    def __post_init__(self) -> None:
        self.parameters()
        if self.max_pairs < 1:
            raise SprtLeagueError(f"max_pairs must be at least 1, got {self.max_pairs}")
        if self.concurrency < 1:
            raise SprtLeagueError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.new_bot == self.old_bot:
            raise SprtLeagueError("NEW and OLD are the same bot version")

    def luck_test(self) -> LuckSprt:
        try:
            return LuckSprt(self.elo0, self.elo1, self.alpha, self.beta)
        except LuckError as error:
            raise SprtLeagueError(str(error)) from None

    def parameters(self) -> SprtParameters:
        try:
            return SprtParameters(self.elo0, self.elo1, self.alpha, self.beta)
        except SprtError as error:
            raise SprtLeagueError(str(error)) from None

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> SprtSettings:
        return settings_from_dict(cls, data, SprtLeagueError, "SPRT")


def sprt_settings(league: LeagueRow) -> SprtSettings:
    return stored_settings(
        league, mode=MODE, what="an SPRT", parse=SprtSettings.from_dict, error=SprtLeagueError
    )


def set_sprt_settings(*, session: Session, league: LeagueRow, settings: SprtSettings) -> None:
    """Store ``settings`` (a resumed test may raise ``max_pairs`` or the concurrency)."""
    league.rolling = json.dumps(settings.to_dict(), sort_keys=True)
    session.add(league)
    session.flush()


def create_sprt_league(
    *,
    session: Session,
    name: str,
    game: str,
    new: BotRow,
    old: BotRow,
    settings: SprtSettings,
    rules: dict[str, str] | None = None,
    decision_s: float = 2.0,
    startup_s: float = 15.0,
    sandbox: SandboxConfig | None = None,
    reproducible_seed: int | None = None,
) -> LeagueRow:
    """Write the test's league: NEW and OLD entered, no match yet."""
    for bot in (new, old):
        if game not in bot.games.split(","):
            raise SprtLeagueError(f"bot {bot.name!r} does not play {game} (it plays {bot.games})")
    league = new_league_row(
        session=session,
        name=name,
        settings=LeagueSettings(
            game=game,
            bots=(),
            rules=dict(rules or {}),
            table_size=2,
            reproducible_seed=reproducible_seed,
            decision_s=decision_s,
            startup_s=startup_s,
            sandbox=sandbox if sandbox is not None else DEFAULT_SANDBOX,
        ),
    )
    league.mode = MODE
    league.rounds = 0
    league.rolling = json.dumps(settings.to_dict(), sort_keys=True)
    session.add(league)
    session.flush()
    assert league.id is not None
    for bot in (new, old):
        session.add(EntryRow(league_id=league.id, bot_id=bot.id))  # type: ignore[arg-type]
    session.flush()
    return league


def pair_points(places: Mapping[int, int | None], *, new: int, old: int) -> float:
    """NEW's points in one match: 1 placed ahead of OLD, ½ level, 0 behind."""
    new_place, old_place = places[new] or 0, places[old] or 0
    if new_place == old_place:
        return 0.5
    return 1.0 if new_place < old_place else 0.0


def pentanomial(*, session: Session, league: LeagueRow) -> Pentanomial:
    """The outcomes of the pairs both of whose matches are done (in pair order)."""
    penta = Pentanomial()
    for total in pair_totals(session=session, league=league):
        penta = penta.add(total)
    return penta


def llr_path(*, session: Session, league: LeagueRow) -> tuple[list[float], float, float]:
    """The pentanomial test's LLR after each finished pair, in pair order, and its
    lower and upper bounds (the SPRT's chart)."""
    parameters = sprt_settings(league).parameters()
    penta = Pentanomial()
    path: list[float] = []
    for total in pair_totals(session=session, league=league):
        penta = penta.add(total)
        path.append(llr(penta, parameters))
    return path, parameters.lower, parameters.upper


def pair_totals(*, session: Session, league: LeagueRow) -> list[float]:
    """NEW's points in each pair both of whose matches are done (0, ½, …, 2), in pair
    order."""
    settings = sprt_settings(league)
    points: dict[str, list[float]] = {}
    places: dict[int, dict[int, int | None]] = {}
    groups: dict[int, str] = {}
    # The four columns, not whole rows: a run reads this after every match, and
    # loading each match's row with its record grew with the test (7 s of a 147-pair run).
    rows = session.exec(
        select(SeatRow.match_id, SeatRow.bot_id, SeatRow.place, MatchRow.group_key)
        .join(MatchRow, col(SeatRow.match_id) == MatchRow.id)
        .where(MatchRow.league_id == league.id, MatchRow.status == "done")
    )
    for match_id, bot_id, place, group_key in rows:
        places.setdefault(match_id, {})[bot_id] = place
        groups[match_id] = group_key
    for match_id, by_bot in places.items():
        scored = pair_points(by_bot, new=settings.new_bot, old=settings.old_bot)
        points.setdefault(groups[match_id], []).append(scored)
    ordered = sorted(points, key=lambda g: int(g[1:]))
    return [sum(points[group]) for group in ordered if len(points[group]) == 2]


@dataclass(frozen=True, slots=True)
class SprtState:
    """Where the test stands, from the database alone."""

    penta: Pentanomial
    llr: float
    lower: float
    upper: float
    decision: str
    """``H0``, ``H1`` or ``continue``."""
    estimate: EloEstimate
    scheduled_pairs: int
    luck: bool = False
    """The LLR is the luck-adjusted test's (:attr:`SprtSettings.luck_adjusted`)."""

    def progress_line(self) -> str:
        """One line of progress, fastchess-like."""
        e = self.estimate
        counts = ", ".join(str(c) for c in self.penta.counts)
        return (
            f"pairs {self.penta.pairs}  ptnml(0-2) [{counts}]"
            f"  {'luck-adjusted ' if self.luck else ''}LLR {self.llr:.2f}"
            f" ({self.lower:.2f}, {self.upper:.2f})"
            f"  Elo {e.elo:+.1f} [{e.elo_low:+.1f}, {e.elo_high:+.1f}]"
            f"  nElo {e.nelo:+.1f} ± {e.nelo_margin:.1f}"
        )


def sprt_state(*, session: Session, league: LeagueRow) -> SprtState:
    parameters = sprt_settings(league).parameters()
    penta = pentanomial(session=session, league=league)
    value = llr(penta, parameters)
    state = SprtState(
        penta=penta,
        llr=value,
        lower=parameters.lower,
        upper=parameters.upper,
        decision=decision(value, parameters),
        estimate=estimate(penta),
        scheduled_pairs=_scheduled_pairs(session=session, league=league),
    )
    settings = sprt_settings(league)
    if not settings.luck_adjusted:
        return state
    value, lower, upper, verdict = luck_verdict(
        session=session,
        league=league,
        new_bot=settings.new_bot,
        old_bot=settings.old_bot,
        test=settings.luck_test(),
    )
    return replace(state, llr=value, lower=lower, upper=upper, decision=verdict, luck=True)


def _scheduled_pairs(*, session: Session, league: LeagueRow) -> int:
    last_round = session.exec(
        select(func.max(MatchRow.round)).where(MatchRow.league_id == league.id)
    ).one()
    return 0 if last_round is None else last_round + 1


def extend_pairs(*, session: Session, league: LeagueRow, decide: bool = True) -> list[PendingMatch]:
    """Schedule the next pairs, or none once the test has decided (``decide``; without
    it, pairs go on to ``max_pairs``, as ``bench/no_lean.py`` plays them) or reached
    ``max_pairs``. Pair ``P`` is round ``P``, group ``p{P}``: position ``2P`` seats
    NEW first, ``2P + 1`` seats OLD first, both on the group's deal."""
    settings = sprt_settings(league)
    if decide and sprt_state(session=session, league=league).decision != "continue":
        return []
    first = _scheduled_pairs(session=session, league=league)
    count = min(max(1, settings.concurrency // 2), settings.max_pairs - first)
    new = session.get(BotRow, settings.new_bot)
    old = session.get(BotRow, settings.old_bot)
    if new is None or old is None:
        raise SprtLeagueError(f"league {league.name!r} names a bot that no longer exists")
    assert league.id is not None
    created: list[PendingMatch] = []
    for pair in range(first, first + max(count, 0)):
        group = f"p{pair}"
        for rotation, seated in enumerate(((new, old), (old, new))):
            match = MatchRow(
                league_id=league.id,
                position=2 * pair + rotation,
                round=pair,
                table=0,
                rotation=rotation,
                group_key=group,
            )
            session.add(match)
            session.flush()
            assert match.id is not None
            for seat, bot in enumerate(seated):
                session.add(SeatRow(match_id=match.id, seat=seat, bot_id=bot.id))  # type: ignore[arg-type]
            created.append(PendingMatch(match.id, match.position, group, seated))
    session.flush()
    return created
