"""What a sandboxed bot may ask of the kernel: the allow list, one table with a reason
per entry (compiled by :mod:`referee.runtime.seccomp`).

**Default deny.** A system call that no rule allows is refused: it fails with
``ENOSYS``, as on a kernel that lacks the call, so language runtimes take the
fallbacks they have for older kernels (glibc's ``clone3`` → ``clone``, ``statx`` →
``fstatat``, Node's ``io_uring`` → its thread pool). Some calls are refused with
another errno named in their rule (``EPERM`` for the ones refused for a stated
reason, ``ENOLCK`` for locks, ``0`` for advice that becomes a no-op), so the program
sees the answer it has code for.

**Argument checks at the argument's width.** The kernel reads an ``int`` argument
as its low 32 bits and ignores the rest of the register; a filter that compares all
64 bits lets ``fcntl(fd, F_OFD_SETLK | 1 << 32, …)`` past a rule written for
``F_OFD_SETLK``. Every check here states its width: :class:`Arg` compares the low
32 bits only (``width=32``, the default, for ``int`` and ``unsigned int``
arguments, and ``clone``'s flags, of which the kernel reads the low half) or all 64
(``width=64``, for an ``unsigned long`` the kernel reads whole; none is checked
today). ``tests/security/test_syscall_widths.py`` runs each checked call with
bit 32, bit 63 and all high bits set, on the compiled program and through raw
``syscall()`` in a real sandbox.

**Channels.** Rules marked ``channel`` close a channel between two sandboxes that
run at once (locks on shared files, file watches, shared futexes, the page cache,
host-wide counters); only the channel test's guard opens them
(``SandboxConfig.close_channels=False``).

Who needs what was measured, not guessed: every example bot, the SDK, the Node.js
example and a static binary run under this table in the test suite, and a call they
made that no rule allowed would be reported (:mod:`referee.runtime.seccomp_notify`)
and fail the test that played them.
"""

# long module: the allow list is one table, one system call per line, reviewed as a whole
# (docs/security.md lists it); the few helpers that read it live beside it

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Literal

LOW32 = 0xFFFF_FFFF
ALL64 = 0xFFFF_FFFF_FFFF_FFFF


@dataclass(frozen=True, slots=True)
class Arg:
    """A check on one argument: ``(argument & mask) == value`` over ``width`` bits."""

    index: int
    value: int
    mask: int = LOW32
    width: Literal[32, 64] = 32

    def __post_init__(self) -> None:
        limit = LOW32 if self.width == 32 else ALL64
        if not 0 <= self.index <= 5:
            raise ValueError(f"argument index must be 0-5, got {self.index}")
        if self.mask & ~limit or self.value & ~limit or self.value & ~self.mask:
            raise ValueError(
                f"a {self.width}-bit check on argument {self.index} cannot compare"
                f" mask {self.mask:#x} with value {self.value:#x}"
            )

    def holds(self, argument: int) -> bool:
        """Whether the kernel, reading ``argument`` at this width, sees a match."""
        seen = argument & (LOW32 if self.width == 32 else ALL64)
        return (seen & self.mask) == self.value


@dataclass(frozen=True, slots=True)
class Rule:
    """System calls allowed (``errno is None``) or answered with ``errno`` (0: a
    successful no-op), whatever their arguments or only when every check in
    ``when`` holds."""

    names: tuple[str, ...]
    why: str
    errno: int | None = None
    when: tuple[Arg, ...] = ()
    channel: bool = False
    """Closes a channel between sandboxes: allowed instead in the channel guard."""

    @property
    def allows(self) -> bool:
        return self.errno is None


def allow(*names: str, why: str) -> tuple[Rule, ...]:
    return (Rule(names, why),)


def allow_when(name: str, *alternatives: Arg | tuple[Arg, ...], why: str) -> tuple[Rule, ...]:
    """``name`` allowed when one of ``alternatives`` (a check, or checks that must all
    hold) holds."""
    return tuple(
        Rule((name,), why, when=alt if isinstance(alt, tuple) else (alt,)) for alt in alternatives
    )


def refuse(
    *names: str, errno: int, why: str, when: tuple[Arg, ...] = (), channel: bool = False
) -> tuple[Rule, ...]:
    return (Rule(names, why, errno=errno, when=when, channel=channel),)


