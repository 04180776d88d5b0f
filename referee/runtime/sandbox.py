"""The sandbox every bot process runs in: bubblewrap, rlimits and its own user.

A bot is code from a stranger who wants to win. The referee starts each bot
process through `bubblewrap <https://github.com/containers/bubblewrap>`_
(Debian package ``bubblewrap``), which gives it

- new PID, network (loopback only, nothing reachable), IPC, UTS and mount
  namespaces: it sees no other process, no socket of the host, and no file but
  the ones bound in below;
- a view of ``/proc`` whose host-wide numbers stand still (:mod:`referee.runtime.proc_view`),
  and a system-call filter (:mod:`referee.runtime.seccomp`) that refuses what would let two
  sandboxes running at once signal each other (locks, file watches, shared futexes,
  page-cache queries, host-wide counters);
- a read-only view of the system (``/usr`` and the few ``/etc`` files programs
  need), the Python runtime, the SDK packages and the bot's own files (a submitted
  tree as a fresh copy with fixed times, :mod:`referee.runtime.tree_copy`);
- a fresh, size-capped ``/tmp`` (also its working directory and ``$HOME``) that
  disappears with the process, and its socket directory (``/run/arena``);
- an allow-listed environment;
- rlimits (``prlimit``) on address space, CPU time, processes, open files and
  file size (the file-size limit also caps its log);
- its own user: when the referee runs as root, every bot process gets a uid of
  its own (``setpriv``), never the referee's, so the process cap counts only that
  bot and nothing the referee owns is writable or signalable. An unprivileged
  referee uses a user namespace instead (uid 65534 inside, its own uid outside).
- ``--die-with-parent``: when the referee dies, every bot dies with it.

Nothing here is home-made isolation: namespaces and mounts are bubblewrap's,
limits are the kernel's rlimits set by util-linux ``prlimit``, the user switch
is util-linux ``setpriv``.
"""

# long module: one sandbox's bubblewrap command line: binds, namespaces, limits, uids and
# environment are one contract reviewed together (docs/security.md); seccomp, cgroups, the
# /proc view and tree copies are modules of their own

from __future__ import annotations

import contextlib
import fcntl
import functools
import importlib.util
import os
import secrets
import shutil
import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.core.catalogue import ENTRY_POINT_GROUP
from referee.runtime import proc_view, seccomp, seccomp_notify, tree_copy
from referee.runtime.sandbox_config import (  # re-exported: the settings live apart
    DEFAULT_SANDBOX as DEFAULT_SANDBOX,
)
from referee.runtime.sandbox_config import NO_SANDBOX as NO_SANDBOX
from referee.runtime.sandbox_config import BotFilesError as BotFilesError
from referee.runtime.sandbox_config import SandboxConfig as SandboxConfig
from referee.runtime.sandbox_config import SandboxError as SandboxError
from referee.runtime.seccomp_notify import RefusalWatch

SOCKET_DIR_INSIDE = "/run/arena"
"""Where a sandboxed bot finds its (only writable, besides /tmp) socket directory."""
SOCKET_DIR_BYTES = 1 << 20
"""Size of the socket directory's tmpfs (a socket takes no space; 1 MiB is room
for the odd file a bot's framework writes beside it)."""

LOADER = str(Path(__file__).with_name("seccomp_loader.py"))
"""Stacks the refusal reporter inside the sandbox, then execs the bot's command."""

UID_BASE = 1_700_000_000
"""Sandboxed bots run as uids from here up (root referee only); no such user exists."""

SDK_PACKAGES = ("arena", "sdk", "referee", "example_bots")
"""Packages installed with the SDK that a Python bot may import (read-only
inside; a normal install has them in site-packages anyway). The example bots are
public code a bot may build on."""

ENV_ALLOWED = ("LANG", "LC_ALL", "TZ")
"""Variables copied from the referee's environment (if set); nothing else is."""

ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/ssl/certs",
    "/etc/ssl/openssl.cnf",
    "/etc/ca-certificates",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/mime.types",
)
"""System files bound read-only (no passwords, no host names, no credentials).
``/etc/ssl/openssl.cnf`` is OpenSSL's public configuration: Node.js (and any
program linked with OpenSSL 3) reads it at start-up and exits if it may not;
``/etc/ssl/private`` is never bound."""


