"""The sandbox's system-call filter: the allow list of
:mod:`referee.runtime.syscall_rules`, compiled by libseccomp for bubblewrap.

bubblewrap loads the program (``--seccomp FD``) just before it runs the sandbox's first
program, so it covers everything the bot runs. Calls the table allows pass; calls it
refuses with an errno get that errno; every other call — the default — answers
``ENOSYS``. The default is written as ``SECCOMP_RET_TRACE``, which the kernel answers
with ``ENOSYS`` when no tracer asks to see it (none can: ``ptrace`` is refused inside,
and the referee traces nothing). That leaves room for a second, identical filter with
``SECCOMP_RET_USER_NOTIF`` as its default, stacked by
:mod:`referee.runtime.seccomp_notify` just before the bot's command: the kernel applies
the stricter answer of the two, and a notification outranks a trace, so every call
that would have been refused by default is shown to the referee first, which answers
``ENOSYS`` too and tells the bot's author (only) which call it was.

The program is compiled by libseccomp (Debian package ``libseccomp2``) through its
Python binding ``pyseccomp``, never by hand. System calls of another ABI than the
host's (32-bit calls on a 64-bit host, x32 on x86-64) kill the process: libseccomp's
default for a foreign architecture.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from typing import Any, Literal

from referee.runtime.syscall_rules import (
    LOW32,
    SYSCALL_NUMBERS_X86_64,
    UNLISTED_ERRNO,
    Arg,
    denied_names,
    rules,
)

__all__ = ["SeccompUnavailable", "denied_names", "filter_program", "program_fd"]

Default = Literal["trace", "notify", "errno"]
"""How a call no rule names is refused: ``trace`` (``ENOSYS`` when nobody traces: the
program bubblewrap loads), ``notify`` (the reporter's layer) or ``errno`` (a plain
``ENOSYS``, for tests that load one layer alone)."""


class SeccompUnavailable(Exception):
    """libseccomp or its Python binding is missing (the message says what to install)."""


def _binding() -> Any:
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError, RuntimeError) as error:
        raise SeccompUnavailable(
            f"the bot sandbox's seccomp filter needs libseccomp ({error}): install it"
            " (apt-get install libseccomp2; pip install pyseccomp), or run without a"
            " sandbox with --no-sandbox (only for bots you trust)"
        ) from None
    return seccomp


@functools.cache
def filter_program(close_channels: bool = True, default: Default = "trace") -> bytes:
    """The compiled BPF program (``struct sock_filter`` array) for this host.

    ``close_channels=False`` allows the channel rules' calls (guard tests only)."""
    seccomp = _binding()
    fallback = {
        "trace": seccomp.TRACE(0),
        "notify": seccomp.NOTIFY,
        "errno": seccomp.ERRNO(UNLISTED_ERRNO),
    }[default]
    program = seccomp.SyscallFilter(fallback)
    native_x86_64 = seccomp.system_arch() == seccomp.Arch.X86_64
    for rule in rules(close_channels=close_channels):
        action = seccomp.ALLOW if rule.allows else seccomp.ERRNO(rule.errno)
        checks = [_comparison(seccomp, check) for check in rule.when]
        for name in rule.names:
            call = _call(seccomp, name, native_x86_64)
            if call is not None:
                program.add_rule(action, call, *checks)
    with contextlib.suppress(OSError, ValueError, RuntimeError, AttributeError):
        # A binary tree of the calls, not a list: the filter runs on every call.
        program.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    with tempfile.TemporaryFile() as out:
        program.export_bpf(out)
        out.seek(0)
        return out.read()


def _call(seccomp: Any, name: str, native_x86_64: bool) -> int | str | None:
    """The name libseccomp knows, else the x86-64 number, else None (not a call here)."""
    try:
        seccomp.resolve_syscall(seccomp.Arch.NATIVE, name)
    except (OSError, ValueError, RuntimeError):
        number = SYSCALL_NUMBERS_X86_64.get(name)
        return number if number is not None and native_x86_64 else None
    return name


def _comparison(seccomp: Any, check: Arg) -> Any:
    """A masked compare at the argument's width: for a 32-bit argument the mask's high
    half is zero, so whatever a caller puts in bits 32-63 (which the kernel ignores)
    cannot change the answer."""
    mask = check.mask & LOW32 if check.width == 32 else check.mask
    return seccomp.Arg(check.index, seccomp.MASKED_EQ, mask, check.value)


def program_fd(close_channels: bool = True, default: Default = "trace") -> int:
    """A fresh memory file holding :func:`filter_program`, at offset 0 (bubblewrap
    reads it to the end). The caller closes it once the child has started."""
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    data = filter_program(close_channels, default)
    written = 0
    while written < len(data):
        written += os.write(fd, data[written:])
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
