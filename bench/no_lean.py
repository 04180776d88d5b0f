"""No lean: two copies of one bot, played by the real referee, must score 50% each.

    python -m bench.no_lean [--pairs 10000] [--bot example_bots.liars_dice_probability]
        [--game liars_dice] [--rule KEY=VALUE] [--concurrency 2] [--db PATH] [--json PATH]

The two copies are registered as two bots, ``new`` and ``old``, with the same command,
and play duplicate pairs exactly as ``arena sprt`` plays them: an SPRT league
(:mod:`league.store.sprt_tests`), its pairs scheduled by
:class:`~league.execution.sprt_runs.SprtSchedule` (told not to stop at a decision, so
all ``--pairs`` are played), refereed by :class:`~league.execution.league_run.LeagueRun`
in this process with the default sandbox, the warm pool (parking included) and the
CPU plan of every bot's control group, ``--concurrency`` matches at a time. With
``--db`` the league is kept in that SQLite file and a second run with the same file
resumes it.

What it prints (and ``--json`` saves): NEW's score over every match, and split by
what a referee could favour one side with. For each factor (the seat NEW sat in, who
moved first, the warm-pool slot of NEW's process — ``meta["pool_slots"]`` of the
record, :attr:`referee.runtime.launcher.Lease.slot`), and each level ``x`` of it:

* ``NEW|x``: NEW's score over the matches where NEW had ``x``, and ``OLD|x``: OLD's
  score over those where OLD had ``x`` (each with a 95% Wilson interval, a match
  counting its score in [0, 1] as successes). The game itself may favour ``x``
  (seat 0, moving first): both then show it alike;
* ``balanced``: ``½ + ½·mean_s(NEW|x,s − OLD|x,s)``, the difference between the copies
  taken within each seat ``s`` and averaged over the seats, so the game's own
  advantage of ``x`` (and of a seat) cancels, with its 95% normal interval (the
  variances added). **No lean means 50% inside every balanced interval.** For the
  seat factor NEW|x − OLD|x compares the two copies in one seat.

The overall row's interval is over pairs (the mean of a pair's score / 2, normal): the
two matches of a pair share a deal, so they are not independent. The split rows treat
matches as independent, which with duplicate pairs overstates their variance when the
deal decides (the halves of a pair are negatively correlated).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import trio
from sqlalchemy import Engine
from sqlmodel import col, select

from league.execution.league_run import LeagueRun, RunOptions
from league.execution.sprt_runs import SprtSchedule
from league.store.db import open_database, session_scope
from league.store.leagues import get_league
from league.store.models import MatchRow, SeatRow
from league.store.registry import NotFoundError, add_bot, get_bot
from league.store.sprt_tests import (
    SprtSettings,
    create_sprt_league,
    set_sprt_settings,
    sprt_settings,
)
from referee.runtime.sandbox import DEFAULT_SANDBOX, NO_SANDBOX

LEAGUE = "no-lean"
Z95 = 1.959964


@dataclass(frozen=True, slots=True)
class MatchView:
    """One finished match, from NEW's side."""

    pair: int
    new_seat: int
    new_score: float
    """1 NEW placed ahead, ½ level, 0 behind."""
    new_moved_first: bool
    new_slot: int
    """NEW's warm-pool slot (-1: the record does not say)."""
    old_slot: int


@dataclass(frozen=True, slots=True)
class Interval:
    value: float
    low: float
    high: float
    n: int

    def holds(self, point: float) -> bool:
        return self.low <= point <= self.high

    def text(self) -> str:
        if math.isnan(self.value):
            return "-"  # no stratum had both copies at this level
        return f"{100 * self.value:5.1f}% [{100 * self.low:5.1f}, {100 * self.high:5.1f}]"


def wilson(successes: float, n: int) -> Interval:
    """The 95% Wilson score interval of a proportion (``successes`` may be fractional)."""
    if n == 0:
        return Interval(math.nan, 0.0, 1.0, 0)
    p = successes / n
    denominator = 1.0 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    return Interval(p, centre - half, centre + half, n)


def mean_interval(values: Sequence[float]) -> Interval:
    """The mean of ``values`` with its 95% normal interval."""
    n = len(values)
    if n < 2:
        return Interval(values[0] if values else math.nan, 0.0, 1.0, n)
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(variance / n)
    return Interval(mean, mean - half, mean + half, n)


@dataclass(frozen=True, slots=True)
class SplitRow:
    factor: str
    level: str
    new: Interval
    """NEW's score where NEW had the level."""
    old: Interval
    """OLD's score where OLD had the level."""
    balanced: Interval

    def as_json(self) -> dict[str, object]:
        return {
            "factor": self.factor,
            "level": self.level,
            "new": asdict(self.new),
            "old": asdict(self.old),
            "balanced": asdict(self.balanced),
            "balanced_holds_50": self.balanced.holds(0.5),
        }