def refuse_values(
    name: str, index: int, values: tuple[int, ...], *, errno: int, why: str, channel: bool = False
) -> tuple[Rule, ...]:
    """``name`` refused when its (32-bit) argument ``index`` is one of ``values``."""
    return tuple(
        Rule((name,), why, errno=errno, when=(Arg(index, value),), channel=channel)
        for value in values
    )


def one_of(name: str, index: int, values: tuple[int, ...], *, why: str) -> tuple[Rule, ...]:
    """``name`` allowed when its (32-bit) argument ``index`` is one of ``values``."""
    return allow_when(name, *(Arg(index, value) for value in values), why=why)


# -- constants (x86-64 and aarch64 agree on all of these) ------------------------------------

CLONE_NEWTIME = 0x00000080
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
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
ANY_NAMESPACE = sum(NAMESPACE_FLAGS)

F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL = 0, 1, 2, 3, 4
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS = (
    1030,
    1031,
    1032,
    1033,
    1034,
)
LOCK_COMMANDS = (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW)

FUTEX_PRIVATE_FLAG = 128
FUTEX_CMD_MASK = 0x7F
FUTEX_WAIT, FUTEX_WAIT_BITSET = 0, 9
FUTEX_WAKE_CMDS = (1, 3, 4, 5, 7, 10, 12)
"""WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP, UNLOCK_PI, WAKE_BITSET, CMP_REQUEUE_PI."""

RWF_NOWAIT = 0x08
POSIX_FADV_DONTNEED = 4
FADVISE_ALLOWED = (0, 1, 2, 3, 5)
"""NORMAL, RANDOM, SEQUENTIAL, WILLNEED, NOREUSE."""
MADV_COLD, MADV_PAGEOUT = 20, 21
MADVISE_ALLOWED = (0, 1, 2, 3, 4, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 22, 23, 24, 25)
"""NORMAL, RANDOM, SEQUENTIAL, WILLNEED, DONTNEED, FREE, REMOVE, DONTFORK, DOFORK,
HUGEPAGE, NOHUGEPAGE, DONTDUMP, DODUMP, WIPEONFORK, KEEPONFORK, POPULATE_READ,
POPULATE_WRITE, DONTNEED_LOCKED, COLLAPSE: advice on the bot's own memory. Not
MERGEABLE/UNMERGEABLE: same-page merging across processes lets a write's timing
tell what another sandbox holds in memory."""

AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
NETLINK_ROUTE = 0
AF_MAX = 46
SOCKET_FAMILIES = (AF_UNIX, AF_INET, AF_INET6)

IOCTLS = {
    0x5401: "TCGETS",
    0x540F: "TIOCGPGRP",
    0x5411: "TIOCOUTQ",
    0x5413: "TIOCGWINSZ",
    0x541B: "FIONREAD",
    0x5421: "FIONBIO",
    0x5450: "FIONCLEX",
    0x5451: "FIOCLEX",
    0x8910: "SIOCGIFNAME",
    0x8912: "SIOCGIFCONF",
    0x8913: "SIOCGIFFLAGS",
    0x8915: "SIOCGIFADDR",
    0x8919: "SIOCGIFBRDADDR",
    0x891B: "SIOCGIFNETMASK",
    0x8921: "SIOCGIFMTU",
    0x8927: "SIOCGIFHWADDR",
    0x8933: "SIOCGIFINDEX",
}
"""Requests that read a descriptor's state (is it a terminal, bytes waiting) or set
its blocking and close-on-exec flags, and read-only questions about the sandbox's
own loopback device."""

PRCTLS = {
    1: "PR_SET_PDEATHSIG",
    2: "PR_GET_PDEATHSIG",
    3: "PR_GET_DUMPABLE",
    4: "PR_SET_DUMPABLE",
    7: "PR_GET_KEEPCAPS",
    8: "PR_SET_KEEPCAPS",
    15: "PR_SET_NAME",
    16: "PR_GET_NAME",
    21: "PR_GET_SECCOMP",
    23: "PR_CAPBSET_READ",
    24: "PR_CAPBSET_DROP",
    27: "PR_GET_SECUREBITS",
    28: "PR_SET_SECUREBITS",
    29: "PR_SET_TIMERSLACK",
    30: "PR_GET_TIMERSLACK",
    36: "PR_SET_CHILD_SUBREAPER",
    37: "PR_GET_CHILD_SUBREAPER",
    38: "PR_SET_NO_NEW_PRIVS",
    39: "PR_GET_NO_NEW_PRIVS",
    40: "PR_GET_TID_ADDRESS",
    41: "PR_SET_THP_DISABLE",
    42: "PR_GET_THP_DISABLE",
    47: "PR_CAP_AMBIENT",
    52: "PR_GET_SPECULATION_CTRL",
    53: "PR_SET_SPECULATION_CTRL",
    0x53564D41: "PR_SET_VMA",
}
"""Options about the calling process itself (its name, its death signal, dropping
privileges — what ``setpriv`` does on the way in — and naming its own memory)."""

