"""``arena league``: create, run, inspect and delete leagues."""

# long module: the `arena league` command group: a CLI module holds one command group
# (docs/architecture.md), its commands share options and output helpers

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final, TextIO

import typer

from league.cli.common import (
    EXIT_ABORTED,
    EXIT_INTERRUPTED,
    EXIT_LOST_WORKER,
    MATCH_NAME,
    MATCH_NAME_HELP,
    SANDBOX_DEFAULTS,
    CpuOption,
    CpusOption,
    MatchName,
    MemoryOption,
    NoSandboxOption,
    ProcsOption,
    check_sandbox,
    context_of,
    echo_json,
    echo_table,
    fail,
    parse_match_name,
    parse_rule_options,
    sandbox_config,
    transaction,
)
from referee.runtime.sandbox_config import SandboxError

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlmodel import Session

    from league.domain.luck import LuckSummary
    from league.domain.ratings import PairElo
    from league.execution.league_run import FinishedMatch, Progress, RunOptions, RunSummary
    from league.execution.ray_executor import RayOptions
    from league.store.bluff import LeagueBluff
    from league.store.models import MatchRow
    from league.store.standings import Standing

app = typer.Typer(
    help="Round-robin leagues with ratings.", no_args_is_help=True, rich_markup_mode=None
)


@app.command("create")
def create_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name (no spaces).")],
    game: Annotated[str, typer.Option("--game", "-g", help="Game name.")],
    bot: Annotated[list[str], typer.Option("--bot", "-b", help="Registered bot (repeatable).")],
    rule: Annotated[
        list[str] | None, typer.Option("--rule", "-r", help="Rule option key=value.")
    ] = None,
    table_size: Annotated[int, typer.Option(min=2, help="Seats per match.")] = 2,
    rounds: Annotated[int, typer.Option(min=1, help="Times the whole round-robin is played.")] = 1,
    reproducible_seed: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="UNSAFE for public leagues: derive the deals from this seed, so anybody"
            " who guesses it knows every deal. Default: a fresh 256-bit secret.",
        ),
    ] = None,
    time_limit: Annotated[float, typer.Option(min=0.001, help="Seconds per decision.")] = 2.0,
    startup_timeout: Annotated[float, typer.Option(min=0.1, help="Seconds to start a bot.")] = 15.0,
    k_factor: Annotated[float, typer.Option(min=0.0, help="K of the rating history.")] = 16.0,
    no_sandbox: NoSandboxOption = False,
    memory_mb: MemoryOption = SANDBOX_DEFAULTS.memory_mb,
    cpu_s: CpuOption = SANDBOX_DEFAULTS.cpu_s,
    max_procs: ProcsOption = SANDBOX_DEFAULTS.max_procs,
    cpus: CpusOption = SANDBOX_DEFAULTS.cpus,
) -> None:
    """Create a league and write its whole schedule."""
    from league.store.leagues import LeagueSettings, create_league, league_status

    settings = LeagueSettings(
        game=game,
        bots=tuple(bot),
        rules=parse_rule_options(rule or []),
        table_size=table_size,
        rounds=rounds,
        reproducible_seed=reproducible_seed,
        decision_s=time_limit,
        startup_s=startup_timeout,
        k_factor=k_factor,
        sandbox=sandbox_config(
            no_sandbox=no_sandbox,
            memory_mb=memory_mb,
            cpu_s=cpu_s,
            max_procs=max_procs,
            cpus=cpus,
        ),
    )
    with transaction(ctx) as session:
        league = create_league(session=session, name=name, settings=settings)
        total = league_status(session=session, league=league).total
        typer.echo(f"created league {league.name}: {game}, {len(bot)} bots, {total} matches")
        typer.echo(f"deal commitment (sha256 of the league secret): {league.commitment}")
        if reproducible_seed is not None:
            typer.echo(
                "warning: --reproducible-seed makes every deal guessable;"
                " never use it for a public league",
                err=True,
            )


