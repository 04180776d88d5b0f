"""``arena rolling``: ladders that never end (``docs/rolling.md``).

Standings, matches, replays and logs of a ladder are the ``arena league`` ones.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from league.cli.common import (
    EXIT_ABORTED,
    EXIT_INTERRUPTED,
    SANDBOX_DEFAULTS,
    CpuOption,
    CpusOption,
    MemoryOption,
    NoSandboxOption,
    ProcsOption,
    check_sandbox,
    context_of,
    echo_json,
    fail,
    parse_rule_options,
    sandbox_config,
    sole_error,
    transaction,
)
from referee.runtime.sandbox_config import SandboxError

app = typer.Typer(
    help="Rolling ladders: new bot versions enter and play, older ones retire, forever.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

SETTING_HELP = {
    "rate": "Matches started per minute, at most.",
    "concurrency": "Matches at a time.",
    "batch_groups": "Duplicate groups scheduled per batch.",
    "placement": "Matches a new version plays before others get tables.",
    "min_share": "Every version sits in at least this fraction of the last 200 matches (0: none).",
    "tie_zone": "Indifference zone, Elo: a pair whose difference is known at 95% to lie"
    " within ±this is tied and gets no more matches for its doubt (0: no ties)."
    " docs/rolling.md.",
    "suspend_after": "Suspend a version that faults in each of its first N matches (0: never).",
}
"""A ladder's settings, as `rolling create` sets them and `rolling set` changes them."""
UNCHANGED = " Unchanged when not given."

RateOption = Annotated[float, typer.Option("--rate", min=0.01, help=SETTING_HELP["rate"])]
ConcurrencyOption = Annotated[int, typer.Option(min=1, max=256, help=SETTING_HELP["concurrency"])]
BatchOption = Annotated[int, typer.Option(min=1, help=SETTING_HELP["batch_groups"])]
PlacementOption = Annotated[int, typer.Option(min=0, help=SETTING_HELP["placement"])]
MinShareOption = Annotated[float, typer.Option(min=0.0, max=1.0, help=SETTING_HELP["min_share"])]
TieZoneOption = Annotated[float, typer.Option(min=0.0, help=SETTING_HELP["tie_zone"])]
SuspendOption = Annotated[int, typer.Option(min=0, help=SETTING_HELP["suspend_after"])]


@app.command("create")
def create_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Ladder name (no spaces).")],
    game: Annotated[str, typer.Option("--game", "-g", help="Game name.")],
    rule: Annotated[
        list[str] | None, typer.Option("--rule", "-r", help="Rule option key=value.")
    ] = None,
    rate: RateOption = 60.0,
    concurrency: ConcurrencyOption = 2,
    batch_groups: BatchOption = 4,
    placement: PlacementOption = 4,
    min_share: MinShareOption = 0.1,
    tie_zone: TieZoneOption = 10.0,
    suspend_after: SuspendOption = 3,
    table_size: Annotated[int, typer.Option(min=2, help="Seats per match.")] = 2,
    time_limit: Annotated[float, typer.Option(min=0.001, help="Seconds per decision.")] = 2.0,
    startup_timeout: Annotated[float, typer.Option(min=0.1, help="Seconds to start a bot.")] = 15.0,
    no_sandbox: NoSandboxOption = False,
    memory_mb: MemoryOption = SANDBOX_DEFAULTS.memory_mb,
    cpu_s: CpuOption = SANDBOX_DEFAULTS.cpu_s,
    max_procs: ProcsOption = SANDBOX_DEFAULTS.max_procs,
    cpus: CpusOption = SANDBOX_DEFAULTS.cpus,
) -> None:
    """Create an empty rolling ladder; `arena rolling enter` adds bots."""
    from league.store.rolling_ladders import RollingSettings, create_rolling_league

    with transaction(ctx) as session:
        league = create_rolling_league(
            session=session,
            name=name,
            game=game,
            rules=parse_rule_options(rule or []),
            settings=RollingSettings(
                matches_per_minute=rate,
                concurrency=concurrency,
                batch_groups=batch_groups,
                placement_matches=placement,
                min_share=min_share,
                tie_zone=tie_zone,
                suspend_after=suspend_after,
            ),
            decision_s=time_limit,
            startup_s=startup_timeout,
            sandbox=sandbox_config(
                no_sandbox=no_sandbox,
                memory_mb=memory_mb,
                cpu_s=cpu_s,
                max_procs=max_procs,
                cpus=cpus,
            ),
            table_size=table_size,
        )
        typer.echo(
            f"created rolling ladder {league.name}: {game}, at most {rate:g} matches a minute,"
            f" {concurrency} at a time"
        )
        typer.echo(f"deal commitment (sha256 of the league secret): {league.commitment}")


@app.command("enter")
def enter_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Ladder name.")],
    bot: Annotated[str, typer.Argument(metavar="BOT", help="Registered bot (its newest version).")],
    version: Annotated[str, typer.Option(help="Enter exactly this version.")] = "",
) -> None:
    """Enter a bot version; older versions of its name in the ladder retire."""
    from league.store.leagues import get_league
    from league.store.registry import get_bot
    from league.store.rolling_ladders import enter_bot

    with transaction(ctx) as session:
        league = get_league(session=session, name=name)
        row = get_bot(session=session, name=bot, version=version)
        retired = enter_bot(session=session, league=league, bot=row)
        typer.echo(f"entered {row.name} version {row.version} in {league.name}")
        for old in retired:
            typer.echo(f"retired {old.name} version {old.version}")


