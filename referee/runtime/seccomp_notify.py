"""Which system calls the sandbox refused a bot, told to its author only.

Every sandboxed bot's command runs behind :mod:`referee.runtime.seccomp_loader`, which
stacks a second copy of the allow list whose default is ``SECCOMP_RET_USER_NOTIF`` and
sends its listener here over a socket pair made for that bot (:class:`RefusalWatch`).
A call no rule names then stops in the kernel until this module's one thread
(:class:`_Supervisor`, ``epoll`` over every bot's listener) answers it — always
``ENOSYS``, the answer the first filter gives by itself — after noting its name.

The first time a bot makes each such call, a line goes to the end of its log (the
file only the referee and, through ``arena match``, ``arena bot check`` and ``arena
league logs``, the bot's author read; never a record):

    [arena sandbox] refused system call 'mlock' (not on the allow list): ENOSYS

Nothing here is needed for safety, and nothing a bot does here can hold the referee:
a bot's watch stops answering after :data:`MAX_NOTICES` notifications (its listener
is closed and the kernel answers ``ENOSYS`` itself from then on), and a listener that
never arrives leaves only the first filter in force.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import logging
import os
import select
import socket
import struct
import threading
from pathlib import Path

MAX_NOTICES = 256
"""Notifications answered per bot; then its listener is closed (the kernel answers)."""

_NOTIF_SIZE = 80
"""sizeof(struct seccomp_notif): id, pid, flags, then seccomp_data (nr, arch, ip, args)."""
_IOC_RECV = 0xC0502100
"""SECCOMP_IOCTL_NOTIF_RECV = _IOWR('!', 0, struct seccomp_notif)."""
_IOC_SEND = 0xC0182101
"""SECCOMP_IOCTL_NOTIF_SEND = _IOWR('!', 1, struct seccomp_notif_resp)."""

PREFIX = "[arena sandbox]"
log = logging.getLogger(__name__)


@functools.cache
def syscall_name(number: int) -> str:
    """The name libseccomp gives a system call number of this host, else ``#N``."""
    try:
        import pyseccomp

        name = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, number)
    except (ImportError, OSError, ValueError, RuntimeError):
        return f"#{number}"
    return name.decode() if isinstance(name, bytes) else str(name)


JOURNAL_VARIABLE = "ARENA_REFUSAL_JOURNAL"
"""If set in the referee's environment, a file where every refused-call note is also
appended (the test suite's check that no honest bot meets a refused call)."""


def _append_line(path: Path, line: str, *, create: bool = False) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | (os.O_CREAT if create else 0)
    with contextlib.suppress(OSError):
        fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)


class RefusalWatch:
    """One bot's refused calls: counted here, announced once each in its log."""

    def __init__(self) -> None:
        self._ours, self._theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._ours.setblocking(False)
        self.counts: dict[str, int] = {}
        self.answered = 0
        self._log: Path | None = None
        self._pending: list[str] = []
        self._lock = threading.Lock()
        self.listener: int | None = None
        self.closed = False

    def take_child_end(self) -> int:
        """The end the sandbox inherits, as a descriptor the caller now owns (it closes
        it once the bot is forked)."""
        fd = os.dup(self._theirs.fileno())
        self._theirs.close()
        return fd

    def log_to(self, path: Path) -> None:
        """Announce refusals at the end of ``path`` (the bot's log), those so far too."""
        with self._lock:
            self._log = path
            pending, self._pending = self._pending, []
        for line in pending:
            self._append(line)

    def note(self, number: int) -> None:
        name = syscall_name(number)
        first = name not in self.counts
        self.counts[name] = self.counts.get(name, 0) + 1
        if first:
            line = f"{PREFIX} refused system call {name!r} (not on the allow list): ENOSYS\n"
            with self._lock:
                if self._log is None:
                    self._pending.append(line)
                    return
            self._append(line)

    def _append(self, line: str) -> None:
        assert self._log is not None
        _append_line(self._log, line)
        journal = os.environ.get(JOURNAL_VARIABLE)
        if journal:
            _append_line(Path(journal), f"{os.getpid()}\t{line[len(PREFIX) + 1 :]}", create=True)

    def summary(self) -> str:
        """``mlock ×2, keyctl ×1`` — or empty."""
        return ", ".join(f"{name} ×{count}" for name, count in sorted(self.counts.items()))

    def close(self) -> None:
        """Stop watching (the bot is stopped): closes the listener and both socket ends."""
        _supervisor().forget(self)
        self.closed = True
        self._theirs.close()
        self._ours.close()


