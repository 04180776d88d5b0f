"""Each finished match's luck for the league runner's writes, computed where it does not
stall the matches in flight: :class:`LuckWorker`.

    python -m league.execution.luck_worker   (started by a run; pickled frames on its pipes)

A match's luck (:func:`league.store.match_luck.match_luck`) is stored with its result,
so it is computed as the run writes it, in the result writer's worker thread
(:mod:`league.execution.result_writer`). That thread shares the interpreter lock with the
event loop's thread, which referees every match in flight in this process: while the
writer computes, each of the event loop's wake-ups waits about one switch interval
(5 ms) for the lock. Most games' luck takes a few ms a match (Liar's Dice, Liar's Poker
Dice, Liar's Poker, Cockroach Poker) and is computed in that thread; Dice Poker's takes
about 200 ms (its baseline values every roll of every turn), so once one match's luck
has taken over :data:`SLOW_S` (not the run's first: it reads the game's baseline data),
the run's next ones are computed by a process of the worker's own, started then, on
which the writer's thread waits without holding the lock. Should that process fail,
the writer's thread computes them again, as before.

The process is this module run with the run's interpreter and environment, in a session
of its own (a Ctrl-C reaches only the runner, which still writes what finished); end of
file on its input ends it. Requests and answers are length-prefixed pickles: the two
ends are the same program.
"""

from __future__ import annotations

import os
import pickle
import struct
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import IO, Any

from league.store.match_luck import MatchLuck, match_luck
from referee.core.mixed import MixedAnswer
from referee.records.record import MatchRecord

SLOW_S = 0.05
"""A match's luck computed in the writer's thread for longer than this (50 ms: ten
interpreter switch intervals) sends the run's next ones to a process of their own."""
COMMAND = (sys.executable, "-m", "league.execution.luck_worker")
CLOSE_S = 10.0
"""Time the process has to exit once its input ends, before it is killed."""

Played = tuple[MatchRecord, Mapping[int, Sequence[MixedAnswer]]]
_LENGTH = struct.Struct(">I")


class LuckProcessError(Exception):
    """The luck process did not answer (the text says why)."""


def _send(stream: IO[bytes], value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    """The next value, or :class:`EOFError` at the end of the stream."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError
    size = _LENGTH.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


class LuckWorker:
    """Computes finished matches' luck, in the calling thread while it is quick, then in
    a process of its own; :meth:`close` (or leaving its ``with``) stops that process."""

    def __init__(self, slow_s: float = SLOW_S) -> None:
        self.slow_s = slow_s
        self.here = 0
        """Matches whose luck was computed in the calling thread."""
        self.elsewhere = 0
        """Matches whose luck the process computed."""
        self.failure = ""
        """Why the process stopped answering (then none is started again)."""
        self._process: subprocess.Popen[bytes] | None = None

    def lucks(self, played: Sequence[Played]) -> list[MatchLuck | None]:
        """Each match's luck (:func:`~league.store.match_luck.match_luck`), in order."""
        return [self._luck(record, mixed) for record, mixed in played]

    def _luck(
        self, record: MatchRecord, mixed: Mapping[int, Sequence[MixedAnswer]]
    ) -> MatchLuck | None:
        if self._process is not None:
            try:
                found = self._ask(self._process, record, mixed)
                self.elsewhere += 1
                return found
            except (LuckProcessError, OSError, EOFError, pickle.PickleError) as error:
                self.failure = str(error) or type(error).__name__
                self.close()
        began = time.perf_counter()
        found = match_luck(record, mixed)
        self.here += found is not None
        slow = time.perf_counter() - began > self.slow_s
        if slow and self.here > 1 and self._process is None and not self.failure:
            self._start()
        return found

    def _start(self) -> None:
        try:
            self._process = subprocess.Popen(
                COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
            )
        except OSError as error:
            self.failure = f"cannot start {' '.join(COMMAND)}: {error}"

    @staticmethod
    def _ask(
        process: subprocess.Popen[bytes],
        record: MatchRecord,
        mixed: Mapping[int, Sequence[MixedAnswer]],
    ) -> MatchLuck | None:
        assert process.stdin is not None and process.stdout is not None
        _send(process.stdin, (record, {seat: list(answers) for seat, answers in mixed.items()}))
        status, value = _receive(process.stdout)
        if status != "ok":
            raise LuckProcessError(f"the luck process failed: {value}")
        assert value is None or isinstance(value, MatchLuck)
        return value

    def close(self) -> None:
        """End the process's input and wait for it to exit (killed after :data:`CLOSE_S`)."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=CLOSE_S)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        finally:
            if process.stdout is not None:
                process.stdout.close()

    def __enter__(self) -> LuckWorker:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def main() -> None:
    """The process: a luck per request until its input ends. Its standard output is the
    answers' pipe alone (whatever the game's code prints goes to standard error)."""
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    requests = sys.stdin.buffer
    while True:
        try:
            record, mixed = _receive(requests)
        except EOFError:
            return
        try:
            answer: tuple[str, object] = ("ok", match_luck(record, mixed))
        except Exception as error:  # the run computes it again itself, and sees the error
            answer = ("error", f"{type(error).__name__}: {error}")
        _send(answers, answer)


if __name__ == "__main__":
    main()
