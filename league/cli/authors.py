"""``arena author`` (the operator's side) and ``arena submit`` (the author's side).

``arena submit`` is a plain HTTP client (urllib only, so an author needs nothing
beyond the SDK): it packs a bot directory into a .tar.gz in memory and posts it
to the arena server's ``/api/submissions`` (see docs/submissions.md).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from league.cli.common import echo_json, echo_table, fail, transaction
from league.domain.bot_files import (
    HEAD_BYTES,
    IGNORE_FILE,
    RefusedFileError,
    excluded,
    ignore_patterns,
    looks_secret,
)

app = typer.Typer(
    help="Authors who may submit bots to the arena server.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

ARCHIVES = (".py", ".tar", ".tar.gz", ".tgz", ".zip")


@app.command("add")
def add_command(
    ctx: typer.Context, name: Annotated[str, typer.Argument(metavar="NAME", help="Author name.")]
) -> None:
    """Create an author and print their token (once: it is not stored)."""
    from league.store.authors import add_author

    with transaction(ctx) as session:
        row, token = add_author(session=session, name=name)
    typer.echo(f"author {row.name} created; their token (shown only now):")
    typer.echo(token)
    typer.echo(
        "warning: the token itself is not stored (only a hash of it): hand it to the author now"
        " (a lost token is replaced by disabling the author and adding a new one)",
        err=True,
    )


@app.command("list")
def list_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List authors (never their tokens)."""
    from league.store.authors import list_authors

    with transaction(ctx) as session:
        rows = [
            {
                "name": row.name,
                "token_id": row.token_id,
                "disabled": row.disabled,
                "created_at": row.created_at.isoformat(),
            }
            for row in list_authors(session=session)
        ]
    if as_json:
        echo_json(rows)
        return
    echo_table(
        ["name", "token id", "status", "created"],
        [
            [
                str(r["name"]),
                str(r["token_id"]),
                "disabled" if r["disabled"] else "active",
                str(r["created_at"])[:19],
            ]
            for r in rows
        ],
    )


@app.command("disable")
def disable_command(
    ctx: typer.Context, name: Annotated[str, typer.Argument(metavar="NAME", help="Author name.")]
) -> None:
    """Revoke an author's token (their registered bots stay)."""
    from league.store.authors import disable_author

    with transaction(ctx) as session:
        disable_author(session=session, name=name)
    typer.echo(f"author {name} disabled: their token no longer works")


def bot_files(directory: Path) -> list[tuple[str, Path]]:
    """The files of ``directory`` that are the bot, sorted by relative path: everything
    but what :mod:`league.domain.bot_files` leaves out (the defaults and the folder's
    ``.arenaignore``) and links. A kept file that looks like a key or a database
    raises :class:`~league.domain.bot_files.RefusedFileError` naming it."""
    ignore = directory / IGNORE_FILE
    patterns = ignore_patterns(ignore.read_text("utf-8", "replace")) if ignore.is_file() else ()
    kept: list[tuple[str, Path]] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(dirs)
        for name in sorted(files):
            path = Path(root) / name
            relative = path.relative_to(directory).as_posix()
            if path.is_symlink() or not path.is_file() or excluded(relative, patterns):
                continue
            with path.open("rb") as handle:
                why = looks_secret(relative, handle.read(HEAD_BYTES))
            if why is not None:
                raise RefusedFileError(
                    f"refusing to pack {relative}: {why}. Move it out of {directory}, or"
                    f" add it to {directory / IGNORE_FILE} if the bot does not need it"
                )
            kept.append((relative, path))
    return sorted(kept)


def pack_directory(directory: Path) -> bytes:
    """A .tar.gz of ``directory``'s bot files (:func:`pack_files`)."""
    return pack_files(directory)[0]


def pack_files(directory: Path) -> tuple[bytes, list[tuple[str, int]]]:
    """A .tar.gz of ``directory``'s bot files (:func:`bot_files`, paths relative to
    it) and what went in (path, bytes). Deterministic: the same files give the same
    bytes."""
    import tarfile

    buffer = io.BytesIO()
    packed: list[tuple[str, int]] = []
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for relative, path in bot_files(directory):
            data = path.read_bytes()
            info = tarfile.TarInfo(relative)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            archive.addfile(info, io.BytesIO(data))
            packed.append((relative, len(data)))
    return buffer.getvalue(), packed


