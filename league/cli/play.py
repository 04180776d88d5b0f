"""``arena play``: take a seat yourself, in the terminal, against a bot.

What you see is built from your seat's observation alone (:mod:`sdk.human`), in the
game's own words; your moves, typed as the game writes them and read by its engine
(:meth:`referee.gamekit.base.Game.parse_move`), go to the referee like a bot's and are
checked by the engine; the match is
stored in the game's humans league (:mod:`league.store.human_games`). A game drawn
from ``--seed`` is practice: the seed tells every die, so it is stored in no league
and rates nobody (``--record`` keeps its record in a file).
"""

from __future__ import annotations

import os
import secrets
import select
import shlex
import signal
import sys
import textwrap
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
LIST_WORDS = frozenset({"?", "list", "help", "moves"})
HISTORY_WORDS = frozenset({"history", "log"})
ROWS = 24
"""A screen (each turn's view and its prompt) never takes more rows than this."""
LIST_MOST = 240
"""Moves the numbered list shows at most (Liar's Poker opens with 8,596)."""
PROMPT = "your move (? lists them all, q resigns)> "
T = TypeVar("T")


def _listed(view: SeatView, index: int) -> str:
    """The ``index``-th move of the numbered list: as the person types it, with the
    engine's words beside a notation of a letter or two (``c (challenge)``)."""
    label = view.choices[index]
    if index >= len(view.written):
        return label
    written = view.written[index]
    return f"{written} ({label})" if len(written) <= 2 and written != label else written


