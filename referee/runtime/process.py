"""Bot processes: start each in its own process group with a private socket, stop
them for sure (SIGTERM to the group, then SIGKILL), and say how they ended."""

# long module: one bot process's life (start, Health, stream, end, kill) is one state
# machine; its spawn and launchers are modules of their own

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.core.faults import BotStartupError, HostUnavailable
from referee.runtime import cgroups, owners
from referee.runtime.sandbox import (
    NO_SANDBOX,
    SOCKET_DIR_INSIDE,
    BotFilesError,
    SandboxConfig,
    SandboxedCommand,
    SandboxError,
    build_command,
    release_bot_uid,
)
from referee.runtime.seccomp_notify import RefusalWatch
from referee.runtime.spawn import Child, spawn

LOG_NAME = "bot.log"
SOCKET_NAME = "bot.sock"
HOST_ERRNOS = frozenset({errno.EAGAIN, errno.ENOMEM, errno.EMFILE, errno.ENFILE, errno.ENOSPC})
"""A fork or exec failing with these is the host's trouble, not the bot's."""
SOCKET_DIR = "sock"


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to reach one bot: a command line to start, or an address to dial."""

    name: str
    command: tuple[str, ...] = ()
    """Argument vector; ``python``/``python3`` as the program means this interpreter."""
    address: str = ""
    """``unix:/path`` or ``host:port`` of a bot service that is already running."""
    version: str = ""
    """Content hash or label of the bot's build (recorded with every match)."""
    token_env: str = ""
    """For an address: environment variable holding the token sent to the bot as
    ``authorization: Bearer <token>`` (read when the match starts, never stored)."""
    token_file: str = ""
    """For an address: file holding that token instead (surrounding whitespace dropped)."""
    tls_ca: str = ""
    """For an address: PEM file of the CA that signed the bot's TLS certificate;
    set, the connection is TLS and the bot must prove it holds the certificate's key."""

    def __post_init__(self) -> None:
        if bool(self.command) == bool(self.address):
            raise ValueError(f"bot {self.name!r}: give exactly one of command or address")
        if self.command and (self.token_env or self.token_file or self.tls_ca):
            raise ValueError(
                f"bot {self.name!r}: a token or TLS CA is for a bot reached by address,"
                f" not one started by command {self.command!r}"
            )
        if self.token_env and self.token_file:
            raise ValueError(f"bot {self.name!r}: give at most one of token_env and token_file")

    @classmethod
    def from_command_line(
        cls, text: str, *, name: str | None = None, cwd: Path | None = None
    ) -> BotSpec:
        """Parse a shell-style command line (``"python -m example_bots.x"``); with
        ``cwd``, its relative paths made absolute against it (:func:`absolute_command`)."""
        argv = tuple(shlex.split(text))
        if not argv:
            raise ValueError("empty bot command")
        # Named as typed: ``./bot.sh`` is "bot", not its absolute directory's.
        name = name or default_bot_name(argv)
        return cls(name=name, command=absolute_command(argv, cwd) if cwd else argv)


NOT_PATH_AFTER = frozenset({"-m", "-c"})
"""Python options whose value is a module or code, never a path."""


def absolute_command(argv: Sequence[str], cwd: Path) -> tuple[str, ...]:
    """``argv`` with its relative paths made absolute against ``cwd``.

    The sandbox runs a bot in a private ``/tmp`` and binds only the files its
    command names, so a path relative to where the user typed the command must be
    made absolute before the bot leaves that directory. A word is a path when:

    - it is the program and contains a slash (``./bot.sh``, ``bin/bot``);
    - or it is a later word, not an option (``-...``), not the value of ``-m`` or
      ``-c``, and ``cwd / word`` exists (a file or a directory).

    Anything else (``python``, ``12``, ``--delay``, ``--data=x.bin``) is kept as given.
    """
    words = list(argv)
    for index, word in enumerate(words):
        if not word or os.path.isabs(word):
            continue
        if index == 0:
            if "/" in word:
                words[0] = os.path.normpath(cwd / word)
            continue
        if word.startswith("-") or words[index - 1] in NOT_PATH_AFTER:
            continue
        if _exists(cwd / word):
            words[index] = os.path.normpath(cwd / word)
    return tuple(words)


