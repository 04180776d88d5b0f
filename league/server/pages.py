"""HTML pages: leagues, live standings, match lists, replays, bots, author login.

Templates are Jinja2 with autoescaping on (:func:`league.server.rendering.templates`);
pages load ``/static/style.css`` and, where something moves, a script file from
``/static/`` — never inline script, which the page CSP forbids.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any
from urllib.parse import quote

from sqlmodel import Session
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from league.server import inputs, views
from league.server.auth import (
    COOKIE,
    SESSION_TTL_S,
    csrf_ok,
    may_read_logs,
    new_session,
    same_origin,
)
from league.server.readme import readme_html
from league.server.rendering import render
from league.server.state import Server, client_address, server_of
from league.server.submit import TooLarge, author_notices, capped_body, parse_form
from league.server.throttle import Throttled
from league.store.leagues import decompress_record, match_log
from league.store.mixed_moves import match_mixed
from league.store.models import MatchRow
from league.web.report import REPORT_CSS
from referee.core.faults import FaultKind
from referee.records.html_replay import render_replay_html
from referee.records.mixed_answers import MixedAnswersError, answer_lines


async def standings_of(server: Server, name: str) -> dict[str, Any]:
    """The league's standings table (:func:`views.league_standings`), from the
    server's cache: the index's leader, the league page and a bot's rank agree."""
    league_id = await server.db(views.league_id, name)
    return await server.cached("standings", name, league_id, views.league_standings, name)


async def index(request: Request) -> Response:
    server = server_of(request)
    leagues = await server.db(views.leagues)
    for league in leagues:
        league["leader"] = views.leader(await standings_of(server, league["name"]))
    return await render(request, "index.html", leagues=leagues)


async def figures_of(server: Server, name: str, table: dict[str, Any]) -> dict[str, str]:
    league_id = await server.db(views.league_id, name)
    ranked = tuple(row["bot"] for row in table["standings"])
    return await server.cached("figures", name, league_id, views.league_figures, name, ranked)


async def league_page(request: Request) -> Response:
    server = server_of(request)
    name = request.path_params["name"]
    league_id = await server.db(views.league_id, name)
    detail = await server.cached("detail", name, league_id, views.league_detail, name)
    table = await standings_of(server, name)
    return await render(
        request,
        "league.html",
        league=detail,
        table=table,
        figures=await figures_of(server, name, table),
        bluff_columns=views.BLUFF_COLUMNS,
    )


async def figures_fragment(request: Request) -> Response:
    """The league page's ``#figures`` (crosstable and rating chart) alone: its script
    swaps it in when results land."""
    server = server_of(request)
    name = request.path_params["name"]
    table = await standings_of(server, name)
    return await render(request, "_figures.html", figures=await figures_of(server, name, table))


async def report_css(request: Request) -> Response:
    """The static report's figure styles (:data:`league.web.report.REPORT_CSS`),
    served so the live league page draws the same crosstable and chart."""
    return Response(REPORT_CSS, media_type="text/css", headers={"cache-control": "no-cache"})


async def matches_page(request: Request) -> Response:
    server = server_of(request)
    name = request.path_params["name"]
    filters = views.match_filters(request.query_params)
    detail = await server.db(views.league_detail, name)
    hidden = server.settings.hide_unfinished
    rows = await server.db(views.league_matches, name, finished_only=hidden, **filters)

    return await render(
        request,
        "matches.html",
        league=detail,
        matches=rows,
        filters=filters,
        faults=[kind.value for kind in FaultKind],
        results=["completed", "forfeit", "won", "lost"]
        if hidden
        else ["completed", "forfeit", "aborted", "pending", "won", "lost"],
    )


