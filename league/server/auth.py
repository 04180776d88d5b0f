"""Author sessions for the web pages: a signed cookie, CSRF tokens, who may read logs.

An author logs in by pasting their token (``arena author add`` printed it) into
the login form; the server checks it (:meth:`league.server.state.Server.check_token`,
throttled as :mod:`league.server.throttle` says) and sets a session cookie:

    arena_session = AUTHOR_ID.EXPIRES.NONCE.MAC

``MAC`` is HMAC-SHA256 under the server key over the rest, so the cookie cannot
be forged or altered without the key; it is ``HttpOnly`` (no script reads it),
``SameSite=Strict`` (no other site's page sends it) and ``Secure`` when the server
is reached over HTTPS. The token itself is never stored in the cookie.

The server key is 32 bytes from :mod:`secrets`, created once in the store
(``server.key``, mode 0600, never through a symbolic link) and read on every
start, so sessions survive a restart; deleting the file logs everybody out.

A form that changes something (log out, upload) carries the session's CSRF token
in a hidden field — an HMAC of the cookie, which another site can neither read
nor compute — and is refused unless the field matches and the request's
``Origin`` (or, without one, ``Referer``) is this server.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

COOKIE = "arena_session"
SESSION_TTL_S = 12 * 3600
KEY_FILE = "server.key"
KEY_BYTES = 32
_ASCII_NUMBER = re.compile(r"[0-9]{1,12}", re.ASCII)


class KeyError_(Exception):
    """The server key file cannot be created or read."""


def load_server_key(store: Path) -> bytes:
    """The server key in ``store/server.key``, created (0600) on the first start."""
    store.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = store / KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(KEY_BYTES))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as error:
        raise KeyError_(f"cannot read the server key {path}: {error}") from None
    with os.fdopen(fd, "rb") as source:
        key = source.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise KeyError_(
            f"the server key {path} is not {KEY_BYTES} bytes: delete it to make a new one"
        )
    return key


@dataclass(frozen=True, slots=True)
class AuthorSession:
    author_id: int
    expires: int
    csrf: str
    """The token the session's forms must send back."""


def _mac(key: bytes, payload: str) -> str:
    return hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()


def _csrf(key: bytes, payload: str) -> str:
    return _mac(key, "csrf:" + payload)[:40]


def new_session(
    key: bytes, author_id: int, *, now: float | None = None
) -> tuple[str, AuthorSession]:
    """The cookie value of a fresh session for ``author_id``, and the session."""
    expires = int(now if now is not None else time.time()) + SESSION_TTL_S
    payload = f"{author_id}.{expires}.{secrets.token_urlsafe(16)}"
    value = f"{payload}.{_mac(key, payload)}"
    return value, AuthorSession(author_id, expires, _csrf(key, payload))


def read_session(
    key: bytes, value: str | None, *, now: float | None = None
) -> AuthorSession | None:
    """The session a cookie value proves, or None (absent, forged, altered, expired)."""
    if not value or len(value) > 300 or not value.isascii():
        return None  # hmac.compare_digest refuses non-ASCII text (TypeError)
    payload, sep, mac = value.rpartition(".")
    if not sep or not hmac.compare_digest(mac, _mac(key, payload)):
        return None
    parts = payload.split(".")
    if len(parts) != 3 or not all(map(_ASCII_NUMBER.fullmatch, parts[:2])):
        return None
    expires = int(parts[1])
    if expires < (now if now is not None else time.time()):
        return None
    return AuthorSession(int(parts[0]), expires, _csrf(key, payload))


def same_origin(headers: dict[str, str], host: str) -> bool:
    """The request comes from a page of this server: its ``Origin`` (or, without
    one, its ``Referer``) names ``host``. Neither header: refused."""
    source = headers.get("origin") or headers.get("referer") or ""
    if not source or source == "null":
        return False
    try:
        netloc = urlsplit(source).netloc
    except ValueError:  # "http://[": not an address at all
        return False
    return netloc.lower() == host.lower()


def csrf_ok(session: AuthorSession | None, sent: str | None) -> bool:
    """``sent`` is the session's CSRF token (a header's or a field's text: anything)."""
    return (
        session is not None
        and isinstance(sent, str)
        and sent.isascii()  # hmac.compare_digest refuses non-ASCII text (TypeError)
        and hmac.compare_digest(session.csrf, sent)
    )


def may_read_logs(session: AuthorSession | None, bot_author_id: int | None) -> bool:
    """A bot's output is shown only to the author who submitted it; bots the
    operator registered (no author) show theirs to nobody on the web
    (``arena league logs`` on the server reads them)."""
    return session is not None and bot_author_id is not None and bot_author_id == session.author_id