def _packed(directory: Path) -> tuple[bytes, list[tuple[str, int]]]:
    """:func:`pack_files`, a refused file a clean exit 2."""
    try:
        return pack_files(directory)
    except (RefusedFileError, OSError) as error:
        raise fail(str(error)) from None


def multipart(
    fields: dict[str, str], file_field: str, filename: str, data: bytes
) -> tuple[bytes, str]:
    """(body, content type) of a ``multipart/form-data`` request."""
    import secrets

    boundary = f"arena-{secrets.token_hex(16)}"
    # The name is the author's own file's; quotes or controls would break the header.
    filename = "".join(c if c.isprintable() and c not in '"\\' else "_" for c in filename)
    parts: list[bytes] = []
    for key, value in fields.items():
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n'
        parts.append(f"{head}{value}\r\n".encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}";'
        f' filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
        + data
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def read_token(token_file: Path | None) -> str:
    if token_file is not None:
        try:
            token = token_file.read_text().strip()
        except OSError as error:
            raise fail(f"cannot read token file {token_file}: {error.strerror}") from None
        if not token:
            raise fail(f"token file {token_file} is empty")
        return token
    token = os.environ.get("ARENA_TOKEN", "").strip()
    if not token:
        raise fail("no token: set ARENA_TOKEN or pass --token-file PATH")
    return token


def submit_command(  # long: one line per option, and the upload it reports
    path: Annotated[
        Path, typer.Argument(metavar="PATH", help="Bot directory, or a .py file or archive.")
    ],
    game: Annotated[str, typer.Option("--game", "-g", help="Game the bot plays.")],
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            help="Arena server URL, e.g. https://arena.example.org (not with --dry-run).",
        ),
    ] = None,
    name: Annotated[
        str, typer.Option("--name", help="Bot name (default: the directory or file name).")
    ] = "",
    token_file: Annotated[
        Path | None,
        typer.Option("--token-file", help="File holding your token (default: $ARENA_TOKEN)."),
    ] = None,
    timeout: Annotated[
        float, typer.Option(min=1.0, help="Seconds to wait for the server's verdict.")
    ] = 600.0,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Send nothing: list the files that would go, and name the bot, its entry"
            " file and its version as the server would (no server, no token needed).",
        ),
    ] = False,
) -> None:
    """Submit a bot to an arena server; prints its JSON answer.

    A folder is packed without its databases, the server's store, virtual
    environments, version control, caches, dotfiles and what its .arenaignore
    lists (docs/submissions.md); a file that looks like a key or a database stops
    the upload. --dry-run unpacks what would go as the server does, here, and names
    the bot, the file it would be started with and its version.

    Exit 0 accepted (--dry-run: it would be unpacked and started), 1 refused (the
    reasons are printed), 2 bad input, bad token, rate limited or no connection.
    """
    if dry_run:
        data, filename, default_name = _upload(path, quiet=True)
        _dry_run(data, filename, name or default_name, game)
        return
    if server is None:
        raise fail("--server URL is needed to send the bot (--dry-run sends nothing)")
    if not server.startswith(("http://", "https://")):
        raise fail(f"bad --server {server!r}: give an http:// or https:// URL")
    token = read_token(token_file)
    data, filename, default_name = _upload(path, quiet=False)
    bot_name = name or default_name
    body, content_type = multipart({"name": bot_name, "game": game}, "bot", filename, data)
    status, text, retry_after = _post(server, token, body, content_type, timeout)
    try:
        answer = json.loads(text)
    except ValueError:
        answer = {"status": "error", "http_status": status, "body": text[:2000]}
    typer.echo(json.dumps(answer, indent=2))
    if 200 <= status < 300 and isinstance(answer, dict) and answer.get("status") == "accepted":
        raise typer.Exit(0)
    if status == 422 or (isinstance(answer, dict) and answer.get("status") == "refused"):
        raise typer.Exit(1)  # refused with reasons (422; 400 for an archive it cannot unpack)
    hint = {401: "bad or missing token", 413: "upload too large", 400: "malformed request"}
    message = hint.get(status, f"server answered HTTP {status}")
    if status == 429:
        message = f"rate limited: try again in {retry_after or 'a while'} s"
    raise fail(message)


