"""Server-sent events: ``/leagues/{name}/events`` tells a standings page when to refetch.

One event ``results`` with the league's state (matches done, aborted, last
finish, scheduled) when the stream opens and each time :class:`~league.server.watcher.LeagueWatcher`
sees it change; a comment line every :data:`KEEPALIVE_S` keeps proxies from
closing an idle stream. The page's script (``static/league.js``) then fetches
``/api/leagues/{name}/standings`` and redraws the table.

**Capped per client and in total.** A client — the author its session cookie
names, else its address (:func:`league.server.state.client_address`, the real one
behind a trusted proxy) — holds at most ``Settings.max_streams_per_client``
streams at once; one more is answered 429 with ``Retry-After``, so one client
cannot take the server's :attr:`~league.server.state.Settings.max_streams` (503
beyond that) from everybody else. A stream is counted from the moment it is
admitted (before its first byte, so a burst is cut at the cap too) until its
response ends, however it ends.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator

import anyio
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from league.server import views
from league.server.state import Server, client_address, server_of
from league.server.watcher import State

KEEPALIVE_S = 15.0


async def _stream(server: Server, league_id: int) -> AsyncIterator[str]:
    yield "retry: 2000\n\n"
    seen: State | None = None
    while not server.watcher.closed:
        state = await server.watcher.wait_change(league_id, seen, KEEPALIVE_S)
        if server.watcher.closed:
            return
        if state == seen:
            yield ": keepalive\n\n"
            continue
        seen = state
        done, aborted, last, total = state
        data = json.dumps(
            {"done": done, "aborted": aborted, "last_finished": last, "matches": total}
        )
        yield f"event: results\ndata: {data}\n\n"


def stream_client(server: Server, request: Request) -> str:
    """Whose streams a request's stream counts among: the logged-in author's (a valid
    session cookie, whatever the address), else the client address's."""
    session = server.session_of(request)
    if session is not None:
        return f"author:{session.author_id}"
    return f"address:{client_address(request)}"


class _CountedStream(StreamingResponse):
    """A stream admitted under ``client``: counted until its response ends."""

    def __init__(self, server: Server, client: str, body: AsyncIterator[str]) -> None:
        super().__init__(
            body,
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )
        self.server, self.client, self.counted = server, client, True

    def release(self) -> None:
        if self.counted:
            self.counted = False
            self.server.streams -= 1
            left = self.server.streams_of.get(self.client, 1) - 1
            if left > 0:
                self.server.streams_of[self.client] = left
            else:
                self.server.streams_of.pop(self.client, None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()
            # A client that went away leaves the generator suspended: close it here,
            # not whenever the garbage collector gets to it.
            close = getattr(self.body_iterator, "aclose", None)
            if close is not None:
                with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                    await close()


async def league_events(request: Request) -> Response:
    server = server_of(request)
    league_id = await server.db(views.league_id, request.path_params["name"])
    client = stream_client(server, request)
    # From here to the response being returned nothing awaits: check and count are one step.
    held = server.streams_of.get(client, 0)
    if held >= server.settings.max_streams_per_client:
        raise HTTPException(
            429,
            f"this client has {held} live-update streams open (at most"
            f" {server.settings.max_streams_per_client}): close one first",
            headers={"retry-after": "5"},
        )
    if server.streams >= server.settings.max_streams:
        raise HTTPException(503, "too many open event streams", headers={"retry-after": "5"})
    server.streams += 1
    server.streams_of[client] = held + 1
    return _CountedStream(server, client, _stream(server, league_id))


def routes() -> list[BaseRoute]:
    return [Route("/leagues/{name:path}/events", league_events)]
