"""The web application: the routes mounted, security headers, errors.

:func:`create_app` builds a Starlette app (it runs on AnyIO, here on trio under
Hypercorn's trio worker, see :mod:`league.cli.serve`). Routes live in
:mod:`league.server.pages` (HTML), :mod:`league.server.api` (JSON) and
:mod:`league.server.live` (server-sent events). Every database call runs in a
worker thread through :meth:`league.server.state.Server.db`, bounded by a capacity limiter, so a
slow query never stalls the event loop that serves the other clients.
"""

from __future__ import annotations

import logging
from pathlib import Path

import trio
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from league.server import api, human_games, live, pages, submit
from league.server.inputs import BadInput
from league.server.rendering import new_incident
from league.server.state import Server, server_of
from league.server.views import Missing
from league.store.registry import LeagueError, NotFoundError

log = logging.getLogger("arena.server")

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


async def _bad_field(request: Request, error: Exception) -> Response:
    """A field no validator of :mod:`league.server.inputs` took: 400 (404 for a path
    that names nothing), the field named, the value quoted short at most."""
    assert isinstance(error, BadInput)
    return await error_response(request, error.status, str(error))


SHOWN_PATH = 100
"""Characters of a request's path quoted in a message, at most."""


def shown_path(request: Request) -> str:
    """The request's path for a message, cut short (it is the client's text)."""
    path = request.url.path
    return path if len(path) <= SHOWN_PATH else path[: SHOWN_PATH - 3] + "..."


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    message = str(error.detail) if error.status_code != 404 else f"no page at {shown_path(request)}"
    response = await error_response(request, error.status_code, message)
    for name, value in (error.headers or {}).items():
        response.headers[name] = value
    return response


async def _server_error(request: Request, error: Exception) -> Response:
    """Anything unexpected: a generic answer with an incident id, never the error's
    text (it may quote SQL, paths or what the client sent); the traceback goes to the
    server's log under that id."""
    incident = new_incident()
    log.error(
        "incident %s: error serving %s %s",
        incident,
        request.method,
        shown_path(request),
        exc_info=error,
    )
    return await error_response(
        request, 500, f"internal error: incident {incident} (the details are in the server's log)"
    )


def create_app(server: Server) -> Starlette:
    """The ASGI app serving ``server``'s database (the watcher runs separately)."""
    routes = [
        *live.routes(),  # before pages: /leagues/{name:path} would take .../events
        *pages.routes(),
        *submit.routes(),
        *human_games.routes(),
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
            BadInput: _bad_field,
            HTTPException: _http_error,
            Exception: _server_error,
        },
    )
    app.state.server = server
    return app
