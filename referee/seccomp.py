"""The system calls a sandboxed bot may not make: a seccomp filter for bubblewrap.

bubblewrap loads the filter (``--seccomp FD``) just before it runs the bot's
command, so it covers everything the bot runs. It is a deny list: the calls
below fail with ``EPERM`` (``clone3`` with ``ENOSYS``, which makes the C library
fall back to ``clone``, whose flags a filter can see); everything else is allowed,
and the namespaces, rlimits, control group and user of :mod:`referee.sandbox`
bound what it can do. The program is compiled by libseccomp (Debian package
``libseccomp2``) through its Python binding ``pyseccomp``, never by hand.

System calls of another ABI than the host's (32-bit calls on a 64-bit host)
kill the process: libseccomp's default for a foreign architecture.
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from dataclasses import dataclass

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
def filter_program() -> bytes:
    """The compiled BPF program (``struct sock_filter`` array) for this host."""
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
    with tempfile.TemporaryFile() as out:
        program.export_bpf(out)
        out.seek(0)
        return out.read()


def program_fd() -> int:
    """A fresh memory file holding :func:`filter_program`, at offset 0 (bubblewrap
    reads it to the end). The caller closes it once the child has started."""
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    data = filter_program()
    written = 0
    while written < len(data):
        written += os.write(fd, data[written:])
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
