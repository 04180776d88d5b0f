"""Play a match with a person in one seat and a bot in the others.

The person's seat is a :class:`sdk.human.HumanSeat` served over gRPC on a Unix
socket in a private folder of this process (:func:`hosted_seat`); the referee
dials it like a bot reached by address, so it plays the match exactly as in a
league: only that seat's observation reaches the person, every move is checked by
the engine, the seat has a bounded clock (``think_s``), and the bots run in their
sandbox as always. The finished match is stored in the game's humans league
(:mod:`league.store.human_games`), which rates nobody elsewhere.

A game is reserved first (:func:`reserve_human_game`: one game per person at a
time, positions that cannot collide) and played then; the server reserves in the
request that starts the game, so a refusal is its answer. A game drawn from a seed
(``HumanGame.seed``: ``arena play --seed``) is practice: anyone who knows the seed
knows every die, so it is stored in no league and rates nobody.

A person who resigns (the asker raises :class:`sdk.human.Resigned`: ``q``, end of
input) is recorded as the fault ``resigned`` (:class:`referee.core.faults.Resigned`),
never as a fault of a bot's kind: the seat tells its :class:`~sdk.human.Departure`
before its stream ends, and the referee's side of that seat (:class:`_PersonLauncher`,
the only connection that reads it) names the ending so.

``arena play`` (terminal) and the server's browser games
(:mod:`league.server.human_games`) both call :func:`play_human_game`.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import trio
from sqlalchemy import Engine
from sqlmodel import Session

from league.domain.errors import LeagueError
from league.store.db import session_scope
from league.store.human_games import (
    HUMAN_PREFIX,
    HumanMatch,
    check_player,
    finish_human_match,
    prepare_humans,
    start_human_match,
)
from league.store.models import BotRow, LeagueRow
from league.store.registry import (
    NotFoundError,
    add_bot,
    bot_spec,
    content_version,
    get_bot,
    parse_command,
)
from referee.core.events import Event
from referee.core.faults import BotFault, Resigned
from referee.core.mixed import MixedAnswer
from referee.records.record import MatchRecord
from referee.runtime.channel import BotConnection, EarlyCallback, SeatStream
from referee.runtime.launcher import FreshLauncher, Launcher, Lease, connect
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec, default_bot_name
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig
from sdk.human import Asker, Departure, HumanLeft, human_seat_factory
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
def hosted_seat(
    game: str, asker: Asker, name: str = "human", departure: Departure | None = None
) -> Iterator[BotSpec]:
    """Serve a person's seat for ``game`` on a Unix socket in a new private
    folder; yields the spec the referee dials. Stopped and removed on exit.
    ``departure`` learns whether the person resigned."""
    folder = Path(tempfile.mkdtemp(prefix="arena-human-"))  # mode 0700
    address = f"unix:{folder / 'seat.sock'}"
    server = serve(human_seat_factory(game, asker, departure), address, max_workers=4)
    try:
        yield BotSpec(name=name, address=address, version="human")
    finally:
        asker.close()  # a question still open (the clock ran out) ends now
        server.stop(grace=None).wait()
        shutil.rmtree(folder, ignore_errors=True)


class _PersonStream(SeatStream):
    """A person's seat's stream: its end after the person resigned is ``resigned``."""

    departure: Departure

    async def receive(self) -> Any:
        try:
            return await super().receive()
        except BotFault:
            if self.departure.resigned:
                raise Resigned(f"the person resigned ({self.departure.words})") from None
            raise


class _PersonConnection(BotConnection):
    """The referee's connection to the seat this process serves for a person."""

    departure: Departure

    def open_stream(self, on_early: EarlyCallback | None = None) -> SeatStream:
        stream = _PersonStream(
            self.stub, trio.lowlevel.current_trio_token(), metadata=self.metadata, on_early=on_early
        )
        stream.departure = self.departure
        return stream


class _PersonLauncher:
    """``inner`` for the bots; for the person's seat (``person``, served by this
    process), a connection that records a resignation as ``resigned``."""

    def __init__(self, inner: Launcher, person: BotSpec, departure: Departure) -> None:
        self.inner, self.person, self.departure = inner, person, departure

    @asynccontextmanager
    async def lease(
        self, spec: BotSpec, startup_s: float, *, group: str = "", last_of_deal: bool = True
    ) -> AsyncIterator[Lease]:
        if spec is not self.person:
            async with self.inner.lease(
                spec, startup_s, group=group, last_of_deal=last_of_deal
            ) as leased:
                yield leased
            return
        connection = _PersonConnection(spec.address)
        connection.departure = self.departure
        async with connect(spec, startup_s, connection) as leased:
            yield leased


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
    humans league's secret: a practice game, stored in no league, rating nobody."""

    @property
    def num_seats(self) -> int:
        return len(self.opponents) + 1


