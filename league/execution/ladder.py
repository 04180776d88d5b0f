"""The reference-bot ladder: random < heuristic < strong, per game, measured.

One command plays a round-robin league per game between the example bots over
real gRPC, sandboxed exactly like ``arena league run``, and writes a Markdown
table: Bradley–Terry Elo with its 95% bootstrap interval, the likelihood of
superiority over the next bot down, and each bot's decision latency as the
referee measured it (``elapsed_ms`` of every action in the match records).

Below each game's table, the strong bot's worst case against simple
counter-strategies (``Roster.counter_set``, issue 22): its win rate against each
of them over duplicate deals, played in process by
:mod:`league.execution.counters` (``sdk.local``, no gRPC and no sandbox: the
bots' moves are the same, and it is several times faster: 200 matches per
counter bot take seconds for most games, about three minutes in all for Liar's
Poker), the worst of them and whether it reaches 60%. ``render_markdown`` takes
an optional ``exploitability`` mapping (strong bot module → text) for that
table's last column.

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

# long module: the reference ladder end to end (a league per game, its table, the strong
# bot's worst case, latencies): one report's pipeline

from __future__ import annotations

import importlib.util
import math
import secrets
import statistics
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Final

import trio
import typer
from sqlalchemy import Engine
from sqlmodel import select

from league.execution.counters import TARGET, Score, bot_class, measure, worst
from league.execution.exploit import bracket, in_process_answers, sampled_measurement
from league.execution.league_run import LeagueRun, RunOptions
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
from referee.analysis.best_response import GameTree, exploitability
from referee.core.catalogue import Roster, entries, get_game
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig


def rosters() -> dict[str, Roster]:
    """Per game with example bots: its roster in the catalogue."""
    return {entry.name: entry.roster for entry in entries() if entry.roster is not None}


def ladder_bots() -> dict[str, tuple[str, ...]]:
    """Per game with a roster in the catalogue: the ladder's bots (``example_bots``
    modules), weakest expected first."""
    return {game: roster.ladder for game, roster in rosters().items()}


QUICK_ROUNDS = 3
DEFAULT_ROUNDS = 10
COUNTER_MATCHES = 200
"""Per counter bot: issue 22 asks for 60% in 200 duplicate-paired matches."""
QUICK_COUNTER_MATCHES = 20


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
class WorstCase:
    """A game's strong bot against its counter set (:mod:`league.execution.counters`)."""

    strong: str
    seats: int
    matches: int
    """Per counter bot: ``matches // seats`` deals, each played once per seat."""
    seed: int
    """Deal ``j`` comes from seed ``seed + j`` (``python -m bench.counters --seed``)."""
    scores: tuple[Score, ...]
    missing: tuple[str, ...] = ()
    """Counter bots not in this checkout (skipped)."""


@dataclass(frozen=True, slots=True)
class GameLadder:
    game: str
    league: str
    rounds: int
    rows: tuple[LadderRow, ...]
    missing: tuple[str, ...] = ()
    seats: int = 2
    """Seats per match (the roster's ``ladder_seats``: three for Cockroach Poker)."""
    worst_case: WorstCase | None = None


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


def worst_case(game: str, *, matches: int, seed: int) -> WorstCase | None:
    """The strong bot of ``game`` against every counter bot present, about ``matches``
    each (rounded up to whole deals) under the ladder's table size and rules; None when
    the game has no strong bot, no counter set, or neither is in this checkout."""
    roster = rosters()[game]
    if roster.strong is None or not module_exists(roster.strong):
        return None
    present = [m for m in roster.counter_set if module_exists(m)]
    if not present:
        return None
    seats = roster.ladder_seats
    per_counter = seats * math.ceil(matches / seats)
    scores = measure(game, per_counter, seed, dict(roster.rules), seats, counters=present)
    missing = tuple(m for m in roster.counter_set if m not in present)
    return WorstCase(roster.strong, seats, per_counter, seed, tuple(scores), missing)


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