MEMBARRIER_PRIVATE = (0, 8, 16, 32, 64, 128, 256)
"""QUERY and the PRIVATE_EXPEDITED family (the bot's own threads); the GLOBAL ones
interrupt every CPU that runs a registered process, other sandboxes' included."""
SECCOMP_SET_MODE_FILTER, SECCOMP_GET_ACTION_AVAIL, SECCOMP_GET_NOTIF_SIZES = 1, 2, 3
PER_LINUX, PER_QUERY = 0, 0xFFFF_FFFF


# -- the table ------------------------------------------------------------------------------

ALLOWED: tuple[Rule, ...] = (
    *allow(
        "read",
        "write",
        "readv",
        "writev",
        "pread64",
        "pwrite64",
        "preadv",
        "pwritev",
        "lseek",
        "close",
        "close_range",
        "dup",
        "dup2",
        "dup3",
        "pipe",
        "pipe2",
        "sendfile",
        "copy_file_range",
        "splice",
        "tee",
        "vmsplice",
        why="reading and writing the bot's own descriptors",
    ),
    *allow(
        "open",
        "openat",
        "openat2",
        "creat",
        "stat",
        "fstat",
        "lstat",
        "newfstatat",
        "statx",
        "access",
        "faccessat",
        "faccessat2",
        "readlink",
        "readlinkat",
        "getdents",
        "getdents64",
        "getcwd",
        "chdir",
        "fchdir",
        "getxattr",
        "lgetxattr",
        "fgetxattr",
        "listxattr",
        "llistxattr",
        "flistxattr",
        why="finding and reading files: the mount namespace shows only the bot's files, the"
        " runtime read-only and its private /tmp",
    ),
    *allow(
        "mkdir",
        "mkdirat",
        "rmdir",
        "rename",
        "renameat",
        "renameat2",
        "unlink",
        "unlinkat",
        "link",
        "linkat",
        "symlink",
        "symlinkat",
        "chmod",
        "fchmod",
        "fchmodat",
        "fchmodat2",
        "chown",
        "fchown",
        "lchown",
        "fchownat",
        "utime",
        "utimes",
        "utimensat",
        "futimesat",
        "truncate",
        "ftruncate",
        "fallocate",
        "fsync",
        "fdatasync",
        "umask",
        why="writing in the private /tmp (a size-capped tmpfs); the sandbox's root copies a"
        " submitted tree there with fixed owners and times before the bot starts",
    ),
    *allow(
        "brk",
        "mmap",
        "munmap",
        "mremap",
        "mprotect",
        "msync",
        "memfd_create",
        "pkey_alloc",
        "pkey_free",
        "pkey_mprotect",
        why="the bot's own memory (bounded by its control group and RLIMIT_AS); JIT"
        " compilers need executable mappings",
    ),
    *allow(
        "mbind",
        "get_mempolicy",
        "set_mempolicy",
        why="the NUMA placement of the bot's own pages (numpy's OpenBLAS binds its buffers"
        " with mbind); the host's memory nodes stay as its cpuset allows",
    ),
    *one_of(
        "madvise",
        2,
        MADVISE_ALLOWED,
        why="advice on the bot's own memory (allocators and JITs return and reuse pages)",
    ),
    *allow(
        "fork",
        "vfork",
        "execve",
        "execveat",
        "exit",
        "exit_group",
        "wait4",
        "waitid",
        "getpid",
        "getppid",
        "gettid",
        "set_tid_address",
        "set_robust_list",
        "rseq",
        "arch_prctl",
        "pidfd_open",
        "pidfd_send_signal",
        "restart_syscall",
        why="threads and child processes inside the bot's PID namespace and control group",
    ),
    *allow_when(
        "clone",
        Arg(0, 0, mask=ANY_NAMESPACE),
        why="threads and child processes, without a new namespace (the kernel reads the"
        " low 32 bits of clone's flags: lower_32_bits() in kernel/fork.c)",
    ),
    *allow(
        "kill",
        "tkill",
        "tgkill",
        "rt_sigqueueinfo",
        "rt_tgsigqueueinfo",
        "rt_sigaction",
        "rt_sigprocmask",
        "rt_sigreturn",
        "rt_sigpending",
        "rt_sigsuspend",
        "rt_sigtimedwait",
        "sigaltstack",
        "pause",
        why="signals among the bot's own processes (its PID namespace holds nothing else)",
    ),
    *allow(
        "getuid",
        "geteuid",
        "getgid",
        "getegid",
        "getresuid",
        "getresgid",
        "getgroups",
        "setuid",
        "setgid",
        "setreuid",
        "setregid",
        "setresuid",
        "setresgid",
        "setfsuid",
        "setfsgid",
        "setgroups",
        "capget",
        "capset",
        "getpgid",
        "setpgid",
        "getpgrp",
        "getsid",
        "setsid",
        why="identity: setpriv switches to the bot's user and drops every capability on"
        " the way in, after which these can only read or drop",
    ),
    *allow(
        "getrlimit",
        "setrlimit",
        "prlimit64",
        "getrusage",
        "times",
        "uname",
        "getpriority",
        "setpriority",
        "sched_yield",
        "sched_getaffinity",
        "sched_setaffinity",
        "sched_getparam",
        "sched_getscheduler",
        "sched_get_priority_max",
        "sched_get_priority_min",
        "sched_rr_get_interval",
        "sched_getattr",
        "getcpu",
        "getrandom",
        why="the bot's own limits, usage and scheduling (prlimit sets the limits on the way"
        " in; raising a hard limit or a priority needs a capability the bot does not have;"
        " its cpuset bounds its affinity); the host name is the sandbox's own",
    ),
    *allow(
        "clock_gettime",
        "clock_getres",
        "clock_nanosleep",
        "nanosleep",
        "gettimeofday",
        "time",
        "alarm",
        "getitimer",
        "setitimer",
        "timer_create",
        "timer_settime",
        "timer_gettime",
        "timer_getoverrun",
        "timer_delete",
        why="reading clocks and sleeping",
    ),
    *allow(
        "poll",
        "ppoll",
        "select",
        "pselect6",
        "epoll_create",
        "epoll_create1",
        "epoll_ctl",
        "epoll_wait",
        "epoll_pwait",
        "epoll_pwait2",
        "eventfd",
        "eventfd2",
        "signalfd",
        "signalfd4",
        "timerfd_create",
        "timerfd_settime",
        "timerfd_gettime",
        why="event loops (gRPC's, Node's, asyncio's)",
    ),
    *one_of(
        "socket",
        0,
        SOCKET_FAMILIES,
        why="the bot's gRPC socket (unix) and its own loopback (runtimes probe for IPv4"
        " and IPv6); the network namespace holds nothing else",
    ),
    *allow_when(
        "socket",
        (Arg(0, AF_NETLINK), Arg(2, NETLINK_ROUTE)),
        why="NETLINK_ROUTE only: getifaddrs() lists the namespace's own loopback (other"
        " netlink protocols reach host-wide kernel state)",
    ),
    *one_of("socketpair", 0, (AF_UNIX,), why="a pair of connected unix sockets"),
    *allow(
        "bind",
        "listen",
        "accept",
        "accept4",
        "connect",
        "getsockname",
        "getpeername",
        "setsockopt",
        "getsockopt",
        "sendto",
        "recvfrom",
        "sendmsg",
        "recvmsg",
        "sendmmsg",
        "recvmmsg",
        "shutdown",
        why="serving gRPC on the sockets above",
    ),
    *one_of(
        "fcntl",
        1,
        (
            F_DUPFD,
            F_GETFD,
            F_SETFD,
            F_GETFL,
            F_SETFL,
            F_DUPFD_CLOEXEC,
            F_SETPIPE_SZ,
            F_GETPIPE_SZ,
            F_ADD_SEALS,
            F_GET_SEALS,
        ),
        why="a descriptor's own flags, duplicates, pipe sizes and memfd seals",
    ),
    *one_of(
        "ioctl",
        1,
        tuple(IOCTLS),
        why="a descriptor's terminal and blocking state, bytes waiting, and the loopback"
        " device's settings, read-only",
    ),
    *one_of(
        "prctl",
        0,
        tuple(PRCTLS),
        why="the process's own name, death signal, dumpability and privileges (setpriv"
        " drops them on the way in), and naming its own memory",
    ),
    *allow_when(
        "futex",
        Arg(1, FUTEX_PRIVATE_FLAG, mask=FUTEX_PRIVATE_FLAG),
        why="process-private futexes: every lock and condition of the bot's own threads",
    ),
    *allow_when(
        "futex",
        *(Arg(1, cmd, mask=FUTEX_PRIVATE_FLAG | FUTEX_CMD_MASK) for cmd in (0, 9)),
        why="waiting on a shared futex: glibc's pthread_join waits for a thread's exit"
        " this way (waking one is refused: see below)",
    ),
    *one_of(
        "fadvise64",
        3,
        FADVISE_ALLOWED,
        why="read-ahead advice (what a read would do anyway)",
    ),
    *allow_when(
        "preadv2",
        Arg(5, 0, mask=RWF_NOWAIT),
        why="positioned reads with flags, except RWF_NOWAIT (see below)",
    ),
    *allow_when(
        "pwritev2",
        Arg(5, 0, mask=RWF_NOWAIT),
        why="positioned writes with flags, except RWF_NOWAIT (see below)",
    ),
    *one_of(
        "membarrier",
        0,
        MEMBARRIER_PRIVATE,
        why="memory barriers across the bot's own threads (.NET, V8, liburcu)",
    ),
    *one_of(
        "seccomp",
        0,
        (SECCOMP_SET_MODE_FILTER, SECCOMP_GET_ACTION_AVAIL, SECCOMP_GET_NOTIF_SIZES),
        why="adding a filter of one's own can only refuse more (the sandbox adds its"
        " refusal reporter this way just before the bot starts)",
    ),
    *one_of(
        "personality",
        0,
        (PER_LINUX, PER_QUERY),
        why="reading the execution domain (ASLR and the other personality flags stay)",
    ),
)
"""What a bot may do. Anything else is refused: :data:`REFUSED` first, then ``ENOSYS``."""

