"""Server-sent events: ``/leagues/{name}/events`` tells a standings page when to refetch.

One event ``results`` with the league's state (matches done, aborted, last
finish, scheduled) when the stream opens and each time :class:`~league.server.events.LeagueWatcher`
sees it change; a comment line every :data:`KEEPALIVE_S` keeps proxies from
closing an idle stream. The page's script (``static/league.js``) then fetches
``/api/leagues/{name}/standings`` and redraws the table.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from league.server import views
from league.server.events import State
from league.server.state import Server, server_of

KEEPALIVE_S = 15.0


async def _stream(server: Server, league_id: int) -> AsyncIterator[str]:
    server.streams += 1
    try:
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
    finally:
        server.streams -= 1


async def league_events(request: Request) -> Response:
    server = server_of(request)
    league_id = await server.db(views.league_id, request.path_params["name"])
    if server.streams >= server.settings.max_streams:
        raise HTTPException(503, "too many open event streams", headers={"retry-after": "5"})
    return StreamingResponse(
        _stream(server, league_id),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


def routes() -> list[BaseRoute]:
    return [Route("/leagues/{name:path}/events", league_events)]