def _replay_page(session: Session, key: str, finished_only: bool, nav: str) -> tuple[str, str]:
    stored = views.stored_match(session, key, finished_only=finished_only)
    if stored.record is None:
        raise views.Missing(f"match {stored.key} has not been played (status {stored.status})")
    page = render_replay_html(
        stored.record,
        back=(f"/leagues/{quote(stored.league, safe='')}/matches", f"{stored.league}: matches"),
        site_nav=nav,
    )
    return page, replay_csp(page)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def replay_csp(page: str) -> str:
    """The replay viewer's policy, tightened: its own inline script and style only
    (by hash), no request of any kind, not framed; forms (the menu bar's log-out)
    post only to this server. The page's meta CSP still applies."""
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, flags=re.S)
    return (
        "default-src 'none'; img-src data:; base-uri 'none'; form-action 'self';"
        " frame-ancestors 'none';"
        f" script-src {' '.join(map(_sha256, scripts)) or chr(39) + 'none' + chr(39)};"
        f" style-src {' '.join(map(_sha256, styles)) or chr(39) + 'none' + chr(39)}"
    )


async def replay_page(request: Request) -> Response:
    """The replay viewer of ``arena replay --html``, under the site's menu bar."""
    server = server_of(request)
    found = await server.author_of(request)
    nav = server.templates.get_template("_nav.html").render(
        author=found[0] if found else None, author_name=found[1] if found else None
    )
    page, csp = await server.db(
        _replay_page, request.path_params["key"], server.settings.hide_unfinished, nav
    )
    return HTMLResponse(page, headers={"content-security-policy": csp})


async def bots_page(request: Request) -> Response:
    server = server_of(request)
    return await render(request, "bots.html", bots=await server.db(views.bots))


async def bot_page(request: Request) -> Response:
    server = server_of(request)
    name = request.path_params["name"]
    detail = await server.db(views.bot_with_exploitability, name)
    for row in detail["leagues"]:  # its rank there, as the league page shows it
        table = await standings_of(server, row["league"])
        row["standing"] = views.rank_of(table, name, row["version"])
    readme = readme_html(detail["readme"]) if detail["readme"] else None
    found = await server.author_of(request)
    mine = await server.db(_is_author_of, name, found[0] if found else None)
    recent = await server.db(views.recent_seats, name) if mine else []
    notices = []
    if mine and found is not None:
        notices = [
            n for n in await server.db(author_notices, found[0].author_id) if n["bot"] == name
        ]
    return await render(
        request, "bot.html", bot=detail, readme=readme, mine=mine, recent=recent, notices=notices
    )


def _is_author_of(session: Session, name: str, author: Any) -> bool:
    if author is None:
        return False
    versions = views.bot_versions(session, name)
    return any(may_read_logs(author, v.author_id) for v in versions)


def _log(session: Session, key: str, seat: int, author: Any, finished_only: bool) -> str:
    """The seat's output, then its mixed moves if it made any: the author's alone."""
    match, bot = views.match_seat_bot(session, key, seat, finished_only=finished_only)
    if not may_read_logs(author, bot.author_id):
        raise HTTPException(403, "a bot's output is shown only to its author (log in first)")
    output = match_log(session=session, match=match, seat=seat)
    if output is None:
        raise views.Missing(f"no output captured for seat {seat} of match {key}")
    text = output.decode("utf-8", "replace")
    mixed = _mixed_lines(session, match, seat)
    if mixed:
        heading = (
            f"--- mixed moves of seat {seat}: the probabilities it stated and the action"
            " drawn (yours alone: the public record holds only a commitment) ---"
        )
        text += "\n" if text and not text.endswith("\n") else ""
        text += "\n".join([heading, *mixed, ""])
    return text


def _mixed_lines(session: Session, match: MatchRow, seat: int) -> list[str]:
    """A line per mixed move kept for ``seat`` of ``match`` (none: no lines)."""
    if match.record is None:
        return []
    try:
        answers = match_mixed(session=session, match=match, seat=seat)
    except MixedAnswersError as error:
        return [str(error)]
    return answer_lines(decompress_record(match.record), seat, answers) if answers else []