def balanced(cells: Sequence[tuple[Interval, Interval]]) -> Interval:
    """``½ + ½·mean(NEW − OLD)`` over the seat strata ``cells`` (NEW's and OLD's score in
    one seat with one level), the strata's variances added."""
    used = [(new, old) for new, old in cells if new.n and old.n]
    if not used:
        return Interval(math.nan, 0.0, 1.0, 0)
    difference = sum(new.value - old.value for new, old in used) / len(used)
    variance = sum(i.value * (1 - i.value) / i.n for new, old in used for i in (new, old)) / (
        4 * len(used) ** 2
    )
    value = 0.5 + difference / 2
    half = Z95 * math.sqrt(variance)
    return Interval(value, value - half, value + half, sum(new.n + old.n for new, old in used))


def split(matches: Sequence[MatchView], factor: str) -> list[SplitRow]:
    """The rows of one factor (``seat``, ``moved first`` or ``pool slot``).

    ``balanced`` compares NEW and OLD within each seat (a side's score with level ``x``
    in seat ``s``), so neither the game's seat advantage nor a link between the level
    and the seat (the pool hands a deal's second rotation another process) can pose as
    a lean."""

    def levels(m: MatchView) -> tuple[str, str]:  # (NEW's level, OLD's level)
        if factor == "seat":
            return str(m.new_seat), str(1 - m.new_seat)
        if factor == "moved first":
            return ("yes", "no") if m.new_moved_first else ("no", "yes")
        return str(m.new_slot), str(m.old_slot)

    def scores(level: str, seat: int | None) -> tuple[Interval, Interval]:
        new = [m.new_score for m in matches if levels(m)[0] == level and seat in (None, m.new_seat)]
        old = [
            1.0 - m.new_score
            for m in matches
            if levels(m)[1] == level and seat in (None, 1 - m.new_seat)
        ]
        return wilson(sum(new), len(new)), wilson(sum(old), len(old))

    seen = sorted({level for m in matches for level in levels(m)})
    rows = []
    for level in seen:
        new, old = scores(level, None)
        strata = [scores(level, seat) for seat in (0, 1)]
        rows.append(SplitRow(factor, level, new, old, balanced(strata)))
    return rows


def overall(matches: Sequence[MatchView]) -> Interval:
    """NEW's score over whole pairs (a pair's score / 2), normal 95% interval over pairs."""
    by_pair: dict[int, list[float]] = {}
    for m in matches:
        by_pair.setdefault(m.pair, []).append(m.new_score)
    return mean_interval([sum(s) / 2 for s in by_pair.values() if len(s) == 2])


def read_matches(engine: Engine, name: str = LEAGUE) -> list[MatchView]:
    """Every finished match of the league, from its rows and its record."""
    views: list[MatchView] = []
    with session_scope(engine) as session:
        league = get_league(session=session, name=name)
        new_id = get_bot(session=session, name="new").id
        rows = session.exec(
            select(MatchRow).where(MatchRow.league_id == league.id, MatchRow.status == "done")
        ).all()
        seats: dict[int, list[SeatRow]] = {}
        for seat in session.exec(
            select(SeatRow).where(col(SeatRow.match_id).in_([r.id for r in rows]))
        ):
            seats.setdefault(seat.match_id, []).append(seat)
        for row in rows:
            assert row.id is not None and row.record is not None
            by_seat = sorted(seats[row.id], key=lambda s: s.seat)
            new_seat = next(s.seat for s in by_seat if s.bot_id == new_id)
            places = [s.place or 0 for s in by_seat]
            new_place, old_place = places[new_seat], places[1 - new_seat]
            score = 0.5 if new_place == old_place else float(new_place < old_place)
            record = json.loads(zlib.decompress(row.record))
            first = next(e["seat"] for e in record["events"] if e.get("seat") is not None)
            slots = record.get("meta", {}).get("pool_slots", [-1, -1])
            views.append(
                MatchView(
                    pair=row.round,
                    new_seat=new_seat,
                    new_score=score,
                    new_moved_first=first == new_seat,
                    new_slot=slots[new_seat],
                    old_slot=slots[1 - new_seat],
                )
            )
    return views


