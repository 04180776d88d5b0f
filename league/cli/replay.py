"""``arena replay``: read, verify, step through and export match records."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from league.cli.common import fail, transaction
from referee.files import write_atomic
from referee.games.base import GameError

if TYPE_CHECKING:
    from arena.v1 import bot_pb2
    from referee.record import MatchRecord


def load_record(ctx: typer.Context, match: str) -> MatchRecord:
    """A record from a JSON file, or from the database by ``LEAGUE-POSITION``."""
    from league.store.leagues import decompress_record, find_match
    from referee.record import MatchRecord, RecordError

    path = Path(match)
    if path.is_file():
        try:
            return MatchRecord.from_json(path.read_text())
        except (OSError, UnicodeDecodeError) as error:
            raise fail(f"cannot read {path}: {error}") from None
        except RecordError as error:
            raise fail(f"{path}: {error}") from None
    if path.suffix == ".json" or "/" in match:  # a file, not LEAGUE-POSITION
        raise fail(f"no record file {match!r} (give a record's path or LEAGUE-POSITION)")
    with transaction(ctx, create=False) as session:
        _, row = find_match(session=session, key=match)
        if row.record is None:
            raise fail(f"match {match} has not been played yet")
        try:
            return decompress_record(row.record)
        except (RecordError, ValueError) as error:
            raise fail(f"match {match}: stored record is unreadable: {error}") from None


def seat_message_text(messages: list[bot_pb2.PlayRequest]) -> list[str]:
    """Each message in protobuf text format under a numbered heading (one item each)."""
    from google.protobuf import text_format

    return [
        f"--- message {number}: {message.WhichOneof('kind')} ---\n"
        + text_format.MessageToString(message).rstrip()
        for number, message in enumerate(messages, start=1)
    ]


def _wait_for_key() -> bool:
    """False when the user wants to stop (q, or end of input)."""
    if sys.stdin.isatty():
        key = typer.getchar()
        return key not in ("q", "Q", "\x03", "\x1b")
    line = sys.stdin.readline()
    return bool(line) and line.strip().lower() != "q"


def _verify(record: MatchRecord) -> None:
    """Re-simulate ``record``: exit 1 listing the problems, else say what was checked."""
    from referee.replay import verify

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


def _write_html(record: MatchRecord, html: Path) -> None:
    from referee.html_replay import render_replay_html

    try:
        write_atomic(html, render_replay_html(record).encode())
    except OSError as error:
        raise fail(f"cannot write {html}: {error}") from None
    typer.echo(f"wrote {html}")


def replay_command(
    ctx: typer.Context,
    match: Annotated[str, typer.Argument(help="Match id LEAGUE-POSITION, or a record file.")],
    seat: Annotated[
        int | None, typer.Option(help="Show exactly what this seat was sent, message by message.")
    ] = None,
    step: Annotated[bool, typer.Option(help="Step through: any key advances, q quits.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the record as JSON.")] = False,
    check: Annotated[
        bool,
        typer.Option("--verify", help="Re-simulate and check every event, hash and the outcome."),
    ] = False,
    html: Annotated[
        Path | None, typer.Option(help="Write a self-contained HTML viewer to this file.")
    ] = None,
) -> None:
    """Replay a match: transcript (default), one seat's view, verification, export."""
    from google.protobuf import json_format

    from referee.record import RecordError
    from referee.replay import seat_messages
    from referee.transcript import result_lines, seat_transcript, transcript_lines

    record = load_record(ctx, match)
    if check:
        _verify(record)
        return
    if html is not None:
        _write_html(record, html)
        return
    try:
        header: list[str] = []
        footer: list[str] = []
        if seat is not None:
            messages = seat_messages(record, seat)
            if as_json:
                typer.echo(
                    json.dumps(
                        [
                            json_format.MessageToDict(m, preserving_proto_field_name=True)
                            for m in messages
                        ],
                        indent=2,
                    )
                )
                return
            pages = seat_transcript(record, seat, seat_message_text(messages))
        elif as_json:
            typer.echo(record.to_json(indent=2))
            return
        else:
            header = [
                f"match {record.match_id}: {record.game}, {record.chance_label},"
                f" rules {record.rules}"
            ]
            pages = transcript_lines(record)
            footer = [f"result ({record.reason}):", *result_lines(record)]
    except (RecordError, GameError) as error:
        raise fail(str(error)) from None
    for line in header:
        typer.echo(line)
    for number, page in enumerate(pages):
        typer.echo(page)
        if step and number < len(pages) - 1 and not _wait_for_key():
            typer.echo("(stopped)")
            return
    for line in footer:
        typer.echo(line)
