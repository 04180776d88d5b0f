"""A Liar's Dice bot that plays random legal moves and attacks its host once.

    python -m tests.security.hostile_bot --attack NAME [options]

On its first turn of every match (``fork``: once, at startup) the bot runs ONE
attack and prints what it achieved as a single line ``ATTACK {json}`` on stderr
(the referee captures it into the match's log); with ``report`` set it also
appends that line to that file when it can (the guard tests use this where the
referee itself may die).
Parameters come as ``--config HEX`` (hex-encoded JSON of :class:`Options`).

Attacks (see tests/security/test_sandbox_attacks.py for what each must achieve):
  network   connect to 127.0.0.1:``port`` and ``hosts`` (a listener the test
            opened) and to the abstract unix socket ``abstract``
  fork      at startup (before serving; ``when="turn"``: on its first turn):
            fork up to ``count`` children (each sleeps), count the successes,
            then kill and reap them
  socket    find the other seat (``needle``), read its socket address from its
            environment and call its gRPC Health as if it were the referee
  memory    allocate a bytearray of ``mb`` MiB
  log       write ``mb`` MiB to stderr (past the log cap)
  persist   look for markers an earlier process or match left, then leave
            markers everywhere it can write (cwd, /tmp, $HOME, /run/arena,
            its own package directory, /dev/shm, /var/tmp)
  proc      list /proc, read the parent's cmdline/environ/memory, look for
            the other seat (a process whose command line holds ``needle``)
  signal    SIGSTOP+SIGKILL the other seat (found by ``needle``) and/or the
            referee (getppid() and ``pids``) as chosen by ``target``
  escape    fork a child that leaves the session (setsid), writes ``paths[0]`` after
            ``delay`` s and then sleeps 60 s
  files     open the referee's files for writing (``paths``, relative
            ``arena.db``) and read the project tree (``reads``)
  keyring   ``phase`` "write": add a key ``token`` holding ``payload`` to the
            session keyring; "read": look for key ``token`` and read it
  syscalls  call each system call the sandbox's filter denies (with harmless
            arguments), and ``unshare -Urm`` (a user namespace: uid 0, mounts)
  fill      write up to ``mb`` MiB into every directory it can find writable
            (the socket directory, /tmp, /dev/shm, /, ...), file by file
  cmdline   read the command line of every process it can see (PID 1 above all)
  socketlink  (at startup, instead of serving) make its socket path a symbolic
            link to ``paths[0]``, a socket on the host, and wait
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import errno
import glob
import json
import os
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sdk import Bot, MatchInfo, run
from sdk.liars_dice import Action, Observation, legal_actions

PROCESS_TOKEN = secrets.token_hex(8)
"""Unique to this process (pids repeat inside PID namespaces)."""
MATCHES_SEEN: list[str] = []
"""Match ids this process has played: in-memory state a reused process keeps."""
MARKER_PREFIX = "arena-hostile-marker-"


@dataclass
class Options:
    """What to attack and with what (the test passes them as hex-encoded JSON, so
    no host path or search string appears literally in the bot's command line:
    the sandbox binds the directory of any argument that names a file, and a
    needle in argv would match the bot's own command line)."""

    attack: str = ""
    port: int = 0
    hosts: list[str] = field(default_factory=list)
    abstract: str = ""
    count: int = 64
    mb: int = 0
    token: str = ""
    needle: str = ""
    target: str = "all"
    """signal: "opponent", "referee" or "all"."""
    pids: list[int] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    delay: float = 2.0
    when: str = "startup"
    """fork: at "startup" (before serving) or on its first "turn" (gRPC running)."""
    report: str = ""
    phase: str = ""
    """keyring: "write" or "read"."""
    payload: str = ""
    """keyring: what to write (the key's description is ``token``)."""


OPTIONS = Options()


def encode_config(**values: Any) -> str:
    """The ``--config`` argument for ``values`` (fields of :class:`Options`).

    Hex in slash-separated chunks of 128: the referee looks at every argument as
    a possible file, and one path component over 255 bytes makes that lookup
    fail with ENAMETOOLONG (see test_a_long_argument_does_not_break_the_launch).
    """
    text = json.dumps(values, sort_keys=True).encode().hex()
    return "/".join(text[i : i + 128] for i in range(0, len(text), 128))


def parse_options(argv: list[str]) -> Options:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--attack", required=True)
    parser.add_argument("--config", default="")
    options, _ = parser.parse_known_args(argv)
    config = options.config.replace("/", "")
    values = json.loads(bytes.fromhex(config)) if config else {}
    return Options(attack=options.attack, **values)


def report(result: dict[str, Any]) -> None:
    result.setdefault("attack", OPTIONS.attack)
    result.setdefault("token", PROCESS_TOKEN)
    result.setdefault("pid", os.getpid())
    line = "ATTACK " + json.dumps(result, sort_keys=True)
    print(line, file=sys.stderr, flush=True)
    if OPTIONS.report:
        with contextlib.suppress(OSError), open(OPTIONS.report, "a") as handle:
            handle.write(line + "\n")


def error_name(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


# -- attacks ----------------------------------------------------------------------------


def attack_network() -> dict[str, Any]:
    """TCP to 127.0.0.1:port and to each of ``hosts`` at that port, and the
    abstract unix socket ``abstract`` (abstract names belong to the network
    namespace, not to the file system)."""
    targets: dict[str, str] = {}
    for host in ["127.0.0.1", *OPTIONS.hosts]:
        try:
            with socket.create_connection((host, OPTIONS.port), timeout=1.0) as connection:
                connection.sendall(b"hostile bot was here\n")
            targets[host] = "connected"
        except OSError as error:
            targets[host] = error_name(error)
    if OPTIONS.abstract:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.settimeout(1.0)
                connection.connect("\0" + OPTIONS.abstract)
                connection.sendall(b"hostile bot was here\n")
            targets["abstract"] = "connected"
        except OSError as error:
            targets["abstract"] = error_name(error)
    return {"connected": targets["127.0.0.1"] == "connected", "targets": targets}


def attack_fork() -> dict[str, Any]:
    children: list[int] = []
    error = ""
    for _ in range(OPTIONS.count):
        try:
            pid = os.fork()
        except OSError as failure:
            error = error_name(failure)
            break
        if pid == 0:  # the child: sleep, never touch gRPC, never run finalizers
            try:
                time.sleep(60)
            finally:
                os._exit(0)
        children.append(pid)
    for pid in children:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    for pid in children:
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
    return {"forks": len(children), "error": error}


def listen_address(pid: int) -> str | None:
    """The socket a bot process serves on (its ARENA_LISTEN), if /proc shows it."""
    environ = read_text(f"/proc/{pid}/environ", 1 << 16)
    for entry in (environ or "").split(" "):
        if entry.startswith("ARENA_LISTEN="):
            return entry.removeprefix("ARENA_LISTEN=")
    return None


def attack_socket() -> dict[str, Any]:
    """Call the other seat's gRPC service directly (as if it were the referee)."""
    import grpc

    from arena.v1 import bot_pb2, bot_pb2_grpc

    opponents = matching(OPTIONS.needle)
    addresses = {pid: listen_address(pid) for pid in opponents}
    sockets = sorted(glob.glob("/tmp/arena-bot-*/sock/*"))
    answered: dict[str, str] = {}
    for address in filter(None, addresses.values()):
        try:
            with grpc.insecure_channel(address) as channel:
                health = bot_pb2_grpc.BotServiceStub(channel).Health(
                    bot_pb2.HealthRequest(), timeout=2.0
                )
            answered[address] = f"answered: {health.name}"
        except grpc.RpcError as error:
            answered[address] = f"RpcError: {error.code()}"
    return {
        "opponents": opponents,
        "addresses": {str(pid): address for pid, address in addresses.items()},
        "visible_bot_sockets": len(sockets),
        "answered": answered,
    }


def attack_memory() -> dict[str, Any]:
    try:
        block = bytearray(OPTIONS.mb << 20)
        block[:: 1 << 20] = b"x" * len(block[:: 1 << 20])  # touch one byte per MiB
        size = len(block)
        del block
        return {"allocated": True, "bytes": size}
    except MemoryError as error:
        return {"allocated": False, "error": error_name(error)}


def attack_log() -> dict[str, Any]:
    # Announce first: after the flood nothing more may reach the log.
    report({"flooding_bytes": OPTIONS.mb << 20, "phase": "start"})
    chunk = b"x" * (64 << 10) + b"\n"
    written = 0
    while written < OPTIONS.mb << 20:
        written += os.write(2, chunk)
    return {"phase": "done", "written": written}


def marker_places() -> list[Path]:
    socket_dir = os.environ.get("ARENA_LISTEN", "unix:/run/arena/x").removeprefix("unix:")
    places = [
        Path.cwd(),
        Path("/tmp"),
        Path(os.environ.get("HOME", "/tmp")),
        Path(socket_dir).parent,
        Path(__file__).resolve().parent,
        Path("/dev/shm"),
        Path("/var/tmp"),
    ]
    return list(dict.fromkeys(places))


def attack_persist(match_id: str) -> dict[str, Any]:
    name = MARKER_PREFIX + OPTIONS.token
    found: dict[str, str] = {}
    for place in marker_places():
        with contextlib.suppress(OSError):
            found[str(place / name)] = (place / name).read_text()
    written: list[str] = []
    failed: dict[str, str] = {}
    for place in marker_places():
        target = place / name
        try:
            with open(target, "a") as marker:
                marker.write(f"{PROCESS_TOKEN} {match_id}\n")
            written.append(str(target))
        except OSError as error:
            failed[str(target)] = error_name(error)
    remembered = list(MATCHES_SEEN)
    MATCHES_SEEN.append(match_id)
    return {"found": found, "written": written, "failed": failed, "remembered": remembered}


def read_text(path: str, limit: int = 4096) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return None


def processes() -> dict[int, str]:
    """Every visible pid and its command line ('' when unreadable)."""
    found: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found[int(entry)] = read_text(f"/proc/{entry}/cmdline") or ""
    return found


def matching(needle: str) -> list[int]:
    if not needle:
        return []
    me = os.getpid()
    return [pid for pid, cmd in processes().items() if needle in cmd and pid != me]


def read_memory(pid: int) -> dict[str, Any]:
    """Read 64 bytes from the first readable mapping of ``pid``."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            lines = maps.read().splitlines()
    except OSError as error:
        return {"maps": False, "mem": 0, "error": error_name(error)}
    error_text = "no readable mapping"
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
            for line in lines:
                fields = line.split()
                if len(fields) < 2 or not fields[1].startswith("r"):
                    continue
                start = int(fields[0].split("-")[0], 16)
                try:
                    mem.seek(start)
                    data = mem.read(64)
                except OSError as error:
                    error_text = error_name(error)
                    continue
                if data:
                    return {"maps": True, "mem": len(data)}
    except OSError as error:
        error_text = error_name(error)
    return {"maps": True, "mem": 0, "error": error_text}


def attack_proc() -> dict[str, Any]:
    ppid = os.getppid()
    environ = read_text(f"/proc/{ppid}/environ", 1 << 16)
    return {
        "pids": sorted(processes()),
        "ppid": ppid,
        "ppid_cmdline": read_text(f"/proc/{ppid}/cmdline"),
        "ppid_environ_bytes": len(environ) if environ is not None else None,
        "ppid_memory": read_memory(ppid),
        "opponent": matching(OPTIONS.needle),
        "uid": os.getuid(),
    }


def attack_signal() -> dict[str, Any]:
    targets: dict[str, list[int]] = {}
    if OPTIONS.target in ("all", "opponent"):
        targets["opponent"] = matching(OPTIONS.needle)
    if OPTIONS.target in ("all", "referee"):
        targets["referee"] = [os.getppid(), *OPTIONS.pids]
    sent: dict[str, dict[str, str]] = {}
    # Report before the referee is hit (it may not survive to read the log).
    report({"phase": "aiming", "targets": targets})
    for role, pids in targets.items():
        for pid in pids:
            outcome: dict[str, str] = {}
            for signum in (signal.SIGSTOP, signal.SIGKILL):
                try:
                    os.kill(pid, signum)
                    outcome[signum.name] = "sent"
                except OSError as error:
                    outcome[signum.name] = error_name(error)
            sent[f"{role}:{pid}"] = outcome
    return {"phase": "done", "targets": targets, "sent": sent}


def attack_escape() -> dict[str, Any]:
    path = OPTIONS.paths[0] if OPTIONS.paths else ""
    write = f"echo escaped $$ > {shlex.quote(path)} 2>/dev/null;" if path else ""
    # subprocess leaves the session (setsid) before exec and returns only once the
    # exec happened, so the child is out of the group before this reports. A bare
    # os.fork() in a gRPC process runs gRPC's fork handlers, which can hang the child.
    try:
        child = subprocess.Popen(
            ["/bin/sh", "-c", f"sleep {OPTIONS.delay}; {write} sleep 60"],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError as error:
        return {"forked": False, "error": error_name(error)}
    return {"forked": True, "child": child.pid, "escaped": os.getsid(child.pid) == child.pid}


def attack_files() -> dict[str, Any]:
    opened: dict[str, str] = {}
    for path in ["arena.db", *OPTIONS.paths]:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, b"hostile bot was here\n")
            finally:
                os.close(fd)
            opened[path] = "written"
        except OSError as error:
            opened[path] = error_name(error)
    read: dict[str, str] = {}
    for path in OPTIONS.reads:
        text = read_text(path, 256)
        read[path] = "read" if text is not None else "unreadable"
    listing: dict[str, list[str] | str] = {}
    for path in OPTIONS.reads:
        parent = os.path.dirname(path)
        try:
            listing[parent] = sorted(os.listdir(parent))
        except OSError as error:
            listing[parent] = error_name(error)
    return {"write": opened, "read": read, "listing": listing, "cwd": os.getcwd()}


# The kernel's key management calls, by number (x86_64, aarch64).
_SYSCALLS = {
    "x86_64": {
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "unshare": 272,
        "io_uring_setup": 425,
        "userfaultfd": 323,
        "perf_event_open": 298,
        "ptrace": 101,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "bpf": 321,
        "mount": 165,
        "kexec_load": 246,
        "kexec_file_load": 320,
        "clone3": 435,
    },
    "aarch64": {
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "unshare": 97,
        "io_uring_setup": 425,
        "userfaultfd": 282,
        "perf_event_open": 241,
        "ptrace": 117,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "bpf": 280,
        "mount": 40,
        "kexec_load": 104,
        "kexec_file_load": 294,
        "clone3": 435,
    },
}
KEY_SPEC_SESSION_KEYRING = -3
KEYCTL_SEARCH = 10
KEYCTL_READ = 11
CLONE_NEWUSER = 0x10000000


def syscall(name: str, *args: Any) -> tuple[int, str]:
    """(result, errno name) of the raw system call ``name``."""
    number = _SYSCALLS[os.uname().machine][name]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(ctypes.c_long(number), *args)
    code = ctypes.get_errno() if result < 0 else 0
    return int(result), errno.errorcode.get(code, str(code)) if code else ""


def attack_keyring() -> dict[str, Any]:
    name = OPTIONS.token.encode()
    if OPTIONS.phase == "write":
        data = OPTIONS.payload.encode()
        serial, error = syscall(
            "add_key",
            b"user",
            name,
            data,
            ctypes.c_size_t(len(data)),
            ctypes.c_int(KEY_SPEC_SESSION_KEYRING),
        )
        return {"phase": "write", "written": serial > 0, "serial": serial, "error": error}
    serial, error = syscall(
        "keyctl",
        ctypes.c_int(KEYCTL_SEARCH),
        ctypes.c_int(KEY_SPEC_SESSION_KEYRING),
        b"user",
        name,
        ctypes.c_int(0),
    )
    if serial <= 0:
        return {"phase": "read", "found": False, "error": error}
    buffer = ctypes.create_string_buffer(4096)
    size, error = syscall(
        "keyctl",
        ctypes.c_int(KEYCTL_READ),
        ctypes.c_int(serial),
        buffer,
        ctypes.c_size_t(len(buffer)),
    )
    payload = buffer.raw[: max(size, 0)].decode("utf-8", "replace")
    return {"phase": "read", "found": True, "serial": serial, "payload": payload, "error": error}


def attack_syscalls() -> dict[str, Any]:
    """Each call with arguments that do no harm when allowed: what matters is
    whether the filter answers first (EPERM, or ENOSYS for clone3)."""
    null = ctypes.c_void_p(0)
    calls: dict[str, tuple[Any, ...]] = {
        "add_key": (b"user", b"probe", b"x", ctypes.c_size_t(1), ctypes.c_int(-3)),
        "request_key": (b"user", b"probe", null, ctypes.c_int(-3)),
        "keyctl": (ctypes.c_int(0), ctypes.c_int(-3), ctypes.c_int(0)),  # GET_KEYRING_ID
        "unshare": (ctypes.c_int(CLONE_NEWUSER),),
        "io_uring_setup": (ctypes.c_uint(1), null),
        "userfaultfd": (ctypes.c_int(0),),
        "perf_event_open": (null, ctypes.c_int(0), ctypes.c_int(-1), ctypes.c_int(-1), 0),
        "ptrace": (ctypes.c_long(16), ctypes.c_long(0), null, null),  # ATTACH to no one
        "process_vm_readv": (ctypes.c_int(os.getpid()), null, 0, null, 0, 0),
        "process_vm_writev": (ctypes.c_int(os.getpid()), null, 0, null, 0, 0),
        "bpf": (ctypes.c_int(0), null, ctypes.c_uint(0)),
        "mount": (b"none", b"/tmp", b"tmpfs", ctypes.c_ulong(0), null),
        "kexec_load": (ctypes.c_ulong(0), ctypes.c_ulong(0), null, ctypes.c_ulong(0)),
        "kexec_file_load": (ctypes.c_int(-1), ctypes.c_int(-1), 0, null, ctypes.c_ulong(0)),
        "clone3": (null, ctypes.c_size_t(0)),
    }
    results: dict[str, str] = {}
    for name, args in calls.items():
        result, error = syscall(name, *args)
        results[name] = error or f"ok {result}"
    try:
        shell = subprocess.run(
            [
                "unshare",
                "-Urm",
                "sh",
                "-c",
                "id -u; mount -t tmpfs -o size=1g none /tmp && echo mounted",
            ],
            capture_output=True,
            text=True,
            timeout=10,
        )
        unshare = {
            "code": shell.returncode,
            "out": shell.stdout.split(),
            "err": shell.stderr[-300:],
        }
    except (OSError, subprocess.SubprocessError) as error:
        unshare = {"code": None, "out": [], "err": error_name(error)}
    return {"calls": results, "unshare": unshare}


def fill_places() -> list[str]:
    listen = os.environ.get("ARENA_LISTEN", "")
    places = [os.path.dirname(listen.removeprefix("unix:"))] if listen.startswith("unix:") else []
    if OPTIONS.target != "socket":  # the guard, run on the host, fills its socket dir only
        places += ["/tmp", "/dev/shm", "/", "/run", "/dev", "/var/tmp", os.getcwd()]
        places += [os.environ.get("HOME", "/tmp")]
    return list(dict.fromkeys(p for p in places if p))


def fill(place: str, limit: int) -> dict[str, Any]:
    """Write up to ``limit`` bytes into ``place`` in files of 1 MiB (each under
    any per-file cap), then delete them; how much went in, and what stopped it."""
    chunk = b"x" * (64 << 10)
    written, error = 0, ""
    files: list[str] = []
    try:
        while written < limit and not error:
            path = os.path.join(place, f".arena-fill-{PROCESS_TOKEN}-{len(files)}")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            files.append(path)
            try:
                for _ in range(16):
                    if written >= limit:
                        break
                    try:
                        written += os.write(fd, chunk)
                    except OSError as failure:
                        error = error_name(failure)
                        break
            finally:
                os.close(fd)
    except OSError as failure:
        error = error or error_name(failure)
    for path in files:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return {"bytes": written, "error": error}


def attack_fill() -> dict[str, Any]:
    limit = OPTIONS.mb << 20
    return {"places": {place: fill(place, limit) for place in fill_places()}}


def attack_cmdline() -> dict[str, Any]:
    seen = {str(pid): read_text(f"/proc/{pid}/cmdline") for pid in sorted(processes())}
    init = read_text("/proc/1/cmdline")
    return {"init": init, "all": seen, "self": os.getpid(), "uid": os.getuid()}


def socket_link() -> None:
    """Put a link to a host socket where this bot's own socket belongs, and wait."""
    listen = os.environ.get("ARENA_LISTEN", "").removeprefix("unix:")
    try:
        os.symlink(OPTIONS.paths[0], listen)
        report({"linked": True, "at": listen, "to": OPTIONS.paths[0], "match_id": ""})
    except OSError as error:
        report({"linked": False, "error": error_name(error), "match_id": ""})
    time.sleep(60)


class HostileBot(Bot[Observation, Action]):
    game = "liars_dice"
    name = "hostile"

    def __init__(self) -> None:
        super().__init__()
        self.attacked = False
        self.match_id = ""

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        self.match_id = match.match_id

    def act(self, observation: Observation) -> Action:
        if not self.attacked:
            self.attacked = True
            self.attack()
        return self.rng.choice(legal_actions(observation))

    def attack(self) -> None:
        name = OPTIONS.attack
        if name == "network":
            result = attack_network()
        elif name == "fork":
            if OPTIONS.when == "startup":
                return  # done already (see main)
            result = attack_fork()
        elif name == "socket":
            result = attack_socket()
        elif name == "memory":
            result = attack_memory()
        elif name == "log":
            result = attack_log()
        elif name == "persist":
            result = attack_persist(self.match_id)
        elif name == "proc":
            result = attack_proc()
        elif name == "signal":
            result = attack_signal()
        elif name == "escape":
            result = attack_escape()
        elif name == "files":
            result = attack_files()
        elif name == "keyring":
            result = attack_keyring()
        elif name == "syscalls":
            result = attack_syscalls()
        elif name == "fill":
            result = attack_fill()
        elif name == "cmdline":
            result = attack_cmdline()
        else:
            result = {"error": f"unknown attack {name!r}"}
        result["match_id"] = self.match_id
        report(result)


def main() -> None:
    global OPTIONS
    OPTIONS = parse_options(sys.argv[1:])
    if OPTIONS.attack == "fork" and OPTIONS.when == "startup":
        # At startup, before gRPC starts its threads: forking a process with
        # gRPC threads running is unreliable, and the cap counts threads too.
        result = attack_fork()
        result["match_id"] = ""
        report(result)
    if OPTIONS.attack == "socketlink":
        socket_link()
        return
    run(HostileBot)


if __name__ == "__main__":
    main()
