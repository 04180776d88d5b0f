"""Rendering the server's pages: the Jinja2 environment and :func:`render`.

Shared by the HTML routes (:mod:`league.server.pages`, :mod:`league.server.submit`)
and the error pages of :mod:`league.server.app`.
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import quote

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse

from league.server.state import server_of
from league.server.views import fmt


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


async def render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Template ``name`` with ``context``, the logged-in author (``author``: the
    session, for the forms' CSRF token; ``author_name``) and the path."""
    server = server_of(request)
    found = await server.author_of(request)
    page = server.templates.get_template(name).render(
        author=found[0] if found else None,
        author_name=found[1] if found else None,
        path=request.url.path,
        **context,
    )
    return HTMLResponse(page, status_code=status, headers={"cache-control": "no-store"})


def new_incident() -> str:
    """An incident id: an unexpected error's answer shows it, the server's log line
    with the details holds it."""
    return secrets.token_hex(6)