def _format_eta(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "--:--"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class ProgressPrinter:
    """``league run``'s progress on stderr.

    On a terminal: a one-line bar, redrawn at every update. Piped (a log file, CI):
    a score summary line every ``every_n`` finished matches (default: a tenth of the
    league, at least 10) or ``every_s`` seconds, whichever comes first, and at the
    end — never a line per update.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        every_s: float = 30.0,
        every_n: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.every_s = every_s
        self.every_n = every_n
        self.clock = clock
        self.last: Progress | None = None
        self.printed_at = clock()
        self.printed_played = 0
        """This run's matches when the last summary line was printed."""
        self.stopping_said = False
        self.last_printed: Progress | None = None
        self.tally: dict[str, list[int]] = {}
        """bot → [seats played, first places, sum of places, faults], this run."""

    def match(self, finished: FinishedMatch) -> None:
        """Count one finished match into the summary's scores."""
        if finished.reason == "aborted":
            return
        for bot, place, fault in zip(finished.bots, finished.places, finished.faults, strict=True):
            counts = self.tally.setdefault(bot, [0, 0, 0, 0])
            counts[0] += 1
            counts[1] += place == 1
            counts[2] += place
            counts[3] += fault is not None

    def __call__(self, progress: Progress) -> None:
        self.last = progress
        if self.tty:
            self.stream.write("\r" + _bar_text(progress).ljust(110))
            self.stream.flush()
            return
        if progress.stopping and not self.stopping_said:
            self.stopping_said = True
            self.stream.write("stopping after the running matches (Ctrl-C again abandons them)\n")
        every_n = self.every_n or max(10, math.ceil(progress.total / 10))
        new = progress.played_now - self.printed_played
        due = new >= every_n or (new > 0 and self.clock() - self.printed_at >= self.every_s)
        starting = progress.played_now == 0 and progress.done < progress.total
        if due or (starting and self.last_printed is None):
            self._summary(progress)

    def _summary(self, progress: Progress) -> None:
        self.stream.write(_summary_text(progress, self.tally) + "\n")
        self.stream.flush()
        self.printed_at = self.clock()
        self.printed_played = progress.played_now
        self.last_printed = progress

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
        elif self.last is not None and self.last.played_now > self.printed_played:
            self._summary(self.last)


def _bar_text(progress: Progress) -> str:
    width = 24
    fraction = progress.done / progress.total if progress.total else 1.0
    bar = "#" * int(width * fraction) + "-" * (width - int(width * fraction))
    return (
        f"[{bar}] {progress.done}/{progress.total}  {progress.rate:.2f} matches/s"
        f"  ETA {_format_eta(progress.eta_s)}"
        f"  leader {progress.leader} (Elo history {progress.leader_elo:.0f})"
        + (
            "  stopping after running matches (Ctrl-C again to abandon them)"
            if progress.stopping
            else ""
        )
    )


def _summary_text(progress: Progress, tally: dict[str, list[int]]) -> str:
    """``done/total (pct), rate, ETA; this run: bot wins/played (mean place), ...``"""
    percent = progress.done / progress.total if progress.total else 1.0
    head = (
        f"{progress.done}/{progress.total} matches ({percent:.0%}),"
        f" {progress.rate:.2f}/s, ETA {_format_eta(progress.eta_s)}"
    )
    if not tally:
        return head
    order = sorted(tally, key=lambda bot: (tally[bot][2] / tally[bot][0], -tally[bot][1], bot))
    scores = ", ".join(
        f"{bot} {tally[bot][1]}/{tally[bot][0]} ({tally[bot][2] / tally[bot][0]:.2f})"
        + (f" faults {tally[bot][3]}" if tally[bot][3] else "")
        for bot in order
    )
    return f"{head}; this run, wins/played (mean place): {scores}"


def _ray_options(
    executor: str,
    address: str | None,
    cpus_per_match: float,
    runtime_env: str | None,
    ship_bots: bool,
) -> RayOptions | None:
    """``--executor`` and the ``--ray-*`` options checked; None: the local executor."""
    from league.execution.ray_executor import RayOptions, parse_runtime_env
    from league.store.registry import LeagueError

    if executor not in ("local", "ray"):
        raise fail(f"bad --executor {executor!r}: use local or ray")
    if executor == "local" and (address or runtime_env or ship_bots):
        raise fail("--ray-address, --ray-runtime-env and --ray-ship-bots need --executor ray")
    if executor != "ray":
        return None
    try:
        env = parse_runtime_env(runtime_env) if runtime_env else None
    except LeagueError as error:
        raise fail(str(error)) from None
    return RayOptions(
        address=address, cpus_per_match=cpus_per_match, runtime_env=env, ship_bots=ship_bots
    )


def _print_run(summary: RunSummary, *, err: bool = False) -> None:
    """The run's one-line summary (on stderr if ``err``: stdout holds JSON lines);
    what was lost or aborted on stderr; the exit code: 130 interrupted, 3 aborted
    matches, 4 lost referee workers."""
    state = "interrupted" if summary.interrupted else "finished"
    typer.echo(
        f"{state}: played {summary.played} matches in {summary.elapsed_s:.1f} s,"
        f" {summary.remaining} remaining; bot processes started {summary.processes_started},"
        f" reused {summary.processes_reused}"
        + (f"; referee processes {summary.workers}" if summary.workers != 1 else ""),
        err=err,
    )
    for why in summary.lost_workers:
        typer.echo(f"error: {why}", err=True)
    if summary.lost:
        typer.echo(
            f"error: {len(summary.lost)} match(es) were being played by a referee worker that"
            " died; they were not saved and the next run plays them:",
            err=True,
        )
        for lost in summary.lost:
            typer.echo(f"  {lost.match_id}", err=True)
    if summary.aborted:
        typer.echo(
            f"error: the referee aborted {len(summary.aborted)} match(es); they are not rated"
            " and the next run plays them again:",
            err=True,
        )
        for aborted in summary.aborted:
            typer.echo(f"  {aborted.match_id}: {aborted.error}", err=True)
    if summary.interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)
    if summary.aborted:
        raise typer.Exit(EXIT_ABORTED)
    if summary.lost_workers:
        raise typer.Exit(EXIT_LOST_WORKER)


