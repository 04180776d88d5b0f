"""The calls the argument-width tests make: every argument check of the allow list
(:func:`referee.runtime.syscall_rules.checked_rules`), at its own values, at values no
rule names, and each with the high-bit patterns of :data:`HIGH` set.

Each call's other arguments are chosen so that the kernel, if it gets the call, fails
it harmlessly with an answer of its own (a bad descriptor, a misaligned address,
impossible flags), different from what the filter answers when it refuses the call:
so an observed answer tells who answered. Shared by the test (which computes what the
table says of each call) and by the probe bot (tests/security/width_probe.py, which
makes them through raw ``syscall()`` in a real sandbox).
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.runtime.syscall_rules import (
    LOW32,
    SYSCALL_NUMBERS_X86_64,
    checked_rules,
)

HIGH = (0, 1 << 32, 1 << 63, LOW32 << 32)
"""Added to a checked argument: nothing, bit 32, bit 63, every high bit. The kernel
reads a 32-bit argument's low half only, so none of them changes what it does."""

BAD_FD = 0xFFFF_FFFF_FFFF_FFFF
"""-1 as a register: no such descriptor (EBADF when the kernel gets the call)."""
CLONE_SIGHAND = 0x800

TEMPLATES: dict[str, tuple[int, ...]] = {
    "fcntl": (BAD_FD, 0, 0),
    "ioctl": (BAD_FD, 0, 0),
    "prctl": (0, 0, 0, 0, 0),
    "socket": (0, 0xDEAD0, 0),  # impossible type flags: EINVAL before the family is read
    "socketpair": (0, 0xDEAD0, 0, 0),
    "futex": (0, 0, 0, 0, 0, 0),  # a NULL word: EFAULT (a private wake: 0, nobody woken)
    "madvise": (1, 4096, 0),  # a misaligned start: EINVAL whatever the advice
    "fadvise64": (BAD_FD, 0, 0, 0),
    "preadv2": (BAD_FD, 0, 0, 0, 0, 0),
    "pwritev2": (BAD_FD, 0, 0, 0, 0, 0),
    "clone": (CLONE_SIGHAND, 0, 0, 0, 0),  # SIGHAND without VM: EINVAL, nothing starts
    "membarrier": (0, 0, 0),
    "seccomp": (0, 1, 0),  # flags on a NULL program: EINVAL or EFAULT, nothing loaded
    "personality": (0,),
}
"""Each checked call's arguments before the checked ones are put in (see the module
docstring for why each fails harmlessly when the kernel gets it)."""

UNLISTED: dict[str, dict[int, tuple[int, ...]]] = {
    "fcntl": {1: (8, 9, 10, 1035)},  # F_SETOWN, F_GETOWN, F_SETSIG, F_GET_RW_HINT
    "ioctl": {1: (0x5412, 0x5402, 0x540E, 0xDEAD)},  # TIOCSTI, TCSETS, TIOCSCTTY
    "prctl": {0: (22, 35, 62, 0x1234567)},  # SET_SECCOMP, SET_MM, SCHED_CORE
    "madvise": {2: (12, 13, 100)},  # MERGEABLE, UNMERGEABLE, HWPOISON
    "fadvise64": {3: (6, 99)},
    "socket": {0: (17, 40, 46, 0x7FFF_FFFF)},  # PACKET, VSOCK, past AF_MAX
    "socketpair": {0: (2, 40)},
    "membarrier": {0: (1, 2, 4)},  # the GLOBAL commands
    "seccomp": {0: (0, 4)},  # SET_MODE_STRICT (flags make the kernel refuse it), ...
    "personality": {0: (8, 0x0040000)},  # PER_LINUX32, ADDR_NO_RANDOMIZE
    "futex": {1: (6, 8, 13)},  # the PI operations, not private
    "clone": {0: (0x00010000,)},  # CLONE_THREAD (with SIGHAND and no VM: EINVAL)
}
"""Values no rule names, per checked argument: refused by default."""

CHECKED: dict[str, set[int]] = {}
"""The arguments each call's rules check."""
for _rule in checked_rules():
    for _name in _rule.names:
        CHECKED.setdefault(_name, set()).update(check.index for check in _rule.when)


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    args: tuple[int, int, int, int, int, int]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(hex(a) for a in self.args)})"


def _bases() -> list[tuple[str, dict[int, int]]]:
    """(call, checked argument values) before the high bits: each rule's own, then
    values no rule names."""
    bases: list[tuple[str, dict[int, int]]] = []
    for rule in checked_rules():
        for name in rule.names:
            bases.append((name, {check.index: check.value for check in rule.when}))
    bases.append(("socket", {0: 16, 2: 4}))  # netlink, NETLINK_SOCK_DIAG
    for name, by_index in UNLISTED.items():
        for index, values in by_index.items():
            bases.extend((name, {index: value}) for value in values)
    return bases


def cases() -> list[Case]:
    """Every call the width tests make, each once."""
    found: dict[Case, None] = {}
    for name, checked in _bases():
        template = TEMPLATES[name]
        for index in checked:
            for high in HIGH:
                args = [*template, *(0,) * (6 - len(template))]
                for at, value in checked.items():
                    args[at] = args[at] | value if name == "clone" else value
                args[index] |= high
                found[Case(name, (args[0], args[1], args[2], args[3], args[4], args[5]))] = None
    return list(found)


def number(name: str) -> int:
    """``name``'s system call number on this host."""
    import pyseccomp

    try:
        return int(pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name))
    except (OSError, ValueError, RuntimeError):
        return SYSCALL_NUMBERS_X86_64[name]
