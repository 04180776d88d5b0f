"""The bots registry: names, versions, how to start or reach each bot.

Plain functions taking a keyword-only ``session``; the CLI is a thin layer on top.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from sqlmodel import Session, col, select

from arena.v1 import bot_pb2
from league.domain.errors import (
    LeagueError as LeagueError,  # re-exported: the store's errors build on it
)
from league.store.models import BotRow, EntryRow, SeatRow
from referee.core.catalogue import game_names
from referee.runtime.process import BotSpec, absolute_command


class NotFoundError(LeagueError):
    pass


class AlreadyExistsError(LeagueError):
    pass


class BotCheckError(LeagueError):
    """The bot did not start or answer, or does not play the declared games."""


def command_files(argv: Sequence[str]) -> list[Path]:
    """The files a command runs: scripts named on the line, modules after ``-m``."""
    return [path for _, path in command_file_args(argv)]


def command_file_args(argv: Sequence[str]) -> list[tuple[int, Path]]:
    """:func:`command_files` with the index of the argument that names each."""
    files: list[tuple[int, Path]] = []
    args = list(argv)
    for index, arg in enumerate(args):
        if index > 0 and args[index - 1] == "-m":
            try:
                spec = importlib.util.find_spec(arg)
            except (ImportError, ValueError):
                spec = None
            if spec is not None and spec.origin and Path(spec.origin).is_file():
                files.append((index, Path(spec.origin)))
        elif index > 0 and Path(arg).is_file():
            files.append((index, Path(arg)))
    return files


def content_version(argv: Sequence[str]) -> str:
    """A short hash of the command line and the content of the files it runs."""
    return version_of(argv, [path.read_bytes() for path in command_files(argv)])


def version_of(argv: Sequence[str], contents: Sequence[bytes]) -> str:
    """:func:`content_version` from the files' contents, in :func:`command_files`
    order (a Ray worker checks shipped copies with it before writing them)."""
    digest = hashlib.sha256(shlex.join(argv).encode())
    for data in contents:
        digest.update(data)
    return digest.hexdigest()[:12]


def bot_spec(row: BotRow) -> BotSpec:
    """How the referee starts or reaches a registered bot."""
    if row.command:
        return BotSpec(name=row.name, command=tuple(shlex.split(row.command)), version=row.version)
    return BotSpec(
        name=row.name,
        address=row.address,
        version=row.version,
        token_env=row.token_env,
        token_file=row.token_file,
        tls_ca=row.tls_ca,
    )


def _service_options(
    name: str, command: str, token_env: str, token_file: str, tls_ca: str
) -> tuple[str, str, str]:
    """``token_env``, ``token_file`` and ``tls_ca`` checked (only for a bot reached by
    address), the paths made absolute: stored paths must not depend on where a later
    run starts."""
    if command.strip() and (token_env or token_file or tls_ca):
        raise LeagueError(
            f"bot {name!r}: --token-env, --token-file and --tls-ca are for a bot reached by"
            " --address"
        )
    if token_env and token_file:
        raise LeagueError(f"bot {name!r}: give --token-env or --token-file, not both")
    if token_env and not token_env.replace("_", "a").isalnum():
        raise LeagueError(f"bad --token-env {token_env!r}: give the name of a variable")
    if tls_ca and not Path(tls_ca).is_file():
        raise LeagueError(f"bot {name!r}: TLS CA file {tls_ca!r} does not exist")
    tls_ca = str(Path(tls_ca).resolve()) if tls_ca else ""
    token_file = str(Path(token_file).resolve()) if token_file else ""
    return token_env, token_file, tls_ca


def _refuse_local_modules(name: str, argv: Sequence[str]) -> None:
    """:class:`LeagueError` when ``-m`` names a module found only in the current
    directory: a league starts the bot from elsewhere, where it would not import."""
    for index, word in enumerate(argv[:-1]):
        if word != "-m":
            continue
        top = argv[index + 1].split(".", 1)[0]
        try:
            found = importlib.util.find_spec(top) is not None
        except (ImportError, ValueError):
            found = False
        here = Path.cwd()
        if not found and ((here / top).is_dir() or (here / f"{top}.py").is_file()):
            raise LeagueError(
                f"bot {name!r}: module {top!r} is only found in this directory, and a league"
                f" starts bots from anywhere: give its file's path (python {top}/...py) or"
                " install it (pip install -e .)"
            )


def parse_command(command: str) -> list[str]:
    """The argument vector of a bot's command line, its paths made absolute against
    the current directory (a league runs the bot from elsewhere, and sandboxed);
    :class:`LeagueError` for a line that does not parse or is empty."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise LeagueError(f"bad command line {command!r}: {error}") from None
    if not argv:
        raise LeagueError("empty command line")
    return list(absolute_command(argv, Path.cwd()))


def _new_spec(
    name: str,
    command: str,
    address: str,
    version: str,
    token_env: str,
    token_file: str,
    tls_ca: str,
) -> BotSpec:
    """The spec of the version being added; ``version`` empty: the command's content
    version (:func:`content_version`), or ``service`` for a bot reached by address."""
    if command:
        argv = parse_command(command)
        _refuse_local_modules(name, argv)
        version = version or content_version(argv)
        return BotSpec(name=name, command=tuple(argv), version=version)
    else:
        version = version or "service"
        return BotSpec(
            name=name,
            address=address.strip(),
            version=version,
            token_env=token_env,
            token_file=token_file,
            tls_ca=tls_ca,
        )