def check_scripts_exist(argv: Sequence[str], cwd: Path) -> None:
    """Raise :class:`MissingBotFileError` if ``argv`` names a file that is not there:
    its program when that is a path (contains a slash), or a later relative word with
    a script suffix such as ``.py`` (not an option, not the value of ``-m``/``-c``).
    The message names the path it was looked for at. The command-line tools call it
    before starting a bot here, so a typo fails at once, not as a start-up fault far
    away inside the sandbox under a path the author never typed. (Later absolute
    words are left alone: they may be data the bot reads however it likes.)"""
    for index, word in enumerate(argv):
        if not word:
            continue
        if index == 0:
            if "/" not in word:
                continue
        elif (
            os.path.isabs(word)
            or word.startswith("-")
            or argv[index - 1] in NOT_PATH_AFTER
            or Path(word).suffix not in SCRIPT_SUFFIXES
        ):
            continue
        path = Path(os.path.normpath(cwd / word))  # an absolute word stays itself
        if not _exists(path):
            where = (
                ""
                if os.path.isabs(word)
                else (
                    f" (a relative path in the command is read from the folder you run arena"
                    f" in, {cwd})"
                )
            )
            raise MissingBotFileError(f"bot file not found: {path}{where}")


class MissingBotFileError(ValueError):
    """A bot command names a script that does not exist (the message has its path)."""


def _exists(path: Path) -> bool:
    """Whether ``path`` exists (a word too long or odd to be a path is not one)."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


SCRIPT_SUFFIXES = frozenset(
    {".py", ".pyz", ".js", ".mjs", ".cjs", ".ts", ".rb", ".sh", ".jar", ".pl", ".lua", ".php"}
)
"""Suffixes of the files interpreters run: such a word names the bot's script."""
GENERIC_STEMS = frozenset({"bot", "main", "__main__", "index", "run", "app", "agent", "player"})
"""Stems too common to tell bots apart: qualified by their directory or package."""


def default_bot_name(argv: Sequence[str]) -> str:
    """A readable name for a bot command: what it runs, never an option or a number.

    What it runs is the module after ``-m`` (``python -m pkg.my_bot`` → ``my_bot``),
    else the first later word that is an existing file or ends in a script suffix
    (``python my_bot.py --delay 12`` → ``my_bot``), else the program
    (``./bot.sh`` → ``bot``). A generic stem (``bot``, ``main``, ...) is qualified
    by its package or directory: ``python -m pkg.bot`` → ``pkg-bot``,
    ``node path/bot.js`` → ``path-bot``.
    """
    args = list(argv)
    for index, word in enumerate(args[:-1]):
        if word == "-m":
            parts = [p for p in args[index + 1].split(".") if p]
            return _qualified(parts) if parts else "bot"
    script = next(
        (w for w in args[1:] if not w.startswith("-") and _names_script(w)), args[0] if args else ""
    )
    path = Path(script)
    parts = [p for p in (*path.parent.parts, path.stem) if p not in ("", ".", "..", "/")]
    name = _qualified(parts) if parts else ""
    return name if name and not name.startswith("-") else "bot"


def _names_script(word: str) -> bool:
    """Whether a command word names the file an interpreter runs."""
    return Path(word).suffix.lower() in SCRIPT_SUFFIXES or _is_file(word)


def _is_file(word: str) -> bool:
    try:
        return Path(word).is_file()
    except (OSError, ValueError):
        return False


def _qualified(parts: Sequence[str]) -> str:
    """The last part, or ``parent-last`` when the last is a generic stem."""
    if parts[-1] in GENERIC_STEMS and len(parts) > 1:
        return f"{parts[-2]}-{parts[-1]}"
    return parts[-1]


def resolve_argv(command: Sequence[str]) -> list[str]:
    """The argv to exec: a bare ``python``/``python3`` becomes this interpreter."""
    argv = list(command)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


