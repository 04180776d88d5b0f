"""A Liar's Dice bot that, before it serves, makes every call of the width tests.

    python -m tests.security.width_probe

Each call of :func:`tests.security.width_cases.cases` goes through raw ``syscall()``
with its six arguments as full 64-bit registers (so bit 32 and above reach the
filter), and the bot prints one line ``ATTACK {json}`` on stderr with the result of
each, in order: ``[return value, errno name]``. Then it plays random legal moves.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import random
import sys

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions
from tests.security.width_cases import cases, number

PER_QUERY = 0xFFFF_FFFF


def make_calls() -> list[list[object]]:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    persona = libc.personality(ctypes.c_ulong(PER_QUERY))
    numbers: dict[str, int] = {}
    results: list[list[object]] = []
    for case in cases():
        call = numbers.setdefault(case.name, number(case.name))
        ctypes.set_errno(0)
        result = libc.syscall(ctypes.c_long(call), *(ctypes.c_ulong(arg) for arg in case.args))
        code = ctypes.get_errno() if result == -1 else 0
        results.append([int(result), errno.errorcode.get(code, str(code)) if code else ""])
    libc.personality(ctypes.c_ulong(persona))  # the probe set some; put it back
    return results


class ProbeBot(Bot[Observation, Action]):
    game = "liars_dice"

    def __init__(self) -> None:
        self.rng = random.Random()

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


def main() -> None:
    line = json.dumps({"attack": "widths", "pid": os.getpid(), "calls": make_calls()})
    print("ATTACK " + line, file=sys.stderr, flush=True)
    run(ProbeBot)


if __name__ == "__main__":
    main()