REFUSED: tuple[Rule, ...] = (
    *refuse(
        "add_key",
        "keyctl",
        "request_key",
        errno=errno.EPERM,
        why="the kernel keyring is shared across sandboxes and outlives the bot",
    ),
    *refuse(
        "unshare",
        "setns",
        errno=errno.EPERM,
        why="no new namespaces (a user namespace would make the bot root in it, with mounts"
        " and a tmpfs of its own outside every cap), no entering others",
    ),
    *(
        rule
        for flag in NAMESPACE_FLAGS
        for rule in refuse(
            "clone",
            errno=errno.EPERM,
            when=(Arg(0, flag, mask=flag),),
            why="no new namespaces",
        )
    ),
    *refuse(
        "clone3",
        errno=errno.ENOSYS,
        why="its flags are in memory a filter cannot read; ENOSYS makes the C library use"
        " clone, whose flags are checked",
    ),
    *refuse(
        "io_uring_setup",
        "io_uring_enter",
        "io_uring_register",
        errno=errno.EPERM,
        why="a second system-call path, invisible to this filter",
    ),
    *refuse(
        "userfaultfd", errno=errno.EPERM, why="stalls the kernel at will; a classic exploit aid"
    ),
    *refuse(
        "perf_event_open", errno=errno.EPERM, why="timing side channels and kernel attack surface"
    ),
    *refuse(
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        errno=errno.EPERM,
        why="no reading or steering other processes",
    ),
    *refuse("bpf", errno=errno.EPERM, why="kernel programs"),
    *refuse(
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
        errno=errno.EPERM,
        why="no file system changes",
    ),
    *refuse(
        "kexec_load",
        "kexec_file_load",
        "init_module",
        "finit_module",
        "delete_module",
        "reboot",
        errno=errno.EPERM,
        why="no kernel changes",
    ),
    *refuse(
        "swapon",
        "swapoff",
        "acct",
        "syslog",
        "quotactl",
        "name_to_handle_at",
        "open_by_handle_at",
        "lookup_dcookie",
        "vhangup",
        errno=errno.EPERM,
        why="host administration and file handles that bypass the mount namespace",
    ),
    *refuse(
        "setxattr",
        "lsetxattr",
        "fsetxattr",
        "removexattr",
        "lremovexattr",
        "fremovexattr",
        errno=errno.ENOTSUP,
        why="no extended attributes (what a file system without them answers; shutil and"
        " tar carry on)",
    ),
    # -- channels between sandboxes that run at once --------------------------------------
    # Locks: host files are bound read-only into every sandbox, so all of them share the
    # same inodes, and a lock taken in one is seen from the other (F_OFD_GETLK reports it
    # whatever the namespaces). A bot's locks on its private /tmp would be harmless, but a
    # filter cannot tell one file from another.
    *refuse_values(
        "fcntl",
        1,
        LOCK_COMMANDS,
        errno=errno.ENOLCK,
        why="file locks are seen across sandboxes",
        channel=True,
    ),
    *refuse("flock", errno=errno.ENOLCK, why="file locks are seen across sandboxes", channel=True),
    *refuse_values(
        "fcntl",
        1,
        (F_SETLEASE, F_GETLEASE),
        errno=errno.EPERM,
        why="leases signal other openers",
        channel=True,
    ),
    *refuse_values(
        "fcntl",
        1,
        (F_NOTIFY,),
        errno=errno.EPERM,
        why="directory notification (dnotify)",
        channel=True,
    ),
    *refuse(
        "inotify_init",
        "inotify_init1",
        "inotify_add_watch",
        "inotify_rm_watch",
        "fanotify_init",
        "fanotify_mark",
        errno=errno.EPERM,
        why="file watches see other sandboxes' opens and reads",
        channel=True,
    ),
    # A futex that is not private is keyed by the file's inode and offset, and the text
    # of every shared library is a file all sandboxes map: one wakes, the other is woken.
    *(
        rule
        for cmd in FUTEX_WAKE_CMDS
        for rule in refuse(
            "futex",
            errno=errno.EPERM,
            when=(Arg(1, cmd, mask=FUTEX_PRIVATE_FLAG | FUTEX_CMD_MASK),),
            why="a shared futex is keyed by a file all sandboxes map",
            channel=True,
        )
    ),
    # The page cache: whether a page of a shared file is cached tells whether another
    # sandbox read it. Asking directly is refused; evicting is a no-op.
    *refuse(
        "preadv2",
        "pwritev2",
        errno=errno.EOPNOTSUPP,
        when=(Arg(5, RWF_NOWAIT, mask=RWF_NOWAIT),),
        why="RWF_NOWAIT asks whether a page is cached",
        channel=True,
    ),
    *refuse(
        "cachestat", errno=errno.EPERM, why="counts another sandbox's cached pages", channel=True
    ),
    *refuse(
        "io_setup",
        "io_submit",
        "io_getevents",
        "io_pgetevents",
        "io_destroy",
        "io_cancel",
        errno=errno.ENOSYS,
        why="asynchronous reads can ask whether a page is cached",
        channel=True,
    ),
    *refuse_values(
        "fadvise64",
        3,
        (POSIX_FADV_DONTNEED,),
        errno=0,
        why="evicting a shared file's pages signals another sandbox (a no-op instead)",
        channel=True,
    ),
    *refuse_values(
        "madvise",
        2,
        (MADV_COLD, MADV_PAGEOUT),
        errno=0,
        why="evicting a shared file's pages signals another sandbox (a no-op instead)",
        channel=True,
    ),
    *refuse("process_madvise", errno=errno.EPERM, why="evicts pages", channel=True),
    *refuse(
        "sysinfo",
        "statfs",
        "fstatfs",
        "ustat",
        errno=errno.EPERM,
        why="host-wide free memory, thread count and free blocks, which other sandboxes move",
        channel=True,
    ),
    *(
        rule
        for family in range(AF_MAX)
        if family not in (*SOCKET_FAMILIES, AF_NETLINK)
        for rule in refuse(
            "socket",
            errno=errno.EAFNOSUPPORT,
            when=(Arg(0, family),),
            why="families outside the network namespace's reach (vsock, packet, ...)",
        )
    ),
)
"""Refused with a particular errno (the others: ``ENOSYS``)."""

