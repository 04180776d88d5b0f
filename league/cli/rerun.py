"""``arena rerun``: play a league match's deal again with your next version in one seat.

A finished fixed league reveals its secret (``arena league show --secret``, and the
server's ``GET /api/leagues/NAME``), so each match's deal can be drawn again: the deal
key of the secret and the match's group (:func:`referee.core.chance.deal_key`). The
rerun checks that the secret hashes to the commitment published when the league was
created, and the record against the deal key (every chance outcome it holds must be
what the key draws, as ``arena league verify`` does) — :func:`checked_deal_key`, for
both forms below — then plays the same game, rules and deal here, sandboxed, with the
given command in ``--seat``, and prints where the two games part.

- ``arena rerun LEAGUE-N``: a match of this league database; every other seat runs
  the bot the league registered for it, from its files as they are now (a note says
  which seats' files changed since registration: where they choose differently, the
  games part for that reason too).
- ``arena rerun --record FILE --league-info FILE``: a record downloaded from the
  server (``GET /api/matches/LEAGUE-N``) and its league's settings (``GET
  /api/leagues/NAME``: the commitment, and the secret once revealed). The record does
  not carry the other bots' code, so ``--other SEAT=CMD`` names every other seat's
  command. The match's group follows from its position and the league's number of
  bots, table size and rounds (:func:`league.domain.schedules.group_at`). The server
  empties the seats' commands in what it serves, so such a record's header no longer
  hashes as sealed: its hash chain is checked from the stored header hash on.

The other seats' bots get a new opaque match id, so a bot that draws from
``self.rng`` may choose differently; bots that decide from what they see replay the
original exactly (tests/test_rerun.py, tests/test_rerun_downloaded.py).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from league.cli.common import (
    MATCH_NAME,
    NoSandboxOption,
    check_sandbox,
    fail,
    find_modules_here,
    output_tail,
    parse_match_name,
    transaction,
)
from league.domain.schedules import ScheduleError, group_at
from referee.gamekit.errors import GameError
from referee.runtime.sandbox_config import SandboxConfig

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from referee.core.mixed import MixedAnswer
    from referee.records.record import MatchRecord, RecordedEvent
    from referee.runtime.match import Limits
    from referee.runtime.process import BotSpec

RECORD_SOURCE = f"GET /api/matches/{MATCH_NAME}"
LEAGUE_SOURCE = "GET /api/leagues/NAME"


@dataclass(frozen=True, slots=True)
class Original:
    """The match to play again: its record, checked against its deal, the deal key,
    the bot of each seat the league database names (none for a downloaded record),
    and the sandbox and time limits of its league."""

    record: MatchRecord
    key: bytes
    bots: dict[int, BotSpec]
    sandbox: SandboxConfig
    limits: Limits


def rerun_command(  # long: the two forms' options, then the play
    ctx: typer.Context,
    seat: Annotated[int, typer.Option("--seat", "-s", min=0, help="The seat your bot takes.")],
    bot: Annotated[
        str, typer.Option("--bot", help='Command line of your bot, e.g. "python my_bot_v2.py".')
    ],
    match: Annotated[
        str | None,
        typer.Argument(
            metavar=MATCH_NAME,
            help=f"Match {MATCH_NAME} (e.g. cup-4) of a finished league in this database"
            " (or give --record and --league-info).",
        ),
    ] = None,
    record_file: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="FILE",
            help=f"Instead of {MATCH_NAME}: a match record downloaded from the server"
            f" ({RECORD_SOURCE}).",
        ),
    ] = None,
    league_info: Annotated[
        Path | None,
        typer.Option(
            "--league-info",
            metavar="FILE",
            help=f"With --record: its league's settings from the server ({LEAGUE_SOURCE}),"
            " with the commitment and the revealed secret.",
        ),
    ] = None,
    other: Annotated[
        list[str] | None,
        typer.Option(
            "--other",
            metavar="SEAT=CMD",
            help="Command line of the bot in another seat (repeatable): every other seat"
            " with --record; with LEAGUE-N, instead of the league's bot.",
        ),
    ] = None,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Play match LEAGUE-N's deal (or a downloaded record's) again with BOT in SEAT and
    the other seats' bots; print where the games part and both results (exit 0; 2 bad
    input, a record that does not check against the league's deal, or a secret not
    yet revealed). A note names every other seat whose files changed since its bot
    was registered."""
    from referee.runtime.match import MatchSpec, play_match

    others = _seat_commands(other or [])
    if record_file is not None:
        if match is not None:
            raise fail(f"give {MATCH_NAME} or --record FILE, not both")
        if league_info is None:
            raise fail(
                f"--record needs --league-info FILE: its league's settings ({LEAGUE_SOURCE}),"
                " which hold the commitment and the secret"
            )
        original = downloaded(record_file, league_info)
    elif match is None:
        raise fail(
            f"give the match, {MATCH_NAME} in this league database (e.g. cup-4), or"
            " --record FILE and --league-info FILE downloaded from the server"
        )
    elif league_info is not None:
        raise fail("--league-info goes with --record FILE")
    else:
        original = local(ctx, match)
    record = original.record
    if not 0 <= seat < record.num_seats:
        raise fail(f"--seat {seat}: the match has seats 0..{record.num_seats - 1}")
    specs = _seat_bots(original, seat, bot, others)
    for line in changed_since_registration(original, exclude={seat, *others}):
        typer.echo(line, err=True)
    sandbox = replace(original.sandbox, enabled=False) if no_sandbox else original.sandbox
    check_sandbox(sandbox)
    spec = MatchSpec(
        game=record.game,
        bots=tuple(specs[s] for s in range(record.num_seats)),
        rules=dict(record.rules),
        match_id=f"rerun-{record.match_id}",
        chance_key=original.key,
    )
    logs: dict[int, bytes] = {}
    again = play_match(spec, original.limits, sandbox=sandbox, logs=logs)
    for line in parting(record, again):
        typer.echo(line)
    fault = again.fault_of(seat)
    if fault is not None:
        typer.echo(f"your bot faulted: {fault.kind} {fault.message}", err=True)
        for line in output_tail(logs.get(seat, b"")):
            typer.echo(line, err=True)