ProgressOption = Annotated[
    bool,
    typer.Option(
        help="Show progress on stderr: on a terminal a progress bar; piped, a score"
        " summary line every 10% of the matches (at least 10) or 30 s, and at the end."
    ),
]
JsonlOption = Annotated[
    bool,
    typer.Option(
        "--jsonl",
        help="Print one JSON object per finished match on stdout, as it finishes"
        " (match, reason, bots, versions, places, scores, faults by seat, duration_ms,"
        " deal, done, total); the run's summary then goes to stderr.",
    ),
]


MaxMatchesOption = Annotated[int | None, typer.Option(min=1, help="Stop after this many matches.")]
AdaptiveOption = Annotated[
    bool,
    typer.Option(
        help="After the pending matches, keep scheduling duplicate groups where the"
        " ratings are in doubt (the neighbouring pair whose order is least known; every"
        " bot keeps 10% of matches) until every adjacent pair is ordered or tied at 95%"
        " or --max-matches, which it needs. docs/rolling.md."
    ),
]
TieZoneOption = Annotated[
    float,
    typer.Option(
        min=0.0,
        help="With --adaptive: a pair whose Elo difference is known at 95% to lie within"
        " ±this is tied, settled like an ordered pair (0: no ties).",
    ),
]


def _play(
    engine: Engine,
    name: str,
    options: RunOptions,
    *,
    progress: bool,
    jsonl: bool,
    adaptive: bool = False,
    tie_zone: float = 10.0,
) -> RunSummary:
    """Run the league with the progress display and the JSON lines asked for
    (``adaptive``: its schedule grows, :mod:`league.execution.adaptive`)."""
    import trio

    from league.execution.adaptive import AdaptiveSchedule
    from league.execution.league_run import LeagueRun
    from league.store.registry import LeagueError

    if adaptive and options.max_matches is None:
        raise fail("--adaptive needs --max-matches (the schedule grows until then)")
    printer = ProgressPrinter() if progress else None

    def on_match(finished: FinishedMatch) -> None:
        if jsonl:
            typer.echo(json.dumps(finished.as_json()))  # echo flushes: one line per match
        if printer is not None:
            printer.match(finished)

    try:
        schedule = AdaptiveSchedule(engine, name, tie_zone=tie_zone) if adaptive else None
        run = LeagueRun(
            engine, name, options, schedule=schedule, on_progress=printer, on_match=on_match
        )
        return trio.run(run.play)
    except (LeagueError, SandboxError) as error:
        raise fail(str(error)) from None
    finally:
        if printer:
            printer.close()