@dataclass
class _Launch:
    """How to fork one bot (argv, environment, inherited descriptors), and what its
    start holds that a failed start must release (control group, lifeline, uid)."""

    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...] = ()
    uid: int | None = None
    group: cgroups.BotCgroup | None = None
    lifeline: tuple[int, int] | None = None
    """The sandboxed bot's lifeline pipe (read end passed to it, write end kept)."""
    command: SandboxedCommand | None = None
    """The sandbox's command, whose descriptors are closed once the bot is forked."""

    @classmethod
    def in_sandbox(cls, spec: BotSpec, sandbox: SandboxConfig, argv: list[str]) -> _Launch:
        """``argv`` inside the bot sandbox: its control group (if the host allows
        one), its lifeline and bubblewrap's command line."""
        group: cgroups.BotCgroup | None = None
        lifeline = os.pipe()  # both ends close-on-exec; the read end is passed
        try:
            if sandbox.cgroup and cgroups.available() is None:
                group = cgroups.create(
                    memory_mb=sandbox.memory_mb, max_tasks=sandbox.max_procs, cpus=sandbox.cpus
                )
            command = build_command(
                sandbox,
                argv,
                socket_name=SOCKET_NAME,
                cgroup_paths=group.paths if group else (),
                lifeline_fd=lifeline[0],
            )
        except (SandboxError, cgroups.CgroupError) as error:
            if group is not None:
                group.remove()
            _close(*lifeline)
            if isinstance(error, BotFilesError):
                raise BotStartupError(f"cannot start bot {spec.name!r}: {error}") from None
            raise HostUnavailable(f"cannot start bot {spec.name!r}: {error}") from None
        return cls(
            argv=command.argv,
            env={},  # bubblewrap sets the allow-listed environment inside
            pass_fds=(lifeline[0], *command.fds),
            uid=command.uid,
            group=group,
            lifeline=lifeline,
            command=command,
        )

    @classmethod
    def plain(cls, argv: list[str], workdir: Path) -> _Launch:
        """``argv`` unsandboxed, in the referee's environment, its socket in ``workdir``."""
        socket_dir = workdir / SOCKET_DIR
        socket_dir.mkdir(mode=0o700)
        env = dict(os.environ)
        env["ARENA_LISTEN"] = f"unix:{socket_dir / SOCKET_NAME}"
        env["PYTHONUNBUFFERED"] = "1"
        # Bots built on the SDK exit when their parent is no longer this process
        # (the referee was killed): no orphaned bots after a SIGKILL.
        env["ARENA_REFEREE_PID"] = str(os.getpid())
        return cls(argv=argv, env=env)

    async def start(self, spec: BotSpec, workdir: Path, sandbox: SandboxConfig) -> Child:
        """Fork the bot, its output to its log; on failure release what the start held."""
        # 0600 and owned by the referee: a sandboxed bot cannot reopen it for reading.
        # Appending, so the sandbox's notes of refused calls land after what it wrote.
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(workdir / LOG_NAME, flags, 0o600)
        refusals = self.command.refusals if self.command is not None else None
        if refusals is not None:
            refusals.log_to(workdir / LOG_NAME)
        try:
            with open(fd, "wb") as log:
                return await spawn(
                    self.argv,
                    fresh_keyring=sandbox.enabled and sandbox.fresh_keyring,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    env=self.env,
                    start_new_session=True,
                    pass_fds=self.pass_fds,
                )
        except OSError as error:
            if refusals is not None:
                refusals.close()
            if self.group is not None:
                self.group.remove()
            if self.lifeline is not None:
                _close(*self.lifeline)
            if self.uid is not None:
                release_bot_uid(self.uid)
            message = f"cannot start bot {spec.name!r} ({shlex.join(spec.command)}): {error}"
            if error.errno in HOST_ERRNOS:
                raise HostUnavailable(message) from None
            raise BotStartupError(message) from None
        finally:
            if self.command is not None:
                self.command.close()


