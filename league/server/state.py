"""What every route of the server shares: :class:`Server` (the database, the
watcher, the templates, the server key, caches and limits) and its :class:`Settings`.

Its own module, below the routes (:mod:`league.server.pages`, ``api``, ``live``,
``submit``) and the app that mounts them (:mod:`league.server.app`), so the routes
import it without importing the app.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import jinja2
import trio
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.requests import Request

from league.server.auth import COOKIE, AuthorSession, read_session
from league.server.checkqueue import CheckQueue, QueueLimits
from league.server.events import LeagueWatcher, State
from league.server.throttle import AuthThrottle, token_id_of
from league.services.submissions import SubmissionLimits
from league.store.db import session_scope
from league.store.models import AuthorRow

T = TypeVar("T")

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
    row = session.get(AuthorRow, author_id)
    return None if row is None or row.disabled else row.name


def client_address(request: Request) -> str:
    """The peer's address (never a forwarded header: a client can write those)."""
    return request.client.host if request.client is not None else "unknown"


def server_of(request: Request) -> Server:
    server: Server = request.app.state.server
    return server