@app.command("run")
def run_command(  # long: one typer option per parameter; the body is short
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name.")],
    concurrency: Annotated[
        int, typer.Option(min=1, max=256, help="Matches at a time (over all workers).")
    ] = 1,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=256,
            help="Referee processes sharing the matches, so refereeing is not bound to"
            " one core. Default: one per core; never more than --concurrency or the"
            " pending matches (1: everything in this process).",
            show_default=False,
        ),
    ] = None,
    max_matches: MaxMatchesOption = None,
    progress: ProgressOption = True,
    jsonl: JsonlOption = False,
    executor: Annotated[
        str,
        typer.Option(
            help="Where matches are refereed: local (this machine) or ray (each match a"
            " task on a Ray cluster; pip install '.[ray]', docs/distributed.md)."
        ),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(
            help="Ray cluster to use (auto, HOST:PORT or ray://HOST:PORT); default: start"
            " a local Ray instance for this run.",
            show_default=False,
        ),
    ] = None,
    ray_cpus_per_match: Annotated[
        float,
        typer.Option(min=0.01, help="Ray CPUs each match reserves (lower for waiting bots)."),
    ] = 1.0,
    ray_runtime_env: Annotated[
        str | None,
        typer.Option(
            help="Ray runtime environment, JSON or @FILE (e.g. a working_dir that ships"
            " the bots' files to the workers).",
            show_default=False,
        ),
    ] = None,
    ray_ship_bots: Annotated[
        bool,
        typer.Option(
            help="Send each bot's script files with its tasks (workers check them against"
            " the registered version) instead of reading them from a shared path."
        ),
    ] = False,
    adaptive: AdaptiveOption = False,
    tie_zone: TieZoneOption = 10.0,
) -> None:
    """Play the league's pending matches (resumes where a previous run stopped).

    A bot's faults are results (the standings count them), not errors of the run.

    \b
    Exit codes:
      0    the run ended (every match played, or --max-matches reached)
      2    usage error (unknown league, league busy in another process, bad option)
      3    the referee aborted a match (nobody is rated for it)
      4    a referee worker died (its matches stay pending)
      130  interrupted (Ctrl-C); finished matches are kept
    """
    from league.execution.league_run import RunOptions
    from league.store.leagues import get_league, league_sandbox

    ray = _ray_options(executor, ray_address, ray_cpus_per_match, ray_runtime_env, ray_ship_bots)
    engine = context_of(ctx).engine()
    with transaction(ctx) as session:
        check_sandbox(league_sandbox(get_league(session=session, name=name)))
    options = RunOptions(concurrency=concurrency, workers=workers, max_matches=max_matches, ray=ray)
    summary = _play(
        engine, name, options, progress=progress, jsonl=jsonl, adaptive=adaptive, tie_zone=tie_zone
    )
    _print_startup_faults(ctx, name)
    _print_run(summary, err=jsonl)


def _print_startup_faults(ctx: typer.Context, name: str) -> None:
    """Why a bot did not start, once per bot, on stderr: its own last words, which for
    the optimal Dice Poker bot without its table say how to build it."""
    from league.store.leagues import get_league, startup_faults

    with transaction(ctx, create=False) as session:
        faults = startup_faults(session=session, league=get_league(session=session, name=name))
    for bot, (count, message) in sorted(faults.items()):
        typer.echo(f"note: {bot} did not start in {count} match(es): {message}", err=True)


# The old form's second word (`league logs cup 4`) arrives as an extra argument, so
# the usage line shows only the form to write.
@app.command("logs", context_settings={"allow_extra_args": True})
def logs_command(
    ctx: typer.Context,
    match: Annotated[str, typer.Argument(metavar=MATCH_NAME, help=MATCH_NAME_HELP)],
    seat: Annotated[int, typer.Option("--seat", "-s", min=0, help="Seat whose output to print.")],
    mixed: Annotated[
        bool,
        typer.Option(
            "--mixed",
            help="Print the seat's mixed moves instead: each turn it answered with"
            " probabilities, what it stated and the action drawn (never in the record).",
        ),
    ] = False,
) -> None:
    """What a seat's bot printed (stdout and stderr) during match LEAGUE-N, capped;
    with --mixed, its mixed moves. Both are for the bot's author only."""
    from league.store.leagues import find_match, match_log
    from league.store.mixed_moves import mixed_count
    from league.store.registry import LeagueError

    name = _logs_match_name(match, ctx.args, seat)
    with transaction(ctx, create=False) as session:
        found = find_match(session=session, key=str(name))[1]
        if found.status != "done":
            raise LeagueError(f"match {name} has not been played")
        if mixed:
            lines = _mixed_lines(session, found, seat, str(name))
        else:
            output = match_log(session=session, match=found, seat=seat)
            if output is None:
                raise LeagueError(f"no output captured for seat {seat} of match {name}")
            moves = mixed_count(session=session, match=found, seat=seat)
    if mixed:
        for line in lines:
            typer.echo(line)
        return
    if not output:
        typer.echo("(no output: the bot printed nothing on stdout or stderr in this match)")
    else:
        sys.stdout.write(output.decode("utf-8", "replace"))
    if moves:
        typer.echo(
            f"note: seat {seat} answered {moves} turn(s) with mixed moves:"
            f" `arena league logs {name} --seat {seat} --mixed` shows them",
            err=True,
        )


def _mixed_lines(session: Session, match: MatchRow, seat: int, name: str) -> list[str]:
    """A line per mixed move of ``seat`` in ``match`` (:func:`answer_lines`)."""
    from league.store.leagues import decompress_record
    from league.store.mixed_moves import match_mixed
    from referee.records.mixed_answers import MixedAnswersError, answer_lines

    try:
        answers = match_mixed(session=session, match=match, seat=seat)
    except MixedAnswersError as error:
        raise fail(f"match {name}: {error}") from None
    if not answers or match.record is None:
        return [f"(no mixed moves kept for seat {seat} of {name})"]
    return answer_lines(decompress_record(match.record), seat, answers)