def not_revealed(league: str) -> str:
    return (
        f"league {league!r} has not revealed its secret (it has pending matches,"
        " or it is a rolling ladder or an SPRT, whose deals go on): no deal to rerun"
    )


def checked_deal_key(
    record: MatchRecord,
    *,
    league: str,
    secret: bytes,
    published: str,
    group: str,
    mixed: Mapping[int, Sequence[MixedAnswer]] | None = None,
) -> bytes:
    """The deal key of ``record``'s match, group ``group`` of league ``league``, once
    ``secret`` hashes to the commitment ``published`` when the league was created and
    the record verifies against the key: every chance outcome is what it draws, every
    action legal, the outcome right (:func:`referee.records.replay.verify`; a public
    copy from the server, every seat's command and address emptied, from its stored
    header hash on), and every mixed move in ``mixed`` (the seats' kept probabilities:
    the league database's, for ``LEAGUE-N``) matches its commitment and draws the
    action played. Both forms of ``arena rerun`` check through here."""
    from referee.core.chance import ChanceKeyError, commitment, deal_key
    from referee.records.replay import verify

    try:
        hashed = commitment(secret)
    except ChanceKeyError as error:
        raise fail(f"league {league!r}: {error}") from None
    if hashed != published:
        raise fail(
            f"league {league!r}: its secret does not hash to the commitment"
            f" {published} published when it was created"
        )
    key = deal_key(secret, group)
    public = all(not info.command and not info.address for info in record.seats)
    problems = verify(record, chance_key=key, header=not public, mixed=mixed)
    if problems:
        raise fail(
            f"match {record.match_id}: its record does not check against the deal: {problems[0]}"
        )
    return key


