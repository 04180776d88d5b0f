"""Which files of a bot's folder are the bot: what ``arena submit`` packs and what the
server keeps of an upload (``docs/submissions.md``, "What gets uploaded").

Pure (no file system, no network): the callers walk the folder or the archive and ask,
per relative path, :func:`excluded`, and per kept file, :func:`looks_secret` on its
first :data:`HEAD_BYTES`.

* **Left out by default** (:data:`DEFAULT_EXCLUDES`): version control, virtual
  environments, caches, editors' and the OS's litter, the league database
  (:data:`DATABASE_NAMES`: ``arena.db`` and its ``-wal``/``-shm``/``-journal``
  files, any ``*.db``, ``*.sqlite``, ``*.sqlite3``), the server's store
  (``arena-store/``), dotfiles and links; also a compressed or backup copy of a
  database or of the store (``arena.db.gz``, ``x.sqlite3.bz2``,
  ``arena-store.tar.gz``, ``arena.db.bak``: :data:`WRAPPER_SUFFIXES`). Names are
  matched **case-insensitively** (``Arena-Store/``, ``ARENA.DB``): a case-insensitive
  file system (macOS, Windows) opens ``ARENA.DB`` as ``arena.db``.
* **The bot's own list**: a ``.arenaignore`` at the top of the folder, one pattern a
  line (``#`` comments), matched case-insensitively as a shell pattern on the
  relative path and on the file name; a pattern ending in ``/`` names a folder.
* **Refused**: a kept file that looks like a key or a database. By name
  (:data:`SECRET_NAMES`: ``server.key``, ``id_rsa``, ``*.pem``...), or by content
  anywhere in its first :data:`SCAN_BYTES`: a private key or a service's API token
  as `detect-secrets <https://github.com/Yelp/detect-secrets>`_' plugins find them
  (:data:`DETECTORS`), a SQLite database, write-ahead log or journal
  (:data:`SQLITE_MARKS`), an arena author token; keys and databases also in the
  first :data:`SCAN_BYTES` a gzip, bzip2, xz or zip file's head decompresses to.
  Packing stops and names the file, so a secret never leaves by accident; the
  author excludes it in ``.arenaignore`` or moves it out. The messages name the
  file and what it looks like, never the bytes that matched.

The maintained detector finds keys and tokens; the few checks written here are for
what it has no plugin for: SQLite files (not a secret pattern of any scanner: a
database is refused for what it holds, the league's results and authors' token
hashes), the arena's own token format, and two key headers detect-secrets 1.5 does
not list (PKCS #8 ``ENCRYPTED PRIVATE KEY``, PuTTY's version 3 key file).
"""

from __future__ import annotations

import bz2
import contextlib
import lzma
import re
import struct
import zlib
from collections.abc import Iterator
from fnmatch import fnmatchcase
from functools import cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:
    from detect_secrets.plugins.base import RegexBasedDetector