class BotProcess:
    """One started bot process; :meth:`stop` always reaps it and its children."""

    def __init__(
        self,
        process: Child,
        workdir: Path,
        *,
        uid: int | None = None,
        sandboxed: bool = False,
        cgroup: cgroups.BotCgroup | None = None,
        lifeline: int | None = None,
        refusals: RefusalWatch | None = None,
    ) -> None:
        self.process = process
        self.refusals = refusals
        """The system calls the sandbox refused this bot, noted in its log as they come."""
        self.lifeline = lifeline
        """Write end of the sandboxed bot's lifeline pipe (closed when it is stopped)."""
        self.workdir = workdir
        self.cgroup = cgroup
        """The control group bounding the whole bot, if the host allows one."""
        self.uid = uid
        """Host uid of a sandboxed bot (root referee), else None."""
        self.sandboxed = sandboxed
        self.paused = False
        """Stopped by :meth:`pause` (until :meth:`resume`)."""
        """Started in the bot sandbox (its log is capped by the file-size limit)."""
        self._socket_fd: int | None = None
        """The referee's own descriptor of the bot's socket (:meth:`locate_socket`)."""

    @property
    def log_path(self) -> Path:
        return self.workdir / LOG_NAME

    @property
    def returncode(self) -> int | None:
        return self.process.poll()

    @classmethod
    async def spawn(
        cls, spec: BotSpec, workdir: Path, sandbox: SandboxConfig = NO_SANDBOX
    ) -> BotProcess:
        """fork+exec ``spec.command`` in a new session, listening in ``workdir/sock``.

        With ``sandbox.enabled`` the command runs inside the bot sandbox
        (:mod:`referee.runtime.sandbox`); :class:`BotStartupError` if it cannot start.
        """
        argv = resolve_argv(spec.command)
        program = shutil.which(argv[0]) if argv else None
        if program is None:
            raise BotStartupError(
                f"cannot start bot {spec.name!r} ({shlex.join(argv)}):"
                f" program {argv[0] if argv else ''!r} not found or not executable"
            )
        if sandbox.enabled:
            launch = _Launch.in_sandbox(spec, sandbox, argv)
        else:
            launch = _Launch.plain(argv, workdir)
        process = await launch.start(spec, workdir, sandbox)
        if launch.lifeline is not None:
            _close(launch.lifeline[0])  # the referee keeps only the write end: its lifeline
        return cls(
            process,
            workdir,
            uid=launch.uid,
            sandboxed=sandbox.enabled,
            cgroup=launch.group,
            lifeline=launch.lifeline[1] if launch.lifeline else None,
            refusals=launch.command.refusals if launch.command is not None else None,
        )

    def locate_socket(self) -> str | None:
        """The gRPC address of the bot's socket once it exists, else None.

        The socket is opened by the referee itself, component by component and
        never through a symbolic link (``O_PATH | O_NOFOLLOW``), and must be a
        socket: the address is ``unix:/proc/self/fd/N`` of that descriptor, so
        gRPC reaches exactly that inode however the bot renames or relinks
        things later. A sandboxed bot's socket lies in its own tmpfs, reached
        through its sandbox's root (``/proc/PID/root`` of bubblewrap's init, and
        never while that is still the host's root). A bot that puts anything but
        a socket where its socket belongs gets :class:`BotStartupError`.
        """
        if self._socket_fd is not None:
            return f"unix:/proc/self/fd/{self._socket_fd}"
        if self.sandboxed:
            root = self._sandbox_root()
            if root is None:
                return None
            parts = [*SOCKET_DIR_INSIDE.strip("/").split("/"), SOCKET_NAME]
        else:
            try:
                root = os.open(self.workdir, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW)
            except OSError:
                return None
            parts = [SOCKET_DIR, SOCKET_NAME]
        try:
            fd = _open_beneath(root, parts)
        finally:
            os.close(root)
        if fd is None:
            return None
        info = os.fstat(fd)
        if not stat.S_ISSOCK(info.st_mode) or (self.uid is not None and info.st_uid != self.uid):
            os.close(fd)
            what = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not its own socket"
            raise BotStartupError(
                f"the bot put {what} where its socket belongs ({'/'.join(parts)}): refused"
            )
        self._socket_fd = fd
        return f"unix:/proc/self/fd/{fd}"

    def _sandbox_root(self) -> int | None:
        """A descriptor of the sandbox's root directory, or None while bubblewrap
        is still setting it up (its init has not yet left the host's root)."""
        for init in _children(self.process.pid):
            try:
                root = os.open(f"/proc/{init}/root", os.O_PATH | os.O_DIRECTORY)
            except OSError:
                continue
            mine, host = os.fstat(root), os.stat("/")
            if (mine.st_dev, mine.st_ino) == (host.st_dev, host.st_ino):
                os.close(root)
                continue
            if self.returncode is not None:  # gone meanwhile: the pid may be reused
                os.close(root)
                return None
            return root
        return None

    def log_size(self) -> int:
        try:
            return self.log_path.stat().st_size
        except OSError:
            return 0

    def read_log(self, start: int, limit: int) -> bytes:
        """Up to ``limit`` bytes of the bot's output from offset ``start``."""
        try:
            with open(self.log_path, "rb") as log:
                log.seek(start)
                return log.read(limit)
        except OSError:
            return b""

    def log_tail(self, limit: int = 2000) -> str:
        """The last ``limit`` bytes the bot wrote to stdout/stderr."""
        try:
            with open(self.log_path, "rb") as log:
                log.seek(0, os.SEEK_END)
                size = log.tell()
                log.seek(max(0, size - limit))
                return log.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def describe_exit(self) -> str:
        code = self.returncode
        if code is None:
            return "still running"
        if code < 0:
            return f"killed by signal {_signal_name(-code)}"
        if code != 0 and self.cgroup is not None and self.cgroup.oom_killed():
            return "killed for going over the memory limit of its control group"
        if self.sandboxed and code > 128:
            # bubblewrap exits with 128 + the signal that killed the bot.
            return f"killed by signal {_signal_name(code - 128)}"
        return f"exited with code {code}"

    def pause(self) -> bool:
        """Stop (SIGSTOP) every process of the bot, to hold it while another rotation
        of its deal is played: a stopped process runs nothing, so it can neither
        signal nor time anything. True once every one is stopped; False if the bot is
        gone or kept starting new processes.

        A stopped process still dies at once of SIGKILL (so a dying referee still
        takes it along through the death signal), unlike a frozen control group's."""
        for _ in range(PAUSE_ROUNDS):
            if self.returncode is not None:
                return False
            running = [pid for pid in _tree(self.process.pid) if _state(pid) not in "TtZX"]
            if not running:
                self.paused = True
                return True
            for pid in running:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGSTOP)
            time.sleep(0.001)
        self.resume()
        return False

    def resume(self) -> None:
        """Undo :meth:`pause` (SIGCONT to every process of the bot)."""
        for pid in _tree(self.process.pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGCONT)
        self.paused = False

    async def stop(self, grace: float = 1.0) -> None:
        """SIGTERM the whole process group, wait ``grace`` s, then SIGKILL it.

        A sandboxed bot is killed at once with its whole PID namespace: the
        namespace's first process is SIGKILLed (the kernel then kills every
        process in it, however it was started), and this returns only when that
        process is gone, so nothing of the bot outlives the call.
        """
        with trio.CancelScope(shield=True):
            try:
                if self.paused:
                    self.resume()  # a stopped process would sit on SIGTERM
                if self.sandboxed:
                    await self._stop_sandbox()
                    return
                pgid = self.process.pid
                self._signal_group(pgid, signal.SIGTERM)
                with trio.move_on_after(grace):
                    await self.process.wait()
                # Children that ignored SIGTERM (or outlived the leader) go now.
                self._signal_group(pgid, signal.SIGKILL)
                await self.process.wait()
            finally:
                if self._socket_fd is not None:
                    _close(self._socket_fd)
                    self._socket_fd = None
                if self.refusals is not None and self.returncode is not None:
                    self.refusals.close()
                if self.uid is not None and self.returncode is not None:
                    release_bot_uid(self.uid)

    async def _stop_sandbox(self) -> None:
        inner = _children(self.process.pid)
        for pid in inner:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        self._signal_group(self.process.pid, signal.SIGKILL)
        await self.process.wait()
        # The namespace's init is not our child: wait until the kernel has torn
        # the namespace down (its init exits only after every process in it).
        with trio.move_on_after(5.0):
            while any(_alive(pid) for pid in inner):
                await trio.sleep(0.005)
        if self.cgroup is not None:
            with trio.move_on_after(5.0):
                while not self.cgroup.remove():
                    await trio.sleep(0.01)
        if self.lifeline is not None:
            _close(self.lifeline)
            self.lifeline = None

    @staticmethod
    def _signal_group(pgid: int, signum: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signum)