def _elo_table(ladder: GameLadder) -> list[str]:
    """The game's ratings: one row per bot, best first."""
    matches = sum(row.matches for row in ladder.rows) // ladder.seats
    seats = {2: "two", 3: "three"}.get(ladder.seats, str(ladder.seats))
    lines = [
        f"League `{ladder.league}`: {ladder.rounds} round(s) of the round-robin,"
        f" {matches} {seats}-seat matches.",
        "",
        "| rank | bot | Elo | 95% interval | LOS vs next | matches | wins"
        " | decisions | median ms | p99 ms | faults |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in ladder.rows:
        interval = f"{_fmt(row.lo)} .. {_fmt(row.hi)}" if row.elo is not None else "-"
        los = f"{row.los_next:.1%}" if row.los_next is not None else "-"
        faults = ", ".join(f"{k} {v}" for k, v in sorted(row.faults.items())) or "-"
        lines.append(
            f"| {row.rank or '-'} | `{row.bot}` | {_fmt(row.elo)} | {interval} | {los}"
            f" | {row.matches} | {row.wins} | {row.decisions}"
            f" | {_fmt(row.median_ms, 2)} | {_fmt(row.p99_ms, 2)} | {faults} |"
        )
    return lines


def _short(game: str, module: str) -> str:
    """A counter bot's module without its game's prefix (a column header)."""
    return module.removeprefix(f"{game}_")


def worst_case_table(
    game: str, case: WorstCase, exploitability: Mapping[str, str] | None = None
) -> list[str]:
    """The strong bot's win rate against each counter bot, its worst, the 60% target,
    and its exploitability (``exploitability[strong]``; "-" when not given)."""
    headers = [_short(game, score.counter) for score in case.scores]
    low = worst(case.scores)
    deals = case.matches // case.seats
    met = "yes" if low.rate >= TARGET else "**no**"
    cells = [f"{score.rate:.1%}" for score in case.scores]
    exploit = (exploitability or {}).get(case.strong, "-")
    lines = [
        "#### Worst case against counter-strategies",
        "",
        f"`{case.strong}` against each counter bot: {case.matches} matches each"
        f" ({deals} deals, each played once per seat, the strong bot in each seat in"
        f" turn; {case.seats} seats; deal j from seed {case.seed} + j), in process."
        " Win rate: first place alone 1, shared ½.",
        "",
        f"| strong bot | {' | '.join(headers)} | worst | ≥ {TARGET:.0%} | exploitability |",
        f"|---|{'---:|' * len(headers)}---|---|---:|",
        f"| `{case.strong}` | {' | '.join(cells)} | {low.rate:.1%} ({_short(game, low.counter)})"
        f" | {met} | {exploit} |",
    ]
    if low.rate < TARGET:
        lines += ["", "Below the target: docs/bots.md (Counter-strategies) says where and why."]
    if case.missing:
        lines += ["", "Counter bots not in this checkout (skipped): " + _modules(case.missing)]
    return lines


EXPLOIT_SAMPLES: Final = 4
"""Answers asked per information set when the ladder measures exploitability."""


def strong_exploitability(
    game: str, *, samples: int = EXPLOIT_SAMPLES, seed: int = 0
) -> str | None:
    """The exploitability column of ``game``'s strong bot: the sampled bracket of
    ``league.execution.exploit`` on the roster's ``exploit_rules`` (an enumerable
    variant), the bot run in process; ``None`` without such a variant or bot."""
    roster = rosters()[game]
    if roster.strong is None or roster.exploit_rules is None or not module_exists(roster.strong):
        return None
    start = time.perf_counter()
    engine = get_game(game)
    rules = dict(roster.exploit_rules)
    tree = GameTree(engine, engine.parse_rules(rules))
    exact, answers = in_process_answers(bot_class(roster.strong), tree, samples)
    variant = ", ".join(f"{k}={v}" for k, v in rules.items())
    if exact is not None:
        value, _ = exploitability(tree, exact)
        text = f"{value:.4f} (its stated policy; {variant})"
    else:
        result = bracket(tree, answers, samples, bootstrap=10, seed=seed)
        stored = sampled_measurement(tree, result, 0.0)  # its rule for when there is an interval
        interval = (
            f"95% [{stored.low:.3f}, {stored.high:.3f}]"
            if stored.low is not None and stored.high is not None
            else "no interval"
        )
        text = f"{result.upper:.3f}, {interval} (K={samples} sampled; {variant})"
    typer.echo(
        f"{game}: exploitability of {roster.strong} in {time.perf_counter() - start:.1f} s",
        err=True,
    )
    return text


def _modules(modules: Sequence[str]) -> str:
    return ", ".join(f"`example_bots.{m}`" for m in modules) + "."


def render_markdown(
    ladders: Sequence[GameLadder],
    *,
    command: str = "",
    exploitability: Mapping[str, str] | None = None,
) -> str:
    """The ladder as Markdown: a table per game, its strong bot's worst case against
    the counter set, notes for skipped bots. ``exploitability`` maps a strong bot's
    module to the text of its exploitability column."""
    lines: list[str] = []
    if command:
        lines += [f"Reproduce with `{command}`.", ""]
    for ladder in ladders:
        lines += [f"### {ladder.game}", ""]
        if not ladder.rows:
            lines.append("(not played: fewer than two ladder bots in this checkout)")
        else:
            lines += _elo_table(ladder)
        if ladder.missing:
            lines += ["", "Not in this checkout (skipped): " + _modules(ladder.missing)]
        if ladder.worst_case is not None:
            lines += ["", *worst_case_table(ladder.game, ladder.worst_case, exploitability)]
        lines.append("")
    lines.append(
        "Elo: batch Bradley–Terry fit (mean 1500) with a 95% bootstrap interval over"
        " duplicate groups; LOS vs next: share of bootstrap samples in which the bot"
        " out-rates the one ranked just below it; latency: the referee's measured"
        " answer time per decision over gRPC (sandboxed), median and 99th percentile."
        " Worst case: in-process matches (`sdk.local`, no sandbox), the measurement of"
        " `python -m bench.counters`. Exploitability: what an exact best response wins"
        " (+1 a win, -1 a loss, mean over seats) against the strong bot on its game's"
        " enumerable variant, from K sampled answers per information set in process:"
        " the plug-in value with a 95% interval (`arena exploit`,"
        ' docs/exploitability.md); "-" where no variant is small enough.'
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
    counter_matches: int = 0,
    counter_seed: int = 1,
) -> list[GameLadder]:
    """Create (or resume) and play every game's ladder league; return the tables.

    With ``counter_matches`` > 0, also each strong bot's worst case against its
    counter set (about that many matches per counter bot, deals from ``counter_seed``)
    for the games whose strong bot is on the ladder (not filtered out by ``bots``).
    """
    ladders = []
    for game, league, missing in prepare(
        engine,
        games,
        rounds=rounds,
        bots=bots,
        sandbox=sandbox,
        reproducible_seed=reproducible_seed,
    ):
        rows: tuple[LadderRow, ...] = ()
        if league:
            options = RunOptions(concurrency=concurrency, workers=workers)
            rows = tuple(_play_league(engine, game, league, options, samples=samples))
        case = None
        strong = rosters()[game].strong
        if counter_matches > 0 and (bots is None or strong in bots):
            start = time.perf_counter()
            case = worst_case(game, matches=counter_matches, seed=counter_seed)
            if case is not None:
                typer.echo(
                    f"{game}: worst case, {case.matches} matches x {len(case.scores)}"
                    f" counter bots in {time.perf_counter() - start:.1f} s",
                    err=True,
                )
        seats = rosters()[game].ladder_seats
        ladders.append(
            GameLadder(game, league, rounds, rows, tuple(missing), seats, worst_case=case)
        )
    return ladders


def _play_league(
    engine: Engine, game: str, league: str, options: RunOptions, *, samples: int
) -> list[LadderRow]:
    """Play one game's ladder league to the end and return its rows."""
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
        faults = startup_faults(session=session, league=get_league(session=session, name=league))
    for bot, (count, message) in sorted(faults.items()):
        typer.echo(f"{game}: {bot} did not start in {count} match(es): {message}", err=True)
    return ladder_rows(engine, league, samples=samples)


app = typer.Typer(add_completion=False, rich_markup_mode=None)


@app.command()  # long: one typer option per parameter; the body is 35 lines
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
    counter_matches: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Matches of each strong bot against each counter bot, in process (default"
            f" {COUNTER_MATCHES}, --quick {QUICK_COUNTER_MATCHES}; 0: no worst-case table).",
        ),
    ] = None,
    exploit_samples: Annotated[
        int,
        typer.Option(
            min=0,
            help="Answers per information set when measuring a strong bot's exploitability"
            " on its game's enumerable variant, in process (0: not measured).",
        ),
    ] = EXPLOIT_SAMPLES,
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
                counter_matches=_counter_matches(counter_matches, quick=quick),
                counter_seed=(
                    reproducible_seed if reproducible_seed is not None else secrets.randbelow(2**31)
                ),
            )
        finally:
            engine.dispose()
    command = _command(
        quick=quick,
        rounds=rounds,
        game=game or [],
        bot=bot or [],
        reproducible_seed=reproducible_seed,
        counter_matches=counter_matches,
        exploit_samples=exploit_samples,
    )
    measured = {
        roster.strong: text
        for name in games
        if (roster := rosters()[name]).strong is not None
        and (bot is None or roster.strong in bot)
        and exploit_samples > 0
        and (
            text := strong_exploitability(
                name, samples=exploit_samples, seed=reproducible_seed or 0
            )
        )
        is not None
    }
    text = render_markdown(ladders, command=command, exploitability=measured)
    typer.echo(text)
    if out is not None:
        out.write_text(text)
        typer.echo(f"written to {out}", err=True)


def _command(
    *,
    quick: bool,
    rounds: int | None,
    game: Sequence[str],
    bot: Sequence[str],
    reproducible_seed: int | None,
    counter_matches: int | None,
    exploit_samples: int = EXPLOIT_SAMPLES,
) -> str:
    """The command line that reproduces this ladder (shown above the tables)."""
    return " ".join(
        [
            "python -m league.execution.ladder",
            *(["--quick"] if quick else []),
            *([f"--rounds {rounds}"] if rounds is not None else []),
            *(f"--game {g}" for g in game),
            *(f"--bot {b}" for b in bot),
            *(
                [f"--reproducible-seed {reproducible_seed}"]
                if reproducible_seed is not None
                else []
            ),
            *([f"--counter-matches {counter_matches}"] if counter_matches is not None else []),
            *(
                [f"--exploit-samples {exploit_samples}"]
                if exploit_samples != EXPLOIT_SAMPLES
                else []
            ),
        ]
    )


def _counter_matches(given: int | None, *, quick: bool) -> int:
    if given is not None:
        return given
    return QUICK_COUNTER_MATCHES if quick else COUNTER_MATCHES


if __name__ == "__main__":
    app()