async def _db(engine: Engine, fn: Callable[[Session], T]) -> T:
    def run() -> T:
        with session_scope(engine) as session:
            return fn(session)

    return await trio.to_thread.run_sync(run)


@dataclass(frozen=True)
class Reservation:
    """A humans-league match reserved (``playing``) for a game, and the specs of the
    bots of its other seats, in seat order."""

    match: HumanMatch
    bots: tuple[BotSpec, ...]


def _check_seat(game: HumanGame) -> None:
    if not 0 <= game.human_seat < game.num_seats:
        raise ValueError(f"seat {game.human_seat} is not a seat of a {game.num_seats}-seat match")


def reserve_human_game(engine: Engine, game: HumanGame, *, owner: str | None = None) -> Reservation:
    """Reserve the match ``game`` (not a seeded one) will be played as, for the process
    ``owner`` (this one by default). Blocking (the database): call it in a worker
    thread. :class:`~league.store.human_games.AlreadyPlaying` if the person is playing
    already; two reservations at the same moment never collide
    (:func:`league.store.human_games.start_human_match`)."""
    _check_seat(game)
    if game.seed is not None:
        raise ValueError("a seeded game is practice: it reserves no match")
    league, person = prepare_humans(engine, game.game, game.rules, game.player)

    def reserve(session: Session) -> Reservation:
        rows = [session.merge(opponent) for opponent in game.opponents]
        league_row = session.get(LeagueRow, league.id)
        person_row = session.get(BotRow, person.id)
        assert league_row is not None and person_row is not None
        rows.insert(game.human_seat, person_row)
        match = start_human_match(session=session, league=league_row, seats=rows, owner=owner)
        specs = tuple(bot_spec(row) for seat, row in enumerate(rows) if seat != game.human_seat)
        return Reservation(match, specs)

    with session_scope(engine) as session:
        return reserve(session)


def practice_id(game: HumanGame) -> str:
    """A seeded (practice) game's match id: ``practice-GAME-seedN``."""
    return f"practice-{game.game}-seed{game.seed}"


async def play_human_game(
    engine: Engine,
    game: HumanGame,
    asker: Asker,
    *,
    reserved: Reservation | None = None,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
    on_start: Callable[[HumanMatch], None] | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> tuple[HumanMatch | None, MatchRecord]:
    """Play ``game`` with ``asker`` answering for the person and store it in the
    humans league, as the match ``reserved`` (else reserved here,
    :func:`reserve_human_game`); the reserved match is deleted if the game ends
    without a result (cancelled, or aborted by the host). A seeded game is practice:
    no match is reserved or stored (None for it)."""
    _check_seat(game)
    if game.seed is not None:
        check_player(game.player)
        if reserved is not None:
            raise ValueError("a seeded game is practice: it plays no reserved match")
    elif reserved is None:
        reserved = await trio.to_thread.run_sync(reserve_human_game, engine, game)
    if reserved is not None and on_start is not None:
        on_start(reserved.match)
    match = reserved.match if reserved is not None else None
    specs = list(reserved.bots) if reserved is not None else [bot_spec(b) for b in game.opponents]
    record: MatchRecord | None = None
    logs: dict[int, bytes] = {}
    mixed: dict[int, list[MixedAnswer]] = {}
    try:
        departure = Departure()
        with hosted_seat(game.game, asker, HUMAN_PREFIX + game.player, departure) as seat:
            specs.insert(game.human_seat, seat)
            spec = MatchSpec(
                game=game.game,
                bots=tuple(specs),
                rules=game.rules,
                match_id=match.key if match is not None else practice_id(game),
                seed=game.seed,
                chance_key=match.chance_key if match is not None else None,
                single_use=True,
            )
            limits = Limits(
                decision_s=game.decision_s,
                startup_s=game.startup_s,
                seat_decision_s={game.human_seat: game.think_s},
                min_protocol=game.min_protocol,
            )
            launcher = _PersonLauncher(FreshLauncher(sandbox=sandbox), seat, departure)
            record = await run_match(
                spec, limits, launcher=launcher, logs=logs, on_event=on_event, mixed=mixed
            )
    finally:
        if match is not None:
            kept, stored = record, match
            bot_logs = {s: out for s, out in logs.items() if s != game.human_seat}
            bot_mixed = {s: answers for s, answers in mixed.items() if s != game.human_seat}
            with trio.CancelScope(shield=True):
                await _db(
                    engine,
                    lambda session: finish_human_match(
                        session=session, match=stored, record=kept, logs=bot_logs, mixed=bot_mixed
                    ),
                )
    return match, record


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
