"""Uploaded bots on disk: the raw upload stored by content, unpacked safely.

An upload is hostile until proven otherwise. The archive formats let a member
name any path (``../../etc/cron.d/x``, ``/root/.ssh/authorized_keys``), be a
link to one, or claim a small size and decompress to gigabytes. So archives are
never handed to ``extractall``: every member is checked (name, type) and copied
by hand into a fresh directory inside the store, counting the bytes actually
read, and the tree is renamed into place only when all of it was accepted.
What is not the bot (a database, the server's store, caches, dotfiles:
:mod:`league.domain.bot_files`) is never stored, and a member that looks like a
key or a database rejects the upload.

Layout under the store directory::

    uploads/<sha256 of the upload>      the raw upload, read-only
    bots/<sha256 of the tree>/...       the unpacked tree, read-only
    tmp/                                unpacking in progress (same file system)

**Entry point.** The bot is started as ``python <store>/bots/<hash>/<entry>``,
where ``<entry>`` is, in this order: the ``entry`` named in an ``arena-bot.toml``
at the top of the tree; else ``<bot name>.py`` at the top (what ``arena bot new
NAME`` writes); else the only ``.py`` file at the top that is not a test
(``test_*.py``). A tree whose only top-level member is one directory (``tar czf
bot.tgz my_bot/``) has that directory as its top.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import secrets
import shutil
import stat
import tarfile
import tomllib
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from league.domain.bot_files import HEAD_BYTES, excluded, looks_secret
from league.store.registry import LeagueError
from referee.runtime.sandbox import BOT_TREE_MARKER

MANIFEST = "arena-bot.toml"
CHUNK = 64 << 10
MAX_PATH_CHARS = 1024
MAX_NAME_BYTES = 255
"""A path component at most this long in UTF-8 (``NAME_MAX`` of Linux file systems)."""


class UploadRejected(LeagueError):
    """The upload cannot become a bot (unsafe or malformed archive, no entry point);
    the message names the offending member."""


class UploadTooLarge(UploadRejected):
    """The raw upload is larger than allowed."""


class SecretInUpload(UploadRejected):
    """A member looks like a key, a token or a database
    (:func:`league.domain.bot_files.looks_secret`); the message names the member and
    the rule, never the matched bytes."""


@dataclass(frozen=True, slots=True)
class UnpackedBot:
    """A bot tree in the store."""

    root: Path
    """``<store>/bots/<digest>``."""
    digest: str
    """SHA-256 over the tree's paths and file contents (hex): the bot's version."""
    files: tuple[str, ...]
    """Paths of its files, relative to ``root``, sorted."""


def store_upload(store: Path, data: bytes) -> str:
    """Write ``data`` to ``store/uploads/<sha256>`` (once) and return the digest."""
    digest = hashlib.sha256(data).hexdigest()
    uploads = store / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    target = uploads / digest
    if not target.exists():
        temp = uploads / f".{digest}.{secrets.token_hex(4)}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o444)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, target)
    return digest


def safe_member_path(name: str) -> PurePosixPath | None:
    """The relative path a member name stands for, or None for the top itself
    (``./``); :class:`UploadRejected` for a name that could leave the tree or
    that different systems would read differently."""
    shown = name[:200].encode("utf-8", "backslashreplace").decode()
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise UploadRejected(f"member name {shown!r} is not valid UTF-8") from None
    if "\0" in name or "\\" in name:
        raise UploadRejected(f"member name {shown!r} contains NUL or a backslash")
    if len(name) > MAX_PATH_CHARS:
        raise UploadRejected(f"member name {shown!r}... is longer than {MAX_PATH_CHARS}")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UploadRejected(f"member {shown!r} has an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UploadRejected(f"member {shown!r} has a '..' component")
    for part in parts:
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise UploadRejected(
                f"member {shown!r} has a name component longer than {MAX_NAME_BYTES} bytes"
            )
    return PurePosixPath(*parts) if parts else None


@dataclass(frozen=True, slots=True)
class _Member:
    path: PurePosixPath
    open: IO[bytes] | None
    """The file's content stream; None for a directory."""


def _tar_members(data: bytes, filename: str, max_files: int, max_bytes: int) -> Iterator[_Member]:
    raw = data
    if filename.endswith((".tar.gz", ".tgz")):
        raw = _gunzip(data, filename, max_bytes + 1024 * (max_files + 20))
    try:
        archive = tarfile.open(fileobj=io.BytesIO(raw), mode="r:")  # noqa: SIM115 (closed below)
    except tarfile.TarError as error:
        raise UploadRejected(f"{filename!r} is not a readable tar archive: {error}") from None
    with archive:
        count = 0
        try:
            for info in archive:
                count += 1
                if count > max_files:
                    raise UploadRejected(f"{filename!r} has more than {max_files} members")
                path = safe_member_path(info.name)
                if info.isdir():
                    if path is not None:
                        yield _Member(path, None)
                    continue
                if not info.isreg():
                    kind = (
                        "a symbolic link"
                        if info.issym()
                        else "a hard link"
                        if info.islnk()
                        else "a device or FIFO"
                        if info.isdev()
                        else "not a regular file"
                    )
                    raise UploadRejected(f"member {info.name[:200]!r} is {kind}")
                if path is None:
                    raise UploadRejected(f"member {info.name[:200]!r} names no file")
                stream = archive.extractfile(info)
                if stream is None:
                    raise UploadRejected(f"member {info.name[:200]!r} cannot be read")
                yield _Member(path, stream)
        except tarfile.TarError as error:
            raise UploadRejected(f"{filename!r} is a damaged tar archive: {error}") from None


