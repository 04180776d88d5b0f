"""Argument checks at the width the kernel reads (issue: trust, round four).

The round-three filter compared all 64 bits of ``int`` arguments; the kernel reads
the low 32, so ``fcntl(fd, F_OFD_SETLK | 1 << 32, …)``, ``socket(AF_VSOCK | 1 << 32,
…)`` and ``fadvise64(…, POSIX_FADV_DONTNEED | 1 << 32)`` went past rules written for
those values, and locks, vsock and page-cache eviction were back. Here, for every
rule of the allow list with an argument check, at the rule's own values and at
values no rule names, with bit 32, bit 63 and every high bit set:

- the compiled program (both layers: bubblewrap's and the refusal reporter's, and
  the channel guard's) answers exactly what the table says, read the way the kernel
  reads arguments (:func:`referee.runtime.syscall_rules.decide`) — run by a BPF
  interpreter (tests/security/bpf.py), so every pattern of every rule is checked;
- a real bot in a real sandbox makes each call through raw ``syscall()`` and gets the
  table's answer from the kernel: the filter's errno where the table refuses, the
  kernel's own answer (the same as without any filter: the guard run) where it
  allows;
- guards: without the filter the refused calls reach the kernel (each answers
  differently), and a program compiled with the round-three comparison (all 64 bits
  compared) fails the interpreter check at the high-bit patterns.
"""

from __future__ import annotations

import errno
from dataclasses import replace
from typing import Any

import pytest

from referee.runtime import seccomp
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig
from referee.runtime.syscall_rules import LOW32, checked_rules, decide, denied_names
from tests.e2e.conftest import module_bot
from tests.security.bpf import AUDIT_ARCH_AARCH64, AUDIT_ARCH_X86_64, Verdict, run, seccomp_data
from tests.security.support import (
    assert_attacker_faults,
    assert_no_processes_left,
    assert_victim_unharmed,
    new_token,
    play,
)
from tests.security.width_cases import CHECKED, HIGH, Case, cases, number

pyseccomp = pytest.importorskip("pyseccomp")

ARCH = {"x86_64": AUDIT_ARCH_X86_64, "aarch64": AUDIT_ARCH_AARCH64}
UNFILTERED = replace(DEFAULT_SANDBOX, seccomp=False)


def native_arch() -> int:
    import os

    machine = os.uname().machine
    if machine not in ARCH:
        pytest.skip(f"no audit architecture known here for {machine}")
    return ARCH[machine]


def expected(case: Case, default: str, *, close_channels: bool = True) -> Verdict:
    rule = decide(case.name, case.args, close_channels=close_channels)
    if rule is None:
        return Verdict(default, 0)
    if rule.allows:
        return Verdict("allow", 0)
    assert rule.errno is not None
    return Verdict("errno", rule.errno)


def mismatches(
    program: bytes, default: str, *, close_channels: bool = True
) -> list[tuple[Case, Verdict, Verdict]]:
    """(call, program's answer, table's answer) of every call answered against the table."""
    arch = native_arch()
    wrong = []
    for case in cases():
        got = run(program, seccomp_data(number(case.name), arch, case.args))
        want = expected(case, default, close_channels=close_channels)
        if got != want:
            wrong.append((case, got, want))
    return wrong


def listing(wrong: list[tuple[Case, Verdict, Verdict]]) -> str:
    lines = [f"{case}: program {got}, table {want}" for case, got, want in wrong[:40]]
    return f"{len(wrong)} calls answered against the table:\n" + "\n".join(lines)


# -- the compiled program, every pattern ---------------------------------------------------


@pytest.mark.parametrize("close_channels", [True, False], ids=["default", "channels-open"])
@pytest.mark.parametrize("default", ["trace", "notify"])
def test_the_program_answers_what_the_table_says_at_every_width(
    default: str, close_channels: bool
) -> None:
    program = seccomp.filter_program(close_channels, default)  # type: ignore[arg-type,unused-ignore]
    wrong = mismatches(program, default, close_channels=close_channels)
    assert not wrong, listing(wrong)


def test_every_check_is_exercised_with_every_high_bit_pattern() -> None:
    """The cases cover each rule's own values with bit 32, bit 63 and all high bits."""
    made = {(case.name, case.args) for case in cases()}
    for rule in checked_rules():
        for name in rule.names:
            for check in rule.when:
                hits = [
                    args
                    for (called, args) in made
                    if called == name
                    and all(c.holds(args[c.index]) for c in rule.when)
                    and args[check.index] >> 32
                ]
                highs = {args[check.index] & ~LOW32 for args in hits}
                assert {h for h in HIGH if h} <= highs, (name, check, sorted(map(hex, highs)))


