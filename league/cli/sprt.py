"""``arena sprt NEW OLD``: a sequential test between two bots on duplicate pairs
(``docs/sprt.md``). The test is a league (mode ``sprt``): ``arena league
standings/matches/replay`` show it like any other."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

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
    fail,
    parse_rule_options,
    sandbox_config,
    sole_error,
    transaction,
)
from referee.runtime.sandbox_config import SandboxError

if TYPE_CHECKING:
    from sqlmodel import Session

    from league.store.models import BotRow
    from league.store.sprt_tests import SprtSettings, SprtState

EXIT_H1 = 0
EXIT_H0 = 10
EXIT_UNDECIDED = 11
LuckAdjustedOption = Annotated[
    bool,
    typer.Option(
        "--luck-adjusted",
        help="Decide on luck-adjusted pair scores (a GSPRT on their normal model;"
        " ELO0/ELO1 in logistic Elo; docs/ratings.md, luck-adjusted results).",
    ),
]


def _bot(session: Session, spec: str) -> BotRow:
    """``name`` (its newest version) or ``name@version``."""
    from league.store.registry import get_bot

    name, _, version = spec.partition("@")
    return get_bot(session=session, name=name, version=version)


def sprt_command(  # long: one line per option, and the settings it stores
    ctx: typer.Context,
    new: Annotated[
        str, typer.Argument(metavar="NEW", help="The bot under test: NAME or NAME@VERSION.")
    ],
    old: Annotated[str, typer.Argument(metavar="OLD", help="The baseline: NAME or NAME@VERSION.")],
    game: Annotated[str, typer.Option("--game", "-g", help="Game name.")],
    rule: Annotated[
        list[str] | None, typer.Option("--rule", "-r", help="Rule option key=value.")
    ] = None,
    elo0: Annotated[float, typer.Option(help="H0: NEW is this many nElo better.")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: NEW is this many nElo better.")] = 5.0,
    alpha: Annotated[
        float, typer.Option(help="False-positive rate (accepting H1 wrongly).")
    ] = 0.05,
    beta: Annotated[float, typer.Option(help="False-negative rate (accepting H0 wrongly).")] = 0.05,
    max_pairs: Annotated[
        int, typer.Option(min=1, help="Stop undecided after this many pairs.")
    ] = 20_000,
    league: Annotated[
        str, typer.Option(help="League that stores the test (default: sprt-NEW-OLD-GAME).")
    ] = "",
    concurrency: Annotated[int, typer.Option(min=1, max=256, help="Matches at a time.")] = 2,
    time_limit: Annotated[float, typer.Option(min=0.001, help="Seconds per decision.")] = 2.0,
    reproducible_seed: Annotated[
        int | None, typer.Option(help="Derive the deals from this seed (guessable; tests only).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final lines.")] = False,
    luck_adjusted: LuckAdjustedOption = False,
    no_sandbox: NoSandboxOption = False,
    memory_mb: MemoryOption = SANDBOX_DEFAULTS.memory_mb,
    cpu_s: CpuOption = SANDBOX_DEFAULTS.cpu_s,
    max_procs: ProcsOption = SANDBOX_DEFAULTS.max_procs,
    cpus: CpusOption = SANDBOX_DEFAULTS.cpus,
) -> None:
    """Sequential probability ratio test: is NEW at least ELO1 normalized Elo better
    than OLD? Plays duplicate pairs (one deal, seats swapped) until the LLR crosses
    log(beta/(1-alpha)) (H0) or log((1-beta)/alpha) (H1). Running the same command
    again resumes the test (Ctrl-C: finish running matches; again: abandon them).

    \b
    Exit codes:
      0    H1 accepted (NEW is better by at least about ELO1)
      2    usage error
      3    the referee aborted a match
      10   H0 accepted (NEW is not ELO1 better)
      11   undecided after --max-pairs
      130  interrupted; run the same command to resume
    """
    from league.store.sprt_tests import SprtSettings

    name = league or f"sprt-{new}-{old}-{game}"
    sandbox = sandbox_config(
        no_sandbox=no_sandbox, memory_mb=memory_mb, cpu_s=cpu_s, max_procs=max_procs, cpus=cpus
    )
    check_sandbox(sandbox)
    with transaction(ctx) as session:
        new_row, old_row = _bot(session, new), _bot(session, old)
        settings = SprtSettings(
            new_bot=new_row.id or 0,
            old_bot=old_row.id or 0,
            elo0=elo0,
            elo1=elo1,
            alpha=alpha,
            beta=beta,
            max_pairs=max_pairs,
            concurrency=concurrency,
            luck_adjusted=luck_adjusted,
        )
        _open_test(
            session,
            name,
            game=game,
            settings=settings,
            create=dict(
                new=new_row,
                old=old_row,
                rules=parse_rule_options(rule or []),
                decision_s=time_limit,
                sandbox=sandbox,
                reproducible_seed=reproducible_seed,
            ),
        )
    _play(ctx, name, quiet=quiet)


def _open_test(
    session: Session, name: str, *, game: str, settings: SprtSettings, create: dict[str, Any]
) -> None:
    """Create the test's league, or resume it if it holds the same test and no other
    process is playing it (checked before its settings change: a second ``arena
    sprt`` must not raise the ``--max-pairs`` of a test that another one runs)."""
    from league.store.leagues import get_league
    from league.store.registry import NotFoundError
    from league.store.runlock import league_lock
    from league.store.sprt_tests import create_sprt_league, set_sprt_settings, sprt_settings

    try:
        row = get_league(session=session, name=name)
    except NotFoundError:
        row = create_sprt_league(session=session, name=name, game=game, settings=settings, **create)
        typer.echo(f"started SPRT {name}: deal commitment {row.commitment}")
        return
    stored = sprt_settings(row)
    resumed = replace(stored, max_pairs=settings.max_pairs, concurrency=settings.concurrency)
    if row.game != game or resumed != settings:
        raise fail(
            f"league {name!r} holds another test: {_differences(row.game, stored, game, settings)};"
            " pass --league with a new name (or this command's values to resume it)"
        )
    with league_lock(session.get_bind().engine, row):  # LeagueBusyError: exit 2, no write
        pass
    set_sprt_settings(session=session, league=row, settings=resumed)
    typer.echo(f"resuming SPRT {name}")


_OPTION_OF = {
    "new_bot": "NEW",
    "old_bot": "OLD",
    "elo0": "--elo0",
    "elo1": "--elo1",
    "alpha": "--alpha",
    "beta": "--beta",
    "luck_adjusted": "--luck-adjusted",
}
"""The command-line spelling of each stored setting that a resumed test must match."""


def _differences(stored_game: str, stored: SprtSettings, game: str, settings: SprtSettings) -> str:
    """What differs between the stored test and this command, as ``--elo1 5 there,
    10 here`` (bots by their ids: the versions the test compares)."""
    parts = [f"--game {stored_game} there, {game} here"] if stored_game != game else []
    for key, option in _OPTION_OF.items():
        there, here = getattr(stored, key), getattr(settings, key)
        if there != here:
            label = f"{option} (bot version id)" if key.endswith("_bot") else option
            parts.append(f"{label} {there} there, {here} here")
    return "; ".join(parts)


def _play(ctx: typer.Context, name: str, *, quiet: bool) -> None:
    """Run the test and print its progress and verdict."""
    import trio

    from league.execution.sprt_runs import run_sprt
    from league.store.registry import LeagueError

    engine = context_of(ctx).engine()

    shown: list[str] = []

    def echo(state: SprtState) -> None:
        if not quiet:
            shown.append(state.progress_line())
            typer.echo(shown[-1])

    try:
        summary = trio.run(lambda: run_sprt(engine, name, on_pair=echo, handle_signals=True))
    except (LeagueError, SandboxError) as error:
        raise fail(str(error)) from None
    except BaseExceptionGroup as group:  # the run's nursery wraps what it raised
        if isinstance(inner := sole_error(group), (LeagueError, SandboxError)):
            raise fail(str(inner)) from None
        raise
    state = summary.state
    if state.progress_line() not in shown[-1:]:  # --quiet, or no pair was played now
        typer.echo(state.progress_line())
    for aborted in summary.aborted:
        typer.echo(f"error: the referee aborted {aborted.match_id}: {aborted.error}", err=True)
    if summary.interrupted:
        typer.echo(f"interrupted after {state.penta.pairs} pairs; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    if summary.aborted:
        raise typer.Exit(EXIT_ABORTED)
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted"}.get(state.decision, "undecided")
    typer.echo(f"SPRT {name}: {verdict} after {state.penta.pairs} pairs")
    raise typer.Exit({"H1": EXIT_H1, "H0": EXIT_H0}.get(state.decision, EXIT_UNDECIDED))