def _gunzip(data: bytes, filename: str, limit: int) -> bytes:
    """Decompress a gzip stream, refusing to produce more than ``limit`` bytes (a
    gzip bomb is refused after ``limit`` bytes of work, not after gigabytes)."""
    inflater = zlib.decompressobj(wbits=31)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as error:
        raise UploadRejected(f"{filename!r} is not valid gzip: {error}") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise UploadRejected(f"{filename!r} decompresses to more than {limit} bytes")
    if not inflater.eof:
        raise UploadRejected(f"{filename!r} is a truncated gzip stream")
    return out


def _zip_members(data: bytes, filename: str, max_files: int) -> Iterator[_Member]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as error:
        raise UploadRejected(f"{filename!r} is not a readable zip archive: {error}") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > max_files:
            raise UploadRejected(f"{filename!r} has more than {max_files} members")
        for info in infos:
            name = info.filename
            if not info.flag_bits & 0x800:
                # Not flagged UTF-8: zipfile decoded it as cp437; the bytes must be UTF-8.
                try:
                    name = info.orig_filename.encode("cp437").decode("utf-8")
                except (UnicodeEncodeError, UnicodeDecodeError):
                    raise UploadRejected(
                        f"member name {info.orig_filename[:200]!r} is not valid UTF-8"
                    ) from None
            path = safe_member_path(name)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise UploadRejected(f"member {name[:200]!r} is a symbolic link")
            if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise UploadRejected(f"member {name[:200]!r} is not a regular file")
            if info.flag_bits & 0x1:
                raise UploadRejected(f"member {name[:200]!r} is encrypted")
            if info.is_dir():
                if path is not None:
                    yield _Member(path, None)
                continue
            if path is None:
                raise UploadRejected(f"member {name[:200]!r} names no file")
            try:
                stream = archive.open(info)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as error:
                raise UploadRejected(f"member {name[:200]!r} cannot be read: {error}") from None
            yield _Member(path, stream)


def _members(data: bytes, filename: str, max_files: int, max_bytes: int) -> Iterator[_Member]:
    try:
        base = safe_member_path(filename)
    except UploadRejected:
        base = None
    if base is None or len(base.parts) != 1:
        raise UploadRejected(f"bad upload file name {filename[:200]!r}: give a plain file name")
    lower = filename.lower()
    if lower.endswith(".py"):
        yield _Member(base, io.BytesIO(data))
    elif lower.endswith((".tar", ".tar.gz", ".tgz")):
        yield from _tar_members(data, lower, max_files, max_bytes)
    elif lower.endswith(".zip"):
        yield from _zip_members(data, filename, max_files)
    else:
        raise UploadRejected(
            f"cannot unpack {filename[:200]!r}: upload one .py file or a .tar, .tar.gz, .tgz"
            " or .zip archive"
        )


def unpack(
    store: Path, filename: str, data: bytes, *, max_files: int, max_unpacked_bytes: int
) -> UnpackedBot:
    """Unpack an upload (a ``.py`` file or an archive) into ``store/bots/<digest>``.

    Nothing is written outside ``store``; on any refusal nothing stays in it
    either (except the empty ``tmp`` directory).
    """
    staging_root = store / "tmp"
    staging_root.mkdir(parents=True, exist_ok=True)
    staging = staging_root / secrets.token_hex(8)
    staging.mkdir(mode=0o700)
    try:
        files = _extract(staging, data, filename, max_files, max_unpacked_bytes)
        if not files:
            raise UploadRejected(f"{filename[:200]!r} contains no file")
        digest = hashlib.sha256()
        for relative, sha in sorted(files.items()):
            digest.update(f"{relative}\0{sha}\n".encode())
        tree_digest = digest.hexdigest()
        # Marks the tree for the sandbox: a script here may import its siblings.
        (staging / BOT_TREE_MARKER).write_text("files unpacked by arena submit\n")
        _read_only(staging)
        bots = store / "bots"
        bots.mkdir(exist_ok=True)
        target = bots / tree_digest
        try:
            os.rename(staging, target)
        except OSError:
            if not target.is_dir():
                raise
            # The same tree is already there (os.rename fails on a non-empty target).
            _remove(staging)
        else:
            os.chmod(target, 0o555)
        return UnpackedBot(root=target, digest=tree_digest, files=tuple(sorted(files)))
    except BaseException:
        _remove(staging)
        raise


