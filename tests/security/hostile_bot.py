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
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import secrets
import select
import shlex
import signal
import socket
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
    # The child says when it has left the session: reporting before that would let
    # the match end (and the referee stop this bot's process group) while the child
    # is still in the group, on a loaded machine.
    ready_r, ready_w = os.pipe()
    try:
        pid = os.fork()
    except OSError as error:
        return {"forked": False, "error": error_name(error)}
    if pid == 0:
        try:
            try:
                os.setsid()
                os.write(ready_w, b"x")
            except BaseException as error:
                os.write(ready_w, repr(error).encode()[:200])
            # A fresh program at once: a forked gRPC process is not safe to keep running.
            write = f"echo escaped $$ > {shlex.quote(path)} 2>/dev/null;" if path else ""
            os.execv("/bin/sh", ["sh", "-c", f"sleep {OPTIONS.delay}; {write} sleep 60"])
        finally:
            os._exit(0)
    os.close(ready_w)
    ready, _, _ = select.select([ready_r], [], [], 10.0)
    said = os.read(ready_r, 200) if ready else b""
    escaped = said == b"x"
    os.close(ready_r)
    return {
        "forked": True,
        "child": pid,
        "escaped": escaped,
        "said": said.decode("utf-8", "replace"),
    }


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
    run(HostileBot)


if __name__ == "__main__":
    main()