LAUNCH = (
    '[ "$PPID" = "$1" ] || exit 125; case $2 in *[!0-9]*|"") exit 125;; esac;'
    ' eval "exec 3<&$2 $2<&-"; n=$3; shift 3; while [ "$n" -gt 0 ]; do'
    ' echo $$ > "$1/cgroup.procs" || exit 125; shift; n=$((n - 1)); done; exec "$@"'
)
"""The first program of every sandboxed bot (bash: dash cannot name descriptors
above 9), run by ``setpriv --pdeathsig KILL``:
it exits unless the referee that forked it is still its parent (so a referee that
died before the death signal was armed leaves nothing behind), moves the lifeline
(see :data:`INSIDE`) to descriptor 3, joins the bot's control groups, and
execs bubblewrap. Arguments: referee pid, lifeline descriptor, number of control
groups, their paths, then the command."""

INSIDE = (
    'case $1 in *[!0-9]*|"") exit 125;; esac;'
    " if timeout 0.02 cat <&3 >/dev/null 2>&1; then exit 125; fi;"
    ' (eval "exec $1<&- </dev/null >/dev/null 2>&1"; trap "" HUP INT TERM;'
    " while read -r -u 3 _; do :; done; kill -KILL -1) & exec 3<&-;"
    ' mapfile -d "" -t argv <&"$1" || exit 125; eval "exec $1<&-"; exec "${argv[@]}"'
)
"""Inside the sandbox, the first program (bash): descriptor 3 is the read end of a
pipe whose only writer is the referee. End of file means the referee has died —
possibly while bubblewrap was still arming its own death signal, a window no
signal covers — so exit instead of starting an orphan. Otherwise leave a watcher
(a bash subshell, as the sandbox's root: the bot cannot signal it) blocked on
that pipe for the sandbox's whole life: when the referee dies, however it dies
and whatever became of the death signals, end of file arrives and the watcher
kills every process of the sandbox's PID namespace. Then close it, read
the rest of the command (the copy of a submitted tree, :mod:`referee.runtime.tree_copy`;
limits, user switch, the bot's own command) as
NUL-separated words from the descriptor named by its argument, close that too,
and exec it (the bot sees neither descriptor).

Nothing about the host is on any command line a bot can read: bubblewrap's own
(``/proc/1/cmdline`` inside) is ``bwrap --args N -- /bin/bash -c INSIDE
arena-check M``; its options (host paths, the bot's uid) come from descriptor N
and the command from descriptor M, both memory files the referee wrote."""


BOT_TREE_MARKER = ".arena-bot-tree"
"""A file of this name in a directory marks it as one bot's own tree (written by
the arena server when it unpacks a submitted bot): a script under it gets the whole
tree, so it can import its sibling modules and read its data files — copied afresh
into every start (:mod:`referee.runtime.tree_copy`) unless ``SandboxConfig.copy_trees`` is off."""


def require_tools() -> dict[str, str]:
    """Paths of bwrap, prlimit and setpriv; :class:`SandboxError` naming what is missing."""
    found: dict[str, str] = {}
    missing: list[str] = []
    for tool, package in (
        ("bwrap", "bubblewrap"),
        ("prlimit", "util-linux"),
        ("setpriv", "util-linux"),
    ):
        path = shutil.which(
            tool, path="/usr/bin:/bin:/usr/sbin:/sbin:" + os.environ.get("PATH", "")
        )
        if path is None:
            missing.append(f"{tool} (Debian package {package})")
        else:
            found[tool] = path
    if missing:
        raise SandboxError(
            "the bot sandbox needs "
            + ", ".join(missing)
            + ": install it (apt-get install bubblewrap), or run without a sandbox"
            " with --no-sandbox (only for bots you trust)"
        )
    return found


