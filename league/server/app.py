"""The web application: state shared by the routes, security headers, errors.

:func:`create_app` builds a Starlette app (it runs on AnyIO, here on trio under
Hypercorn's trio worker, see :mod:`league.cli.serve`). Routes live in
:mod:`league.server.pages` (HTML), :mod:`league.server.api` (JSON) and
:mod:`league.server.live` (server-sent events). Every database call runs in a
worker thread through :meth:`Server.db`, bounded by a capacity limiter, so a
slow query never stalls the event loop that serves the other clients.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import jinja2
import trio
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from league.server.auth import COOKIE, AuthorSession, read_session
from league.server.checkqueue import CheckQueue, QueueLimits
from league.server.events import LeagueWatcher, State
from league.server.throttle import AuthThrottle, token_id_of
from league.server.views import Missing, fmt
from league.services.submissions import SubmissionLimits
from league.store.registry import LeagueError, NotFoundError

log = logging.getLogger("arena.server")

T = TypeVar("T")

PAGE_CSP = (
    "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self';"
    " frame-ancestors 'none'; object-src 'none'"
)
"""Server pages: scripts, styles and requests only from this server, no inline script."""

SECURITY_HEADERS = {
    "content-security-policy": PAGE_CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
}

REFIT_FACTOR = 3.0
"""A league's standings are fitted again at the earliest this many times the last
fit's duration after it ended (so fits take at most a quarter of a core)."""

Authenticator = Callable[[Session, str], int]
"""``(session, token) -> author id``; raises on a bad token."""

Accepted = Callable[["Server", int, str], Awaitable[list[str]]]
"""``hook(server, bot id, game)`` after a submission is registered: the ladders the
new version entered."""


@dataclass
class Settings:
    store: Path
    secure_cookies: bool = False
    """Mark the session cookie ``Secure`` even on plain HTTP (behind a TLS proxy)."""
    max_streams: int = 200
    """Open event streams at most; more get 503."""
    watch_interval_s: float = 1.0
    db_threads: int = 8
    limits: SubmissionLimits = field(default_factory=SubmissionLimits)
    """Upload size, unpacked size, files, and the per-author rate (docs/submissions.md)."""
    check_matches: int = 4
    """Matches the pre-submission check plays (``arena bot check``)."""
    queue: QueueLimits = field(default_factory=QueueLimits)
    """The pre-submission check queue: slots, budgets, per-author and global caps."""
    hide_unfinished: bool = True
    """List only finished matches (who plays whom is hidden until a match is over);
    tests switch it off to show what the old listing leaked."""