UNLISTED_ERRNO = errno.ENOSYS
"""What a call no rule allows answers."""

SYSCALL_NUMBERS_X86_64 = {
    "cachestat": 451,
    "fchmodat2": 452,
    "futex_wake": 454,
    "futex_wait": 455,
    "futex_requeue": 456,
}
"""Calls newer than some libseccomp releases: their x86-64 numbers."""


def rules(*, close_channels: bool = True) -> tuple[Rule, ...]:
    """Every rule; with ``close_channels=False`` (the channel guard) a channel's refusal
    becomes an allowance."""
    if close_channels:
        return (*ALLOWED, *REFUSED)
    opened = tuple(
        Rule(rule.names, rule.why, None, rule.when) if rule.channel else rule for rule in REFUSED
    )
    return (*ALLOWED, *opened)


def allowed_names() -> list[str]:
    """Every system call some rule allows (with or without argument checks)."""
    return sorted({name for rule in ALLOWED for name in rule.names})


def denied_names() -> list[str]:
    """Every system call refused whatever its arguments."""
    return sorted({name for rule in REFUSED if not rule.when for name in rule.names})


def checked_rules() -> list[Rule]:
    """Every rule with an argument check (the width test runs each)."""
    return [rule for rule in (*ALLOWED, *REFUSED) if rule.when]


