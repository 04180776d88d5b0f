"""``arena play``: take a seat yourself, in the terminal, against a bot.

What you see is built from your seat's observation alone (:mod:`sdk.human`); your
moves go to the referee like a bot's and are checked by the engine; the match is
stored in the game's humans league (:mod:`league.store.human_games`). A game drawn
from ``--seed`` is practice: the seed tells every die, so it is stored in no league
and rates nobody (``--record`` keeps its record in a file).
"""

from __future__ import annotations

import secrets
import select
import shlex
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO, TypeVar

import typer

from league.cli.common import (
    EXIT_INTERRUPTED,
    NoSandboxOption,
    check_sandbox,
    context_of,
    default_sandbox,
    fail,
    find_modules_here,
    parse_rule_options,
    sole_error,
    transaction,
)
from referee.gamekit.errors import GameError

if TYPE_CHECKING:
    from sdk.human import SeatView

QUIT_WORDS = frozenset({"q", "quit", "resign"})
T = TypeVar("T")


class TerminalAsker:
    """Shows a seat's view on ``out`` and reads the move, by number, from ``source``."""

    def __init__(self, source: TextIO, out: TextIO) -> None:
        self.source = source
        self.out = out
        self.closed = threading.Event()

    def close(self) -> None:
        self.closed.set()

    def _readline(self) -> str:
        """A line of input ("" at its end), waiting in short steps so that
        :meth:`close` ends the wait (a file without a descriptor is just read)."""
        try:
            descriptor = self.source.fileno()
        except (OSError, ValueError):
            return self.source.readline()
        while not self.closed.is_set() and threading.main_thread().is_alive():
            ready, _, _ = select.select([descriptor], [], [], 0.2)
            if ready:
                return self.source.readline()
        return ""

    def _show(self, view: SeatView) -> None:
        write = self.out.write
        write("\n")
        for line in view.news:
            write(f"* {line}\n")
        for line in view.lines:
            write(f"  {line}\n")

    def ask(self, view: SeatView) -> int:
        from sdk.human import HumanLeft

        self._show(view)
        self.out.write(f"your move (decision {view.decision}, seat {view.seat}):\n")
        for number, label in enumerate(view.choices, start=1):
            self.out.write(f"  {number:>3}. {label}\n")
        while True:
            self.out.write(f"move [1-{len(view.choices)}, q resigns]: ")
            self.out.flush()
            line = self._readline()
            if self.closed.is_set():
                self.out.write("\nthe game ended before your answer\n")
                raise HumanLeft("the match ended while you were thinking")
            if not line:
                raise HumanLeft("end of input: you left the table")
            text = line.strip().lower()
            if text in QUIT_WORDS:
                raise HumanLeft("you resigned")
            if text.isdigit() and 1 <= int(text) <= len(view.choices):
                return int(text) - 1
            self.out.write(
                f"not a move: {line.strip()!r}; type a number from 1 to {len(view.choices)}\n"
            )

    def tell(self, view: SeatView) -> None:
        self._show(view)
        self.out.write(f"game over: {view.result}\n")
        self.out.flush()


async def _until_interrupted(play: Callable[[], Awaitable[T]]) -> T | None:
    """``play()``, or None if SIGINT (Ctrl-C) or SIGTERM comes first: the signal
    cancels the game like any cancellation (the reserved match is removed, the seat's
    question closed, the bots stopped) instead of a KeyboardInterrupt landing
    wherever the main thread happens to be."""
    import trio

    result: list[T] = []
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for _ in signals:
                    nursery.cancel_scope.cancel()
                    return

            async def game() -> None:
                result.append(await play())
                nursery.cancel_scope.cancel()

            nursery.start_soon(watch)
            nursery.start_soon(game)
    return result[0] if result else None