def _logs_match_name(match: str, extra: list[str], seat: int) -> MatchName:
    """LEAGUE-N; the old two words ``LEAGUE N`` still name it (scripts written for them
    keep working), with a one-line note on stderr that shows the new form."""
    if not extra:
        return parse_match_name(match)
    number = extra[0]
    if len(extra) > 1 or not (number.isascii() and number.isdigit()):
        raise fail(
            f"got {' '.join(extra)!r} after {match!r}: name the match {MATCH_NAME} (e.g. cup-4)"
        )
    name = MatchName(match, int(number))
    typer.echo(
        f"note: `arena league logs {match} {number}` is the old form;"
        f" write `arena league logs {name} --seat {seat}` (every command names a match"
        f" {MATCH_NAME})",
        err=True,
    )
    return name


def _rules_text(rules: object) -> str:
    """``key=value, ...`` (``-`` for none): never a Python dict."""
    if not isinstance(rules, dict) or not rules:
        return "-"
    return ", ".join(f"{key}={value}" for key, value in sorted(rules.items()))


def _sandbox_text(sandbox: object) -> str:
    """The league's sandbox limits in words."""
    if not isinstance(sandbox, dict) or not sandbox.get("enabled"):
        return "off (bots run as you, in your directory)"
    parts = [
        f"{sandbox.get('memory_mb')} MB memory",
        f"{sandbox.get('cpu_s')} s CPU",
        f"{sandbox.get('cpus')} CPUs",
        f"{sandbox.get('max_procs')} processes",
        f"{sandbox.get('max_files')} open files",
        f"{sandbox.get('file_mb')} MB per file",
        f"{sandbox.get('tmp_mb')} MB /tmp",
    ]
    readable = sandbox.get("readable") or []
    if readable:
        parts.append("reads " + ", ".join(map(str, readable)))
    return "on: " + ", ".join(parts)


def _faults_text(faults: dict[str, dict[str, int]]) -> str:
    """``bot: kind N, ...; bot: ...`` (``none``)."""
    if not faults:
        return "none"
    return "; ".join(
        f"{bot}: " + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        for bot, kinds in sorted(faults.items())
    )


def _echo_fields(fields: list[tuple[str, object]]) -> None:
    width = max(len(key) for key, _ in fields)
    for key, value in fields:
        typer.echo(f"{key:>{width}}: {value}")


@app.command("show")
def show_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """What a league is: game, rules, bots, schedule, limits, sandbox, the deal
    commitment and (once no match is pending) the secret. Progress: `league status`;
    ratings: `league standings`."""
    from league.store.leagues import get_league, league_bots, league_json, revealed_secret

    with transaction(ctx, create=False) as session:
        league = get_league(session=session, name=name)
        secret = revealed_secret(session=session, league=league)
        bots = [bot.name for _, bot in league_bots(session=session, league=league)]
        data = {
            **league_json(league),
            "secret": secret.hex() if secret is not None else None,
            "bots": bots,
        }
    if as_json:
        echo_json(data)
        return
    seed = data["reproducible_seed"]
    _echo_fields(
        [
            ("league", f"{data['name']} ({data['mode']}, created {data['created_at']})"),
            ("game", data["game"]),
            ("rules", _rules_text(data["rules"])),
            ("bots", ", ".join(bots) or "-"),
            ("schedule", f"{data['table_size']} seats a table, {data['rounds']} round(s)"),
            (
                "time limits",
                f"{data['time_limit']} s a decision, {data['startup_timeout']} s to start",
            ),
            ("sandbox", _sandbox_text(data["sandbox"])),
            ("Elo history K", data["k_factor"]),
            ("deal commitment", data["commitment"]),
            ("secret", data["secret"] or "(revealed when no match is pending)"),
            *([("UNSAFE seed", seed)] if seed is not None else []),
        ]
    )


@app.command("status")
def status_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """How far a league has got: matches done, pending and aborted, forfeits and
    faults per bot. The league's settings: `league show`; ratings: `league standings`.
    (--json also holds the settings, as `league show --json` does.)"""
    from league.store.leagues import (
        get_league,
        league_bots,
        league_json,
        league_status,
        revealed_secret,
    )

    with transaction(ctx, create=False) as session:
        league = get_league(session=session, name=name)
        status = league_status(session=session, league=league)
        secret = revealed_secret(session=session, league=league)
        data = {
            **league_json(league),
            "secret": secret.hex() if secret is not None else None,
            "bots": [bot.name for _, bot in league_bots(session=session, league=league)],
            "matches": status.total,
            "done": status.done,
            "pending": status.pending,
            "forfeits": status.forfeits,
            "aborted": status.aborted,
            "faults": status.faults,
        }
    if as_json:
        echo_json(data)
        return
    _echo_fields(
        [
            ("league", f"{league.name} ({league.game})"),
            ("played", f"{status.done} of {status.total} matches"),
            ("pending", f"{status.pending} (aborted and to be played again: {status.aborted})"),
            ("forfeits", status.forfeits),
            ("faults", _faults_text(status.faults)),
        ]
    )
    if status.pending:
        typer.echo(f"next: arena league run {league.name}")
    else:
        typer.echo(f"finished: arena league standings {league.name}")