def decide(name: str, args: tuple[int, ...] = (), *, close_channels: bool = True) -> Rule | None:
    """The rule that decides ``name(*args)``, or None (no rule: refused by default).

    Read the way the kernel reads arguments (:meth:`Arg.holds`), independently of
    how :mod:`referee.runtime.seccomp` compiles the rules: the width tests compare
    the compiled program, and the kernel running it, with this."""
    padded = (*args, *(0,) * (6 - len(args)))
    found = [
        rule
        for rule in rules(close_channels=close_channels)
        if name in rule.names and all(check.holds(padded[check.index]) for check in rule.when)
    ]
    if len({(rule.allows, rule.errno) for rule in found}) > 1:
        raise ValueError(f"rules disagree on {name}{tuple(args)}: {found}")
    return found[0] if found else None


def answer(name: str, args: tuple[int, ...] = (), *, close_channels: bool = True) -> int | None:
    """What the kernel answers ``name(*args)`` under the table: ``None`` (allowed: the
    kernel does the call) or the errno it fails with (0: a no-op that succeeds)."""
    rule = decide(name, args, close_channels=close_channels)
    if rule is None:
        return UNLISTED_ERRNO
    return rule.errno


VALUE_NAMES: dict[tuple[str, int], dict[int, str]] = {
    ("fcntl", 1): {
        F_DUPFD: "F_DUPFD",
        F_GETFD: "F_GETFD",
        F_SETFD: "F_SETFD",
        F_GETFL: "F_GETFL",
        F_SETFL: "F_SETFL",
        F_GETLK: "F_GETLK",
        F_SETLK: "F_SETLK",
        F_SETLKW: "F_SETLKW",
        F_OFD_GETLK: "F_OFD_GETLK",
        F_OFD_SETLK: "F_OFD_SETLK",
        F_OFD_SETLKW: "F_OFD_SETLKW",
        F_SETLEASE: "F_SETLEASE",
        F_GETLEASE: "F_GETLEASE",
        F_NOTIFY: "F_NOTIFY",
        F_DUPFD_CLOEXEC: "F_DUPFD_CLOEXEC",
        F_SETPIPE_SZ: "F_SETPIPE_SZ",
        F_GETPIPE_SZ: "F_GETPIPE_SZ",
        F_ADD_SEALS: "F_ADD_SEALS",
        F_GET_SEALS: "F_GET_SEALS",
    },
    ("ioctl", 1): IOCTLS,
    ("prctl", 0): PRCTLS,
    ("socket", 0): {AF_UNIX: "AF_UNIX", AF_INET: "AF_INET", AF_INET6: "AF_INET6", 16: "AF_NETLINK"},
    ("socketpair", 0): {AF_UNIX: "AF_UNIX"},
    ("fadvise64", 3): {
        0: "NORMAL",
        1: "RANDOM",
        2: "SEQUENTIAL",
        3: "WILLNEED",
        POSIX_FADV_DONTNEED: "DONTNEED",
        5: "NOREUSE",
    },
    ("madvise", 2): {MADV_COLD: "MADV_COLD", MADV_PAGEOUT: "MADV_PAGEOUT"},
    ("seccomp", 0): {
        SECCOMP_SET_MODE_FILTER: "SET_MODE_FILTER",
        SECCOMP_GET_ACTION_AVAIL: "GET_ACTION_AVAIL",
        SECCOMP_GET_NOTIF_SIZES: "GET_NOTIF_SIZES",
    },
    ("personality", 0): {PER_LINUX: "PER_LINUX", PER_QUERY: "0xffffffff (query)"},
    ("futex", 1): {
        FUTEX_PRIVATE_FLAG: "FUTEX_PRIVATE_FLAG",
        FUTEX_WAIT: "WAIT",
        FUTEX_WAIT_BITSET: "WAIT_BITSET",
        1: "WAKE",
        3: "REQUEUE",
        4: "CMP_REQUEUE",
        5: "WAKE_OP",
        7: "UNLOCK_PI",
        10: "WAKE_BITSET",
        12: "CMP_REQUEUE_PI",
    },
    ("clone", 0): {
        CLONE_NEWNS: "CLONE_NEWNS",
        CLONE_NEWCGROUP: "CLONE_NEWCGROUP",
        CLONE_NEWUTS: "CLONE_NEWUTS",
        CLONE_NEWIPC: "CLONE_NEWIPC",
        CLONE_NEWUSER: "CLONE_NEWUSER",
        CLONE_NEWPID: "CLONE_NEWPID",
        CLONE_NEWNET: "CLONE_NEWNET",
        CLONE_NEWTIME: "CLONE_NEWTIME",
    },
    ("preadv2", 5): {RWF_NOWAIT: "RWF_NOWAIT"},
    ("pwritev2", 5): {RWF_NOWAIT: "RWF_NOWAIT"},
}
"""Names of checked values, for :func:`markdown`."""


