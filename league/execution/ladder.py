"""The reference-bot ladder: random < heuristic < strong, per game, measured.

One command plays a round-robin league per game between the example bots over
real gRPC, sandboxed exactly like ``arena league run``, and writes a Markdown
table: Bradley–Terry Elo with its 95% bootstrap interval, the likelihood of
superiority over the next bot down, and each bot's decision latency as the
referee measured it (``elapsed_ms`` of every action in the match records).

    python -m league.execution.ladder --quick            # minutes; prints the table
    python -m league.execution.ladder --rounds 25        # tighter intervals
    make ladder                  # 10 rounds, also written to build/ladder.md
    make ladder LADDER_OUT=docs/ladder.md                # refresh the tracked docs page

The table goes to stdout, and to a file only with ``--out``: the tracked
``docs/ladder.md`` changes only when somebody asks for it by name. ``make ladder``
first builds the optimal Dice Poker bot's value table (``make dice-poker-table``);
without it that bot refuses to start, and its row shows the ``startup`` faults.

Strong bots are written in parallel with this module, so they are looked up by
module name at run time; a missing one is skipped with a note in the output
rather than failing the ladder.

By default every run uses a fresh temporary database, so anybody repeating the
command gets a comparable table (the deals come from a fresh secret each time;
pass ``--reproducible-seed`` for identical deals).
"""

from __future__ import annotations

import importlib.util
import math
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated

import trio
import typer
from sqlalchemy import Engine
from sqlmodel import select

from league.execution.run import LeagueRun, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    decompress_record,
    get_league,
    league_status,
    startup_faults,
)
from league.store.models import MatchRow
from league.store.registry import NotFoundError, ensure_example_bot
from league.store.standings import standings
from referee.core.catalogue import Roster, entries
from referee.sandbox import DEFAULT_SANDBOX, SandboxConfig


def rosters() -> dict[str, Roster]:
    """Per game with example bots: its roster in the catalogue."""
    return {entry.name: entry.roster for entry in entries() if entry.roster is not None}


def ladder_bots() -> dict[str, tuple[str, ...]]:
    """Per game with a roster in the catalogue: the ladder's bots (``example_bots``
    modules), weakest expected first."""
    return {game: roster.ladder for game, roster in rosters().items()}


QUICK_ROUNDS = 3
DEFAULT_ROUNDS = 10


def module_exists(module: str) -> bool:
    """Whether ``example_bots.<module>`` is importable in this checkout."""
    return importlib.util.find_spec(f"example_bots.{module}") is not None


def available(game: str) -> tuple[list[str], list[str]]:
    """The ladder bots of ``game`` present in this checkout, and those missing."""
    bots = ladder_bots()[game]
    present = [m for m in bots if module_exists(m)]
    missing = [m for m in bots if m not in present]
    return present, missing


@dataclass(frozen=True, slots=True)
class LadderRow:
    """One bot's line in a game's ladder."""

    rank: int | None
    bot: str
    elo: float | None
    lo: float | None
    hi: float | None
    matches: int
    wins: int
    los_next: float | None
    """Likelihood of superiority over the bot ranked just below (None for the last)."""
    decisions: int
    median_ms: float | None
    p99_ms: float | None
    faults: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GameLadder:
    game: str
    league: str
    rounds: int
    rows: tuple[LadderRow, ...]
    missing: tuple[str, ...] = ()
    seats: int = 2
    """Seats per match (the roster's ``ladder_seats``: three for Cockroach Poker)."""


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..1) of already sorted values."""
    if not sorted_values:
        raise ValueError("no values")
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def decision_times(engine: Engine, league_name: str) -> dict[str, list[float]]:
    """Every action's referee-measured answer time (ms), by bot name, from the
    league's finished match records."""
    times: dict[str, list[float]] = {}
    with session_scope(engine) as session:
        league = get_league(session=session, name=league_name)
        for data in session.exec(
            select(MatchRow.record).where(
                MatchRow.league_id == league.id, MatchRow.status == "done"
            )
        ):
            if data is None:
                continue
            record = decompress_record(data)
            names = {seat.seat: seat.bot for seat in record.seats}
            for event in record.events:
                if event.seat is not None and event.elapsed_ms is not None:
                    times.setdefault(names[event.seat], []).append(event.elapsed_ms)
    return times


