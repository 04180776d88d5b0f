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

from league.execution.submissions import SubmissionLimits
from league.server.auth import COOKIE, AuthorSession, read_session
from league.server.checkqueue import CheckQueue, QueueLimits
from league.server.human_tables import HumanTables
from league.server.throttle import AuthThrottle, Network, forwarded_client
from league.server.watcher import LeagueWatcher, State
from league.store.authors import (
    AuthError,
    find_by_token_id,
    is_slow,
    parse_token,
    secret_matches,
    upgrade_hash,
)
from league.store.db import session_scope
from league.store.models import AuthorRow

T = TypeVar("T")

REFIT_FACTOR = 3.0
"""A league's standings are fitted again at the earliest this many times the last
fit's duration after it ended (so fits take at most a quarter of a core)."""

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
    max_streams_per_client: int = 16
    """Open event streams of one client at most (an author, by session cookie; else
    a client address); more get 429 (:mod:`league.server.live`). Room for a few
    people behind one address (a NAT) with a few tabs each, far from the total."""
    max_streams_per_group: int = 32
    """Open anonymous event streams from one network at most (an address group:
    :attr:`stream_group_ipv4_prefix`, :attr:`stream_group_ipv6_prefix`); more get 429.
    Two clients at their own cap; the total holds six full groups and some, so many
    addresses of one network cannot take every stream. Logged-in authors' streams
    are not counted here (they have their own per-client cap)."""
    stream_group_ipv4_prefix: int = 24
    """IPv4 addresses (also IPv4-mapped IPv6 ones) sharing this many leading bits are
    one address group for :attr:`max_streams_per_group`."""
    stream_group_ipv6_prefix: int = 64
    """IPv6 addresses sharing this many leading bits (one subnet) are one address group."""
    forwarded_allow_ips: tuple[Network, ...] = ()
    """Peers (reverse proxies) whose ``X-Forwarded-For`` names the client
    (``arena serve --forwarded-allow-ips``); none by default."""
    min_protocol: int = 3
    """Submitted bots must speak at least this protocol version (``--min-protocol``)."""
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

    def __post_init__(self) -> None:
        for name, value, most in (
            ("stream_group_ipv4_prefix", self.stream_group_ipv4_prefix, 32),
            ("stream_group_ipv6_prefix", self.stream_group_ipv6_prefix, 128),
        ):
            if not 0 <= value <= most:
                raise SettingsError(f"{name} must be a prefix length 0..{most}, got {value!r}")


class SettingsError(ValueError):
    """A server setting out of its range (the message names it and the value)."""


@dataclass
class Server:
    """What every route needs: the database, the watcher, templates, the server key."""

    engine: Engine
    settings: Settings
    key: bytes
    watcher: LeagueWatcher
    templates: jinja2.Environment
    logins: bool = True
    """Authors may log in on the web pages with their token; False: logins are off."""
    on_accepted: list[Accepted] = field(default_factory=list)
    streams: int = 0
    streams_of: dict[str, int] = field(default_factory=dict)
    """Open event streams per client (:func:`league.server.live.stream_client`)."""
    streams_of_group: dict[str, int] = field(default_factory=dict)
    """Open anonymous event streams per address group (:func:`league.server.live.address_group`)."""
    check_queue: CheckQueue = field(default_factory=CheckQueue)
    """Pre-submission checks (each plays matches in the sandbox): fair between
    authors, bounded (:mod:`league.server.checkqueue`)."""
    limiter: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(8))
    token_limiter: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(4))
    """Threads of token checks: a flood of bad tokens queues there, not before pages."""
    human_tables: HumanTables = field(default_factory=HumanTables)
    """Browser games against bots (:mod:`league.server.human_games`)."""
    throttle: AuthThrottle = field(default_factory=AuthThrottle)
    """Failed token checks per client address and token id (:mod:`league.server.throttle`)."""
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

    async def check_token(self, token: str, address: str) -> AuthorRow:
        """The active author whose token this is (a detached row), else
        :class:`AuthError` (401) or :class:`~league.server.throttle.Throttled` (429).

        The token is always checked first — a lookup by its id and a SHA-256 — so a
        valid one gets in whatever other clients failed before
        (:mod:`league.server.throttle`); a failure is counted under ``address`` (and
        the token id when it exists) and answered 429 once they are over their
        limits. A row with the old slow hash is the exception: its check is admitted
        by the throttle before hashing, and upgraded to the fast hash on success."""
        try:
            token_id, secret = parse_token(token)
        except AuthError as error:
            raise self.throttle.failed(address) or error from None
        row = await trio.to_thread.run_sync(
            self._in_session, _find_author, (token_id,), {}, limiter=self.token_limiter
        )
        if row is None:
            raise self.throttle.failed(address) or AuthError("unknown or wrong token")
        if is_slow(row):
            attempt = self.throttle.admit_slow(address, token_id)
            ok = await trio.to_thread.run_sync(
                secret_matches, row, secret, limiter=self.token_limiter
            )
            if not ok:  # counted when admitted
                raise AuthError("unknown or wrong token")
            self.throttle.succeeded(attempt)
            await self.db(_upgrade_hash, token_id, row.token_hash, secret)
        elif not secret_matches(row, secret):
            raise self.throttle.failed(address, token_id) or AuthError("unknown or wrong token")
        if row.disabled:
            raise AuthError(f"author {row.name!r} is disabled: ask the operator for a new token")
        return row

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


def _find_author(session: Session, token_id: str) -> AuthorRow | None:
    row = find_by_token_id(session, token_id)
    if row is not None:
        session.expunge(row)
    return row


def _upgrade_hash(session: Session, token_id: str, checked_hash: str, secret: str) -> None:
    """The fast hash for a row whose slow hash (``checked_hash``) ``secret`` just matched."""
    row = find_by_token_id(session, token_id)
    if row is not None and row.token_hash == checked_hash:
        upgrade_hash(row, secret)
        session.add(row)


def _active_author_name(session: Session, author_id: int) -> str | None:
    row = session.get(AuthorRow, author_id)
    return None if row is None or row.disabled else row.name


def client_address(request: Request) -> str:
    """The client's address: the peer's, unless the peer is a trusted proxy
    (``Settings.forwarded_allow_ips``); then the one its ``X-Forwarded-For`` names
    (:func:`league.server.throttle.forwarded_client`). With no proxy trusted (the
    default) the header is ignored: a client can write it."""
    peer = request.client.host if request.client is not None else "unknown"
    trusted = server_of(request).settings.forwarded_allow_ips
    if not trusted:
        return peer
    return forwarded_client(peer, request.headers.get("x-forwarded-for"), trusted)


def server_of(request: Request) -> Server:
    server: Server = request.app.state.server
    return server
