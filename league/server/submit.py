"""Bot submissions over HTTP: ``POST /api/submissions`` and the upload form ``/submit``.

Both end in :func:`league.execution.submissions.submit_bot` (store, unpack safely, check in the
sandbox, register) and then enter the new version into every rolling ladder of its
game (:attr:`Server.on_accepted`). The API authenticates with ``Authorization:
Bearer <token>``; the form with the author's session cookie plus the session's CSRF
token and an ``Origin`` check (:mod:`league.server.auth`).

**Size.** A request whose ``Content-Length`` is over the cap is answered 413 before a
byte of its body is read; a body without a length is read only up to the cap, then
answered 413. The cap is the submission limit plus :data:`FORM_OVERHEAD` for the
multipart framing; ``submit_bot`` then checks the file itself.

**Checks queue fairly** (:mod:`league.server.checkqueue`): one at a time by default,
round robin across authors, each within a time budget; a burst of uploads must not
take every core from the ladders, nor make another author wait for all of it.
"""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Message

from league.execution.submissions import (
    BadSubmission,
    RateLimited,
    SubmissionRefused,
    list_submissions,
    submit_bot,
)
from league.server import inputs
from league.server.auth import csrf_ok, same_origin
from league.server.checkqueue import QueueBusy
from league.server.rendering import render
from league.server.state import Server, client_address, server_of
from league.server.throttle import Throttled
from league.store.authors import AuthError
from league.store.models import AuthorRow
from league.store.suspension import notices
from league.store.uploads import UploadRejected, UploadTooLarge
from referee.core.catalogue import game_names

NAME_CHARS = 100
"""A submission's bot name and game, at most (the registry then checks them)."""
FILENAME_CHARS = 255
"""An uploaded file's name, at most (it names the archive's kind)."""
TOKEN_CHARS = 200
"""A bearer token is read up to this length (``arena author add`` prints 63 characters)."""
FORM_OVERHEAD = 64 << 10
"""Bytes allowed beyond the file for the multipart boundaries and the other fields."""


def http_status(error: BaseException) -> int:
    """The HTTP status the server answers a submission error with."""
    if isinstance(error, AuthError):
        return 401
    if isinstance(error, UploadTooLarge):
        return 413
    if isinstance(error, QueueBusy):
        return 503
    if isinstance(error, RateLimited):
        return 429
    if isinstance(error, SubmissionRefused):
        return 400 if error.malformed else 422
    if isinstance(error, UploadRejected):
        return 400
    if isinstance(error, BadSubmission):
        return 400
    return 500


def error_json(error: BaseException) -> dict[str, object]:
    """The server's JSON answer for a submission error (see docs/submissions.md)."""
    if isinstance(error, SubmissionRefused):
        answer: dict[str, object] = {"status": "refused", "reasons": list(error.reasons)}
        if error.submission_id is not None:
            answer["submission"] = error.submission_id
        return answer
    answer = {"status": "error", "error": str(error)}
    if isinstance(error, RateLimited):
        answer["retry_after"] = error.retry_after_s
    return answer


class TooLarge(Exception):
    pass


def body_cap(server: Server) -> int:
    return server.settings.limits.max_upload_bytes + FORM_OVERHEAD


async def capped_body(request: Request, cap: int) -> bytes:
    """The request body, refusing (:class:`TooLarge`) as soon as it is over ``cap``:
    by its declared length before reading, or while reading it."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            length = inputs.ascii_int(declared, 0, 10**18, "Content-Length")
        except inputs.BadInput as error:
            raise HTTPException(400, str(error)) from None
        if length > cap:
            raise TooLarge(f"request of {length} bytes is over the {cap} byte limit")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > cap:
            raise TooLarge(f"request body is over the {cap} byte limit")
    return bytes(body)


async def parse_form(request: Request, body: bytes) -> dict[str, Any]:
    """The multipart (or urlencoded) form in ``body``: field name → str or (filename, bytes)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    again = Request(request.scope, replay)
    try:
        form = await again.form(max_files=1, max_fields=8, max_part_size=64 << 10)
    except HTTPException:
        raise
    except Exception as error:  # the multipart parser's own errors: a bad request
        raise HTTPException(400, f"malformed form: {error}") from None
    fields: dict[str, Any] = {}
    try:
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                fields[key] = (value.filename or "upload", await value.read())
            else:
                fields[key] = value
    finally:
        await form.close()
    return fields


def _author(session: Session, author_id: int) -> AuthorRow | None:
    row = session.get(AuthorRow, author_id)
    if row is None or row.disabled:
        return None
    session.expunge(row)
    return row