def ladder_rows(engine: Engine, league_name: str, *, samples: int = 1000) -> list[LadderRow]:
    """The league's standings joined with its bots' latencies, best first."""
    with session_scope(engine) as session:
        league = get_league(session=session, name=league_name)
        table = standings(session=session, league=league, samples=samples)
    times = decision_times(engine, league_name)
    rows = []
    for index, standing in enumerate(table):
        below = table[index + 1].bot if index + 1 < len(table) else None
        elapsed = sorted(times.get(standing.bot, []))
        rows.append(
            LadderRow(
                rank=standing.rank,
                bot=standing.bot,
                elo=standing.elo,
                lo=standing.lo,
                hi=standing.hi,
                matches=standing.matches,
                wins=standing.wins,
                los_next=standing.los.get(below) if below is not None else None,
                decisions=len(elapsed),
                median_ms=statistics.median(elapsed) if elapsed else None,
                p99_ms=percentile(elapsed, 0.99) if elapsed else None,
                faults=standing.faults,
            )
        )
    return rows


def prepare(
    engine: Engine,
    games: Sequence[str],
    *,
    rounds: int,
    bots: Sequence[str] | None = None,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
    reproducible_seed: int | None = None,
) -> list[tuple[str, str, list[str]]]:
    """Register the bots and create one league per game: ``(game, league, missing)``.

    ``bots`` restricts every game to those modules (for a small run or a test).
    """
    created = []
    with session_scope(engine) as session:
        for game in games:
            present, missing = available(game)
            if bots is not None:
                present = [m for m in present if m in bots]
            roster = rosters()[game]
            if len(present) < roster.ladder_seats:
                created.append((game, "", missing))
                continue
            for module in present:
                ensure_example_bot(session=session, module=module, game=game)
            league = f"ladder-{game}"
            try:
                get_league(session=session, name=league)
            except NotFoundError:
                create_league(
                    session=session,
                    name=league,
                    settings=LeagueSettings(
                        game=game,
                        bots=tuple(present),
                        rules=dict(roster.rules),
                        table_size=roster.ladder_seats,
                        rounds=rounds,
                        sandbox=sandbox,
                        reproducible_seed=reproducible_seed,
                    ),
                )
            created.append((game, league, missing))
    return created


