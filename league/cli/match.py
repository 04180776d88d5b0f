"""``arena match``: one match between bot processes over gRPC, no database."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from league.cli.common import (
    EXIT_ABORTED,
    EXIT_BOT_FAULT,
    EXIT_OK,
    SANDBOX_DEFAULTS,
    CpuOption,
    CpusOption,
    MemoryOption,
    NoSandboxOption,
    ProcsOption,
    check_sandbox,
    fail,
    find_modules_here,
    output_tail,
    parse_rule_options,
    sandbox_config,
)
from referee.gamekit.errors import GameError

if TYPE_CHECKING:
    from referee.records.record import MatchRecord


def match_command(
    game: Annotated[str, typer.Option("--game", "-g", help="Game name (see `arena games`).")],
    bot: Annotated[
        list[str],
        typer.Option("--bot", "-b", help="Bot command line, once per seat in seat order."),
    ],
    seed: Annotated[
        int | None,
        typer.Option(
            help="Draw chance from this seed, for a reproducible local run (guessable:"
            " never for real competition). Default: a fresh secret."
        ),
    ] = None,
    rule: Annotated[
        list[str] | None, typer.Option("--rule", "-r", help="Rule option key=value (repeatable).")
    ] = None,
    time_limit: Annotated[float, typer.Option(help="Seconds per decision.", min=0.001)] = 2.0,
    startup_timeout: Annotated[
        float, typer.Option(help="Seconds a bot has to start.", min=0.001)
    ] = 15.0,
    record: Annotated[
        Path | None, typer.Option(help="Write the match record (JSON) to this file.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only print the result.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the record as JSON.")] = False,
    no_sandbox: NoSandboxOption = False,
    memory_mb: MemoryOption = SANDBOX_DEFAULTS.memory_mb,
    cpu_s: CpuOption = SANDBOX_DEFAULTS.cpu_s,
    max_procs: ProcsOption = SANDBOX_DEFAULTS.max_procs,
    cpus: CpusOption = SANDBOX_DEFAULTS.cpus,
) -> None:
    """Run one match between bot processes over gRPC and print the result.

    Every bot runs in the sandbox (see docs/security.md) unless --no-sandbox. A
    relative path in a bot's command (an existing file or directory, or a program
    containing a slash such as ./bot.sh) is taken from the directory you run this in,
    and so is the module of `python -m pkg.bot` when it is not installed.

    \b
    Exit codes:
      0  the match completed and no bot faulted
      1  a bot faulted (did not start, crashed, timed out, broke the protocol)
      2  usage error (bad option, unknown game or rule, bad command line)
      3  the referee aborted the match (the host could not run it; nobody blamed)
    """
    from referee.core.catalogue import get_game
    from referee.records.files import write_atomic
    from referee.runtime.match import Limits, MatchSpec, play_match
    from referee.runtime.process import BotSpec, check_scripts_exist

    rules = parse_rule_options(rule or [])
    try:
        engine = get_game(game)
        parsed = engine.parse_rules(rules)
        engine.check_seats(parsed, len(bot))
        here = Path.cwd()
        for command in bot:
            check_scripts_exist(shlex.split(command), here)
        bots = tuple(BotSpec.from_command_line(command, cwd=here) for command in bot)
        find_modules_here(spec.command for spec in bots)
    except (GameError, ValueError) as error:
        raise fail(str(error)) from None
    spec = MatchSpec(game=game, bots=bots, seed=seed, rules=rules)
    limits = Limits(decision_s=time_limit, startup_s=startup_timeout)
    sandbox = sandbox_config(
        no_sandbox=no_sandbox, memory_mb=memory_mb, cpu_s=cpu_s, max_procs=max_procs, cpus=cpus
    )
    check_sandbox(sandbox)
    if record is not None:
        sandbox = replace(sandbox, protect=(str(record.resolve()),))
    logs: dict[int, bytes] = {}
    result = play_match(spec, limits, sandbox=sandbox, logs=logs)
    if record is not None:
        try:
            write_atomic(record, result.to_json(indent=1).encode())
        except OSError as error:
            raise fail(f"cannot write record to {record}: {error}") from None
    for line in faulted_output(result, logs):
        typer.echo(line, err=True)
    _print_result(engine.title, result, quiet=quiet, as_json=as_json)


def faulted_output(result: MatchRecord, logs: dict[int, bytes]) -> list[str]:
    """For each seat that faulted, the last lines its process wrote (the bot's own
    traceback when it crashed, what it printed before it failed to start). For the
    author at the terminal only: the record, fault messages included, never holds a
    byte of a bot's output."""
    lines: list[str] = []
    for fault in result.faults:
        tail = output_tail(logs.get(fault.seat, b""))
        if not tail:
            continue
        lines.append(f"seat {fault.seat} [{result.seats[fault.seat].bot}] output, last lines:")
        lines += tail
    return lines


def exit_code(result: MatchRecord) -> int:
    """The documented exit code of a played match (see ``arena match --help``)."""
    if result.reason == "aborted":
        return EXIT_ABORTED
    return EXIT_BOT_FAULT if result.faults else EXIT_OK


def _print_result(title: str, result: MatchRecord, *, quiet: bool, as_json: bool) -> None:
    """The record as JSON, or the transcript (unless ``quiet``) and the result; then
    exit with :func:`exit_code`."""
    from referee.records.transcript import result_lines, transcript_lines

    if as_json:
        typer.echo(result.to_json(indent=2))
        raise typer.Exit(exit_code(result))
    if not quiet:
        rules = ", ".join(f"{key}={value}" for key, value in sorted(result.rules.items()))
        typer.echo(f"match {result.match_id}: {title}, {result.chance_label}, rules {rules}")
        for line in transcript_lines(result):
            typer.echo(line)
        typer.echo("")
    typer.echo(
        f"result ({result.reason}, {len(result.events)} events, {result.duration_ms / 1000:.2f} s):"
    )
    for line in result_lines(result):
        typer.echo(line)
    raise typer.Exit(exit_code(result))