def play_command(  # long: the options, then one game played and reported
    ctx: typer.Context,
    game: Annotated[str, typer.Option("--game", "-g", help="Game name (see `arena games`).")],
    bot: Annotated[
        list[str],
        typer.Option(
            "--bot",
            "-b",
            help="Your opponent: a registered bot name or a command line (once per other seat).",
        ),
    ],
    seat: Annotated[
        int | None, typer.Option(help="Your seat (0 opens); default: drawn at random.", min=0)
    ] = None,
    name: Annotated[
        str, typer.Option(metavar="NAME", help="Your name in the humans league.")
    ] = "me",
    rule: Annotated[
        list[str] | None, typer.Option("--rule", "-r", help="Rule option key=value (repeatable).")
    ] = None,
    think_time: Annotated[float, typer.Option(help="Seconds you have per move.", min=1.0)] = 300.0,
    time_limit: Annotated[float, typer.Option(help="Seconds a bot has per move.", min=0.001)] = 2.0,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Draw chance from this seed (a reproducible practice game: stored in no"
            " league, rating nobody). Default: secret, and the game is rated."
        ),
    ] = None,
    record_file: Annotated[
        Path | None,
        typer.Option("--record", help="Also write the match record (JSON) to this file."),
    ] = None,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Play GAME yourself against BOT in the terminal: your view, the legal moves
    numbered, the result stored in the humans league (`arena league standings
    humans-GAME`); a --seed game is practice, stored in no league. Exit 0 when the
    game was played (won or lost), 1 if you left or a bot faulted, 2 bad input, 3 the
    referee aborted."""
    import trio

    from league.cli.match import exit_code
    from league.execution.human_play import HumanGame, opponent_row, play_human_game
    from league.store.human_games import AlreadyPlaying
    from referee.core.catalogue import get_game
    from referee.records.files import write_atomic
    from referee.records.transcript import result_lines

    rules = parse_rule_options(rule or [])
    try:
        engine_game = get_game(game)
        engine_game.check_seats(engine_game.parse_rules(rules), len(bot) + 1)
    except (GameError, ValueError) as error:
        raise fail(str(error)) from None
    seats = len(bot) + 1
    if seat is not None and seat >= seats:
        raise fail(f"--seat {seat}: a {seats}-seat match has seats 0 to {seats - 1}")
    human_seat = seat if seat is not None else secrets.randbelow(seats)
    with transaction(ctx) as session:
        opponents = [opponent_row(session, text, game) for text in bot]
        for row in opponents:
            session.expunge(row)
    find_modules_here(tuple(shlex.split(row.command)) for row in opponents if row.command)
    sandbox = default_sandbox(no_sandbox=no_sandbox)
    check_sandbox(sandbox)
    if record_file is not None:  # no bot may reach the file the record goes to
        sandbox = replace(sandbox, protect=(str(record_file.resolve()),))
    plan = HumanGame(
        game=game,
        player=name,
        opponents=opponents,
        human_seat=human_seat,
        rules=rules,
        think_s=think_time,
        decision_s=time_limit,
        seed=seed,
    )
    asker = TerminalAsker(sys.stdin, sys.stdout)
    typer.echo(
        f"{engine_game.title}: you are seat {human_seat} of {seats}, against "
        + ", ".join(row.name for row in opponents)
        + f"; {think_time:g} s per move"
    )
    if seed is not None:
        typer.echo(
            f"practice game (--seed {seed}): the seed tells every die, so it is not rated"
            " and not stored in the humans league"
        )
    engine = context_of(ctx).engine()
    try:
        played = trio.run(
            _until_interrupted, lambda: play_human_game(engine, plan, asker, sandbox=sandbox)
        )
    except KeyboardInterrupt:  # before the game's signal watch started, or after it ended
        played = None
    except Exception as error:
        found = sole_error(error)
        if isinstance(found, AlreadyPlaying):
            raise fail(f"{found} (or play under another --name)") from None
        raise fail(str(found)) from None
    if played is None:
        raise fail("interrupted: the game was not stored", EXIT_INTERRUPTED)
    match, record = played
    typer.echo(f"\nmatch {record.match_id} ({record.reason}):")
    for line in result_lines(record):
        typer.echo(line)
    if record_file is not None:
        try:
            write_atomic(record_file, record.to_json(indent=1).encode())
        except OSError as error:
            raise fail(f"cannot write record to {record_file}: {error}") from None
    if match is not None:
        typer.echo(f"stored in league {match.league}: arena replay {match.key}")
    else:
        typer.echo("practice game: not rated, stored in no league")
    if record_file is not None:
        typer.echo(f"record written to {record_file}: arena replay {record_file}")
    raise typer.Exit(exit_code(record))