def _fmt(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    if not math.isfinite(value):
        return "∞" if value > 0 else "-∞"
    return f"{value:.{digits}f}"


def render_markdown(ladders: Sequence[GameLadder], *, command: str = "") -> str:
    """The ladder as Markdown: a table per game, notes for skipped bots."""
    lines: list[str] = []
    if command:
        lines += [f"Reproduce with `{command}`.", ""]
    for ladder in ladders:
        lines.append(f"### {ladder.game}")
        lines.append("")
        if not ladder.rows:
            lines.append("(not played: fewer than two ladder bots in this checkout)")
        else:
            matches = sum(row.matches for row in ladder.rows) // ladder.seats
            seats = {2: "two", 3: "three"}.get(ladder.seats, str(ladder.seats))
            lines.append(
                f"League `{ladder.league}`: {ladder.rounds} round(s) of the round-robin,"
                f" {matches} {seats}-seat matches."
            )
            lines.append("")
            lines.append(
                "| rank | bot | Elo | 95% interval | LOS vs next | matches | wins"
                " | decisions | median ms | p99 ms | faults |"
            )
            lines.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
            for row in ladder.rows:
                interval = f"{_fmt(row.lo)} .. {_fmt(row.hi)}" if row.elo is not None else "-"
                los = f"{row.los_next:.1%}" if row.los_next is not None else "-"
                faults = ", ".join(f"{k} {v}" for k, v in sorted(row.faults.items())) or "-"
                lines.append(
                    f"| {row.rank or '-'} | `{row.bot}` | {_fmt(row.elo)} | {interval} | {los}"
                    f" | {row.matches} | {row.wins} | {row.decisions}"
                    f" | {_fmt(row.median_ms, 2)} | {_fmt(row.p99_ms, 2)} | {faults} |"
                )
        if ladder.missing:
            lines.append("")
            lines.append(
                "Not in this checkout (skipped): "
                + ", ".join(f"`example_bots.{m}`" for m in ladder.missing)
                + "."
            )
        lines.append("")
    lines.append(
        "Elo: batch Bradley–Terry fit (mean 1500) with a 95% bootstrap interval over"
        " duplicate groups; LOS vs next: share of bootstrap samples in which the bot"
        " out-rates the one ranked just below it; latency: the referee's measured"
        " answer time per decision over gRPC (sandboxed), median and 99th percentile."
    )
    return "\n".join(lines) + "\n"


def run_ladder(
    engine: Engine,
    games: Sequence[str],
    *,
    rounds: int,
    concurrency: int,
    workers: int | None = 1,
    samples: int = 1000,
    bots: Sequence[str] | None = None,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
    reproducible_seed: int | None = None,
) -> list[GameLadder]:
    """Create (or resume) and play every game's ladder league; return the tables."""
    ladders = []
    for game, league, missing in prepare(
        engine,
        games,
        rounds=rounds,
        bots=bots,
        sandbox=sandbox,
        reproducible_seed=reproducible_seed,
    ):
        if not league:
            ladders.append(GameLadder(game, league, rounds, (), tuple(missing)))
            continue
        options = RunOptions(concurrency=concurrency, workers=workers)
        summary = trio.run(LeagueRun(engine, league, options).play)
        if summary.aborted or summary.interrupted:
            raise RuntimeError(
                f"league {league}: {len(summary.aborted)} match(es) aborted"
                + (", interrupted" if summary.interrupted else "")
            )
        with session_scope(engine) as session:
            status = league_status(session=session, league=get_league(session=session, name=league))
        typer.echo(f"{game}: {status.done} matches in {summary.elapsed_s:.1f} s", err=True)
        with session_scope(engine) as session:
            faults = startup_faults(
                session=session, league=get_league(session=session, name=league)
            )
        for bot, (count, message) in sorted(faults.items()):
            typer.echo(f"{game}: {bot} did not start in {count} match(es): {message}", err=True)
        rows = ladder_rows(engine, league, samples=samples)
        seats = rosters()[game].ladder_seats
        ladders.append(GameLadder(game, league, rounds, tuple(rows), tuple(missing), seats))
    return ladders


app = typer.Typer(add_completion=False, rich_markup_mode=None)


@app.command()
def main(
    quick: Annotated[
        bool, typer.Option("--quick", help=f"{QUICK_ROUNDS} rounds: a first look in minutes.")
    ] = False,
    rounds: Annotated[
        int | None, typer.Option(min=1, help=f"Round-robin repetitions (default {DEFAULT_ROUNDS}).")
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Matches at a time.")] = 2,
    workers: Annotated[
        int, typer.Option(min=1, help="Referee processes (1: referee in this process).")
    ] = 1,
    game: Annotated[
        list[str] | None, typer.Option("--game", "-g", help="Only this game (repeatable).")
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option("--bot", "-b", help="Only these example_bots modules (repeatable)."),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(help="Database URL to keep the leagues in (default: a fresh temporary one)."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Also write the Markdown table to this file (make ladder: build/ladder.md;"
            " docs/ladder.md only when named here)."
        ),
    ] = None,
    samples: Annotated[int, typer.Option(min=10, help="Bootstrap resamples.")] = 1000,
    reproducible_seed: Annotated[
        int | None, typer.Option(min=0, help="Derive every deal from this seed (repeatable runs).")
    ] = None,
    no_sandbox: Annotated[
        bool, typer.Option("--no-sandbox", help="Run the bots unsandboxed (trusted bots only).")
    ] = False,
) -> None:
    """Play the reference-bot ladder of every game and print it as Markdown."""
    known = ladder_bots()
    games = list(game) if game else list(known)
    unknown = [g for g in games if g not in known]
    if unknown:
        raise typer.BadParameter(f"no ladder for {', '.join(unknown)}", param_hint="--game")
    played_rounds = rounds if rounds is not None else QUICK_ROUNDS if quick else DEFAULT_ROUNDS
    sandbox = replace(DEFAULT_SANDBOX, enabled=not no_sandbox)
    with tempfile.TemporaryDirectory(prefix="ladder-") as scratch:
        engine = open_database(db or f"sqlite:///{Path(scratch) / 'ladder.db'}")
        try:
            ladders = run_ladder(
                engine,
                games,
                rounds=played_rounds,
                concurrency=concurrency,
                workers=workers,
                samples=samples,
                bots=bot,
                sandbox=sandbox,
                reproducible_seed=reproducible_seed,
            )
        finally:
            engine.dispose()
    command = " ".join(
        [
            "python -m league.execution.ladder",
            *(["--quick"] if quick else []),
            *([f"--rounds {rounds}"] if rounds is not None else []),
            *(f"--game {g}" for g in game or []),
            *(f"--bot {b}" for b in bot or []),
            *(
                [f"--reproducible-seed {reproducible_seed}"]
                if reproducible_seed is not None
                else []
            ),
        ]
    )
    text = render_markdown(ladders, command=command)
    typer.echo(text)
    if out is not None:
        out.write_text(text)
        typer.echo(f"written to {out}", err=True)


if __name__ == "__main__":
    app()
