"""Play a match with a person in one seat and a bot in the others.

The person's seat is a :class:`sdk.human.HumanSeat` served over gRPC on a Unix
socket in a private folder of this process (:func:`hosted_seat`); the referee
dials it like a bot reached by address, so it plays the match exactly as in a
league: only that seat's observation reaches the person, every move is checked by
the engine, the seat has a bounded clock (``think_s``), and the bots run in their
sandbox as always. The finished match is stored in the game's humans league
(:mod:`league.store.human_games`), which rates nobody elsewhere.

``arena play`` (terminal) and the server's browser games
(:mod:`league.server.human_games`) both call :func:`play_human_game`.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import trio
from sqlalchemy import Engine
from sqlmodel import Session

from league.domain.errors import LeagueError
from league.store.db import session_scope
from league.store.human_games import (
    HUMAN_PREFIX,
    HumanMatch,
    finish_human_match,
    human_row,
    humans_league,
    start_human_match,
)
from league.store.models import BotRow
from league.store.registry import (
    NotFoundError,
    add_bot,
    bot_spec,
    content_version,
    get_bot,
    parse_command,
)
from referee.core.events import Event
from referee.records.record import MatchRecord
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec, default_bot_name
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig
from sdk.human import Asker, HumanLeft, human_seat_factory
from sdk.serve import serve

T = TypeVar("T")

THINK_S = 300.0
"""A person's time per decision by default: generous, but a game left open ends."""


def _not_a_person_leaving(record: logging.LogRecord) -> bool:
    """gRPC logs every exception a servicer raises, with its traceback; a person who
    resigned, closed the page or ran out of time is not an error of the server."""
    return not (record.exc_info and isinstance(record.exc_info[1], HumanLeft))


logging.getLogger("grpc._server").addFilter(_not_a_person_leaving)


@contextmanager
def hosted_seat(game: str, asker: Asker, name: str = "human") -> Iterator[BotSpec]:
    """Serve a person's seat for ``game`` on a Unix socket in a new private
    folder; yields the spec the referee dials. Stopped and removed on exit."""
    folder = Path(tempfile.mkdtemp(prefix="arena-human-"))  # mode 0700
    address = f"unix:{folder / 'seat.sock'}"
    server = serve(human_seat_factory(game, asker), address, max_workers=4)
    try:
        yield BotSpec(name=name, address=address, version="human")
    finally:
        asker.close()  # a question still open (the clock ran out) ends now
        server.stop(grace=None).wait()
        shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class HumanGame:
    """One game to play: ``player`` in ``human_seat``, ``opponents`` (bot rows) in
    the other seats in order."""

    game: str
    player: str
    opponents: Sequence[BotRow]
    human_seat: int = 0
    rules: Mapping[str, str] = field(default_factory=dict)
    think_s: float = THINK_S
    decision_s: float = 2.0
    startup_s: float = 15.0
    min_protocol: int = 1
    """The lowest protocol the bots must speak (a server's ladders ask for 3)."""
    seed: int | None = None
    """Draw chance from this seed (a local, reproducible game) instead of the
    humans league's secret."""

    @property
    def num_seats(self) -> int:
        return len(self.opponents) + 1


def _seat_rows(session: Session, game: HumanGame) -> list[BotRow]:
    rows = [human_row(session=session, player=game.player, game=game.game)]
    for opponent in game.opponents:
        rows.append(session.merge(opponent))
    rows.insert(game.human_seat, rows.pop(0))
    return rows


async def _db(engine: Engine, fn: Callable[[Session], T]) -> T:
    def run() -> T:
        with session_scope(engine) as session:
            return fn(session)

    return await trio.to_thread.run_sync(run)


async def play_human_game(
    engine: Engine,
    game: HumanGame,
    asker: Asker,
    *,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
    on_start: Callable[[HumanMatch], None] | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> tuple[HumanMatch, MatchRecord]:
    """Play ``game`` with ``asker`` answering for the person and store it; the
    reserved match is deleted if the game ends without a result (cancelled, or
    aborted by the host)."""
    if not 0 <= game.human_seat < game.num_seats:
        raise ValueError(f"seat {game.human_seat} is not a seat of a {game.num_seats}-seat match")

    def begin(session: Session) -> tuple[HumanMatch, list[BotSpec]]:
        league = humans_league(session=session, game=game.game, rules=game.rules)
        rows = _seat_rows(session, game)
        reserved = start_human_match(session=session, league=league, seats=rows)
        specs = [bot_spec(row) for seat, row in enumerate(rows) if seat != game.human_seat]
        return reserved, specs

    reserved, specs = await _db(engine, begin)
    if on_start is not None:
        on_start(reserved)
    record: MatchRecord | None = None
    logs: dict[int, bytes] = {}
    try:
        with hosted_seat(game.game, asker, HUMAN_PREFIX + game.player) as seat:
            specs.insert(game.human_seat, seat)
            spec = MatchSpec(
                game=game.game,
                bots=tuple(specs),
                rules=game.rules,
                match_id=reserved.key,
                seed=game.seed,
                chance_key=None if game.seed is not None else reserved.chance_key,
                single_use=True,
            )
            limits = Limits(
                decision_s=game.decision_s,
                startup_s=game.startup_s,
                seat_decision_s={game.human_seat: game.think_s},
                min_protocol=game.min_protocol,
            )
            launcher = FreshLauncher(sandbox=sandbox)
            record = await run_match(spec, limits, launcher=launcher, logs=logs, on_event=on_event)
    finally:
        kept = record
        human_logs = {s: out for s, out in logs.items() if s != game.human_seat}
        with trio.CancelScope(shield=True):
            await _db(
                engine,
                lambda session: finish_human_match(
                    session=session, match=reserved, record=kept, logs=human_logs
                ),
            )
    return reserved, record


def opponent_row(session: Session, text: str, game: str) -> BotRow:
    """The bot ``text`` names: a registered bot, else a command line, stored as a
    retired row (:mod:`league.store.human_games`) so the match can name its version."""
    try:
        row = get_bot(session=session, name=text.strip())
    except NotFoundError:
        pass
    else:
        if game not in row.games.split(","):
            raise LeagueError(f"bot {row.name!r} does not play {game} (it plays {row.games})")
        return row
    argv = parse_command(text)
    name, version = default_bot_name(argv), content_version(argv)
    try:
        return get_bot(session=session, name=name, version=version)
    except NotFoundError:
        row = add_bot(session=session, name=name, command=text, games=[game])
        row.retired = True
        session.add(row)
        session.flush()
        return row