def _upload(path: Path, *, quiet: bool) -> tuple[bytes, str, str]:
    """What ``arena submit PATH`` sends: the bytes, their file name, and the bot name
    they give by default. A folder is packed (saying how much on stderr, unless
    ``quiet``), a file sent as it is."""
    if path.is_dir():
        data, packed = _packed(path)
        if not quiet:
            typer.echo(
                f"uploading {len(packed)} files, {_size_text(sum(size for _, size in packed))}"
                f" ({_size_text(len(data))} packed) from {path}",
                err=True,
            )
        return data, f"{path.resolve().name}.tar.gz", path.resolve().name
    if not path.is_file():
        raise fail(f"{path} does not exist")
    if not path.name.lower().endswith(ARCHIVES):
        raise fail(f"{path}: submit a directory, a .py file or a .tar, .tar.gz, .tgz or .zip")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise fail(f"cannot read {path}: {error.strerror or error}") from None
    if not quiet:
        typer.echo(f"uploading {path} ({_size_text(len(data))})", err=True)
    default_name = path.name
    for suffix in ARCHIVES:
        if default_name.lower().endswith(suffix):
            default_name = default_name[: -len(suffix)]
            break
    return data, path.name, default_name


def _dry_run(data: bytes, filename: str, name: str, game: str) -> None:
    """``--dry-run``: what the server would do with the upload up to its check, done
    here with its own code and limits: the name and the game, the size, the safe
    unpacking and the entry point (:mod:`league.store.uploads`). Lists the files it
    would store and names the bot, its entry file and the version it would get;
    exit 1 with the reason where the server would refuse the upload."""
    from league.execution.submissions import SubmissionLimits
    from league.store.authors import check_name
    from league.store.registry import LeagueError
    from league.store.uploads import UploadRejected, find_entry, unpack
    from referee.core.catalogue import game_names

    limits = SubmissionLimits()
    try:
        check_name(name, "bot name")
    except LeagueError as error:
        raise fail(f"{error} (--name NAME)") from None
    if game not in game_names():
        raise fail(f"unknown game {game!r} (known: {', '.join(sorted(game_names()))})")
    if len(data) > limits.max_upload_bytes:
        raise fail(
            f"the server would refuse it: {_size_text(len(data))} to upload, more than its"
            f" {_size_text(limits.max_upload_bytes)}",
            1,
        )
    store = Path(tempfile.mkdtemp(prefix="arena-dry-run-"))
    try:
        tree = unpack(
            store,
            filename,
            data,
            max_files=limits.max_files,
            max_unpacked_bytes=limits.max_unpacked_bytes,
        )
        entry = find_entry(tree, name).relative_to(tree.root).as_posix()
        sizes = [(f, (tree.root / f).stat().st_size) for f in tree.files]
    except UploadRejected as error:
        raise fail(f"the server would refuse it: {error}", 1) from None
    finally:
        _remove_tree(store)
    for relative, size in sizes:
        typer.echo(f"{size:>10,}  {relative}")
    typer.echo(
        f"{len(sizes)} file{'s' if len(sizes) != 1 else ''},"
        f" {_size_text(sum(size for _, size in sizes))} ({_size_text(len(data))} to upload):"
        f" bot {name} ({game}), entry file {entry}, version {tree.digest[:16]};"
        " nothing sent (--dry-run)"
    )


def _remove_tree(root: Path) -> None:
    """Remove an unpacked tree, whose files and folders :func:`unpack` made read-only."""
    for directory, _dirs, _names in os.walk(root):
        os.chmod(directory, 0o700)
    shutil.rmtree(root, ignore_errors=True)


def _post(
    server: str, token: str, body: bytes, content_type: str, timeout: float
) -> tuple[int, str, str | None]:
    """POST the submission: HTTP status, answer text, and its Retry-After (if any);
    no connection is an ``error:`` exit 2."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        server.rstrip("/") + "/api/submissions",
        data=body,
        method="POST",
        headers={
            "Content-Type": content_type,
            "Authorization": f"Bearer {token}",
            "Accept": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace"), None
    except urllib.error.HTTPError as error:
        text = error.read().decode("utf-8", "replace")
        return error.code, text, error.headers.get("Retry-After")
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise fail(f"cannot reach {server}: {reason}") from None


def _size_text(size: int) -> str:
    """Bytes as ``12,345 bytes`` or ``1.2 MiB``."""
    return f"{size:,} bytes" if size < 1 << 20 else f"{size / (1 << 20):.1f} MiB"
