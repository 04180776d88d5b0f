"""Run inside the sandbox just before the bot's command: stack the refusal reporter.

``python -I -S seccomp_loader.py PROGRAM_FD SOCKET_FD -- COMMAND...``

Reads a BPF program from ``PROGRAM_FD`` (the sandbox's allow list compiled with
``SECCOMP_RET_USER_NOTIF`` as its default, :mod:`referee.runtime.seccomp`), loads it
with ``SECCOMP_FILTER_FLAG_NEW_LISTENER``, sends the listener to the referee over the
unix socket ``SOCKET_FD``, closes both and execs ``COMMAND`` (found on ``PATH``).

The filter bubblewrap loaded is already in force and refuses everything this one
does, so nothing depends on this program for safety: if the kernel refuses the second
filter (or anything else fails), the bot still starts, under the same rules, and only
the report of refused calls is lost. Standard library only, run without ``site``:
it is part of every bot's start-up.
"""

import contextlib
import ctypes
import os
import socket
import sys

SYS_SECCOMP = {"x86_64": 317, "aarch64": 277, "riscv64": 277, "ppc64le": 358, "s390x": 348}
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
PR_SET_NO_NEW_PRIVS = 38


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _load(program: bytes) -> int:
    """Load ``program`` with a listener; its descriptor (OSError if refused)."""
    number = SYS_SECCOMP.get(os.uname().machine)
    if number is None or not program or len(program) % 8:
        raise OSError(0, "no seccomp here")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _Program(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    listener = libc.syscall(
        number,
        ctypes.c_ulong(SECCOMP_SET_MODE_FILTER),
        ctypes.c_ulong(SECCOMP_FILTER_FLAG_NEW_LISTENER),
        ctypes.byref(fprog),
    )
    if listener < 0:
        raise OSError(ctypes.get_errno(), "seccomp")
    return int(listener)


def main(argv: list[str]) -> int:
    if len(argv) < 5 or argv[3] != "--":
        sys.stderr.write("usage: seccomp_loader.py PROGRAM_FD SOCKET_FD -- COMMAND...\n")
        return 125
    program_fd, socket_fd = int(argv[1]), int(argv[2])
    command = argv[4:]
    try:
        listener = _load(_read_all(program_fd))
        try:
            with socket.socket(fileno=socket_fd) as channel:
                socket_fd = -1
                socket.send_fds(channel, [b"L"], [listener])
        finally:
            os.close(listener)
    except OSError:
        pass  # the report is lost, nothing else: the sandbox's own filter is in force
    finally:
        for fd in (program_fd, socket_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.stderr.write(f"cannot run {command[0]!r}: {error.strerror}\n")
        return 127
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv))