def local(ctx: typer.Context, match: str) -> Original:
    """Match ``match`` of this league database, its seats' bots as the league has them."""
    from sqlmodel import select

    from league.store.leagues import decompress_record, find_match, league_sandbox, revealed_secret
    from league.store.mixed_moves import stored_mixed
    from league.store.models import BotRow, SeatRow
    from league.store.registry import bot_spec
    from referee.records.mixed_answers import MixedAnswersError
    from referee.runtime.match import Limits

    name = parse_match_name(match)
    with transaction(ctx, create=False) as session:
        league, row = find_match(session=session, key=str(name))
        if row.status != "done" or row.record is None:
            raise fail(f"match {name} has not been played")
        if revealed_secret(session=session, league=league) is None:
            raise fail(not_revealed(league.name))
        record = decompress_record(row.record)
        try:
            mixed = stored_mixed(session=session, match=row)
        except MixedAnswersError as error:
            raise fail(f"match {name}: {error}") from None
        key = checked_deal_key(
            record,
            league=league.name,
            secret=league.secret,
            published=league.commitment,
            group=row.group_key,
            mixed=mixed,
        )
        bots: dict[int, BotSpec] = {}
        for seat_row in session.exec(select(SeatRow).where(SeatRow.match_id == row.id)).all():
            bot_row = session.get(BotRow, seat_row.bot_id)
            if bot_row is not None:
                bots[seat_row.seat] = bot_spec(bot_row)
        limits = Limits(decision_s=league.decision_s, startup_s=league.startup_s)
        return Original(record, key, bots, league_sandbox(league), limits)


def downloaded(record_path: Path, info_path: Path) -> Original:
    """The record at ``record_path`` as the server serves it, checked against the
    league settings at ``info_path`` (its secret, commitment and schedule); the bots
    of its seats are for ``--other`` to name."""
    from league.store.leagues import split_match_key
    from league.store.registry import NotFoundError
    from referee.core.chance import ChanceKeyError, parse_secret
    from referee.records.record import MatchRecord, RecordError

    what = f"match record ({RECORD_SOURCE})"
    try:
        record = MatchRecord.from_dict(_json_object(record_path, what))
    except (RecordError, GameError) as error:
        raise fail(f"{record_path} is not a {what}: {error}") from None
    info = _json_object(info_path, f"league's settings ({LEAGUE_SOURCE})")
    name = _field(info, "name", str, info_path)
    try:
        league, position = split_match_key(record.match_id)
    except NotFoundError:
        raise fail(f"{record_path}: match {record.match_id!r} is not a league match") from None
    if league != name:
        raise fail(
            f"{record_path} is match {record.match_id} of league {league!r},"
            f" not of league {name!r} ({info_path})"
        )
    secret_hex = _field(info, "secret", str | None, info_path)
    if secret_hex is None:
        raise fail(not_revealed(name))
    try:
        secret = parse_secret(secret_hex)
        group = group_at(
            position,
            bots=len(_field(info, "bots", list, info_path)),
            table_size=_field(info, "table_size", int, info_path),
            rounds=_field(info, "rounds", int, info_path),
        )
    except (ChanceKeyError, ScheduleError) as error:
        raise fail(f"{info_path}: league {name!r}: {error}") from None
    key = checked_deal_key(
        record,
        league=name,
        secret=secret,
        published=_field(info, "commitment", str, info_path),
        group=group,
    )
    return Original(record, key, {}, *_downloaded_conditions(info, info_path))


def _downloaded_conditions(info: dict[str, Any], path: Path) -> tuple[SandboxConfig, Limits]:
    """The sandbox and time limits of a downloaded league: its limits, but always
    sandboxed (``--no-sandbox`` is the user's call, not the server's) and without the
    server's own readable paths."""
    from referee.runtime.match import Limits

    try:
        sandbox = SandboxConfig.from_dict(_field(info, "sandbox", dict, path))
        limits = Limits(
            decision_s=float(_field(info, "time_limit", int | float, path)),
            startup_s=float(_field(info, "startup_timeout", int | float, path)),
        )
    except ValueError as error:
        raise fail(f"{path}: {error}") from None
    return replace(sandbox, enabled=True, readable=()), limits