def _stored_command(typed: str, argv: Sequence[str]) -> str:
    """The command line as typed, or re-joined when a relative path was made absolute."""
    if not argv:
        return ""
    return typed.strip() if tuple(shlex.split(typed)) == tuple(argv) else shlex.join(argv)


def add_bot(
    *,
    session: Session,
    name: str,
    command: str = "",
    address: str = "",
    games: Sequence[str] = (),
    version: str = "",
    check: Callable[[BotSpec], bot_pb2.HealthResponse] | None = None,
    token_env: str = "",
    token_file: str = "",
    tls_ca: str = "",
) -> BotRow:
    """Register a bot version. With ``check`` (for instance
    :func:`league.execution.botcheck.check_bot`: it starts the bot, so it lives
    above the store), the bot must start, answer Health and play its games.

    For a bot reached by ``address``: ``token_env`` (an environment variable name)
    or ``token_file`` says where the referee finds the token it sends, and
    ``tls_ca`` the CA file its certificate is verified with. Only these names
    and paths are stored; the token is read when a match starts.
    """
    name = name.strip()
    if not name or any(ch.isspace() for ch in name) or len(name) > 100:
        raise LeagueError(f"bad bot name {name!r}: use 1-100 characters without spaces")
    if bool(command.strip()) == bool(address.strip()):
        raise LeagueError("give exactly one of --cmd (a command line) or --address")
    token_env, token_file, tls_ca = _service_options(
        name, command, token_env.strip(), token_file.strip(), tls_ca.strip()
    )
    unknown = sorted(set(games) - set(game_names()))
    if unknown:
        raise LeagueError(
            f"unknown game(s) {', '.join(unknown)} (known: {', '.join(sorted(game_names()))})"
        )
    spec = _new_spec(name, command, address, version, token_env, token_file, tls_ca)
    version = spec.version
    existing = session.exec(
        select(BotRow).where(BotRow.name == name, BotRow.version == version)
    ).first()
    if existing is not None and not existing.retired:
        raise AlreadyExistsError(f"bot {name!r} version {version} is already registered")
    played = list(games)
    if check is not None:
        health = check(spec)
        if played:
            missing = sorted(set(played) - set(health.games))
            if missing:
                raise BotCheckError(
                    f"bot {name!r} says it plays {', '.join(health.games) or 'nothing'},"
                    f" not {', '.join(missing)}"
                )
        else:
            played = [g for g in health.games if g in game_names()]
    if not played:
        raise LeagueError(f"bot {name!r}: name the games it plays with --game")
    if existing is not None:
        existing.retired = False
        existing.games = ",".join(played)
        existing.token_env, existing.token_file, existing.tls_ca = token_env, token_file, tls_ca
        row = existing
    else:
        row = BotRow(
            name=name,
            version=version,
            games=",".join(played),
            command=_stored_command(command, spec.command),
            address=address.strip(),
            token_env=token_env,
            token_file=token_file,
            tls_ca=tls_ca,
        )
    session.add(row)
    session.flush()
    return row


def list_bots(*, session: Session, include_retired: bool = False) -> list[BotRow]:
    query = select(BotRow).order_by(col(BotRow.name), col(BotRow.created_at))
    if not include_retired:
        query = query.where(col(BotRow.retired).is_(False))
    return list(session.exec(query))


def get_bot(*, session: Session, name: str, version: str = "") -> BotRow:
    """The newest active version of ``name`` (or exactly ``version``)."""
    query = select(BotRow).where(BotRow.name == name)
    if version:
        query = query.where(BotRow.version == version)
    else:
        query = query.where(col(BotRow.retired).is_(False))
    row = session.exec(query.order_by(col(BotRow.created_at).desc(), col(BotRow.id).desc())).first()
    if row is None:
        known = sorted({b.name for b in list_bots(session=session)})
        raise NotFoundError(
            f"no bot named {name!r}"
            + (f" version {version}" if version else "")
            + f" (registered: {', '.join(known) or 'none'})"
        )
    return row


def remove_bot(*, session: Session, name: str) -> int:
    """Retire every version of ``name``; versions never played are deleted outright.

    Returns the number of versions affected.
    """
    rows = list(session.exec(select(BotRow).where(BotRow.name == name)))
    active = [row for row in rows if not row.retired]
    if not active:
        raise NotFoundError(f"no bot named {name!r}")
    for row in active:
        played = session.exec(select(SeatRow.id).where(SeatRow.bot_id == row.id)).first()
        entered = session.exec(select(EntryRow.id).where(EntryRow.bot_id == row.id)).first()
        if played is None and entered is None:
            session.delete(row)
        else:
            row.retired = True
            session.add(row)
    session.flush()
    return len(active)


def ensure_example_bot(*, session: Session, module: str, game: str) -> BotRow:
    """The example bot ``example_bots.<module>`` under its module name, registered
    (unchecked: it ships with the project) the first time it is asked for."""
    try:
        return get_bot(session=session, name=module)
    except NotFoundError:
        return add_bot(
            session=session,
            name=module,
            command=f"{sys.executable} -m example_bots.{module}",
            games=[game],
        )
