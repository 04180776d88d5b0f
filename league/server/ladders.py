"""The rolling ladders the server plays in the background (``docs/rolling.md``).

:func:`run_ladders` is a background task of :func:`league.server.serving.serve`: it
looks for rolling ladders in the database every :data:`LOOK_S` seconds and plays
each one with :func:`league.execution.rolling_runs.run_rolling` in this process, poking the league
watcher after every match so open standings pages redraw at once. A ladder whose
run fails (its sandbox cannot start, a database error) is logged and tried again
after :data:`RETRY_S`. On shutdown ``stop`` is set: no new match starts, running
ones get :data:`GRACE_S` to finish and be written, and anything not written stays
pending — the next start plays it first, so a restart (even after SIGKILL) loses
no finished match and plays none twice.

:func:`enter_ladders` is the submission hook: an accepted version enters every
rolling ladder of its game (retiring the author's older version there).
"""

from __future__ import annotations

import logging

import trio
from sqlmodel import Session

from league.execution.rolling_runs import run_rolling
from league.server.state import Server
from league.store.models import BotRow
from league.store.registry import AlreadyExistsError, LeagueError
from league.store.rolling_ladders import RollingError, enter_bot, rolling_leagues
from referee.runtime.sandbox import SandboxError

log = logging.getLogger("arena.server")

LOOK_S = 5.0
RETRY_S = 30.0
GRACE_S = 10.0


def _ladder_names(session: Session) -> list[str]:
    return [league.name for league in rolling_leagues(session=session)]


async def _play(server: Server, name: str, stop: trio.Event) -> None:
    while not stop.is_set():
        try:
            summary = await run_rolling(
                server.engine,
                name,
                stop=stop,
                on_match=lambda _match: server.watcher.notify(),
                grace_s=GRACE_S,
                min_protocol=server.settings.min_protocol,
            )
        except (LeagueError, SandboxError, OSError) as error:
            log.error(
                "rolling ladder %s stopped: %s (trying again in %.0f s)", name, error, RETRY_S
            )
        else:
            log.info(
                "rolling ladder %s: %d matches written, %d pending",
                name,
                summary.played,
                summary.pending,
            )
            if summary.stopped:
                return
        with trio.move_on_after(RETRY_S):
            await stop.wait()


async def run_ladders(server: Server, stop: trio.Event) -> None:
    """Play every rolling ladder (also ones created while the server runs) until ``stop``."""
    running: set[str] = set()
    async with trio.open_nursery() as nursery:
        while not stop.is_set():
            try:
                names = await server.db(_ladder_names)
            except Exception as error:  # the database is away: look again later
                log.warning("looking for rolling ladders: %s", error)
                names = []
            for name in names:
                if name not in running:
                    running.add(name)
                    log.info("playing rolling ladder %s", name)
                    nursery.start_soon(_play, server, name, stop)
            with trio.move_on_after(LOOK_S):
                await stop.wait()


def _enter(session: Session, bot_id: int, game: str) -> list[str]:
    bot = session.get(BotRow, bot_id)
    if bot is None:
        return []
    entered = []
    for league in rolling_leagues(session=session):
        if league.game != game:
            continue
        try:
            enter_bot(session=session, league=league, bot=bot)
        except (RollingError, AlreadyExistsError) as error:
            log.warning("not entered in %s: %s", league.name, error)
            continue
        entered.append(league.name)
    return entered


async def enter_ladders(server: Server, bot_id: int, game: str) -> list[str]:
    """Enter a newly accepted version in every rolling ladder of ``game``."""
    return await server.db(_enter, bot_id, game)