def _json_object(path: Path, what: str) -> dict[str, Any]:
    """The JSON object in ``path``, a ``what``; an ``error:`` exit for a missing or
    unreadable file, one that is not a JSON object, or the server's error answer."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise fail(f"cannot read {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise fail(f"{path} is not JSON ({error}): expected the {what}") from None
    if not isinstance(data, dict):
        raise fail(f"{path} is not a JSON object: expected the {what}")
    if set(data) == {"error", "status"}:
        raise fail(f"{path} is the server's error {data['status']}: {data['error']}")
    return data


def _field(data: dict[str, Any], key: str, kind: Any, path: Path) -> Any:
    """``data[key]``, which must be an instance of ``kind`` (and not a bool)."""
    value = data.get(key, ...)
    if value is ... or not isinstance(value, kind) or isinstance(value, bool):
        raise fail(
            f"{path}: its {key!r} is missing or of the wrong type: expected the league's"
            f" settings ({LEAGUE_SOURCE})"
        )
    return value


def _seat_commands(pairs: list[str]) -> dict[int, str]:
    """The ``--other SEAT=CMD`` options: seat → command line."""
    commands: dict[int, str] = {}
    for pair in pairs:
        seat, _, command = pair.partition("=")
        if not seat.strip().isdigit() or not command.strip():
            raise fail(f'--other {pair!r}: expected SEAT=CMD, e.g. 0="python my_bot.py"')
        if int(seat) in commands:
            raise fail(f"--other: seat {int(seat)} given twice")
        commands[int(seat)] = command.strip()
    return commands


def _seat_bots(
    original: Original, seat: int, bot: str, others: dict[int, str]
) -> dict[int, BotSpec]:
    """Every seat's bot: ``bot`` in ``seat``, the ``--other`` commands in theirs, the
    league's bots elsewhere; an ``error:`` exit naming a seat that has none."""
    from league.store.registry import content_version
    from referee.runtime.process import BotSpec, check_scripts_exist

    record = original.record
    for other in others:
        if other == seat or not 0 <= other < record.num_seats:
            raise fail(
                f"--other {other}=...: the other seats are"
                f" {', '.join(str(s) for s in range(record.num_seats) if s != seat)}"
            )
    for other in range(record.num_seats):
        if other != seat and other not in others and other not in original.bots:
            raise fail(
                f"seat {other} ({record.seats[other].bot}): give its bot's command with"
                f" --other {other}=CMD (a downloaded record does not carry the other bots' code)"
            )
    given = {**others, seat: bot}
    here = Path.cwd()
    specs = dict(original.bots)
    try:
        for number, command in given.items():
            check_scripts_exist(shlex.split(command), here)
            name = None if number == seat else record.seats[number].bot
            specs[number] = BotSpec.from_command_line(command, name=name, cwd=here)
        find_modules_here([specs[number].command for number in given])
    except ValueError as error:
        raise fail(str(error)) from None
    for number in others:
        version = content_version(specs[number].command)
        specs[number] = replace(specs[number], version=version)
        if version != record.seats[number].version:
            typer.echo(
                f"note: seat {number} ({record.seats[number].bot}): the match recorded"
                f" version {record.seats[number].version or '?'}, your command is version"
                f" {version} (a hash of the command line and the code it runs); where the"
                " two choose differently, the games part",
                err=True,
            )
    return specs


def changed_since_registration(original: Original, *, exclude: set[int]) -> list[str]:
    """A note for each seat (but ``exclude``) whose league bot's files no longer hash
    to the version it was registered as: the rerun starts the files as they are now,
    not the version the match recorded. A bot versioned by a label of its author's, or
    reached by address, has no hash to compare."""
    from league.store.registry import content_version

    notes = []
    for seat, spec in sorted(original.bots.items()):
        if seat in exclude or not spec.command or not _is_content_version(spec.version):
            continue
        try:
            now = content_version(spec.command)
        except OSError as error:
            now = f"unreadable ({error.strerror or error})"
        if now != spec.version:
            notes.append(
                f"note: seat {seat} ({spec.name}): its files changed since it was registered"
                f" as version {spec.version} (now {now}); the rerun plays them as they are"
                " now, so where they choose differently the games part for that reason too"
            )
    return notes


def _is_content_version(version: str) -> bool:
    """Whether ``version`` looks like :func:`league.store.registry.content_version`'s
    hash (12 hex digits) rather than a label given with ``arena bot add --version``."""
    return len(version) == 12 and all(c in "0123456789abcdef" for c in version)


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
