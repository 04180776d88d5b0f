"""Authors: who may submit bots to the arena server, and their tokens.

A token is shown once, when the operator creates the author, and never stored:
the database keeps a salted hash of its secret part, so a leaked database does
not let anyone submit as an author. The token carries a short public id
(``arena_<id>_<secret>``) that finds the author's row directly, instead of
hashing the presented secret against every row.

**The hash is SHA-256, not a slow one.** The secret is 256 random bits
(``secrets.token_urlsafe(32)``), not a password: no guess list shortens the search,
so a slow hash adds nothing against a leaked database, and it made every wrong
secret cost tens of milliseconds of a core — a flood of them, or a throttle
against that flood, could lock authors out. SHA-256 of salt and secret costs about
a microsecond, so a wrong secret is as cheap to refuse as an unknown id.

Tokens made before (``token_params`` ``scrypt:...``) still work: their check is
slow (the server throttles it per token id, :mod:`league.server.throttle`), and
their first successful check rewrites the row with the fast hash
(:func:`upgrade_hash`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from sqlmodel import Session, col, select

from league.store.models import AuthorRow
from league.store.registry import AlreadyExistsError, LeagueError, NotFoundError

TOKEN_PREFIX = "arena_"
NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""Author (and submitted bot) names: they appear in URLs and pages."""
TOKEN_ID_PATTERN = re.compile(r"[0-9a-f]{12}")
SECRET_PATTERN = re.compile(r"[A-Za-z0-9_-]{43}")
"""``secrets.token_urlsafe(32)``: 43 URL-safe characters."""

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
"""scrypt cost (16 MiB, tens of milliseconds): slow enough to make guessing a
stolen hash expensive; the secret has 256 bits anyway."""
SCRYPT_PARAMS = f"scrypt:n={SCRYPT_N},r={SCRYPT_R},p={SCRYPT_P}"
"""The hash of tokens made before the fast one: still read, upgraded on first use."""
FAST_PARAMS = "sha256"
"""SHA-256 over salt and secret: what new tokens are stored with."""


class AuthError(LeagueError):
    """No valid token: missing, malformed, unknown, wrong or revoked. The message
    never contains the token."""


def _hash(secret: str, salt: bytes, params: str) -> str:
    """The slow (scrypt) hash of older tokens."""
    fields = dict(part.split("=", 1) for part in params.removeprefix("scrypt:").split(","))
    n, r, p = int(fields["n"]), int(fields["r"]), int(fields["p"])
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=n, r=r, p=p, maxmem=128 << 20, dklen=32)
    return digest.hex()


def _fast_hash(secret: str, salt: bytes) -> str:
    return hashlib.sha256(salt + secret.encode()).hexdigest()


def is_slow(row: AuthorRow) -> bool:
    """The row's hash is the old, slow scrypt one (checking it costs tens of ms)."""
    return row.token_params != FAST_PARAMS


def secret_matches(row: AuthorRow, secret: str) -> bool:
    """Whether ``secret`` is the row's token secret (constant-time comparison)."""
    salt = bytes.fromhex(row.token_salt)
    slow = is_slow(row)
    presented = _hash(secret, salt, row.token_params) if slow else _fast_hash(secret, salt)
    return hmac.compare_digest(presented, row.token_hash)


def upgrade_hash(row: AuthorRow, secret: str) -> None:
    """Store the fast hash of ``secret`` (just checked) instead of the slow one."""
    salt = secrets.token_bytes(16)
    row.token_hash, row.token_salt = _fast_hash(secret, salt), salt.hex()
    row.token_params = FAST_PARAMS


def find_by_token_id(session: Session, token_id: str) -> AuthorRow | None:
    return session.exec(select(AuthorRow).where(AuthorRow.token_id == token_id)).first()


def check_name(name: str, what: str = "name") -> str:
    """``name`` if it is 1-64 letters, digits, ``_`` or ``-``; :class:`LeagueError` if not."""
    if not NAME_PATTERN.fullmatch(name):
        raise LeagueError(
            f"bad {what} {name[:80]!r}: use 1-64 letters, digits, '_' or '-' (it appears in URLs)"
        )
    return name


def add_author(*, session: Session, name: str) -> tuple[AuthorRow, str]:
    """Create an author; returns the row and the token, which exists nowhere else."""
    check_name(name, "author name")
    if session.exec(select(AuthorRow).where(AuthorRow.name == name)).first() is not None:
        raise AlreadyExistsError(f"author {name!r} already exists")
    token_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_bytes(16)
    row = AuthorRow(
        name=name,
        token_id=token_id,
        token_hash=_fast_hash(secret, salt),
        token_salt=salt.hex(),
        token_params=FAST_PARAMS,
    )
    session.add(row)
    session.flush()
    return row, f"{TOKEN_PREFIX}{token_id}_{secret}"


def parse_token(token: str) -> tuple[str, str]:
    """(token id, secret) of a well-formed token; :class:`AuthError` otherwise."""
    body = token.strip().removeprefix(TOKEN_PREFIX)
    token_id, _, secret = body.partition("_")
    if (
        not token.strip().startswith(TOKEN_PREFIX)
        or not TOKEN_ID_PATTERN.fullmatch(token_id)
        or not SECRET_PATTERN.fullmatch(secret)
    ):
        raise AuthError(
            f"malformed token: expected {TOKEN_PREFIX}<12 hex digits>_<43 characters>"
            " as printed by `arena author add`"
        )
    return token_id, secret


def authenticate(*, session: Session, token: str | None) -> AuthorRow:
    """The author whose token this is; :class:`AuthError` for a missing, malformed,
    unknown, wrong or disabled one. A row with the old slow hash is upgraded to
    the fast one on success (see the module docstring)."""
    if not token or not token.strip():
        raise AuthError("missing token: send `Authorization: Bearer <token>`")
    token_id, secret = parse_token(token)
    row = find_by_token_id(session, token_id)
    if row is None:
        # No hashing for an id that exists nowhere: a flood of made-up tokens costs a
        # lookup each. (That such a refusal is quicker tells only that a random
        # 48-bit id is not taken; the server throttles failed checks per address.)
        raise AuthError("unknown or wrong token")
    if not secret_matches(row, secret):
        raise AuthError("unknown or wrong token")
    if is_slow(row):
        upgrade_hash(row, secret)
        session.add(row)
        session.flush()
    if row.disabled:
        raise AuthError(f"author {row.name!r} is disabled: ask the operator for a new token")
    return row


def list_authors(*, session: Session) -> list[AuthorRow]:
    return list(session.exec(select(AuthorRow).order_by(col(AuthorRow.name))))


def get_author(*, session: Session, name: str) -> AuthorRow:
    row = session.exec(select(AuthorRow).where(AuthorRow.name == name)).first()
    if row is None:
        known = ", ".join(a.name for a in list_authors(session=session)) or "none"
        raise NotFoundError(f"no author named {name!r} (authors: {known})")
    return row


def disable_author(*, session: Session, name: str) -> AuthorRow:
    """Revoke ``name``'s token (their bots stay registered and keep playing)."""
    row = get_author(session=session, name=name)
    row.disabled = True
    session.add(row)
    session.flush()
    return row