@app.command("verify")
def verify_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name.")],
    secret: Annotated[
        str | None,
        typer.Option(help="The revealed secret (hex) to check; default: the stored one."),
    ] = None,
) -> None:
    """Check a finished league: the secret matches the published commitment, every
    match's chance outcomes are exactly the deal drawn from it, and every kept mixed
    move matches its commitment and draws the action played."""
    from league.store.leagues import get_league, verify_league
    from referee.core.chance import parse_secret

    with transaction(ctx, create=False) as session:
        league = get_league(session=session, name=name)
        given = parse_secret(secret) if secret is not None else None
        result = verify_league(session=session, league=league, secret=given)
    for problem in result.problems:
        typer.echo(f"MISMATCH {problem}")
    if not result.ok:
        typer.echo(f"league {name}: NOT VERIFIED ({len(result.problems)} problem(s))")
        raise typer.Exit(1)
    typer.echo(
        f"league {name}: verified: the secret matches commitment {result.commitment};"
        f" {result.matches} matches replayed, {result.chance_events} chance outcomes"
        " equal the deals drawn from the secret"
        + (
            f"; {result.mixed_checked} of {result.mixed_events} mixed draws match their"
            " seats' kept probabilities and what the secret draws from them"
            if result.mixed_events
            else ""
        )
    )


def _fmt(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    if not math.isfinite(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}"


@app.command("standings")
def standings_command(  # long: the table, one column a line, and its notes
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name.")],
    samples: Annotated[int, typer.Option(min=10, help="Bootstrap resamples.")] = 1000,
    los: Annotated[
        bool, typer.Option(help="Also print the likelihood-of-superiority matrix.")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="Also list retired versions (rolling ladders).")
    ] = False,
    population: Annotated[
        bool,
        typer.Option(help="Also print the population view: Nash averaging over the payoff matrix."),
    ] = True,
) -> None:
    """The ratings table: Elo (a Bradley–Terry fit with a weak prior) with its 95%
    interval, the likelihood of superiority (LOS), and the population view (Nash
    averaging: each bot's mass in the maximum-entropy Nash mixture and its value
    against it, so a bot that beats the leader but loses to the rest shows).
    --json rows carry it as nash_mass and nash_value."""
    from league.domain.ratings import PRIOR_DRAWS
    from league.store.bluff import league_bluff
    from league.store.leagues import get_league
    from league.store.luck_standings import league_luck
    from league.store.rolling_ladders import tied_pairs
    from league.store.standings import standings

    with transaction(ctx, create=False) as session:
        league = get_league(session=session, name=name)
        bluff = league_bluff(session=session, league=league)
        lucky = league_luck(session=session, league=league).bots
        rows = standings(
            session=session, league=league, samples=samples, bluff=bluff, include_retired=show_all
        )
        zone, ties = tied_pairs(session=session, league=league)
    if as_json:
        echo_json([row.as_json() for row in rows])
        return
    echo_table(
        [
            "rank",
            "bot",
            "Elo",
            "95% interval",
            "matches",
            "wins",
            "mean place",
            "mean score",
            "luck-adj.",
            "faults",
            "exploitability",
        ],
        [
            [
                str(row.rank or "-"),
                row.bot + (" (retired)" if row.retired else ""),
                _fmt(row.elo),
                f"{_fmt(row.lo)} .. {_fmt(row.hi)}" if row.elo is not None else "-",
                str(row.matches),
                str(row.wins),
                _fmt(row.mean_place, 2),
                _fmt(row.mean_score, 2),
                lucky[row.bot].text() if row.bot in lucky else "-",
                ", ".join(f"{k} {v}" for k, v in sorted(row.faults.items())) or "-",
                row.exploit_text,
            ]
            for row in rows
        ],
        right={0, 2, 4, 5, 6, 7},
    )
    _echo_luck_note(lucky)
    _echo_exploit_note(rows)
    typer.echo(
        f"Elo: Bradley-Terry fit of all matches (mean 1500, order-independent), with a prior"
        f" of {PRIOR_DRAWS:g} virtual draws per bot against 1500; 95% interval: bootstrap over"
        " duplicate deals, at least the fit's own ± 1.96 sd (docs/ratings.md)"
    )
    for low, high in ties:
        typer.echo(
            f"{high} and {low}: tied within ±{zone:g} Elo (their difference, 95% interval;"
            " docs/rolling.md, pairing that knows a tie)"
        )
    if bluff is not None:
        _echo_bluff(rows, bluff)
    if los:
        _echo_los(rows)
    if population:
        _echo_population(rows)


