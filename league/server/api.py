"""The JSON API under ``/api/``: every listing the pages show, as data.

Errors are JSON too: ``{"error": message, "status": code}`` with 404 for a name
that does not exist and 400 for a bad filter.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from league.server import views
from league.server.state import server_of


def _json(data: Any) -> JSONResponse:
    return JSONResponse(data, headers={"cache-control": "no-store"})


async def leagues(request: Request) -> Response:
    return _json(await server_of(request).db(views.leagues))


async def league(request: Request) -> Response:
    return _json(await server_of(request).db(views.league_detail, request.path_params["name"]))


async def standings(request: Request) -> Response:
    server = server_of(request)
    name = request.path_params["name"]
    league_id = await server.db(views.league_id, name)
    return _json(await server.cached("standings", name, league_id, views.league_standings, name))


async def matches(request: Request) -> Response:
    server = server_of(request)
    filters = views.match_filters(request.query_params)
    return _json(
        await server.db(
            views.league_matches,
            request.path_params["name"],
            finished_only=server.settings.hide_unfinished,
            **filters,
        )
    )


async def bots(request: Request) -> Response:
    return _json(await server_of(request).db(views.bots))


async def bot(request: Request) -> Response:
    return _json(
        await server_of(request).db(views.bot_with_exploitability, request.path_params["name"])
    )


def _record_json(session: Any, key: str, finished_only: bool) -> str:
    stored = views.stored_match(session, key, finished_only=finished_only)
    if stored.record is None:
        raise views.Missing(f"match {stored.key} has not been played (status {stored.status})")
    return stored.record.to_json()


async def match(request: Request) -> Response:
    """The match record (``docs/record-format.md``), as ``arena replay ID --json``."""
    server = server_of(request)
    text = await server.db(
        _record_json, request.path_params["key"], server.settings.hide_unfinished
    )
    return Response(text, media_type="application/json", headers={"cache-control": "no-store"})


def routes() -> list[BaseRoute]:
    return [
        Route("/api/leagues", leagues),
        Route("/api/leagues/{name:path}/standings", standings),
        Route("/api/leagues/{name:path}/matches", matches),
        Route("/api/leagues/{name:path}", league),
        Route("/api/bots", bots),
        Route("/api/bots/{name:path}", bot),
        Route("/api/matches/{key:path}", match),
    ]