_uid_lock = threading.Lock()
_live_uids: set[int] = set()
"""Uids of this referee's bots that have not been released (:func:`release_bot_uid`)."""


UIDS_PER_REFEREE = 100_000


UID_BLOCKS = 1000
UID_LOCK_DIR = Path("/run/lock/bluff-arena-uids")
_claimed_block: tuple[int, int] | None = None
"""(pid, block) once this process holds a uid block's lock (:func:`claim_uid_block`),
or was handed its runner's (:func:`share_uids`)."""


def referee_uids(pid: int | None = None) -> range:
    """The uids the referee process ``pid`` (default: this one) gives its bots.

    This process's: the block it holds (claimed now if it has none and runs as
    root). Another process's: the block whose lock file it holds open (a referee
    worker holds its runner's), else block ``pid % 1000`` (a referee that never
    sandboxed a bot as root)."""
    if pid is None or pid == os.getpid():
        if os.geteuid() == 0:
            claim_uid_block()
        pid = os.getpid()
        block = _claimed_block[1] if _claimed_block and _claimed_block[0] == pid else None
    else:
        block = held_uid_block(pid)
    if block is None:
        block = pid % UID_BLOCKS
    first = UID_BASE + block * UIDS_PER_REFEREE
    return range(first, first + UIDS_PER_REFEREE)


def held_uid_block(pid: int, lock_dir: Path | None = None) -> int | None:
    """The uid block whose lock file (in ``lock_dir``, default :data:`UID_LOCK_DIR`)
    process ``pid`` holds open, if any (None when it holds none or its descriptors
    cannot be read)."""
    lock_dir = UID_LOCK_DIR if lock_dir is None else lock_dir
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return None
    for fd in descriptors:
        try:  # one closed since the listing (another thread's file) is skipped
            path = Path(os.readlink(fd))
        except OSError:
            continue
        if path.parent == lock_dir and path.name.isdigit():
            return int(path.name)
    return None


