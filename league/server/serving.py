"""Run the server: Hypercorn's trio worker and the background work in one nursery.

:func:`serve` opens the app on ``host:port`` and, beside it, the league watcher
(:class:`~league.server.watcher.LeagueWatcher`) and any background task the
caller adds (``background``: e.g. the rolling ladders of
:mod:`league.server.ladders`, which call ``watcher.notify`` after each match).
SIGINT or SIGTERM stops accepting connections, ends the event streams, lets
requests in flight finish (a few seconds at most), sets ``stop`` for the
background tasks and waits up to ``background_grace_s`` for them (a ladder
finishes and writes its running matches), then cancels what is left.
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from functools import partial

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as hypercorn_serve
from sqlalchemy import Engine

from league.execution.submissions import fail_unfinished
from league.server.app import create_app
from league.server.auth import load_server_key
from league.server.checkqueue import CheckQueue
from league.server.ladders import enter_ladders
from league.server.rendering import templates
from league.server.state import Server, Settings
from league.server.watcher import LeagueWatcher
from league.store.db import session_scope
from league.store.human_games import drop_abandoned

log = logging.getLogger("arena.server")

Background = Callable[[Server, trio.Event], Awaitable[None]]
"""``task(server, stop)``: runs beside the web server until ``stop`` is set or it
is cancelled."""


def make_server(
    engine: Engine,
    settings: Settings,
    *,
    logins: bool = True,
) -> Server:
    server = Server(
        engine=engine,
        settings=settings,
        key=load_server_key(settings.store),
        watcher=LeagueWatcher(engine, interval_s=settings.watch_interval_s),
        templates=templates(),
        logins=logins,
        limiter=trio.CapacityLimiter(settings.db_threads),
        check_queue=CheckQueue(settings.queue),
    )
    server.on_accepted.append(enter_ladders)
    stale = fail_unfinished(engine)
    if stale:
        log.warning("%d submission(s) left checking by a stopped server marked failed", stale)
    with session_scope(engine) as session:
        dropped = drop_abandoned(session=session)
    if dropped:
        log.warning("%d game(s) against bots left by a stopped process released", dropped)
    return server


async def serve(
    server: Server,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    background: Sequence[Background] = (),
    on_ready: Callable[[list[str]], None] | None = None,
    handle_signals: bool = True,
    background_grace_s: float = 15.0,
) -> None:
    """Serve until SIGINT/SIGTERM (``handle_signals``) or cancellation."""
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")  # through the root handler, once
    config.graceful_timeout = 3.0
    config.keep_alive_timeout = 20.0
    config.include_server_header = False
    app = create_app(server)
    stop = trio.Event()

    async def shutdown_trigger() -> None:
        await stop.wait()
        server.watcher.close()  # the event streams end, so graceful shutdown is quick

    background_done = trio.Event()

    async def run_background() -> None:
        try:
            async with trio.open_nursery() as tasks:
                for task in background:
                    tasks.start_soon(task, server, stop)
        finally:
            background_done.set()

    async with trio.open_nursery() as nursery:
        if handle_signals:
            nursery.start_soon(_watch_signals, stop)
        await nursery.start(server.watcher.run)
        nursery.start_soon(run_background)
        try:
            async with trio.open_nursery() as web:
                binds = await web.start(
                    partial(hypercorn_serve, app, config, shutdown_trigger=shutdown_trigger)  # type: ignore[arg-type]
                )
                if on_ready is not None:
                    on_ready(list(binds))
            # Hypercorn returned: stop was set and its connections are done.
        finally:
            stop.set()
            server.watcher.close()
            # The ladders finish (and write) their running matches, within a bound.
            with trio.CancelScope(shield=True), trio.move_on_after(background_grace_s):
                await background_done.wait()
            nursery.cancel_scope.cancel()


async def _watch_signals(stop: trio.Event) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for received in signals:
            log.info("signal %s: shutting down", received)
            stop.set()
            return
