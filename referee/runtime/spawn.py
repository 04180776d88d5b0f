"""Starting bot processes from one thread that lives as long as the referee.

Every sandboxed bot is armed with ``PR_SET_PDEATHSIG`` (``setpriv --pdeathsig``,
bubblewrap's ``--die-with-parent``) so that it dies with the referee. The kernel
ties that signal to the *thread* that forked the child, not to the process: a
bot forked from a short-lived thread is killed as soon as that thread exits.
trio's ``open_process`` forks from a worker thread, and trio retires worker
threads that have been idle for 10 s, so a seat that took more than about 10 s
to start got itself (or whichever bot that thread had forked) SIGKILLed.

Here every fork happens on one dedicated thread (a single-worker executor, whose
thread waits for work forever and ends only with the interpreter), so the death
signal fires exactly when the referee process dies. The same thread gives each
child a fresh, empty session keyring (``KEYCTL_JOIN_SESSION_KEYRING``) just
before it forks: a bot never inherits the referee's session keyring, nor shares
one with another bot. Session keyrings are per thread, so this changes nothing
for the referee's other threads.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import subprocess
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any

import trio

SPAWNER_THREAD_NAME = "arena-spawner"

_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219, "armv7l": 311, "riscv64": 219, "ppc64le": 311}
_KEYCTL_JOIN_SESSION_KEYRING = 1

_lock = threading.Lock()
_executor: tuple[int, ThreadPoolExecutor] | None = None
"""(pid, executor): rebuilt in a forked child, whose copy has no thread behind it."""


def _spawner() -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None or _executor[0] != os.getpid():
            _executor = (
                os.getpid(),
                ThreadPoolExecutor(max_workers=1, thread_name_prefix=SPAWNER_THREAD_NAME),
            )
        return _executor[1]


def new_session_keyring() -> bool:
    """Give the calling thread a new, empty, anonymous session keyring.

    False where the kernel has no keyrings (or the architecture's system call
    number is unknown here): then the seccomp filter alone keeps bots off them.
    """
    number = _SYS_KEYCTL.get(os.uname().machine)
    if number is None:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    result = libc.syscall(number, _KEYCTL_JOIN_SESSION_KEYRING, None)
    return bool(result >= 0)


def _fork(
    argv: Sequence[str], fresh_keyring: bool, options: dict[str, Any]
) -> subprocess.Popen[bytes]:
    if fresh_keyring:
        new_session_keyring()
    return subprocess.Popen(argv, **options)


class Child:
    """A process started by :func:`spawn`: poll it, signal it, wait for it."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid = popen.pid

    def poll(self) -> int | None:
        return self.popen.poll()

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.popen.kill()

    async def wait(self) -> int:
        """Wait until the process has exited (and reap it); its return code."""
        code = self.popen.poll()
        if code is not None:
            return code
        try:
            pidfd = os.pidfd_open(self.pid)
        except OSError:
            pidfd = -1
        try:
            while (code := self.popen.poll()) is None:
                if pidfd >= 0:
                    await trio.lowlevel.wait_readable(pidfd)
                else:
                    await trio.sleep(0.01)
        finally:
            if pidfd >= 0:
                os.close(pidfd)
        return code


async def _on_spawner(call: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    future: Future[subprocess.Popen[bytes]] = _spawner().submit(call)
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    future.add_done_callback(lambda _: token.run_sync_soon(done.set))
    # A fork under way is never abandoned: its process would be nobody's.
    with trio.CancelScope(shield=True):
        await done.wait()
    return future.result()


async def spawn(argv: Sequence[str], *, fresh_keyring: bool = True, **options: Any) -> Child:
    """``subprocess.Popen(argv, **options)`` on the spawner thread.

    With ``fresh_keyring`` the child starts with a session keyring of its own.
    OSError from Popen (no such program, ...) is raised here as it is.
    """
    popen = await _on_spawner(partial(_fork, list(argv), fresh_keyring, options))
    return Child(popen)