def _extract(
    staging: Path, data: bytes, filename: str, max_files: int, max_bytes: int
) -> dict[str, str]:
    """Copy the accepted members into ``staging``; {relative path: sha256}."""
    files: dict[str, str] = {}
    directories: set[PurePosixPath] = set()
    total = 0
    for member in _members(data, filename, max_files, max_bytes):
        path = member.path
        if path.name == BOT_TREE_MARKER:
            raise UploadRejected(f"member {str(path)!r} uses a reserved name")
        for parent in path.parents:
            if str(parent) in files:
                raise UploadRejected(f"member {str(path)!r} is inside the file {str(parent)!r}")
        if str(path) in files or (member.open is not None and path in directories):
            raise UploadRejected(f"member {str(path)!r} appears twice")
        directories.update(p for p in path.parents if p != PurePosixPath("."))
        if member.open is None:
            directories.add(path)
            continue
        if excluded(str(path)):  # a database, the store, a cache: never stored
            member.open.close()
            continue
        target = staging.joinpath(*path.parts)
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Belt and braces: the checks above already keep every path inside.
        if not target.parent.resolve().is_relative_to(staging.resolve()):
            raise UploadRejected(f"member {str(path)!r} would be written outside the tree")
        sha = hashlib.sha256()
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out, member.open as stream:
            try:
                head = _read_head(stream)
                why = looks_secret(str(path), head)
                if why is not None:
                    raise SecretInUpload(
                        f"member {str(path)!r} looks like a key or a database ({why}):"
                        " not stored; leave it out of the upload"
                    )
                chunk = head
                while chunk:
                    total += len(chunk)
                    if total > max_bytes:
                        raise UploadRejected(
                            f"{filename[:200]!r} unpacks to more than {max_bytes} bytes"
                            f" (reached at {str(path)!r})"
                        )
                    sha.update(chunk)
                    out.write(chunk)
                    chunk = stream.read(CHUNK)
            except (zipfile.BadZipFile, zlib.error, EOFError, tarfile.TarError) as error:
                raise UploadRejected(f"member {str(path)!r} is damaged: {error}") from None
        files[str(path)] = sha.hexdigest()
    return files


def _read_head(stream: IO[bytes]) -> bytes:
    """The first :data:`~league.domain.bot_files.HEAD_BYTES` of ``stream`` (all of a
    shorter one), however short the reads the archive's stream gives."""
    parts: list[bytes] = []
    size = 0
    while size < HEAD_BYTES and (part := stream.read(HEAD_BYTES - size)):
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def _read_only(root: Path) -> None:
    """Files 0444 and directories 0555: readable by a sandboxed bot's own uid,
    writable by nobody but root."""
    for directory, _dirs, names in os.walk(root):
        for name in names:
            os.chmod(os.path.join(directory, name), 0o444)
    for directory, _dirs, _names in os.walk(root, topdown=False):
        if directory != str(root):  # the top stays writable until renamed into place
            os.chmod(directory, 0o555)


def _remove(root: Path) -> None:
    if not root.exists():
        return
    for directory, _dirs, _names in os.walk(root):
        with contextlib.suppress(OSError):
            os.chmod(directory, 0o700)
    shutil.rmtree(root, ignore_errors=True)


def find_entry(tree: UnpackedBot, name: str) -> Path:
    """The file the bot is started with (see the module docstring);
    :class:`UploadRejected` saying what was found when there is none."""
    top = PurePosixPath(".")
    tops = {PurePosixPath(f).parts[0] for f in tree.files}
    if len(tops) == 1 and all(len(PurePosixPath(f).parts) > 1 for f in tree.files):
        top = PurePosixPath(tops.pop())
    at_top = sorted(PurePosixPath(f).name for f in tree.files if PurePosixPath(f).parent == top)
    if MANIFEST in at_top:
        entry = _manifest_entry(tree.root / top / MANIFEST)
        if str(top / entry) not in tree.files:
            raise UploadRejected(
                f"{MANIFEST} names entry {str(entry)!r}, which is not in the upload"
            )
        return tree.root / top / entry
    if f"{name}.py" in at_top:
        return tree.root / top / f"{name}.py"
    scripts = [f for f in at_top if f.endswith(".py") and not f.startswith("test_")]
    if len(scripts) == 1:
        return tree.root / top / scripts[0]
    raise UploadRejected(
        f"no entry point: expected {name}.py at the top of the upload, a single .py file"
        f' there, or {MANIFEST} with entry = "file.py" (top-level files: '
        + (", ".join(at_top[:20]) or "none")
        + ")"
    )


def _manifest_entry(path: Path) -> PurePosixPath:
    try:
        manifest = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UploadRejected(f"{MANIFEST} is not valid TOML: {error}") from None
    entry = manifest.get("entry")
    if not isinstance(entry, str) or not entry.endswith(".py"):
        raise UploadRejected(f'{MANIFEST} must say entry = "<file>.py", got {entry!r}')
    relative = safe_member_path(entry)
    if relative is None:
        raise UploadRejected(f"{MANIFEST} entry {entry!r} names no file")
    return relative
