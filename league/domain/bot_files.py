"""Which files of a bot's folder are the bot: what ``arena submit`` packs and what the
server keeps of an upload (``docs/server.md``, "What gets uploaded").

Pure (no file system): the callers walk the folder or the archive and ask, per
relative path, :func:`excluded`, and per kept file, :func:`looks_secret` on its first
bytes.

* **Left out by default** (:data:`DEFAULT_EXCLUDES`): version control, virtual
  environments, caches, editors' and the OS's litter, the league database
  (``arena.db`` and its ``-wal``/``-shm``/``-journal`` files, any ``*.db``,
  ``*.sqlite``, ``*.sqlite3``), the server's store (``arena-store/``), dotfiles and
  links.
* **The bot's own list**: a ``.arenaignore`` at the top of the folder, one pattern a
  line (``#`` comments), as :func:`fnmatch.fnmatch` on the relative path and on
  each of its parts; a pattern ending in ``/`` names a folder.
* **Refused**: a kept file that looks like a key or a database (a private key's
  PEM header, an SSH key's, SQLite's header; or a name such as ``server.key``,
  ``id_rsa``, ``*.pem``). Packing stops and names it, so a secret never leaves by
  accident; the author excludes it in ``.arenaignore`` or moves it out.
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import PurePosixPath
from typing import Final

IGNORE_FILE: Final = ".arenaignore"
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
    "arena-store/",
    "*.pyc",
    "*.db",
    "*.db-wal",
    "*.db-shm",
    "*.db-journal",
    "*.sqlite",
    "*.sqlite3",
    ".DS_Store",
    "*~",
    "*.swp",
)
"""Patterns left out of every upload (see the module docstring)."""
SECRET_NAMES: Final = ("*.key", "*.pem", "id_rsa*", "id_ed25519*", "id_ecdsa*", "*.p12")
SECRET_HEADERS: Final = (
    (b"SQLite format 3\x00", "a SQLite database"),
    (b"-----BEGIN OPENSSH PRIVATE KEY-----", "an SSH private key"),
    (b"-----BEGIN RSA PRIVATE KEY-----", "a private key"),
    (b"-----BEGIN EC PRIVATE KEY-----", "a private key"),
    (b"-----BEGIN PRIVATE KEY-----", "a private key"),
    (b"-----BEGIN ENCRYPTED PRIVATE KEY-----", "a private key"),
)
HEAD_BYTES: Final = 64
"""Bytes of a file :func:`looks_secret` needs."""


class RefusedFileError(ValueError):
    """A file that would be uploaded looks like a key or a database (the message
    names it and says how to leave it out)."""


def ignore_patterns(text: str) -> tuple[str, ...]:
    """The patterns of a ``.arenaignore`` (blank lines and ``#`` comments skipped)."""
    lines = (line.strip() for line in text.splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


def excluded(relative: str, patterns: tuple[str, ...] = ()) -> bool:
    """Whether the file at ``relative`` (a POSIX path inside the folder) is left out:
    a dotfile or a file in a dot-folder, or a match of :data:`DEFAULT_EXCLUDES` or
    ``patterns``."""
    path = PurePosixPath(relative)
    parts = path.parts
    if any(part.startswith(".") for part in parts):
        return True
    folders = parts[:-1]
    for pattern in (*DEFAULT_EXCLUDES, *patterns):
        if pattern.endswith("/"):
            name = pattern.rstrip("/")
            if any(fnmatch(folder, name) for folder in folders) or fnmatch("/".join(folders), name):
                return True
        elif fnmatch(relative, pattern) or fnmatch(path.name, pattern):
            return True
    return False


def looks_secret(relative: str, head: bytes) -> str | None:
    """Why the file at ``relative`` whose first bytes are ``head`` looks like a key or
    a database (``None``: it does not)."""
    name = PurePosixPath(relative).name
    for pattern in SECRET_NAMES:
        if fnmatch(name, pattern):
            return f"its name looks like a key's ({pattern})"
    for header, what in SECRET_HEADERS:
        if head.startswith(header) or header in head[:HEAD_BYTES]:
            return f"it starts like {what}"
    return None