def _echo_luck_note(lucky: dict[str, LuckSummary]) -> None:
    """What the luck-adj. column means, when a row has one."""
    if lucky:
        typer.echo(
            "luck-adj.: mean score against the other seat (1 win, 0.5 tie, 0 loss) minus the"
            " luck of the dice and cards, with its 95% interval over duplicate deals"
            " (two-seat matches; docs/ratings.md, luck-adjusted results)"
        )


def _echo_exploit_note(rows: list[Standing]) -> None:
    """What the exploitability column means, when a row has one."""
    if any(row.exploitability for row in rows):
        typer.echo(
            "exploitability: the latest `arena exploit` of the bot for this game and rules"
            " (+1 win, -1 loss; [95% interval] when sampled, >= a lower bound, * the bot's"
            " self-reported policy; docs/exploitability.md)"
        )


def _echo_los(rows: list[Standing]) -> None:
    """The likelihood-of-superiority matrix of the rated rows."""
    rated = [row for row in rows if row.rank is not None]
    if len(rated) < 2:
        return
    typer.echo("\nlikelihood of superiority (row better than column, % of bootstrap samples):")
    echo_table(
        ["", *(row.bot for row in rated)],
        [
            [a.bot, *("-" if a.bot == b.bot else f"{a.los.get(b.bot, 0.5):.0%}" for b in rated)]
            for a in rated
        ],
        right=set(range(1, len(rated) + 1)),
    )


def _echo_population(rows: list[Standing]) -> None:
    """The population view (docs/ratings.md, "Population view: Nash averaging")."""
    shown = sorted(
        (row for row in rows if row.nash_mass is not None and row.nash_value is not None),
        key=lambda row: (-round(row.nash_value or 0.0, 6), -(row.nash_mass or 0.0), row.bot),
    )
    if not shown:
        return
    typer.echo("\npopulation view (Nash averaging):")
    echo_table(
        ["bot", "Nash mass", "value vs Nash", "Elo rank"],
        [
            [
                row.bot,
                f"{row.nash_mass:.1%}",
                f"{row.nash_value:+.0f}" if round(row.nash_value or 0.0) else "0",
                str(row.rank or "-"),
            ]
            for row in shown
        ],
        right={1, 2, 3},
    )
    typer.echo(
        "Nash mass: weight in the maximum-entropy Nash equilibrium of the league as a"
        " game (payoff: each pair's crosstable Elo difference, 0 if they never met);"
        " value vs Nash: Elo difference against that mixture, 0 with mass, negative"
        " without. A bot that beats the leader but loses to the rest gets mass."
    )


def _echo_bluff(rows: list[Standing], bluff: LeagueBluff) -> None:
    """The bluff analytics table (definitions: docs/bots.md, "Bluff analytics")."""
    from referee.records.analytics import BluffStats, format_ratio

    typer.echo(f"\nbluff analytics, judged from {bluff.matches} match records:")
    table = []
    for row in rows:
        ratios = (row.bluff or BluffStats()).ratios()
        table.append([row.bot, *(format_ratio(*ratios[name]) for name in BLUFF_COLUMNS)])
    echo_table(["bot", *BLUFF_COLUMNS.values()], table, right={1, 2, 3, 4})
    typer.echo(
        "bluff rate: false claims / claims; challenge rate: challenges / chances to"
        " challenge; accuracy: challenges of false claims / challenges; wrongly"
        " challenged: own true claims challenged / own true claims"
    )
    for problem in bluff.skipped:
        typer.echo(f"not judged: {problem}")


BLUFF_COLUMNS: Final = {
    "bluff_rate": "bluff rate",
    "challenge_rate": "challenge rate",
    "challenge_accuracy": "challenge accuracy",
    "wrongly_challenged": "wrongly challenged",
}
"""The four rates (keys of :meth:`BluffStats.ratios`) and their column titles."""


def _rounded(diff: PairElo | None, name: str) -> float | None:
    """One field of a crosstable pair's Elo difference, for JSON (None: no games)."""
    return None if diff is None else round(float(getattr(diff, name)), 2)