def test_guard_a_full_width_compare_fails_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The round-three comparison (``Arg(i, EQ, value)``: all 64 bits) on 32-bit
    arguments: the interpreter check finds the high-bit patterns answered wrongly."""

    def full_width(binding: Any, check: Any) -> Any:
        if check.mask == LOW32:
            return binding.Arg(check.index, binding.EQ, check.value)
        return binding.Arg(check.index, binding.MASKED_EQ, check.mask, check.value)

    monkeypatch.setattr(seccomp, "_comparison", full_width)
    planted = seccomp.filter_program.__wrapped__(True, "trace")
    wrong = mismatches(planted, "trace")
    assert wrong, "a 64-bit comparison of 32-bit arguments went unnoticed"
    for case, _, _ in wrong:  # and only where a checked argument has high bits
        assert any(case.args[index] >> 32 for index in CHECKED[case.name]), listing(wrong)


def test_unlisted_calls_and_foreign_abis_are_refused() -> None:
    program = seccomp.filter_program(True, "trace")
    arch = native_arch()
    for name in ("mlock", "sync", "mincore", "readahead", "kcmp", "pidfd_getfd", "shmget"):
        assert run(program, seccomp_data(number(name), arch, ())) == Verdict("trace", 0), name
    for name in denied_names():
        try:
            call = number(name)
        except KeyError:
            continue
        got = run(program, seccomp_data(call, arch, ()))
        assert got.action == "errno", (name, got)
    if arch == AUDIT_ARCH_X86_64:
        x32_read = 0x40000000
        assert run(program, seccomp_data(x32_read, arch, ())).action.startswith("kill")
        i386 = 0x40000003
        assert run(program, seccomp_data(3, i386, ())).action.startswith("kill")


# -- the kernel, in a real sandbox ----------------------------------------------------------


async def probe(sandbox: SandboxConfig) -> list[tuple[int, str]]:
    played = await play(
        module_bot("tests.security.width_probe", name="probe"), new_token(), sandbox=sandbox
    )
    assert_victim_unharmed(played)
    assert_attacker_faults(played, set())
    calls = played.report["calls"]
    assert len(calls) == len(cases()), "the probe made another list of calls"
    return [(int(result), str(name)) for result, name in calls]


SECCOMP_MODE_FILTER = 2
PR_GET_SECCOMP = 21


def reads_the_filter(case: Case) -> bool:
    return case.name == "prctl" and case.args[0] & LOW32 == PR_GET_SECCOMP


@pytest.mark.e2e
@pytest.mark.refused_calls
async def test_the_kernel_refuses_every_high_bit_pattern_the_table_refuses() -> None:
    filtered = await probe(DEFAULT_SANDBOX)
    unfiltered = await probe(UNFILTERED)
    wrong, guard_failed = [], []
    for case, got, plain in zip(cases(), filtered, unfiltered, strict=True):
        want = expected(case, "trace")
        if want.action == "allow":
            if reads_the_filter(case):
                plain = (SECCOMP_MODE_FILTER, "")  # the one answer a filter changes
            if got != plain:  # the kernel's own answer, as without a filter
                wrong.append(f"{case}: allowed, yet {got} where the kernel says {plain}")
            continue
        errno_wanted = errno.ENOSYS if want.action == "trace" else want.data
        answer = (0, "") if errno_wanted == 0 else (-1, errno.errorcode[errno_wanted])
        if got != answer:
            wrong.append(f"{case}: table refuses with {errno_wanted}, kernel gave {got}")
        if plain == answer:
            guard_failed.append(f"{case}: without the filter, still {plain}")
    assert not wrong, f"{len(wrong)} calls not answered as the table says:\n" + "\n".join(
        wrong[:40]
    )
    assert not guard_failed, "refused calls the kernel would answer alike:\n" + "\n".join(
        guard_failed[:40]
    )
    assert_no_processes_left()


def test_the_security_page_lists_the_allow_list_as_the_code_has_it() -> None:
    from pathlib import Path

    from referee.runtime.syscall_rules import markdown

    page = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text()
    start, end = "<!-- allow-list:start -->\n", "<!-- allow-list:end -->"
    shown = page[page.index(start) + len(start) : page.index(end)]
    assert shown == markdown(), (
        "docs/security.md's allow list differs from the code: paste the output of"
        " `python -m referee.runtime.syscall_rules` between its allow-list markers"
    )
