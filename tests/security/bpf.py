"""A classic-BPF interpreter for seccomp programs: what a compiled filter answers a call.

Runs the ``struct sock_filter`` array libseccomp exported over a ``struct
seccomp_data`` built from a call (number, architecture, six 64-bit arguments), the way
the kernel does: 32-bit loads from the data, the ALU and jump instructions seccomp
allows, and the return value split into its action and data. Used by the width tests
to check every rule of the allow list at every argument pattern without the kernel.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7

RET_ACTION_FULL = 0xFFFF0000
RET_DATA = 0x0000FFFF
ACTIONS = {
    0x80000000: "kill_process",
    0x00000000: "kill_thread",
    0x00030000: "trap",
    0x00050000: "errno",
    0x7FC00000: "notify",
    0x7FF00000: "trace",
    0x7FFC0000: "log",
    0x7FFF0000: "allow",
}


class BpfError(Exception):
    """The program uses an instruction this interpreter (and seccomp) does not know."""


@dataclass(frozen=True, slots=True)
class Verdict:
    action: str
    data: int

    def __str__(self) -> str:
        return f"{self.action}({self.data})" if self.action in ("errno", "trace") else self.action


def instructions(program: bytes) -> list[tuple[int, int, int, int]]:
    if len(program) % 8:
        raise BpfError(f"a BPF program is a multiple of 8 bytes, got {len(program)}")
    return [struct.unpack_from("<HBBI", program, offset) for offset in range(0, len(program), 8)]


def seccomp_data(number: int, arch: int, args: tuple[int, ...], ip: int = 0) -> bytes:
    padded = [arg & 0xFFFF_FFFF_FFFF_FFFF for arg in (*args, *(0,) * (6 - len(args)))]
    return struct.pack("<iIQ6Q", number, arch, ip, *padded)


def run(program: bytes, data: bytes) -> Verdict:
    code = instructions(program)
    a = x = 0
    memory = [0] * 16
    pc = 0
    mask = 0xFFFF_FFFF
    while pc < len(code):
        op, jt, jf, k = code[pc]
        pc += 1
        cls = op & 0x07
        if cls == 0x00:  # LD
            mode = op & 0xE0
            if mode == 0x20 and op & 0x18 == 0x00:  # W ABS
                if k % 4 or k + 4 > len(data):
                    raise BpfError(f"load outside seccomp_data at {k}")
                (a,) = struct.unpack_from("<I", data, k)
            elif mode == 0x00:  # IMM
                a = k
            elif mode == 0x60:  # MEM
                a = memory[k]
            elif mode == 0x80:  # LEN
                a = len(data)
            else:
                raise BpfError(f"unknown load {op:#x}")
        elif cls == 0x01:  # LDX
            mode = op & 0xE0
            if mode == 0x00:
                x = k
            elif mode == 0x60:
                x = memory[k]
            elif mode == 0x80:
                x = len(data)
            else:
                raise BpfError(f"unknown ldx {op:#x}")
        elif cls == 0x02:  # ST
            memory[k] = a
        elif cls == 0x03:  # STX
            memory[k] = x
        elif cls == 0x04:  # ALU
            operand = x if op & 0x08 else k
            alu = op & 0xF0
            if alu == 0x00:
                a = (a + operand) & mask
            elif alu == 0x10:
                a = (a - operand) & mask
            elif alu == 0x20:
                a = (a * operand) & mask
            elif alu == 0x30:
                a = a // operand if operand else 0
            elif alu == 0x40:
                a |= operand
            elif alu == 0x50:
                a &= operand
            elif alu == 0x60:
                a = (a << operand) & mask
            elif alu == 0x70:
                a >>= operand
            elif alu == 0x80:
                a = (-a) & mask
            elif alu == 0x90:
                a = a % operand if operand else 0
            elif alu == 0xA0:
                a ^= operand
            else:
                raise BpfError(f"unknown alu {op:#x}")
        elif cls == 0x05:  # JMP
            jump = op & 0xF0
            operand = x if op & 0x08 else k
            if jump == 0x00:  # JA
                pc += k
                continue
            if jump == 0x10:
                taken = a == operand
            elif jump == 0x20:
                taken = a > operand
            elif jump == 0x30:
                taken = a >= operand
            elif jump == 0x40:
                taken = bool(a & operand)
            else:
                raise BpfError(f"unknown jump {op:#x}")
            pc += jt if taken else jf
        elif cls == 0x06:  # RET
            value = a if op & 0x18 == 0x10 else k
            return Verdict(ACTIONS.get(value & RET_ACTION_FULL, "unknown"), value & RET_DATA)
        elif cls == 0x07:  # MISC
            if op & 0xF8 == 0x00:
                x = a
            elif op & 0xF8 == 0x80:
                a = x
            else:
                raise BpfError(f"unknown misc {op:#x}")
        else:
            raise BpfError(f"unknown instruction class {op:#x}")
    raise BpfError("the program ran off its end")