class TerminalAsker:
    """Shows a seat's view on ``out`` and reads the move from ``source``, typed as the
    game writes it (``3 4s``, ``c``, ``full house``, ``bat as fly``) or ``#N``, the
    N-th move of the numbered list (``?``).

    Each turn's screen fits in :data:`ROWS` rows: the rules in force (the first
    screen), the other seats' moves since the last one in words, the seat's hidden
    holding, the legal moves in a line or two, and the prompt."""

    def __init__(self, source: TextIO, out: TextIO, *, rows: int = ROWS) -> None:
        self.source = source
        self.out = out
        self.rows = rows
        self.closed = threading.Event()
        self.interrupted = False
        """Set when Ctrl-C stops the game: an open question then ends without a word."""
        self.rules_shown = False
        self.history: list[str] = []

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

    def _columns(self) -> int:
        try:
            columns = os.get_terminal_size(self.out.fileno()).columns
        except (OSError, ValueError, AttributeError):
            columns = 0
        return columns if columns >= 40 else 80

    def _wrap(self, text: str, first: str = "", more: str = "    ") -> list[str]:
        return textwrap.wrap(
            text,
            width=self._columns(),
            initial_indent=first,
            subsequent_indent=more,
            break_on_hyphens=False,
            break_long_words=True,
        ) or [first.rstrip()]

    def screen(self, view: SeatView) -> list[str]:
        """The lines of one turn's screen (without the prompt), fitted to the rows."""
        what = f"{view.title or view.game} · you are seat {view.seat} of {view.num_seats}"
        head = [f"── {what}" + ("" if view.over else f" · move {view.decision}") + " ──"]
        rules: list[str] = []
        if not self.rules_shown and view.rules:
            rules = ["rules:"] + [w for line in view.rules for w in self._wrap(line, "  ", "  ")]
            self.rules_shown = True
        news = [w for line in view.announced for w in self._announced(line)]
        self.history.extend(view.announced)
        holding = [w for line in view.holding for w in self._wrap(line)]
        if view.over:
            moves = self._wrap(f"game over: {view.result}")
        else:
            moves = self._wrap(f"moves: {view.summary}" if view.summary else "moves: ? lists them")
        room = self.rows - 2 - len(head) - len(rules) - len(holding) - len(moves)
        if len(moves) > 4 and room < len(news) + 1:  # a long summary gives way first
            keep = max(4, len(moves) - (len(news) + 1 - room))
            room += len(moves) - keep
            moves = [*moves[: keep - 1], "  ... (? lists every move)"]
        if news:
            room -= 1
            if len(news) > room:
                hidden = len(news) - max(room - 1, 0)
                news = [f"  ({hidden} earlier lines: type history)", *news[hidden:]][: max(room, 0)]
            news = ["since your last move:", *news]
        return [*head, *rules, *news, *holding, *moves]

    def _announced(self, line: str) -> list[str]:
        if line.startswith("  "):  # a line that details the one before it (the dice shown)
            return self._wrap(line.strip(), "      ", "      ")
        return self._wrap(line, "  · ", "    ")

    def _show(self, lines: list[str]) -> None:
        self.out.write("\n" + "".join(f"{line}\n" for line in lines))

    def _list(self, view: SeatView) -> None:
        """The numbered list of every legal move, in columns, at most :data:`LIST_MOST`."""
        entries = [
            f"#{n} {_listed(view, n - 1)}" for n in range(1, min(len(view.choices), LIST_MOST) + 1)
        ]
        width = max(map(len, entries), default=1) + 2
        per_row = max(1, self._columns() // width)
        for start in range(0, len(entries), per_row):
            self.out.write(
                "".join(e.ljust(width) for e in entries[start : start + per_row]).rstrip()
            )
            self.out.write("\n")
        if len(view.choices) > LIST_MOST:
            self.out.write(
                f"... and {len(view.choices) - LIST_MOST} more: type the move as written above"
                " (or #N)\n"
            )
        self._show(
            [
                *[w for line in view.holding for w in self._wrap(line)],
                *self._wrap(f"moves: {view.summary}"),
            ]
        )

    def ask(self, view: SeatView) -> int:
        from sdk.human import HumanLeft, Resigned

        self._show(self.screen(view))
        while True:
            self.out.write(PROMPT)
            self.out.flush()
            line = self._readline()
            if self.closed.is_set():
                if self.interrupted:  # Ctrl-C: the command says what happened, once
                    self.out.write("\n")
                else:
                    self.out.write("\nthe game ended before your answer (your time ran out)\n")
                self.out.flush()
                raise HumanLeft("the match ended while you were thinking")
            if not line:
                self.out.write("\nend of input: you resign\n")
                raise Resigned("end of input")
            text = line.strip()
            if text.lower() in QUIT_WORDS:
                self.out.write("you resign\n")
                raise Resigned("typed q")
            if text.lower() in LIST_WORDS:
                self._list(view)
                continue
            if text.lower() in HISTORY_WORDS:
                self.out.write(
                    "".join(f"  · {entry}\n" for entry in self.history) or "nothing yet\n"
                )
                continue
            if not text:
                continue
            try:
                return view.parse(text)
            except ValueError as refused:  # NotAMove: what was expected, said in the game's words
                self.out.write("".join(f"{w}\n" for w in self._wrap(str(refused), "  ", "    ")))

    def tell(self, view: SeatView) -> None:
        self._show(self.screen(view))
        self.out.flush()


async def _until_interrupted(
    play: Callable[[], Awaitable[T]], asker: TerminalAsker | None = None
) -> T | None:
    """``play()``, or None if SIGINT (Ctrl-C) or SIGTERM comes first: the signal
    cancels the game like any cancellation (the reserved match is removed, the seat's
    question closed, the bots stopped) instead of a KeyboardInterrupt landing
    wherever the main thread happens to be. ``asker`` is told, so that its open
    question ends without a word of its own (the command says it, once)."""
    import trio

    result: list[T] = []
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for _ in signals:
                    if asker is not None:
                        asker.interrupted = True
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
    """Play GAME yourself against BOT in the terminal: your view in words, your moves
    typed as the game writes them (? lists them numbered, q resigns), the result stored
    in the humans league (`arena league standings humans-GAME`); a --seed game is
    practice, stored in no league. Exit 0 when the game was played (won or lost), 1 if
    you resigned or a bot faulted, 2 bad input, 3 the referee aborted."""
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
            _until_interrupted,
            lambda: play_human_game(engine, plan, asker, sandbox=sandbox),
            asker,
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