class _Supervisor:
    """One thread: receives each bot's listener, answers its notifications."""

    def __init__(self) -> None:
        self._epoll = select.epoll()
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._epoll.register(self._wake_r, select.EPOLLIN)
        self._by_fd: dict[int, tuple[str, RefusalWatch]] = {}
        self._lock = threading.Lock()
        self._gone: list[int] = []
        thread = threading.Thread(target=self._run, name="arena-seccomp-notify", daemon=True)
        thread.start()

    def watch(self, watch: RefusalWatch) -> None:
        with self._lock:
            fd = watch._ours.fileno()
            self._by_fd[fd] = ("socket", watch)
            self._epoll.register(fd, select.EPOLLIN)

    def forget(self, watch: RefusalWatch) -> None:
        with self._lock:
            for fd, (_, owner) in list(self._by_fd.items()):
                if owner is watch:
                    self._drop(fd)
            if watch.listener is not None:
                with contextlib.suppress(OSError):
                    os.close(watch.listener)
                watch.listener = None
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _drop(self, fd: int) -> None:
        self._by_fd.pop(fd, None)
        with contextlib.suppress(OSError, ValueError):
            self._epoll.unregister(fd)

    def _run(self) -> None:
        while True:
            try:
                events = self._epoll.poll()
            except InterruptedError:
                continue
            for fd, mask in events:
                if fd == self._wake_r:
                    with contextlib.suppress(OSError):
                        os.read(self._wake_r, 4096)
                    continue
                with self._lock:
                    entry = self._by_fd.get(fd)
                    if entry is None:
                        continue
                    kind, watch = entry
                    try:
                        if kind == "socket":
                            self._receive_listener(fd, watch)
                        else:
                            self._answer(fd, mask, watch)
                    except Exception:  # never leave a bot's call waiting on a broken thread
                        log.exception("refusal reporter: giving up on one bot's listener")
                        self._drop(fd)
                        if kind == "listener":
                            watch.listener = None
                            with contextlib.suppress(OSError):
                                os.close(fd)  # the kernel answers ENOSYS by itself from now on
                        else:
                            watch._ours.close()  # the socket object owns its descriptor

    def _receive_listener(self, fd: int, watch: RefusalWatch) -> None:
        try:
            _, fds, _, _ = socket.recv_fds(watch._ours, 16, 4)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            fds = []
        self._drop(fd)  # one listener per bot; the socket has done its job
        watch._ours.close()
        extra = fds[1:]
        for spare in extra:
            with contextlib.suppress(OSError):
                os.close(spare)
        if not fds or watch.closed:
            for listener in fds[:1]:
                with contextlib.suppress(OSError):
                    os.close(listener)
            return
        watch.listener = fds[0]
        self._by_fd[fds[0]] = ("listener", watch)
        self._epoll.register(fds[0], select.EPOLLIN)

    def _answer(self, fd: int, mask: int, watch: RefusalWatch) -> None:
        if mask & (select.EPOLLHUP | select.EPOLLERR) and not mask & select.EPOLLIN:
            self._close_listener(fd, watch)
            return
        buffer = bytearray(_NOTIF_SIZE)
        try:
            fcntl.ioctl(fd, _IOC_RECV, buffer)
        except OSError as error:
            if error.errno in (errno.EINTR, errno.EAGAIN, errno.ENOENT):
                return
            self._close_listener(fd, watch)
            return
        notice_id, _pid, _flags, number = struct.unpack_from("=QIIi", buffer)
        response = bytearray(struct.pack("=QqiI", notice_id, 0, -errno.ENOSYS, 0))
        with contextlib.suppress(OSError):
            fcntl.ioctl(fd, _IOC_SEND, response)
        watch.answered += 1
        watch.note(number)
        if watch.answered >= MAX_NOTICES:
            self._close_listener(fd, watch)

    def _close_listener(self, fd: int, watch: RefusalWatch) -> None:
        self._drop(fd)
        with contextlib.suppress(OSError):
            os.close(fd)
        watch.listener = None


_instance: tuple[int, _Supervisor] | None = None
_instance_lock = threading.Lock()


def _supervisor() -> _Supervisor:
    """This process's supervisor (a forked child makes its own)."""
    global _instance
    with _instance_lock:
        if _instance is None or _instance[0] != os.getpid():
            _instance = (os.getpid(), _Supervisor())
        return _instance[1]


def new_watch() -> RefusalWatch:
    """A watch for one bot about to be started, already waiting for its listener."""
    watch = RefusalWatch()
    _supervisor().watch(watch)
    return watch