def _describe(name: str, check: Arg) -> str:
    named = VALUE_NAMES.get((name, check.index), {})
    value = named.get(check.value, str(check.value) if check.value < 64 else hex(check.value))
    if check.mask in (LOW32, ALL64):
        return value
    if check.value == 0 and check.mask in named:
        return f"no {named[check.mask]}"
    if check.value == check.mask and check.value in named:
        return f"with {value}"
    if name == "futex":
        return f"{value} (not private)"
    if name == "clone":
        return "no CLONE_NEW* flag"
    return f"{value} under mask {check.mask:#x}"


def _when(name: str, indexes: tuple[int, ...], rules: list[Rule]) -> str:
    """``always``, ``arg 1 ∈ {F_GETFD, …}`` or each rule's checks joined."""
    if not indexes:
        return "always"
    if len(indexes) == 1 and len(rules) > 1:
        values = ", ".join(_describe(name, rule.when[0]) for rule in rules)
        return f"arg {indexes[0]} ∈ {{{values}}}"
    return "; ".join(
        " and ".join(f"arg {check.index} = {_describe(name, check)}" for check in rule.when)
        for rule in rules
    )


def markdown() -> str:
    """The table as docs/security.md shows it: one row per reason, the calls it covers,
    the arguments it checks and the answer."""
    rows: dict[tuple[tuple[str, ...], str, int | None, tuple[int, ...]], list[Rule]] = {}
    for rule in (*ALLOWED, *REFUSED):
        indexes = tuple(check.index for check in rule.when)
        rows.setdefault((rule.names, rule.why, rule.errno, indexes), []).append(rule)
    lines = [
        "| calls | when (32-bit arguments: low half compared) | answer | why |",
        "|---|---|---|---|",
    ]
    for (names, why, answer_errno, indexes), grouped in rows.items():
        calls = ", ".join(f"`{name}`" for name in names)
        when = _when(names[0], indexes, grouped)
        if answer_errno is None:
            result = "allowed"
        elif answer_errno == 0:
            result = "0 (a no-op)"
        else:
            result = errno.errorcode.get(answer_errno, str(answer_errno))
        lines.append(f"| {calls} | {when} | {result} | {why} |")
    lines.append(
        f"| every other call, or these with other arguments | — |"
        f" {errno.errorcode[UNLISTED_ERRNO]} | not needed by any bot we know of; the bot's"
        " author is told which call it was |"
    )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