@app.command("set")
def set_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Ladder name.")],
    rate: Annotated[
        float | None,
        typer.Option("--rate", min=0.01, help=SETTING_HELP["rate"] + UNCHANGED),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, max=256, help=SETTING_HELP["concurrency"] + UNCHANGED)
    ] = None,
    batch_groups: Annotated[
        int | None, typer.Option(min=1, help=SETTING_HELP["batch_groups"] + UNCHANGED)
    ] = None,
    placement: Annotated[
        int | None, typer.Option(min=0, help=SETTING_HELP["placement"] + UNCHANGED)
    ] = None,
    min_share: Annotated[
        float | None,
        typer.Option(min=0.0, max=1.0, help=SETTING_HELP["min_share"] + UNCHANGED),
    ] = None,
    tie_zone: Annotated[
        float | None, typer.Option(min=0.0, help=SETTING_HELP["tie_zone"] + UNCHANGED)
    ] = None,
    suspend_after: Annotated[
        int | None, typer.Option(min=0, help=SETTING_HELP["suspend_after"] + UNCHANGED)
    ] = None,
) -> None:
    """Change a ladder's settings (a running ladder takes the rate and batch size at
    its next batch, the concurrency when started again)."""
    from league.store.leagues import get_league
    from league.store.rolling_ladders import rolling_settings, set_rolling_settings

    with transaction(ctx) as session:
        league = get_league(session=session, name=name)
        current = rolling_settings(league)
        changed = replace(
            current,
            matches_per_minute=current.matches_per_minute if rate is None else rate,
            concurrency=current.concurrency if concurrency is None else concurrency,
            batch_groups=current.batch_groups if batch_groups is None else batch_groups,
            placement_matches=current.placement_matches if placement is None else placement,
            min_share=current.min_share if min_share is None else min_share,
            tie_zone=current.tie_zone if tie_zone is None else tie_zone,
            suspend_after=current.suspend_after if suspend_after is None else suspend_after,
        )
        set_rolling_settings(session=session, league=league, settings=changed)
        typer.echo(f"{league.name}: {changed.to_dict()}")


@app.command("run")
def run_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Ladder name.")],
    max_matches: Annotated[
        int | None, typer.Option(min=1, help="Stop after this many matches.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No line per match.")] = False,
) -> None:
    """Play the ladder in the foreground, forever (or --max-matches); resumes what a
    stopped or killed run left. Ctrl-C: finish running matches; again: abandon them.

    \b
    Exit codes:
      0    --max-matches reached
      2    usage error (unknown ladder, ladder played by another process or `arena serve`)
      3    the referee aborted a match (nobody is rated for it)
      130  interrupted (Ctrl-C); finished matches are kept
    """
    import trio

    from league.execution.rolling_runs import run_rolling
    from league.store.leagues import get_league, league_sandbox
    from league.store.registry import LeagueError
    from league.store.rolling_ladders import rolling_settings

    engine = context_of(ctx).engine()
    with transaction(ctx) as session:
        league = get_league(session=session, name=name)
        rolling_settings(league)
        check_sandbox(league_sandbox(league))

    def echo(match_id: str) -> None:
        if not quiet:
            typer.echo(f"played {match_id}")

    try:
        summary = trio.run(
            lambda: run_rolling(
                engine, name, max_matches=max_matches, on_match=echo, handle_signals=True
            )
        )
    except (LeagueError, SandboxError) as error:
        raise fail(str(error)) from None
    except BaseExceptionGroup as group:  # the run's nursery wraps what it raised
        if isinstance(inner := sole_error(group), (LeagueError, SandboxError)):
            raise fail(str(inner)) from None
        raise
    state = "stopped" if summary.stopped else "finished"
    typer.echo(
        f"{state}: played {summary.played} matches in {summary.elapsed_s:.1f} s,"
        f" scheduled {summary.scheduled}, {summary.pending} pending;"
        f" bot processes started {summary.processes_started},"
        f" reused {summary.processes_reused}"
    )
    for aborted in summary.aborted:
        typer.echo(f"error: the referee aborted {aborted.match_id}: {aborted.error}", err=True)
    if summary.stopped:
        raise typer.Exit(EXIT_INTERRUPTED)
    if summary.aborted:
        raise typer.Exit(EXIT_ABORTED)


@app.command("status")
def status_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Ladder name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Settings, entries (retired ones flagged) and match counts of a ladder."""
    from league.store.leagues import get_league
    from league.store.rolling_ladders import rolling_status

    with transaction(ctx, create=False) as session:
        league = get_league(session=session, name=name)
        data = rolling_status(session=session, league=league)
    if as_json:
        echo_json(data)
        return
    for key, value in data.items():
        if key == "entries":
            continue
        if isinstance(value, dict):  # never a Python repr on screen
            value = ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
        typer.echo(f"{key:>12}: {value}")
    typer.echo("     entries:")
    for entry in data["entries"]:  # type: ignore[attr-defined]
        flag = "  (retired)" if entry["retired"] else ""
        typer.echo(f"  {entry['bot']}  version {entry['version']}, {entry['played']} played{flag}")