@dataclass
class Server:
    """What every route needs: the database, the watcher, templates, the server key."""

    engine: Engine
    settings: Settings
    key: bytes
    watcher: LeagueWatcher
    templates: jinja2.Environment
    authenticate: Authenticator | None = None
    """Checks an author's token (``league.store.authors.authenticate``); None: logins are off."""
    on_accepted: list[Accepted] = field(default_factory=list)
    streams: int = 0
    check_queue: CheckQueue = field(default_factory=CheckQueue)
    """Pre-submission checks (each plays matches in the sandbox): fair between
    authors, bounded (:mod:`league.server.checkqueue`)."""
    limiter: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(8))
    token_limiter: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(2))
    throttle: AuthThrottle = field(default_factory=AuthThrottle)
    """Failed token checks per client address and token id (429 before hashing)."""
    _cache: dict[tuple[str, str], tuple[State, Any, float]] = field(default_factory=dict)
    """(kind, league) → (state computed for, value, earliest time to compute again)."""
    _running: dict[tuple[str, str], trio.Event] = field(default_factory=dict)

    def _in_session(self, fn: Callable[..., T], args: tuple[Any, ...], kwargs: Any) -> T:
        from league.store.db import session_scope

        with session_scope(self.engine) as session:
            return fn(session, *args, **kwargs)

    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(session, *args, **kwargs)`` in a worker thread, in one transaction."""
        return await trio.to_thread.run_sync(
            self._in_session, fn, args, kwargs, limiter=self.limiter
        )

    async def check_token(self, fn: Callable[[Session, str], T], token: str, address: str) -> T:
        """``fn(session, token)`` for a token check (scrypt: tens of ms of CPU each).

        First :attr:`throttle` (:mod:`league.server.throttle`): an address or token id
        with too many recent failures gets :class:`Throttled` before any hashing or
        database work. Then the check, on threads of its own, so a flood of bad tokens
        queues there instead of delaying every page. Until it succeeds the attempt
        counts as a failure of ``address`` and of the token's id (a refusal, or any
        error, leaves it counted)."""
        attempt = self.throttle.admit(address, token_id_of(token))
        found = await trio.to_thread.run_sync(
            self._in_session, fn, (token,), {}, limiter=self.token_limiter
        )
        self.throttle.succeeded(attempt)
        return found

    async def cached(
        self, kind: str, league: str, league_id: int, fn: Callable[..., T], *args: Any
    ) -> T:
        """``db(fn, *args)``, computed again only when the league's state changed.

        Keyed by the watcher's state of the league *before* computing, so a result
        that lands meanwhile makes the next call compute again, never the reverse.
        One computation at a time per key, and — so that a league whose matches land
        faster than its table is fitted does not keep a core busy with fits — a new one
        only :data:`REFIT_FACTOR` times the last one's duration after it ended. Until
        then callers get the previous value at once: stale by the matches that just
        landed (its ``done`` says so; the page's script asks again a second later).
        With no value yet they wait for the first.
        """
        key = (kind, league)
        while True:
            state = self.watcher.state(league_id)
            hit = self._cache.get(key)
            if hit is not None and hit[0] == state:
                return hit[1]  # type: ignore[no-any-return]
            running = self._running.get(key)
            if running is None:
                if hit is not None and trio.current_time() < hit[2]:
                    return hit[1]  # type: ignore[no-any-return]
                break
            if hit is not None:
                return hit[1]  # type: ignore[no-any-return]
            await running.wait()
        done = self._running[key] = trio.Event()
        try:
            began = trio.current_time()
            value = await self.db(fn, *args)
            ended = trio.current_time()
            self._cache[key] = (state, value, ended + REFIT_FACTOR * (ended - began))
            return value
        finally:
            del self._running[key]
            done.set()

    def session_of(self, request: Request) -> AuthorSession | None:
        return read_session(self.key, request.cookies.get(COOKIE))

    async def author_of(self, request: Request) -> tuple[AuthorSession, str] | None:
        """The logged-in author's session and name; None when the cookie is absent,
        forged, expired, or names an author who no longer exists or was disabled."""
        session = self.session_of(request)
        if session is None:
            return None
        name = await self.db(_active_author_name, session.author_id)
        return None if name is None else (session, name)


def _active_author_name(session: Session, author_id: int) -> str | None:
    from league.store.models import AuthorRow

    row = session.get(AuthorRow, author_id)
    return None if row is None or row.disabled else row.name


def client_address(request: Request) -> str:
    """The peer's address (never a forwarded header: a client can write those)."""
    return request.client.host if request.client is not None else "unknown"


def server_of(request: Request) -> Server:
    server: Server = request.app.state.server
    return server


def templates() -> jinja2.Environment:
    """Jinja2 with autoescaping ON for every template: what authors wrote (bot and
    league names, README text) is always text, never markup."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("league.server", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["part"] = lambda value: quote(str(value), safe="")
    env.filters["fmt"] = fmt
    return env


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response that does not set its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


class DrainUnreadBody:
    """Ends well a request whose body the app answered without reading (a 401 or 413
    for an upload).

    Hypercorn hands the body to the app through a queue of a few chunks and, once the
    app has sent its last response byte, puts ``http.disconnect`` on that queue. With
    the queue full of body nobody reads, that put never returned: the connection hung
    with the answer sent, the client blocked sending the rest. So when the answer is
    complete but the body is not:

    1. the answer goes out but for its end, and the rest of the body is read and
       thrown away — at most :data:`LINGER_BYTES` within :data:`LINGER_S` — so that a
       client that sends its whole body before reading (Python's ``urllib``, so
       ``arena submit``) gets to read the status instead of a reset;
    2. then the answer ends; if the body still has not, a task throws away what is
       still queued until the disconnect (a few chunks: Hypercorn stops queueing once
       the answer is complete) and Hypercorn closes the connection.

    Nothing read here is kept: the answer was decided before the body was read.
    """

    METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in self.METHODS:
            await self.app(scope, receive, send)
            return
        ended = False

        def is_end(message: Message) -> bool:
            return message["type"] == "http.disconnect" or not message.get("more_body", False)

        async def tracking_receive() -> Message:
            nonlocal ended
            message = await receive()
            ended = ended or is_end(message)
            return message

        async def linger() -> None:
            nonlocal ended
            thrown = 0
            with trio.move_on_after(LINGER_S):
                while not ended and thrown <= LINGER_BYTES:
                    message = await receive()
                    thrown += len(message.get("body", b""))
                    ended = is_end(message)

        async def drain() -> None:
            while not is_end(await receive()):
                pass

        async with trio.open_nursery() as nursery:

            async def tracking_send(message: Message) -> None:
                last = message["type"] == "http.response.body" and not message.get("more_body")
                if last and not ended:
                    await send({**message, "more_body": True})
                    await linger()
                    if not ended:
                        nursery.start_soon(drain)
                        nursery.cancel_scope.deadline = trio.current_time() + DRAIN_S
                    message = {"type": "http.response.body", "body": b"", "more_body": False}
                await send(message)

            await self.app(scope, tracking_receive, tracking_send)


LINGER_BYTES = 16 << 20
"""Request body read and thrown away after an early answer, at most (see above)."""
LINGER_S = 5.0
DRAIN_S = 10.0
"""At most this long spent taking the last queued chunks after answering."""


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


async def error_response(request: Request, status: int, message: str) -> Response:
    if wants_json(request):
        return JSONResponse({"error": message, "status": status}, status_code=status)
    server = server_of(request)
    try:
        found = await server.author_of(request)
    except Exception:  # the error may be the database's: the page must still render
        found = None
    page = server.templates.get_template("error.html").render(
        status=status,
        message=message,
        author=found[0] if found else None,
        author_name=found[1] if found else None,
        path=request.url.path,
    )
    return HTMLResponse(page, status_code=status)


async def _missing(request: Request, error: Exception) -> Response:
    return await error_response(request, 404, str(error))


async def _bad_input(request: Request, error: Exception) -> Response:
    return await error_response(request, 400, str(error))


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    message = str(error.detail) if error.status_code != 404 else f"no page at {request.url.path}"
    response = await error_response(request, error.status_code, message)
    for name, value in (error.headers or {}).items():
        response.headers[name] = value
    return response


async def _server_error(request: Request, error: Exception) -> Response:
    log.exception("error serving %s", request.url.path, exc_info=error)
    return await error_response(request, 500, "internal error (logged on the server)")


def create_app(server: Server) -> Starlette:
    """The ASGI app serving ``server``'s database (the watcher runs separately)."""
    from starlette.middleware import Middleware
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    from league.server import api, live, pages, submit

    routes = [
        *live.routes(),  # before pages: /leagues/{name:path} would take .../events
        *pages.routes(),
        *submit.routes(),
        *api.routes(),
        Mount(
            "/static",
            StaticFiles(directory=str(Path(__file__).parent / "static")),
            name="static",
        ),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(SecurityHeaders), Middleware(DrainUnreadBody)],
        exception_handlers={
            Missing: _missing,
            NotFoundError: _missing,
            LeagueError: _bad_input,
            HTTPException: _http_error,
            Exception: _server_error,
        },
    )
    app.state.server = server
    return app