async def _submit(
    server: Server, author: AuthorRow, fields: dict[str, Any]
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Run the submission; (HTTP status, JSON answer, extra headers)."""
    name = fields.get("name")
    game = fields.get("game")
    upload = fields.get("bot")
    try:
        if not isinstance(name, str) or not isinstance(game, str) or not isinstance(upload, tuple):
            raise BadSubmission("send the fields name and game and the file bot (multipart)")
        try:
            name = inputs.text(name, "name", max_len=NAME_CHARS)
            game = inputs.text(game, "game", max_len=NAME_CHARS)
            filename = inputs.text(upload[0], "bot (file name)", max_len=FILENAME_CHARS)
        except inputs.BadInput as error:
            raise BadSubmission(str(error)) from None
        data = upload[1]
        result = await submit_bot(
            engine=server.engine,
            store=server.settings.store,
            author=author,
            name=name.strip(),
            game=game.strip(),
            filename=filename,
            data=data,
            limits=server.settings.limits,
            check_matches=server.settings.check_matches,
            slot=server.check_queue.slot,
            check_budget_s=server.settings.queue.check_budget_s,
            min_protocol=server.settings.min_protocol,
        )
    except Exception as error:
        status = http_status(error)
        if status == 500:
            raise
        headers = {}
        retry = getattr(error, "retry_after_s", None)
        if retry is not None:
            headers["retry-after"] = str(retry)
        if status == 401:
            headers["www-authenticate"] = "Bearer"
        return status, error_json(error), headers
    answer = result.to_json()
    entered: list[str] = []
    for hook in server.on_accepted:
        entered.extend(await hook(server, result.bot_id, game.strip()))
    answer["ladders"] = entered
    server.watcher.notify()
    return 200, answer, {}


async def bearer_author(server: Server, request: Request) -> AuthorRow | Response:
    """The author whose token the ``Authorization: Bearer`` header carries, or the
    answer refusing it: 401 (missing or bad), 429 (a bad one, after too many failed
    checks from its address or on its token id: :mod:`league.server.throttle`). A
    valid token is never refused for others' failures."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return _error(401, "missing token: send `Authorization: Bearer <token>`")
    if len(token) > TOKEN_CHARS:  # a malformed token: refused (and counted) unread
        token = token[:TOKEN_CHARS]
    try:
        return await server.check_token(token.strip(), client_address(request))
    except Throttled as error:
        return _error(429, str(error), retry_after_s=error.retry_after_s)
    except Exception as error:
        if isinstance(error, AuthError):
            return _error(401, str(error))
        raise


async def api_submit(request: Request) -> Response:
    """``POST /api/submissions``: multipart ``name``, ``game``, file ``bot``; Bearer token."""
    server = server_of(request)
    author = await bearer_author(server, request)
    if isinstance(author, Response):
        return author
    try:
        body = await capped_body(request, body_cap(server))
    except TooLarge as error:
        return _error(413, str(error), close=True)
    fields = await parse_form(request, body)
    status, answer, headers = await _submit(server, author, fields)
    return JSONResponse(
        answer, status_code=status, headers={"cache-control": "no-store", **headers}
    )


def _error(
    status: int, message: str, *, close: bool = False, retry_after_s: int | None = None
) -> JSONResponse:
    headers = {"cache-control": "no-store"}
    if retry_after_s is not None:
        headers["retry-after"] = str(retry_after_s)
    if status == 401:
        headers["www-authenticate"] = "Bearer"
    if close:  # the rest of the body is not read: the connection cannot be reused
        headers["connection"] = "close"
    return JSONResponse({"status": "error", "error": message}, status_code=status, headers=headers)


async def submissions_of(server: Server, author_id: int) -> list[dict[str, Any]]:
    """The author's last 20 submissions; one still being checked carries ``queue``:
    ``{"state": "checking"}`` or ``{"state": "waiting", "ahead": N}``."""
    rows = await server.db(_submissions, author_id)
    for row in rows:
        position = server.check_queue.position(row["id"]) if row["status"] == "checking" else None
        row["queue"] = position.to_json() if position is not None else None
    return rows


async def api_submissions(request: Request) -> Response:
    """``GET /api/submissions``: the author's (Bearer token) last 20 submissions,
    with the queue position of those waiting for their check, and ``notices``: their
    suspended bot versions and why (:mod:`league.store.suspension`)."""
    server = server_of(request)
    author = await bearer_author(server, request)
    if isinstance(author, Response):
        return author
    assert author.id is not None
    rows = await submissions_of(server, author.id)
    notices = await server.db(author_notices, author.id)
    return JSONResponse(
        {"submissions": rows, "notices": notices}, headers={"cache-control": "no-store"}
    )


def author_notices(session: Session, author_id: int) -> list[dict[str, Any]]:
    """The author's suspended bot versions and why (:func:`league.store.suspension.notices`)."""
    return notices(session, author_id)


def _submissions(session: Session, author_id: int) -> list[dict[str, Any]]:
    return [
        {
            "id": row.id,
            "name": row.name,
            "game": row.game,
            "status": row.status,
            "reasons": json.loads(row.reasons or "[]"),
            "size": row.size,
            "created_at": row.created_at.isoformat()[:19],
        }
        for row in list_submissions(session=session, author_id=author_id, limit=20)
    ]


async def submit_page(request: Request) -> Response:
    """The upload form (GET) and its submission (POST), for a logged-in author."""
    server = server_of(request)
    session = server.session_of(request)
    author = await server.db(_author, session.author_id) if session is not None else None
    outcome: dict[str, Any] | None = None
    status = 200
    if request.method == "POST":
        if not same_origin(dict(request.headers), request.headers.get("host", "")):
            raise HTTPException(403, "cross-site form submission refused")
        if author is None:
            return RedirectResponse("/login", status_code=303)
        try:
            body = await capped_body(request, body_cap(server))
        except TooLarge as error:
            raise HTTPException(413, str(error), headers={"connection": "close"}) from None
        fields = await parse_form(request, body)
        if not csrf_ok(session, inputs.hex_text(fields.get("csrf"), "csrf")):
            raise HTTPException(403, "bad or missing form token (reload the form)")
        status, outcome, _headers = await _submit(server, author, fields)
    submissions = await submissions_of(server, author.id) if author and author.id else []
    notices = await server.db(author_notices, author.id) if author and author.id else []
    return await render(
        request,
        "submit.html",
        status=status,
        author_row=author,
        games=sorted(game_names()),
        outcome=outcome,
        submissions=submissions,
        notices=notices,
        limits=server.settings.limits,
    )


def routes() -> list[BaseRoute]:
    return [
        Route("/api/submissions", api_submit, methods=["POST"]),
        Route("/api/submissions", api_submissions, methods=["GET"]),
        Route("/submit", submit_page, methods=["GET", "POST"]),
    ]