IGNORE_FILE: Final = ".arenaignore"
DATABASE_NAMES: Final = (
    "*.db",
    "*.db-*",
    "*.db3",
    "*.db3-*",
    "*.sqlite",
    "*.sqlite-*",
    "*.sqlite3",
    "*.sqlite3-*",
)
"""SQLite databases and their companions (``-wal``, ``-shm``, ``-journal``)."""
STORE_NAMES: Final = ("arena-store",)
"""The server's store folder (``arena serve --store``'s default): its session key."""
DEFAULT_EXCLUDES: Final = (
    ".git/",
    ".hg/",
    ".svn/",
    ".venv/",
    "venv/",
    "env/",
    "__pycache__/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".tox/",
    "node_modules/",
    *(f"{name}/" for name in STORE_NAMES),
    "*.pyc",
    *DATABASE_NAMES,
    ".DS_Store",
    "*~",
    "*.swp",
)
"""Patterns left out of every upload, matched case-insensitively (see the module
docstring)."""
WRAPPER_SUFFIXES: Final = (
    ".gz",
    ".gzip",
    ".bz2",
    ".xz",
    ".lzma",
    ".zst",
    ".lz4",
    ".z",
    ".zip",
    ".7z",
    ".rar",
    ".tar",
    ".tgz",
    ".tbz",
    ".tbz2",
    ".txz",
    ".bak",
    ".backup",
    ".old",
    ".orig",
    ".copy",
    ".tmp",
    "~",
)
"""Suffixes of a compressed, archived or backup copy: a name is also matched against
:data:`DATABASE_NAMES`, :data:`STORE_NAMES` and :data:`SECRET_NAMES` without them
(and without a numbered rotation such as ``.1``)."""
SECRET_NAMES: Final = (
    "*.key",
    "*.pem",
    "*.p12",
    "*.pfx",
    "*.ppk",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
)
"""Names of keys, matched case-insensitively: such a file is refused."""
HEAD_BYTES: Final = 1 << 20
"""Bytes of a file's beginning the callers pass to :func:`looks_secret`: room for a
compressed head that decompresses to :data:`SCAN_BYTES` (bzip2 emits nothing
before its first block, up to 900 kB of input, is complete)."""
SCAN_BYTES: Final = 64 << 10
"""Bytes of a file (or of what its compressed head decompresses to) searched for keys,
tokens and database headers."""
NESTING: Final = 2
"""Compressed layers :func:`looks_secret` opens (a ``.tar.gz`` is one; a zip inside
a gzip stream two)."""
NESTED_DETECTORS: Final = ("PrivateKeyDetector",)
"""The detect-secrets plugins also run on what a compressed head decompresses to
(with the SQLite marks and :data:`OWN_PATTERNS`): a compressed key or database is a
backup someone made; a compressed token is rare, and scanning each layer with every
plugin would triple the work a crafted upload can cause (the costliest plugin,
AWS's, takes some 40 ms over 64 KiB of ``awsaws...``)."""
ZIP_MEMBERS: Final = 64
"""Members of a zip file whose heads :func:`looks_secret` reads."""
SQLITE_MARKS: Final = (
    (b"SQLite format 3\x00", "a SQLite database"),
    (b"\x37\x7f\x06\x82\x00\x2d\xe2\x18", "a SQLite write-ahead log"),
    (b"\x37\x7f\x06\x83\x00\x2d\xe2\x18", "a SQLite write-ahead log"),
    (b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7", "a SQLite rollback journal"),
)
"""Byte strings no text or ordinary binary holds: a database's 16-byte header, a
write-ahead log's magic and format version (3007000), a rollback journal's magic.
Searched anywhere in the scanned bytes (a database appended to or embedded in
another file, or inside a tar archive, has its header past byte 0)."""
OWN_PATTERNS: Final = (
    (re.compile(r"BEGIN ENCRYPTED PRIVATE KEY"), "an encrypted private key (PKCS #8)"),
    (re.compile(r"PuTTY-User-Key-File-3"), "a PuTTY private key"),
    # league.store.authors: TOKEN_PREFIX, token_hex(6), token_urlsafe(32)
    (re.compile(r"arena_[0-9a-f]{12}_[A-Za-z0-9_-]{43}"), "an arena author token"),
)
"""What no detect-secrets plugin finds. Literal or bounded patterns only: a
scanned file is the uploader's, and a pattern that backtracks over a crafted file
would cost the server seconds."""
DETECTORS: Final = (
    ("private_key", "PrivateKeyDetector", "a private key"),
    ("aws", "AWSKeyDetector", "an AWS key"),
    ("github_token", "GitHubTokenDetector", "a GitHub token"),
    ("gitlab_token", "GitLabTokenDetector", "a GitLab token"),
    ("slack", "SlackDetector", "a Slack token"),
    ("stripe", "StripeDetector", "a Stripe key"),
    ("sendgrid", "SendGridDetector", "a SendGrid key"),
    ("pypi_token", "PypiTokenDetector", "a PyPI token"),
    ("azure_storage_key", "AzureStorageKeyDetector", "an Azure storage key"),
)
"""The detect-secrets plugins (module of ``detect_secrets.plugins``, class, what it
finds) :func:`looks_secret` runs: each matches a key's header or a token's fixed
prefix, so ordinary code does not trip them (every file of ``example_bots/``,
``sdk/`` and ``referee/`` passes, as a test checks), and their patterns are bounded
(linear in the file). Left out: the entropy and keyword plugins (every long string
constant of a bot's tables would trip them), ``BasicAuthDetector`` (example URLs in
a README), the Twilio, Telegram, Discord and Mailchimp plugins (short, unanchored
patterns that random data matches), and the OpenAI, JWT and npm plugins, whose
patterns backtrack quadratically over a crafted file (``sk-`` repeated 16 KiB
long: 0.4 s, the whole head some 6 s)."""


class RefusedFileError(ValueError):
    """A file that would be uploaded looks like a key or a database (the message
    names it and says how to leave it out)."""


def ignore_patterns(text: str) -> tuple[str, ...]:
    """The patterns of a ``.arenaignore`` (blank lines and ``#`` comments skipped)."""
    lines = (line.strip() for line in text.splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


def unwrapped(name: str) -> str:
    """``name`` in lower case without the suffixes of a compressed, archived, backup or
    rotated copy (:data:`WRAPPER_SUFFIXES`): ``Arena.DB.tar.GZ`` → ``arena.db``,
    ``arena.db.1`` → ``arena.db``."""
    name = name.lower()
    while True:
        stripped = re.sub(r"\.\d+$", "", name)
        for suffix in WRAPPER_SUFFIXES:
            if stripped.endswith(suffix) and len(stripped) > len(suffix):
                stripped = stripped[: -len(suffix)]
                break
        if stripped == name:
            return name
        name = stripped


def excluded(relative: str, patterns: tuple[str, ...] = ()) -> bool:
    """Whether the file at ``relative`` (a POSIX path inside the folder) is left out:
    a dotfile or a file in a dot-folder, a match of :data:`DEFAULT_EXCLUDES` or
    ``patterns`` (case-insensitive), or a compressed or backup copy of a database or
    the store (:func:`unwrapped`)."""
    lower = relative.lower()
    path = PurePosixPath(lower)
    parts = path.parts
    if any(part.startswith(".") for part in parts):
        return True
    folders = parts[:-1]
    for pattern in (*DEFAULT_EXCLUDES, *patterns):
        pattern = pattern.lower()
        if pattern.endswith("/"):
            name = pattern.rstrip("/")
            if any(fnmatchcase(folder, name) for folder in folders) or fnmatchcase(
                "/".join(folders), name
            ):
                return True
        elif fnmatchcase(lower, pattern) or fnmatchcase(path.name, pattern):
            return True
    bare = unwrapped(path.name)
    return any(fnmatchcase(bare, pattern) for pattern in (*DATABASE_NAMES, *STORE_NAMES))


def looks_secret(relative: str, head: bytes) -> str | None:
    """Why the file at ``relative`` whose first bytes are ``head`` (the first
    :data:`HEAD_BYTES`, or all of a shorter file) looks like a key or a database;
    ``None``: it does not. The reason names the rule, never the matched bytes."""
    name = PurePosixPath(relative).name.lower()
    for candidate in dict.fromkeys((name, unwrapped(name))):
        for pattern in SECRET_NAMES:
            if fnmatchcase(candidate, pattern):
                return f"its name looks like a key's ({pattern})"
    return content_secret(head)


def content_secret(head: bytes, depth: int = 0) -> str | None:
    """What ``head`` (a file's first bytes) holds that looks like a key, a token or a
    database, searched in its first :data:`SCAN_BYTES` and in what a compressed head
    decompresses to (there for keys and databases only: :data:`NESTED_DETECTORS`);
    ``None``: nothing."""
    scanned = head[:SCAN_BYTES]
    for mark, what in SQLITE_MARKS:
        if mark in scanned:
            return f"it holds {what}"
    for text in _texts(scanned):
        for pattern, what in OWN_PATTERNS:
            if pattern.search(text):
                return f"it holds {what}"
        for detector, what in _detectors():
            name = type(detector).__name__
            if depth and name not in NESTED_DETECTORS:
                continue
            for _match in detector.analyze_string(text):
                return f"it holds {what} (detect-secrets {name})"
    inner = _decompressed(head) if depth < NESTING else None
    if inner is not None:
        why = content_secret(inner[1], depth + 1)
        if why is not None:
            return f"{why}, {inner[0]}-compressed"
    return None


def _texts(data: bytes) -> Iterator[str]:
    """``data`` as text for the detectors: byte for byte (Latin-1 never fails, and
    every ASCII marker stays where it was); also as UTF-16 after its byte-order mark."""
    yield data.decode("latin-1")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        yield data.decode("utf-16", "ignore")


@cache
def _detectors() -> tuple[tuple[RegexBasedDetector, str], ...]:
    """One instance of each plugin of :data:`DETECTORS` (imported on first use: the
    ``arena`` command's start does not pay for detect-secrets and ``requests``).
    Only their ``analyze_string`` is called: a pure regular-expression search, never
    a plugin's network verification."""
    from detect_secrets.plugins import (
        aws,
        azure_storage_key,
        github_token,
        gitlab_token,
        private_key,
        pypi_token,
        sendgrid,
        slack,
        stripe,
    )

    modules = (
        aws, azure_storage_key, github_token, gitlab_token, private_key, pypi_token,
        sendgrid, slack, stripe,
    )  # fmt: skip
    by_name = {module.__name__.rpartition(".")[2]: module for module in modules}
    return tuple((getattr(by_name[name], cls)(), what) for name, cls, what in DETECTORS)


def _decompressed(head: bytes) -> tuple[str, bytes] | None:
    """(kind, what a compressed head decompresses to, at most :data:`SCAN_BYTES` of it:
    a bomb costs no more) for gzip or zlib, bzip2, xz or lzma, and the members of a
    zip whose local headers lie in ``head``, by their magic bytes, whatever the file's
    name; ``None`` for anything else. A damaged or truncated stream gives what it
    gave before the damage."""
    if head.startswith(b"\x1f\x8b") or _zlib_header(head):
        return "gzip", _inflate(zlib.decompressobj(wbits=47), head)
    if head.startswith(b"BZh"):
        return "bzip2", _inflate(bz2.BZ2Decompressor(), head)
    if head.startswith((b"\xfd7zXZ\x00", b"\x5d\x00\x00")):
        return "xz", _inflate(lzma.LZMADecompressor(memlimit=128 << 20), head)
    if head.startswith(b"PK\x03\x04"):
        return "zip", _zip_content(head)
    return None


def _zlib_header(head: bytes) -> bool:
    """Whether ``head`` starts like a zlib stream (``zlib.compress``): deflate, a
    window of at most 32 KiB, the header's check bits right (RFC 1950)."""
    return (
        len(head) > 1
        and head[0] & 0x0F == 8
        and head[0] >> 4 <= 7
        and (head[0] * 256 + head[1]) % 31 == 0
    )


class _Decompressor(Protocol):
    """What zlib's, bz2's and lzma's decompressor objects share."""

    def decompress(self, data: bytes, max_length: int, /) -> bytes: ...


def _inflate(decompressor: _Decompressor, data: bytes) -> bytes:
    try:
        return decompressor.decompress(data, SCAN_BYTES)
    except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError):
        return b""


_LOCAL = struct.Struct("<4sHHHHHIIIHH")


def _zip_content(head: bytes) -> bytes:
    """The first bytes of the members of a zip file whose local header and data lie
    in ``head`` (stored or deflated; :data:`SCAN_BYTES` and :data:`ZIP_MEMBERS` at
    most), one after the other; it stops at a member whose size the header does not
    give (written as a stream). One buffer, so a zip of many empty members costs one
    scan, not one each."""
    offset, size_left = 0, SCAN_BYTES
    parts: list[bytes] = []
    while len(parts) < ZIP_MEMBERS and size_left > 0 and offset + _LOCAL.size <= len(head):
        magic, _version, flags, method, _t, _d, _crc, size, _usize, name_len, extra_len = (
            _LOCAL.unpack_from(head, offset)
        )
        if magic != b"PK\x03\x04":
            break
        start = offset + _LOCAL.size + name_len + extra_len
        streamed = bool(flags & 0x8)  # sizes in a descriptor after the data
        data = head[start:] if streamed else head[start : start + size]
        inner = b""
        if flags & 0x1:  # encrypted: nothing to read
            pass
        elif method == 0:
            inner = data[:size_left]
        elif method == 8:
            with contextlib.suppress(zlib.error):
                inner = zlib.decompressobj(wbits=-15).decompress(data, size_left)
        parts.append(inner)
        size_left -= len(inner) + 1
        if streamed:
            break
        offset = start + size
    return b"\n".join(parts)