@app.command("crosstable")
def crosstable_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Head-to-head scores: row bot's wins-draws-losses against the column bot, and
    each pair's Elo difference (with the table's weak prior: never infinite)."""
    from league.domain.ratings import PRIOR_DRAWS, pair_elo
    from league.store.leagues import get_league
    from league.store.standings import crosstable

    with transaction(ctx, create=False) as session:
        league = get_league(session=session, name=name)
        table = crosstable(session=session, league=league)
    shown = {a: {b: pair_elo(h) for b, h in row.items()} for a, row in table.items()}
    if as_json:
        echo_json(
            {
                a: {
                    b: {
                        "wins": h.wins,
                        "draws": h.draws,
                        "losses": h.losses,
                        "score": h.score,
                        "elo": _rounded(shown[a][b], "elo"),
                        "margin": _rounded(shown[a][b], "margin"),
                        "los": h.los,
                    }
                    for b, h in row.items()
                }
                for a, row in table.items()
            }
        )
        return
    names = list(table)
    echo_table(
        ["", *names],
        [
            [
                a,
                *(
                    "x"
                    if a == b
                    else f"{table[a][b].wins}-{table[a][b].draws}-{table[a][b].losses}"
                    for b in names
                ),
            ]
            for a in names
        ],
    )
    typer.echo("")
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            h, diff = table[a][b], shown[a][b]
            elo = "-" if diff is None else f"{diff.elo:+.1f} ± {diff.margin:.1f}"
            pairs.append([a, b, _fmt(h.score, 3), elo, f"{h.los:.1%}"])
    echo_table(["bot", "vs", "score", "Elo diff", "LOS"], pairs, right={2, 3, 4})
    typer.echo(
        f"Elo diff: the pair's score with {PRIOR_DRAWS:g} virtual draws added (so a"
        " clean sweep is finite), ± its 95% margin; LOS: cutechess-cli's formula"
    )


@app.command("list")
def list_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List leagues."""
    from league.store.leagues import league_json, league_status, list_leagues

    with transaction(ctx) as session:
        rows = []
        for league in list_leagues(session=session):
            status = league_status(session=session, league=league)
            rows.append({**league_json(league), "matches": status.total, "done": status.done})
    if as_json:
        echo_json(rows)
        return
    echo_table(
        ["name", "game", "table", "rounds", "done"],
        [
            [
                str(r["name"]),
                str(r["game"]),
                str(r["table_size"]),
                str(r["rounds"]),
                f"{r['done']}/{r['matches']}",
            ]
            for r in rows
        ],
    )


@app.command("delete")
def delete_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a league with its schedule and results (bots stay registered)."""
    from league.store.leagues import delete_league

    if not yes and not typer.confirm(f"delete league {name} and all its results?", default=False):
        raise fail("not deleted", code=1)
    with transaction(ctx) as session:
        delete_league(session=session, name=name)
    typer.echo(f"deleted league {name}")


@app.command("matches")
def matches_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name.")],
    bot: Annotated[str | None, typer.Option(help="Only matches this bot played.")] = None,
    result: Annotated[
        str | None,
        typer.Option(help="completed, forfeit, aborted, pending, or with --bot: won, lost."),
    ] = None,
    fault: Annotated[
        str | None, typer.Option(help="Only matches with this fault (e.g. timeout).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List a league's matches (ids for `arena replay`), with filters."""
    from league.store.leagues import get_league, list_matches
    from referee.core.faults import FaultKind

    if fault is not None and fault not in {kind.value for kind in FaultKind}:
        raise fail(
            f"unknown fault {fault!r} (faults: {', '.join(kind.value for kind in FaultKind)})"
        )
    with transaction(ctx, create=False) as session:
        league = get_league(session=session, name=name)
        rows = list_matches(session=session, league=league, bot=bot, result=result, fault=fault)
    if as_json:
        echo_json([asdict(row) for row in rows])
        return
    echo_table(
        ["match", "status", "seats (place)", "faults", "ms"],
        [
            [
                row.key,
                row.reason or row.status,
                "  ".join(
                    f"{b} ({p if p is not None else '-'})"
                    for b, p in zip(row.bots, row.places, strict=True)
                ),
                ", ".join(f"seat {i} {f}" for i, f in enumerate(row.faults) if f) or "-",
                f"{row.duration_ms:.0f}",
            ]
            for row in rows
        ],
        right={4},
    )


@app.command("report")
def report_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="League name.")],
    html: Annotated[Path, typer.Option(help="The league page to write (replays go beside it).")],
    samples: Annotated[int, typer.Option(min=10, help="Bootstrap resamples.")] = 1000,
) -> None:
    """Write an HTML league report: standings, crosstable, rating chart, match replays."""
    from league.store.leagues import get_league
    from league.web.report import write_league_report

    with transaction(ctx, create=False) as session:
        league = get_league(session=session, name=name)
        try:
            written = write_league_report(
                session=session,
                league=league,
                path=html,
                samples=samples,
                on_progress=lambda line: typer.echo(line, err=True),
            )
        except OSError as error:
            raise fail(f"cannot write the report: {error}") from None
    typer.echo(f"wrote {html} and {len(written) - 1} match replays")