MAX_SEAT = 63
"""A seat number in a log's path, at most (no game seats more)."""


async def log_page(request: Request) -> Response:
    """What a seat's bot printed during a match, then its mixed moves: to the bot's
    author only."""
    server = server_of(request)
    found = await server.author_of(request)  # a disabled author's cookie reads nothing
    seat = inputs.ascii_int(request.path_params["seat"], 0, MAX_SEAT, "seat", status=404)
    output = await server.db(
        _log,
        request.path_params["key"],
        seat,
        found[0] if found else None,
        server.settings.hide_unfinished,
    )
    return PlainTextResponse(
        output,
        headers={"cache-control": "private, no-store", "content-disposition": "inline"},
    )


async def login_page(request: Request) -> Response:
    server = server_of(request)
    if request.method == "GET":
        return await render(request, "login.html", enabled=server.logins, error="")
    if not same_origin(dict(request.headers), request.headers.get("host", "")):
        raise HTTPException(403, "cross-site form submission refused")
    if not server.logins:
        return await render(
            request,
            "login.html",
            status=503,
            enabled=False,
            error="author logins are not enabled on this server",
        )
    form = await small_form(request)
    try:
        token = inputs.form_text(form, "token", max_len=TOKEN_CHARS, default="").strip()
    except inputs.BadInput as error:
        return await render(request, "login.html", status=400, enabled=True, error=str(error))
    try:
        author = await server.check_token(token, client_address(request))
    except Throttled as error:
        page = await render(request, "login.html", status=429, enabled=True, error=str(error))
        page.headers["retry-after"] = str(error.retry_after_s)
        return page
    except Exception:  # any refusal reads the same: no hint which part was wrong
        return await render(
            request, "login.html", status=401, enabled=True, error="that token is not valid"
        )
    assert author.id is not None
    value, _session = new_session(server.key, author.id)
    response = RedirectResponse("/", status_code=303)
    set_session_cookie(response, value, secure=_secure(request, server))
    return response


TOKEN_CHARS = 200
"""A pasted token's length, at most (``arena author add`` prints 63 characters)."""
SMALL_FORM_BYTES = 8 << 10


async def small_form(request: Request) -> dict[str, Any]:
    """A form of a few short fields (login, logout), its body read up to 8 KiB only."""
    try:
        body = await capped_body(request, SMALL_FORM_BYTES)
    except TooLarge as error:
        raise HTTPException(413, str(error), headers={"connection": "close"}) from None
    return await parse_form(request, body)


def _secure(request: Request, server: Server) -> bool:
    return server.settings.secure_cookies or request.url.scheme == "https"


def set_session_cookie(response: Response, value: str, *, secure: bool) -> None:
    response.set_cookie(
        COOKIE,
        value,
        max_age=SESSION_TTL_S,
        path="/",
        httponly=True,
        samesite="strict",
        secure=secure,
    )


async def logout(request: Request) -> Response:
    server = server_of(request)
    session = server.session_of(request)
    if not same_origin(dict(request.headers), request.headers.get("host", "")):
        raise HTTPException(403, "cross-site form submission refused")
    form = await small_form(request)
    if session is not None and not csrf_ok(session, inputs.hex_text(form.get("csrf"), "csrf")):
        raise HTTPException(403, "bad or missing form token")
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


def routes() -> list[BaseRoute]:
    return [
        Route("/", index),
        Route("/static/report.css", report_css),
        Route("/leagues/{name:path}/matches", matches_page),
        Route("/leagues/{name:path}/figures", figures_fragment),
        Route("/leagues/{name:path}", league_page),
        Route("/bots", bots_page),
        Route("/bots/{name:path}", bot_page),
        Route("/matches/{key:path}/logs/{seat}", log_page),
        Route("/matches/{key:path}", replay_page),
        Route("/login", login_page, methods=["GET", "POST"]),
        Route("/logout", logout, methods=["POST"]),
    ]