WORKDIR_PREFIX = owners.WORKDIR_PREFIX
_swept = False


def make_workdir() -> Path:
    """A new private directory for one bot process (its log; unsandboxed, its socket).

    Its name carries the referee's pid and start time, so a later referee can tell
    the directories of a dead one (SIGKILLed: nothing removed them) from a live
    one's, and removes them the first time it makes one (:func:`sweep_workdirs`).
    """
    global _swept
    if not _swept:
        _swept = True
        sweep_workdirs()
    return Path(tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{owners.own_tag()}-"))


def sweep_workdirs(base: Path | None = None) -> list[Path]:
    """Remove the bot directories whose referee process is gone; the removed ones.

    A directory names its referee as ``arena-bot-PID.START-...``; it is stale when
    no process has that pid and start time. Directories of the older unnamed form
    (``arena-bot-XXXXXXXX``) are removed once unchanged for a day.
    """
    base = Path(tempfile.gettempdir()) if base is None else base
    removed: list[Path] = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    now = time.time()
    for path in entries:
        if not path.name.startswith(WORKDIR_PREFIX):
            continue
        try:
            info = path.lstat()
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            continue
        alive = owners.tag_is_alive(path.name[len(WORKDIR_PREFIX) :].split("-", 1)[0])
        if alive or (alive is None and now - info.st_mtime < 86400):
            continue  # its referee still runs, or an unnamed one changed within a day
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _open_beneath(directory: int, parts: Sequence[str]) -> int | None:
    """``O_PATH`` descriptor of ``directory/parts[0]/.../parts[-1]``, opened one
    component at a time without following any symbolic link (a link as the last
    component is opened as the link itself); None if a component is missing."""
    current = directory
    found: int | None = None
    try:
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            flags = os.O_PATH | os.O_NOFOLLOW | (0 if last else os.O_DIRECTORY)
            try:
                opened = os.open(part, flags, dir_fd=current)
            except (FileNotFoundError, NotADirectoryError):
                return None
            except OSError as error:
                if error.errno == errno.ELOOP:  # a link where a directory belongs
                    raise BotStartupError(
                        f"the bot put a symbolic link at {'/'.join(parts[: index + 1])}"
                        " where its socket directory belongs: refused"
                    ) from None
                return None
            if current != directory:
                os.close(current)
            current = opened
        found = current
        return found
    finally:
        # Every descriptor opened on the way is closed, but the one returned.
        if current != directory and current != found:
            os.close(current)


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (Linux ``/proc/PID/task/*/children``)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(c) for c in (task / "children").read_text().split()]
    return found


PAUSE_ROUNDS = 50
"""Sweeps :meth:`BotProcess.pause` makes over the bot's processes (one that forks
while being stopped needs another) before it gives up."""


def _tree(pid: int) -> list[int]:
    """``pid`` and every descendant of it (children links, breadth first)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += _children(current)
    return found


def _state(pid: int) -> str:
    """The process state letter (``R``, ``S``, ``T``, ``Z``...), ``X`` when gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "X"


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _signal_name(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return str(number)
    hints = {"SIGXCPU": " (CPU-time limit)", "SIGXFSZ": " (file-size limit)"}
    return name + hints.get(name, "")


def _close(*fds: int) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