def claim_uid_block(lock_dir: Path | None = None) -> int:
    """Hold, for this process's lifetime, an exclusive lock on a uid block no other
    live referee uses, and give the bots uids from it.

    Every referee that sandboxes bots as root claims one before its first bot
    (:func:`next_bot_uid`): referees that start independently on one machine (two
    league runs, the server and a CLI match, the processes of a Ray cluster) would
    otherwise take their blocks from their pids modulo 1000, and two whose pids
    agree there could give two live bots one uid — one process cap, one key
    quota, files each could write. A lock (``flock``) is released by the kernel
    when its last holder dies, so a killed referee's block frees itself. Tries the
    block of its pid first. Idempotent. ``lock_dir``: default :data:`UID_LOCK_DIR`."""
    global _claimed_block
    pid = os.getpid()
    lock_dir = UID_LOCK_DIR if lock_dir is None else lock_dir
    with _claim_lock:
        if _claimed_block is not None and _claimed_block[0] == pid:
            return _claimed_block[1]
        lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        for step in range(UID_BLOCKS):
            block = (pid + step) % UID_BLOCKS
            fd = os.open(lock_dir / str(block), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            _held_locks.append(fd)  # kept open: closing it would release the lock
            _claimed_block = (pid, block)
            return block
    raise SandboxError(f"every one of the {UID_BLOCKS} uid blocks in {lock_dir} is in use")


def uid_block_lock() -> tuple[int, int] | None:
    """(the descriptor that holds this process's uid block, the block), claimed now
    as root, for a referee worker to inherit: the block stays held while any worker
    lives. None when not root (bots then run in a user namespace, and need no block)."""
    if os.geteuid() != 0:
        return None
    block = claim_uid_block()
    return (_held_locks[-1], block) if _held_locks else None


_held_locks: list[int] = []
_claim_lock = threading.Lock()


_uid_share = (0, 1)
"""(index, count): this referee hands out the uid slots ``index, index + count, ...``."""


def share_uids(index: int, count: int, block: int | None = None) -> None:
    """Use only every ``count``-th uid slot, starting at ``index``, of ``block``.

    The referee processes of one league run (``--workers``) call this with
    distinct indexes and the block their runner claimed (whose lock each of them
    inherits): so no two of them, and no other referee, give two live bots one uid."""
    if not 1 <= count <= UIDS_PER_REFEREE or not 0 <= index < count:
        raise ValueError(f"uid share {index} of {count}: need 0 <= index < count")
    if block is not None and not 0 <= block < UID_BLOCKS:
        raise ValueError(f"uid block {block}: need 0 <= block < {UID_BLOCKS}")
    global _uid_share, _claimed_block
    with _uid_lock:
        _uid_share = (index, count)
        if block is not None:
            _claimed_block = (os.getpid(), block)


def next_bot_uid() -> int:
    """A uid no other live bot of this referee has (root referee only).

    Drawn at random from this referee's share of its block, so a bot's uid tells
    it nothing about how many bots the referee started before it (a check run in
    a fresh process and a ladder match would otherwise differ)."""
    with _uid_lock:
        index, count = _uid_share
        slots = UIDS_PER_REFEREE // count
        if len(_live_uids) >= slots:
            raise SandboxError(f"all {slots} bot uids of this referee are in use")
        uids = referee_uids()
        while True:
            uid = uids[index + count * secrets.randbelow(slots)]
            if uid not in _live_uids:
                _live_uids.add(uid)
                return uid


def release_bot_uid(uid: int) -> None:
    """``uid``'s bot is gone: the uid may be handed out again."""
    with _uid_lock:
        _live_uids.discard(uid)


@dataclass(frozen=True, slots=True)
class SandboxedCommand:
    argv: list[str]
    """Run with an empty environment: bubblewrap sets the allow-listed one inside."""
    uid: int | None
    """The bot's host uid (root referee), or None (user namespace, referee's uid)."""
    fds: tuple[int, ...] = ()
    """Memory files the child must inherit (bubblewrap's options, the seccomp
    program, the command): pass them, then close them in the referee."""
    refusals: RefusalWatch | None = None
    """The watch of the calls the filter refuses this bot (the bot's author is told):
    the process that runs the bot closes it when the bot is stopped."""

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def bot_files(command: Sequence[str]) -> tuple[list[Path], list[Path]]:
    """(paths to bind read-only, directories to put on PYTHONPATH) for a bot command.

    ``-m pkg.mod``: the top-level package of the module (found the way the
    referee itself would import it), with its parent on PYTHONPATH (inside, the
    working directory is the private /tmp). A script: the script file alone.
    An absolute program outside the system directories: the program file.
    """
    binds: list[Path] = []
    pythonpath: list[Path] = []
    args = list(command)
    for index, arg in enumerate(args):
        if index > 0 and args[index - 1] == "-m":
            top = arg.split(".", 1)[0]
            try:
                spec = importlib.util.find_spec(top)
            except (ImportError, ValueError):
                spec = None
            if spec is None:
                continue
            if spec.submodule_search_locations:
                for location in spec.submodule_search_locations:
                    binds.append(Path(location).resolve())
                    pythonpath.append(Path(location).resolve().parent)
            elif spec.origin and Path(spec.origin).is_file():
                binds.append(Path(spec.origin).resolve())
                pythonpath.append(Path(spec.origin).resolve().parent)
        elif index > 0 and not arg.startswith("-") and _is_file(arg):
            # The script alone, not its directory: that may be the runner's
            # directory (the database, records, other bots). A bot of several
            # files is a package (``-m``), a submitted tree (marked, see
            # BOT_TREE_MARKER) or names more paths in ``readable``.
            script = Path(arg).resolve()
            binds.append(_bot_tree(script) or script)
    if args and os.path.isabs(args[0]) and Path(args[0]).exists():
        program = Path(args[0])
        if not any(str(program).startswith(p) for p in ("/usr/", "/bin/", "/sbin/")):
            binds.append(program)
    return binds, pythonpath


def _bot_tree(script: Path) -> Path | None:
    """The nearest directory above ``script`` marked as a submitted bot's tree."""
    for parent in script.parents:
        if (parent / BOT_TREE_MARKER).is_file():
            return parent
    return None


def _is_file(arg: str) -> bool:
    """Whether a command argument names a file (any argument may be data, e.g. too
    long to be a path: that is simply not a file)."""
    try:
        return Path(arg).is_file()
    except (OSError, ValueError):
        return False


@functools.cache
def installed_games() -> tuple[Path, ...]:
    """Where each installed distribution that adds a game lives (its entry point in
    :data:`referee.core.catalogue.ENTRY_POINT_GROUP`): bound read-only and put on a
    bot's ``PYTHONPATH``, so a bot finds an installed game as the referee does, also
    when it is installed outside the environment's site-packages (``pip --target``)."""
    import importlib.metadata  # ~20 ms, only once a sandbox is built

    found: set[Path] = set()
    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if point.dist is not None:
            found.add(Path(str(point.dist.locate_file(""))).resolve())
    return tuple(sorted(found))


@functools.cache
def python_runtime() -> tuple[Path, ...]:
    """The interpreter and its libraries (venv and base installation, installed games)."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent}
    paths.add(Path(sys.base_prefix).resolve())
    paths.update(installed_games())
    for name in SDK_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            paths.update(Path(p).resolve() for p in spec.submodule_search_locations)
    return tuple(sorted(paths))


@functools.cache
def sdk_roots() -> tuple[Path, ...]:
    """The directories the referee imports the SDK packages from (their parents): on a
    bot's ``PYTHONPATH`` after its own, so a bot imports the SDK the referee imports,
    also when the referee found it through ``PYTHONPATH`` (a source checkout) rather
    than through the environment's own paths. Only the packages are bound."""
    roots: dict[Path, None] = {}
    for name in SDK_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            for location in spec.submodule_search_locations:
                roots[Path(location).resolve().parent] = None
    return tuple(roots)


def _minimal(paths: Iterable[Path]) -> list[Path]:
    """Drop paths inside other paths of the list (one bind covers them)."""
    result: list[Path] = []
    for path in sorted({p for p in paths if p.exists()}, key=lambda p: len(p.parts)):
        if not any(path == kept or kept in path.parents for kept in result):
            result.append(path)
    return sorted(result)


def _ancestors_args(path: Path, made: set[Path]) -> list[str]:
    """``--dir`` every ancestor with mode 0755 (bwrap would make them 0700)."""
    args: list[str] = []
    for parent in reversed(path.parents):
        if parent == Path("/") or parent in made or str(parent) in ("/usr", "/etc"):
            continue
        made.add(parent)
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def build_command(
    config: SandboxConfig,
    command: Sequence[str],
    *,
    socket_name: str,
    extra_env: dict[str, str] | None = None,
    cgroup_paths: Sequence[Path] = (),
    lifeline_fd: int,
) -> SandboxedCommand:
    """The argv (and the memory files it reads) that run ``command`` in the sandbox.

    With ``cgroup_paths``, a shell first moves itself into those control groups
    and then execs bubblewrap, so every process of the bot starts inside them.
    The bot serves on ``/run/arena/<socket_name>``, a small tmpfs of its own
    inside the sandbox (see :func:`referee.runtime.process.BotProcess.locate_socket`).
    """
    tools = require_tools()
    as_root = os.geteuid() == 0
    bwrap = _system_args(config, as_root)
    # The runtime and the bot's own files, read-only, at their host paths.
    own, pythonpath = bot_files(command)
    pythonpath = [*pythonpath, *installed_games(), *sdk_roots()]
    trees = [p for p in own if config.copy_trees and tree_copy.is_tree(p, BOT_TREE_MARKER)]
    bwrap += _bot_file_args(config, own, as_root, copied=trees)
    bwrap += ["--perms", "0755", "--dir", "/run"]
    # The socket directory: the bot's own, size-capped, invisible to the host
    # but through the sandbox's root (the referee never follows a link there).
    bwrap += ["--perms", "0777", "--size", str(SOCKET_DIR_BYTES), "--tmpfs", SOCKET_DIR_INSIDE]
    bwrap += ["--chdir", "/tmp", "--clearenv"]
    for key, value in _environment(socket_name, pythonpath, extra_env).items():
        bwrap += ["--setenv", key, value]
    if as_root:
        # setpriv needs these two to switch user; it then drops every capability.
        bwrap += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    limits = _limit_args(tools, config)
    uid = next_bot_uid() if as_root else None
    switch = _switch_user_args(tools, uid)
    # Copied trees are filled by the sandbox's root before the limits and the user switch.
    copy = tree_copy.copy_command(trees, (Path(p).resolve() for p in config.protect))
    fds, args_fd, command_fd, refusals = _command_files(
        config, bwrap, [*copy, *limits, *switch], command, uid
    )
    # Dies with the referee from the first instruction on (see LAUNCH).
    launch = [tools["setpriv"], "--pdeathsig", "KILL", "--", "/bin/bash", "-c", LAUNCH]
    launch += ["arena-launch", str(os.getpid()), str(lifeline_fd), str(len(cgroup_paths))]
    launch += [str(path) for path in cgroup_paths]
    inside = ["/bin/bash", "-c", INSIDE, "arena-check", str(command_fd)]
    return SandboxedCommand(
        argv=[*launch, tools["bwrap"], "--args", str(args_fd), "--", *inside],
        uid=uid,
        fds=fds,
        refusals=refusals,
    )


def _system_args(config: SandboxConfig, as_root: bool) -> list[str]:
    """bubblewrap's namespaces, and the system read-only: /usr, the top-level
    library and binary directories, the allowed files of /etc, /proc, /dev, /tmp."""
    bwrap = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-uts"]
    if config.ipc_net_namespaces:
        bwrap += ["--unshare-net", "--unshare-ipc"]
    bwrap += ["--unshare-cgroup-try", "--hostname", "arena-bot"]
    if not as_root:
        bwrap += ["--unshare-user", "--uid", "65534", "--gid", "65534", "--disable-userns"]
    # The system, read-only.
    bwrap += ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            bwrap += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            bwrap += ["--ro-bind", str(host), str(host)]
    bwrap += ["--perms", "0755", "--dir", "/etc"]
    etc_made: set[Path] = set()
    for etc in ETC_FILES:
        # Parents below /etc (``/etc/ssl``) must be 0755 too, or a bot running as
        # its own uid cannot reach the file (bwrap would make them 0700).
        bwrap += _ancestors_args(Path(etc), etc_made)
        bwrap += ["--ro-bind-try", etc, etc]
    bwrap += ["--proc", "/proc"]
    if config.close_channels:
        bwrap += proc_view.view_for(config.memory_mb).bwrap_args()
    bwrap += ["--dev", "/dev"]
    bwrap += ["--perms", "1777", "--size", str(config.tmp_mb << 20), "--tmpfs", "/tmp"]
    return bwrap


def _bot_file_args(
    config: SandboxConfig, own: Sequence[Path], as_root: bool, *, copied: Sequence[Path] = ()
) -> list[str]:
    """The Python runtime, the bot's ``own`` files and ``config.readable``, bound
    read-only; anything of ``config.protect`` under them hidden. The trees of
    ``own`` in ``copied`` are not bound but staged for :mod:`referee.runtime.tree_copy`.

    :class:`BotFilesError` if a root referee's bot could not read its own files."""
    if as_root:
        for path in own:
            if not os.stat(path).st_mode & 0o004:
                raise BotFilesError(
                    f"the bot's files at {path} are not readable by other users"
                    f" (mode {os.stat(path).st_mode & 0o777:o}): sandboxed bots run as a user"
                    " of their own; make them readable (chmod o+rX) or use --no-sandbox"
                )
    bwrap: list[str] = []
    made: set[Path] = set()
    bound = _minimal(
        [*python_runtime(), *(p for p in own if p not in copied), *map(Path, config.readable)]
    )
    for path in bound:
        bwrap += _ancestors_args(path, made)
        bwrap += ["--ro-bind", str(path), str(path)]
    for tree in copied:
        if not any(b == tree or b in tree.parents for b in bound):
            bwrap += _ancestors_args(tree, made)
    bwrap += tree_copy.bwrap_args(copied)
    # Nothing secret under a bound directory is visible (database, records).
    for secret in config.protect:
        target = Path(secret).resolve()
        if target.exists() and any(b == target or b in target.parents for b in bound):
            bwrap += ["--ro-bind", "/dev/null", str(target)]
    return bwrap


def _environment(
    socket_name: str, pythonpath: Sequence[Path], extra_env: dict[str, str] | None
) -> dict[str, str]:
    """The bot's whole environment inside the sandbox (bubblewrap clears the rest)."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MALLOC_ARENA_MAX": "2",
        "ARENA_LISTEN": f"unix:{SOCKET_DIR_INSIDE}/{socket_name}",
        "ARENA_SANDBOX": "1",
    }
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(str(p) for p in dict.fromkeys(pythonpath))
    for name in ENV_ALLOWED:
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(extra_env or {})
    return env


def _limit_args(tools: Mapping[str, str], config: SandboxConfig) -> list[str]:
    """prlimit's command line: the bot's resource limits."""
    return [
        tools["prlimit"],
        f"--as={config.memory_mb << 20}",
        f"--cpu={config.cpu_s}",
        f"--nproc={config.max_procs}",
        f"--nofile={config.max_files}",
        f"--fsize={config.file_mb << 20}",
        "--core=0",
        "--",
    ]


def _switch_user_args(tools: Mapping[str, str], uid: int | None) -> list[str]:
    """setpriv's command line that runs the bot as ``uid`` without any capability
    (nothing without a uid: the user namespace already made the bot nobody)."""
    if uid is None:
        return []
    return [
        tools["setpriv"],
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def _command_files(
    config: SandboxConfig,
    bwrap: Sequence[str],
    prefix: Sequence[str],
    command: Sequence[str],
    uid: int | None,
) -> tuple[tuple[int, ...], int, int, RefusalWatch | None]:
    """The memory files the launch reads: the seccomp program (if enabled),
    bubblewrap's options and the command (``prefix``, then the refusal reporter's
    loader, then ``command``). Returns every descriptor, those of the options and
    the command, and the watch of refused calls; on failure closes them and releases
    ``uid``."""
    fds: list[int] = []
    bwrap = list(bwrap)
    refusals: RefusalWatch | None = None
    try:
        reporter: list[str] = []
        if config.seccomp:
            fds.append(seccomp.program_fd(config.close_channels))
            bwrap += ["--seccomp", str(fds[-1])]
            # The same allow list again, its default a notification to the referee,
            # stacked by the loader just before the bot's own command.
            fds.append(seccomp.program_fd(config.close_channels, "notify"))
            refusals = seccomp_notify.new_watch()
            fds.append(refusals.take_child_end())
            reporter = [sys.executable, "-I", "-S", LOADER, str(fds[-2]), str(fds[-1]), "--"]
        fds.append(_memory_file("arena-bwrap-args", bwrap))
        args_fd = fds[-1]
        fds.append(_memory_file("arena-command", [*prefix, *reporter, *command]))
        command_fd = fds[-1]
    except BaseException as error:
        SandboxedCommand([], None, tuple(fds)).close()
        if refusals is not None:
            refusals.close()
        if uid is not None:
            release_bot_uid(uid)
        if isinstance(error, seccomp.SeccompUnavailable):
            raise SandboxError(str(error)) from None
        raise
    return tuple(fds), args_fd, command_fd, refusals


def _memory_file(name: str, words: Sequence[str]) -> int:
    """A memory file holding ``words`` NUL-terminated, at offset 0 (close-on-exec
    in the referee; pass it to the child explicitly)."""
    data = b"".join(os.fsencode(word) + b"\0" for word in words)
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
