"""``arena replay``: read, verify, step through and export match records."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from league.cli.common import MATCH_NAME, fail, output_tail, parse_match_name, transaction
from referee.gamekit.errors import GameError

if TYPE_CHECKING:
    from arena.v1 import bot_pb2
    from referee.records.record import MatchRecord


def load_record(ctx: typer.Context, match: str) -> MatchRecord:
    """A record from a JSON file, or from the database by ``LEAGUE-N``."""
    from league.store.leagues import decompress_record, find_match
    from referee.records.record import MatchRecord, RecordError

    path = Path(match)
    if path.is_file():
        try:
            return MatchRecord.from_json(path.read_text())
        except (OSError, UnicodeDecodeError) as error:
            raise fail(f"cannot read {path}: {error}") from None
        except RecordError as error:
            raise fail(f"{path}: {error}") from None
    if path.suffix == ".json" or "/" in match:  # a file, not LEAGUE-N
        raise fail(f"no record file {match!r} (give a record's path or {MATCH_NAME})")
    name = parse_match_name(match)
    with transaction(ctx, create=False) as session:
        _, row = find_match(session=session, key=str(name))
        if row.record is None:
            raise fail(f"match {name} has not been played yet")
        try:
            return decompress_record(row.record)
        except (RecordError, ValueError) as error:
            raise fail(f"match {name}: stored record is unreadable: {error}") from None


def seat_message_text(messages: list[bot_pb2.PlayRequest]) -> list[str]:
    """Each message in protobuf text format under a numbered heading (one item each)."""
    from google.protobuf import text_format

    return [
        f"--- message {number}: {message.WhichOneof('kind')} ---\n"
        + text_format.MessageToString(message).rstrip()
        for number, message in enumerate(messages, start=1)
    ]


def rules_text(rules: dict[str, str]) -> str:
    """``key=value, ...`` (never a Python dict)."""
    return ", ".join(f"{key}={value}" for key, value in sorted(rules.items())) or "-"


def _wait_for_key() -> bool:
    """False when the user wants to stop (q, or end of input)."""
    if sys.stdin.isatty():
        key = typer.getchar()
        return key not in ("q", "Q", "\x03", "\x1b")
    line = sys.stdin.readline()
    return bool(line) and line.strip().lower() != "q"


def _verify(record: MatchRecord) -> None:
    """Re-simulate ``record``: exit 1 listing the problems, else say what was checked."""
    from referee.records.replay import verify

    problems = verify(record)
    if problems:
        typer.echo(f"verification failed: {problems[0]}", err=True)
        for problem in problems[1:]:
            typer.echo(f"  also: {problem}", err=True)
        raise typer.Exit(1)
    typer.echo(
        f"verified {record.match_id}: {len(record.events)} events, hash chain intact,"
        f" observations, states and outcome reproduced"
    )


def fault_output(ctx: typer.Context, match: str, record: MatchRecord) -> dict[int, str]:
    """For each faulted seat of a match in the league database, the last lines its bot
    wrote (:func:`~league.cli.common.output_tail`: the traceback of a crash), for the
    operator's own page. Empty for a record file: a record never holds a bot's output."""
    from league.store.leagues import find_match, match_log

    if not record.faults or Path(match).is_file():
        return {}
    with transaction(ctx, create=False) as session:
        _, row = find_match(session=session, key=str(parse_match_name(match)))
        logs = {f.seat: match_log(session=session, match=row, seat=f.seat) for f in record.faults}
    return {
        seat: "\n".join(line.removeprefix("  ") for line in output_tail(output))
        for seat, output in logs.items()
        if output and output.strip()
    }


def _write_html(record: MatchRecord, html: Path, outputs: dict[int, str]) -> None:
    from referee.records.files import write_atomic
    from referee.records.html_replay import render_replay_html

    try:
        write_atomic(html, render_replay_html(record, fault_output=outputs).encode())
    except OSError as error:
        raise fail(f"cannot write {html}: {error}") from None
    typer.echo(f"wrote {html}")


def _messages_json(messages: list[bot_pb2.PlayRequest]) -> str:
    """The messages a seat was sent, as a JSON list (``--seat N --json``)."""
    from google.protobuf import json_format

    return json.dumps(
        [json_format.MessageToDict(m, preserving_proto_field_name=True) for m in messages],
        indent=2,
    )


MatchOrFile = Annotated[
    str,
    typer.Argument(
        metavar=f"{MATCH_NAME}|FILE",
        help=f"Match {MATCH_NAME} (e.g. cup-4, as `arena league matches` lists it), or a"
        " record file (`arena match --record`, a server's /api/matches/LEAGUE-N).",
    ),
]


def replay_command(
    ctx: typer.Context,
    match: MatchOrFile,
    seat: Annotated[
        int | None,
        typer.Option(
            help="The match as this seat saw it: every event as it could read it, and each"
            " message it was sent (its observation, readably; --raw: protobuf text)."
        ),
    ] = None,
    raw: Annotated[
        bool,
        typer.Option("--raw", help="With --seat: the messages in protobuf text format."),
    ] = False,
    step: Annotated[bool, typer.Option(help="Step through: any key advances, q quits.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the record as JSON.")] = False,
    check: Annotated[
        bool,
        typer.Option("--verify", help="Re-simulate and check every event, hash and the outcome."),
    ] = False,
    html: Annotated[
        Path | None, typer.Option(help="Write a self-contained HTML viewer to this file.")
    ] = None,
    bot_output: Annotated[
        bool,
        typer.Option(
            help="With --html, for a league's match: under each fault, the last lines the"
            " faulted bot wrote (its traceback), from the league database. A bot's output"
            " is its author's to read: --no-bot-output for a page you will publish."
        ),
    ] = True,
) -> None:
    """Replay a match: transcript with what each challenge, pass or score led to
    (default), one seat's view, verification, export."""
    from referee.records.record import RecordError
    from referee.records.replay import seat_exchange
    from referee.records.transcript import (
        message_pages,
        result_lines,
        seat_transcript,
        transcript_lines,
    )

    if raw and seat is None:
        raise fail("--raw shows the messages one seat was sent: add --seat N")
    record = load_record(ctx, match)
    if check:
        _verify(record)
        return
    if html is not None:
        _write_html(record, html, fault_output(ctx, match, record) if bot_output else {})
        return
    try:
        header = [
            f"match {record.match_id}: {record.game}, {record.chance_label},"
            f" rules {rules_text(record.rules)}"
        ]
        footer = [f"result ({record.reason}):", *result_lines(record)]
        if seat is not None:
            exchange = seat_exchange(record, seat)
            messages = [message for message, _ in exchange]
            if as_json:
                typer.echo(_messages_json(messages))
                return
            texts = seat_message_text(messages) if raw else message_pages(record, exchange)
            pages = seat_transcript(record, seat, texts)
            header.append(f"as seat {seat} [{record.seats[seat].bot}] saw it:")
        elif as_json:
            typer.echo(record.to_json(indent=2))
            return
        else:
            pages = transcript_lines(record)
    except (RecordError, GameError) as error:
        raise fail(str(error)) from None
    _echo_pages(header, pages, footer, step=step)


def _echo_pages(header: list[str], pages: list[str], footer: list[str], *, step: bool) -> None:
    """Print a transcript; with ``step``, wait for a key after each page but the last."""
    for line in header:
        typer.echo(line)
    for number, page in enumerate(pages):
        typer.echo(page)
        if step and number < len(pages) - 1 and not _wait_for_key():
            typer.echo("(stopped)")
            return
    for line in footer:
        typer.echo(line)
