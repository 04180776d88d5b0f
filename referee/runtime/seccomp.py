"""The system calls a sandboxed bot may not make: a seccomp filter for bubblewrap.

bubblewrap loads the filter (``--seccomp FD``) just before it runs the bot's
command, so it covers everything the bot runs. It is a deny list: the calls
below fail with ``EPERM`` (``clone3`` with ``ENOSYS``, which makes the C library
fall back to ``clone``, whose flags a filter can see); everything else is allowed,
and the namespaces, rlimits, control group and user of :mod:`referee.runtime.sandbox`
bound what it can do. The program is compiled by libseccomp (Debian package
``libseccomp2``) through its Python binding ``pyseccomp``, never by hand.

System calls of another ABI than the host's (32-bit calls on a 64-bit host)
kill the process: libseccomp's default for a foreign architecture.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import tempfile
from dataclasses import dataclass
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWTIME = 0x00000080
NAMESPACE_FLAGS = (
    CLONE_NEWNS,
    CLONE_NEWCGROUP,
    CLONE_NEWUTS,
    CLONE_NEWIPC,
    CLONE_NEWUSER,
    CLONE_NEWPID,
    CLONE_NEWNET,
    CLONE_NEWTIME,
)


@dataclass(frozen=True, slots=True)
class Denied:
    names: tuple[str, ...]
    why: str


DENIED: tuple[Denied, ...] = (
    Denied(
        ("add_key", "keyctl", "request_key"),
        "the kernel keyring is shared across sandboxes and outlives the bot",
    ),
    Denied(
        ("unshare", "setns"),
        "no new namespaces (a user namespace would make the bot root in it, with mounts"
        " and a tmpfs of its own outside every cap), no entering others",
    ),
    Denied(
        ("io_uring_setup", "io_uring_enter", "io_uring_register"), "a large kernel attack surface"
    ),
    Denied(("userfaultfd",), "stalls the kernel at will; a classic exploit aid"),
    Denied(("perf_event_open",), "timing side channels and kernel attack surface"),
    Denied(("ptrace", "process_vm_readv", "process_vm_writev"), "no reading other processes"),
    Denied(("bpf",), "kernel programs"),
    Denied(
        (
            "mount",
            "umount2",
            "pivot_root",
            "chroot",
            "move_mount",
            "open_tree",
            "fsopen",
            "fsconfig",
            "fsmount",
            "fspick",
            "mount_setattr",
        ),
        "no file system changes",
    ),
    Denied(
        ("kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot"),
        "no kernel changes",
    ),
    Denied(
        (
            "swapon",
            "swapoff",
            "acct",
            "syslog",
            "quotactl",
            "name_to_handle_at",
            "open_by_handle_at",
            "lookup_dcookie",
            "vhangup",
        ),
        "host administration and file handles that bypass the mount namespace",
    ),
)
"""Denied outright (EPERM), with the reason."""


@dataclass(frozen=True, slots=True)
class ArgRule:
    """A system call refused only with certain arguments (and how it fails).

    ``when`` is a list of alternatives; each is ``(argument index, mask, value)``:
    the rule applies when ``argument & mask == value``. ``number`` is the x86-64
    call number, used when libseccomp is too old to know the name."""

    name: str
    result: int
    when: tuple[tuple[int, int, int], ...]
    why: str
    number: int | None = None


ANY = ((0, 0, 0),)
"""An alternative that always holds (the call is refused whatever its arguments)."""

F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_NOTIFY = 1024, 1026
FUTEX_PRIVATE_FLAG = 128
FUTEX_CMD_MASK = 0x7F
FUTEX_WAKE_CMDS = (1, 3, 4, 5, 7, 10, 12)
"""WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP, UNLOCK_PI, WAKE_BITSET, CMP_REQUEUE_PI."""
RWF_NOWAIT = 0x08
POSIX_FADV_DONTNEED = 4
MADV_COLD, MADV_PAGEOUT = 20, 21
SOCKET_FAMILIES = (1, 2, 10, 16)
"""AF_UNIX, AF_INET, AF_INET6 (only the sandbox's own loopback), AF_NETLINK."""
AF_MAX = 46
"""Families at and above this do not exist (the kernel refuses them anyway)."""

CHANNEL_RULES: tuple[ArgRule, ...] = (
    # Locks: host files are bound read-only into every sandbox, so all of them share
    # the same inodes, and a lock taken in one is seen from the other (F_OFD_GETLK
    # reports it whatever the namespaces). A bot's locks on its private /tmp would
    # be harmless, but a filter cannot tell one file from another.
    *(
        ArgRule("fcntl", errno.ENOLCK, ((1, ~0, cmd),), "file locks are seen across sandboxes")
        for cmd in (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW)
    ),
    ArgRule("flock", errno.ENOLCK, ANY, "file locks are seen across sandboxes"),
    ArgRule("fcntl", errno.EPERM, ((1, ~0, F_SETLEASE),), "leases signal other openers"),
    ArgRule("fcntl", errno.EPERM, ((1, ~0, F_NOTIFY),), "directory notification (dnotify)"),
    *(
        ArgRule(name, errno.EPERM, ANY, "file watches see other sandboxes' opens and reads")
        for name in (
            "inotify_init",
            "inotify_init1",
            "inotify_add_watch",
            "fanotify_init",
            "fanotify_mark",
        )
    ),
    # A futex that is not private is keyed by the file's inode and offset, and the
    # text of every shared library is a file all sandboxes map: one wakes, the other
    # is woken. Process-shared waits between a bot's own processes go with it.
    *(
        ArgRule(
            "futex",
            errno.EPERM,
            ((1, FUTEX_PRIVATE_FLAG | FUTEX_CMD_MASK, cmd),),
            "a shared futex is keyed by a file all sandboxes map",
        )
        for cmd in FUTEX_WAKE_CMDS
    ),
    ArgRule(
        "futex_wake",
        errno.EPERM,
        ((3, FUTEX_PRIVATE_FLAG, 0),),
        "a shared futex is keyed by a file all sandboxes map",
        number=454,
    ),
    ArgRule("futex_requeue", errno.ENOSYS, ANY, "its flags are in memory", number=456),
    # The page cache: whether a page of a shared file is cached tells whether
    # another sandbox read it. Asking directly is refused; evicting is a no-op.
    # (Timing a read still tells: see docs/security.md.)
    ArgRule(
        "preadv2", errno.EOPNOTSUPP, ((5, RWF_NOWAIT, RWF_NOWAIT),), "asks whether a page is cached"
    ),
    ArgRule(
        "pwritev2",
        errno.EOPNOTSUPP,
        ((5, RWF_NOWAIT, RWF_NOWAIT),),
        "asks whether a page is cached",
    ),
    ArgRule("cachestat", errno.EPERM, ANY, "counts another sandbox's cached pages", number=451),
    *(
        ArgRule(name, errno.ENOSYS, ANY, "asynchronous reads can ask whether a page is cached")
        for name in ("io_setup", "io_submit", "io_getevents", "io_pgetevents", "io_destroy")
    ),
    ArgRule(
        "fadvise64",
        0,
        ((3, ~0, POSIX_FADV_DONTNEED),),
        "evicting a shared file's pages signals another sandbox (a no-op instead)",
    ),
    *(
        ArgRule(
            "madvise",
            0,
            ((2, ~0, advice),),
            "evicting a shared file's pages signals another sandbox (a no-op instead)",
        )
        for advice in (MADV_COLD, MADV_PAGEOUT)
    ),
    ArgRule("process_madvise", errno.EPERM, ANY, "evicts pages"),
    # Host-wide numbers that another sandbox moves (threads, free memory, disk).
    ArgRule("sysinfo", errno.EPERM, ANY, "host-wide free memory and thread count"),
    ArgRule("statfs", errno.EPERM, ANY, "host-wide free blocks (bots' logs fill them)"),
    ArgRule("fstatfs", errno.EPERM, ANY, "host-wide free blocks (bots' logs fill them)"),
    ArgRule("ustat", errno.EPERM, ANY, "host-wide free blocks"),
    # Sockets: only the families a bot needs; the network namespace keeps even
    # those to the sandbox (abstract unix names are per network namespace).
    ArgRule(
        "socket",
        errno.EAFNOSUPPORT,
        tuple((0, ~0, family) for family in range(AF_MAX) if family not in SOCKET_FAMILIES),
        "families outside the network namespace's reach",
    ),
)
"""Refused with particular arguments: the channels between sandboxes that run at once
(tests/security/test_channels.py sends bits through each with the rules off)."""

CLONE_WITH_NAMESPACES = "clone"
"""``clone`` is allowed (threads, fork) unless its flags ask for a new namespace."""
CLONE3 = "clone3"
"""``clone3`` passes its flags in memory a filter cannot read: ENOSYS, so the C
library uses ``clone``."""


class SeccompUnavailable(Exception):
    """libseccomp or its Python binding is missing (the message says what to install)."""


def denied_names() -> list[str]:
    """Every system call name the filter refuses outright."""
    return [name for group in DENIED for name in group.names]


@functools.cache
def filter_program(close_channels: bool = True) -> bytes:
    """The compiled BPF program (``struct sock_filter`` array) for this host.

    ``close_channels=False`` leaves out :data:`CHANNEL_RULES` (guard tests only)."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError, RuntimeError) as error:
        raise SeccompUnavailable(
            f"the bot sandbox's seccomp filter needs libseccomp ({error}): install it"
            " (apt-get install libseccomp2; pip install pyseccomp), or run without a"
            " sandbox with --no-sandbox (only for bots you trust)"
        ) from None
    program = seccomp.SyscallFilter(seccomp.ALLOW)
    refuse = seccomp.ERRNO(errno.EPERM)
    for name in denied_names():
        try:
            program.add_rule(refuse, name)
        except (OSError, ValueError, RuntimeError):
            continue  # not a system call on this architecture
    for flag in NAMESPACE_FLAGS:
        for call in (CLONE_WITH_NAMESPACES,):
            program.add_rule(refuse, call, seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    program.add_rule(seccomp.ERRNO(errno.ENOSYS), CLONE3)
    if close_channels:
        _add_channel_rules(program, seccomp)
    with contextlib.suppress(OSError, ValueError, RuntimeError, AttributeError):
        # A binary tree of the calls, not a list: the filter runs on every call.
        program.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    with tempfile.TemporaryFile() as out:
        program.export_bpf(out)
        out.seek(0)
        return out.read()


def _add_channel_rules(program: Any, seccomp: Any) -> None:
    native_x86_64 = seccomp.system_arch() == seccomp.Arch.X86_64
    for rule in CHANNEL_RULES:
        call: int | str = rule.name
        try:
            seccomp.resolve_syscall(seccomp.Arch.NATIVE, rule.name)
        except (OSError, ValueError, RuntimeError):
            if rule.number is None or not native_x86_64:
                continue  # not a system call here
            call = rule.number
        action = seccomp.ERRNO(rule.result)
        for index, mask, value in rule.when:
            if (index, mask, value) == (0, 0, 0):
                program.add_rule(action, call)
            elif mask == ~0:
                program.add_rule(action, call, seccomp.Arg(index, seccomp.EQ, value))
            else:
                program.add_rule(action, call, seccomp.Arg(index, seccomp.MASKED_EQ, mask, value))


def program_fd(close_channels: bool = True) -> int:
    """A fresh memory file holding :func:`filter_program`, at offset 0 (bubblewrap
    reads it to the end). The caller closes it once the child has started."""
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    data = filter_program(close_channels)
    written = 0
    while written < len(data):
        written += os.write(fd, data[written:])
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