def prepare(
    engine: Engine, *, bot: str, game: str, rules: dict[str, str], pairs: int, sandbox: bool
) -> None:
    """Register the two copies and the test's league, or raise ``max_pairs`` of a kept one."""
    command = f"{sys.executable} -m {bot}"
    with session_scope(engine) as session:
        try:
            get_league(session=session, name=LEAGUE)
        except NotFoundError:
            new = add_bot(session=session, name="new", command=command, games=[game])
            old = add_bot(session=session, name="old", command=command, games=[game])
            settings = SprtSettings(new_bot=new.id or 0, old_bot=old.id or 0, max_pairs=pairs)
            create_sprt_league(
                session=session,
                name=LEAGUE,
                game=game,
                new=new,
                old=old,
                settings=settings,
                rules=rules,
                sandbox=DEFAULT_SANDBOX if sandbox else NO_SANDBOX,
            )
            return
        league = get_league(session=session, name=LEAGUE)
        stored = sprt_settings(league)
        set_sprt_settings(
            session=session,
            league=league,
            settings=SprtSettings(**{**stored.to_dict(), "max_pairs": pairs}),  # type: ignore[arg-type]
        )


def play(engine: Engine, *, concurrency: int, progress_every: int) -> float:
    """Play the league's pairs to ``max_pairs``; the seconds it took."""
    played = [0]
    began = time.perf_counter()

    def report(_match_id: str) -> None:
        played[0] += 1
        if progress_every and played[0] % progress_every == 0:
            elapsed = time.perf_counter() - began
            print(f"  {played[0]} matches, {elapsed:.0f} s", file=sys.stderr, flush=True)

    run = LeagueRun(
        engine,
        LEAGUE,
        RunOptions(concurrency=concurrency, workers=1, handle_signals=True),
        schedule=SprtSchedule(engine, LEAGUE, decide=False),
        on_result=report,
    )
    summary = trio.run(run.play)
    if summary.aborted:
        print(f"  {len(summary.aborted)} aborted: {summary.aborted[0].error}", file=sys.stderr)
    return time.perf_counter() - began


def report_rows(matches: Sequence[MatchView]) -> tuple[Interval, list[SplitRow]]:
    rows = [
        row for factor in ("seat", "moved first", "pool slot") for row in split(matches, factor)
    ]
    return overall(matches), rows


def format_report(whole: Interval, rows: Sequence[SplitRow], matches: int) -> str:
    lines = [
        f"NEW's score over {whole.n} pairs ({matches} matches): {whole.text()}"
        f"  50% inside: {'yes' if whole.holds(0.5) else 'NO'}",
        "",
        f"{'factor':<12} {'level':<5} {'NEW|x':>24} {'OLD|x':>24} {'balanced':>24}  50%?",
    ]
    for row in rows:
        lines.append(
            f"{row.factor:<12} {row.level:<5} {row.new.text():>24} {row.old.text():>24}"
            f" {row.balanced.text():>24}  {'yes' if row.balanced.holds(0.5) else 'NO'}"
        )
    return "\n".join(lines)


@contextmanager
def database(path: Path | None) -> Iterator[Engine]:
    if path is not None:
        yield open_database(f"sqlite:///{path}")
        return
    with tempfile.TemporaryDirectory() as folder:
        yield open_database(f"sqlite:///{Path(folder) / 'no_lean.db'}")


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(
        prog="python -m bench.no_lean", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--pairs", type=int, default=20, help="duplicate pairs (2 matches each)")
    parser.add_argument("--bot", default="example_bots.liars_dice_probability", help="bot module")
    parser.add_argument("--game", default="liars_dice")
    parser.add_argument("--rule", action="append", default=[], help="rule option KEY=VALUE")
    parser.add_argument("--concurrency", type=int, default=2, help="matches at a time")
    parser.add_argument("--no-sandbox", action="store_true", help="only to measure the sandbox")
    parser.add_argument("--db", type=Path, help="keep (and resume) the league in this file")
    parser.add_argument("--json", type=Path, help="save the table here")
    parser.add_argument("--progress", type=int, default=500, help="a line every N matches")
    options = parser.parse_args(argv)
    rules = dict(rule.split("=", 1) for rule in options.rule)
    with database(options.db) as engine:
        prepare(
            engine,
            bot=options.bot,
            game=options.game,
            rules=rules,
            pairs=options.pairs,
            sandbox=not options.no_sandbox,
        )
        seconds = play(engine, concurrency=options.concurrency, progress_every=options.progress)
        matches = read_matches(engine)
        engine.dispose()
    whole, rows = report_rows(matches)
    print(format_report(whole, rows, len(matches)))
    print(f"\n{seconds:.0f} s this run ({len(matches)} matches in the league)")
    result: dict[str, object] = {
        "command": " ".join(
            ["python -m bench.no_lean", *(argv if argv is not None else sys.argv[1:])]
        ),
        "bot": options.bot,
        "game": options.game,
        "rules": rules,
        "matches": len(matches),
        "pairs": whole.n,
        "seconds_this_run": round(seconds, 1),
        "overall": asdict(whole),
        "overall_holds_50": whole.holds(0.5),
        "rows": [row.as_json() for row in rows],
    }
    if options.json is not None:
        options.json.write_text(json.dumps(result, indent=2) + "\n")
        print(f"written {options.json}")
    return result


if __name__ == "__main__":
    main()
