"""``arena rerun``: play a league match's deal again with your next version in one seat.

A finished fixed league reveals its secret (``arena league show --secret``), so each
match's deal can be drawn again: :func:`league.store.leagues.match_deal_key`. The
rerun checks that the secret hashes to the commitment published when the league was
created, and the stored record against the deal key (every chance outcome it holds must
be what the key draws, as ``arena league verify`` does), then plays the same game,
rules and deal here, sandboxed, with the same version of every other seat's bot and
the given command in ``--seat``, and prints where the two games part.

The other seats' bots get a new opaque match id, so a bot that draws from
``self.rng`` may choose differently; bots that decide from what they see replay the
original exactly (tests/test_rerun.py).
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from league.cli.common import (
    NoSandboxOption,
    check_sandbox,
    fail,
    find_modules_here,
    output_tail,
    transaction,
)

if TYPE_CHECKING:
    from referee.records.record import MatchRecord, RecordedEvent


def rerun_command(  # long: the checks before it plays (match, secret, deal, seats)
    ctx: typer.Context,
    match: Annotated[
        str,
        typer.Argument(
            metavar="MATCH", help="A finished match LEAGUE-POSITION of a finished league."
        ),
    ],
    seat: Annotated[int, typer.Option("--seat", "-s", min=0, help="The seat your bot takes.")],
    bot: Annotated[
        str, typer.Option("--bot", help='Command line of your bot, e.g. "python my_bot_v2.py".')
    ],
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Play MATCH's deal again with BOT in SEAT and the other seats' same bot versions;
    print where the games part and both results (exit 0; 2 bad input or a secret not
    yet revealed)."""
    from sqlmodel import select

    from league.store.leagues import (
        decompress_record,
        find_match,
        league_sandbox,
        match_deal_key,
        revealed_secret,
    )
    from league.store.models import BotRow, SeatRow
    from league.store.registry import bot_spec
    from referee.core.chance import commitment
    from referee.records.replay import verify
    from referee.runtime.match import Limits, MatchSpec, play_match
    from referee.runtime.process import BotSpec, check_scripts_exist

    with transaction(ctx, create=False) as session:
        league, row = find_match(session=session, key=match)
        if row.status != "done" or row.record is None:
            raise fail(f"match {match} has not been played")
        if revealed_secret(session=session, league=league) is None:
            raise fail(
                f"league {league.name!r} has not revealed its secret (it has pending matches,"
                " or it is a rolling ladder or an SPRT, whose deals go on): no deal to rerun"
            )
        if commitment(league.secret) != league.commitment:
            raise fail(
                f"league {league.name!r}: its secret does not hash to the commitment"
                f" {league.commitment} published when it was created"
            )
        record = decompress_record(row.record)
        key = match_deal_key(league, row.group_key)
        problems = verify(record, chance_key=key)
        if problems:
            raise fail(f"match {match}: its record does not check against the deal: {problems[0]}")
        if not 0 <= seat < record.num_seats:
            raise fail(f"--seat {seat}: the match has seats 0..{record.num_seats - 1}")
        seats = session.exec(select(SeatRow).where(SeatRow.match_id == row.id)).all()
        specs: dict[int, BotSpec] = {}
        for seat_row in seats:
            bot_row = session.get(BotRow, seat_row.bot_id)
            if bot_row is not None:
                specs[seat_row.seat] = bot_spec(bot_row)
        sandbox = league_sandbox(league)
        limits = Limits(decision_s=league.decision_s, startup_s=league.startup_s)
    try:
        here = Path.cwd()
        check_scripts_exist(shlex.split(bot), here)
        specs[seat] = BotSpec.from_command_line(bot, cwd=here)
        find_modules_here([specs[seat].command])
    except ValueError as error:
        raise fail(str(error)) from None
    if no_sandbox:
        sandbox = replace(sandbox, enabled=False)
    check_sandbox(sandbox)
    spec = MatchSpec(
        game=record.game,
        bots=tuple(specs[s] for s in range(record.num_seats)),
        rules=dict(record.rules),
        match_id=f"rerun-{match}",
        chance_key=key,
    )
    logs: dict[int, bytes] = {}
    again = play_match(spec, limits, sandbox=sandbox, logs=logs)
    for line in parting(record, again):
        typer.echo(line)
    fault = again.fault_of(seat)
    if fault is not None:
        typer.echo(f"your bot faulted: {fault.kind} {fault.message}", err=True)
        for line in output_tail(logs.get(seat, b"")):
            typer.echo(line, err=True)


def parting(original: MatchRecord, again: MatchRecord) -> list[str]:
    """Where the two games first differ (the same deal, so chance agrees until an
    action differs), and both results."""
    from referee.records.transcript import result_lines

    def key(event: RecordedEvent) -> tuple[object, ...]:
        return (event.seat, event.outcome, event.action)

    first = next(
        (
            i
            for i, (a, b) in enumerate(zip(original.events, again.events, strict=False))
            if key(a) != key(b)
        ),
        None,
    )
    same_length = len(original.events) == len(again.events)
    if first is None and same_length:
        lines = [f"the same game as the original: all {len(again.events)} events agree"]
    else:
        at = first if first is not None else min(len(original.events), len(again.events))
        lines = [
            f"the games part at event {at + 1}:",
            f"  original: {_event_text(original, at)}",
            f"  rerun:    {_event_text(again, at)}",
        ]
    lines.append("original result:")
    lines += [f"  {line}" for line in result_lines(original)]
    lines.append("rerun result:")
    lines += [f"  {line}" for line in result_lines(again)]
    return lines


def _event_text(record: MatchRecord, index: int) -> str:
    from referee.records.transcript import event_entries

    entries = event_entries(record)
    return entries[index][0].strip() if index < len(entries) else "(the match had ended)"
