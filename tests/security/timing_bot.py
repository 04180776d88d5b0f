"""A sender or receiver of covert timing channels between two sandboxed bots.

Two bots that share nothing the sandbox lets them name can still share the
machine: a core, the memory bus and the last-level cache, and the page cache of the
read-only files every sandbox sees (``/usr``, the Python runtime). This bot is one
end of such a channel. It is an ordinary SDK bot (the referee starts it in the
default sandbox and waits until it answers Health, like any other); beside serving,
a thread runs a schedule of experiments synchronised by the wall clock (the host's
``CLOCK_REALTIME``: there is no time namespace), one after another:

- ``cpu``: CPU contention. The sender spins through a slot for a 1 and sleeps
  through it for a 0; the receiver spins all the time and reports how many loop
  iterations per second it managed in each slot.
- ``membw``: memory bandwidth and the shared last-level cache. The sender streams
  through a buffer larger than the cache for a 1 and sleeps for a 0; the receiver
  copies a buffer that fits the cache and reports MB/s per slot.
- ``pagecache``: page-cache timing on a shared read-only file. For a 1 the sender
  asks for one page of the file (``POSIX_FADV_WILLNEED`` starts the disk read
  without waiting for it), for a 0 it evicts it (``POSIX_FADV_DONTNEED`` works on
  a read-only descriptor of a file the bot does not own); at ``PROBE_AT`` of the
  slot the receiver times a read of that page (µs: a cached page is a copy, an
  evicted one a disk read). ``width`` pages side by side carry ``width`` bits.
- ``pagecache-fresh``: the same without eviction (as if ``posix_fadvise`` were
  refused): every bit uses a page of its own, far from the others, which the
  sender reads for a 1 and leaves alone for a 0; the receiver times the first
  read of each (only pages nobody read before carry a 0).
- ``pagecache-probe``: the page-cache state read without timing and without
  changing it: ``preadv2(RWF_NOWAIT)`` returns the page if it is cached and
  ``EAGAIN`` (no disk read) if not; the sender sets the state as for ``pagecache``.

Slot ``i`` of an experiment is ``[start + i·slot, start + (i+1)·slot)``. The
receiver does not know the bits: it prints its raw measurement per slot and the
bench (``bench/timing_channel.py``) decodes. Lines printed (stderr, the bot's log):

- ``TIMING-CAPS {json}``: what the page-cache primitives did here (``mincore``,
  ``RWF_NOWAIT``, eviction by ``posix_fadvise``), printed by the receiver;
- ``TIMING {json}``: one experiment's result: role, channel, slot, the slots this
  end reached late, and (receiver) the values;
- ``TIMING-DONE {json}``: the schedule is over.

    python -m tests.security.timing_bot --role receiver --plan BASE64-JSON
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import ctypes
import errno
import json
import mmap
import os
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions

CHANNELS = ("cpu", "membw", "pagecache", "pagecache-fresh", "pagecache-probe")
PAGE = mmap.PAGESIZE
FRESH_SPACING = 256 << 10
"""Distance between the pages of ``pagecache-fresh`` (beyond the kernel's readahead
window, which ``POSIX_FADV_RANDOM`` turns off here anyway)."""
SENDER_STREAM_MB = 128
"""The sender's buffer for ``membw`` (four times this machine's kind of L3)."""
RECEIVER_COPY_MB = 8
"""The receiver's buffer for ``membw`` (fits a shared L3; larger than L2)."""
PROBE_AT = 0.7
"""Where in its slot the receiver looks at the page cache (the sender acts at the start)."""
CHUNK = 1 << 19
"""Bytes copied between two looks at the clock (``membw``)."""


@dataclass(frozen=True, slots=True)
class Experiment:
    channel: str
    start: float
    """Wall-clock time (``time.time()``) of slot 0."""
    slot_s: float
    slots: int
    bits: str = ""
    """The sender's bits ('0'/'1', ``width`` per slot); empty for the receiver."""
    width: int = 1
    """Bits per slot: the page-cache channels use ``width`` pages side by side."""
    page_seed: int = 0
    """Which pages of the file the page-cache channels use (both ends agree)."""

    def slot_start(self, index: int) -> float:
        return self.start + index * self.slot_s

    def pages(self, shared: SharedFile) -> list[list[int]]:
        """The pages of each slot (both ends compute the same): fresh pages for every
        bit of ``pagecache-fresh``, the same ``width`` pages in every slot otherwise."""
        if self.channel == "pagecache-fresh":
            every = shared.pages(self.page_seed, self.slots * self.width, FRESH_SPACING)
            return [every[i * self.width : (i + 1) * self.width] for i in range(self.slots)]
        return [shared.pages(self.page_seed, self.width, FRESH_SPACING)] * self.slots


def decode_plan(text: str) -> dict[str, Any]:
    plan: dict[str, Any] = json.loads(base64.urlsafe_b64decode(text.encode()))
    return plan


def report(kind: str, data: dict[str, Any]) -> None:
    print(f"{kind} " + json.dumps(data), file=sys.stderr, flush=True)


def wait_until(when: float) -> None:
    """Sleep until the wall clock reaches ``when`` (the last stretch spun: ``sleep``
    overshoots by up to a scheduler tick)."""
    while (left := when - time.time()) > 0.002:
        time.sleep(left - 0.001)
    while time.time() < when:
        pass


def spin_until(when: float) -> None:
    while time.time() < when:
        pass


# -- the page-cache primitives -------------------------------------------------------------


class SharedFile:
    """A large read-only file every sandbox sees: its pages are the channel."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        self.size = os.fstat(self.fd).st_size
        # No readahead through this descriptor: a read brings in one page only.
        os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_RANDOM)
        self.buffer = bytearray(PAGE)

    def pages(self, seed: int, count: int, spacing: int) -> list[int]:
        """``count`` page offsets, ``spacing`` bytes apart at least, chosen by ``seed``."""
        slots = max(1, self.size // spacing - 1)
        if count > slots:
            raise ValueError(f"{self.path} has room for {slots} pages {spacing} bytes apart")
        return [index * spacing for index in random.Random(seed).sample(range(slots), count)]

    def warm(self, offset: int) -> None:
        os.pread(self.fd, PAGE, offset)

    def prefetch(self, offset: int) -> None:
        """Ask for the page to be read in, without waiting for the disk."""
        os.posix_fadvise(self.fd, offset, PAGE, os.POSIX_FADV_WILLNEED)

    def evict(self, offset: int) -> None:
        os.posix_fadvise(self.fd, offset, PAGE, os.POSIX_FADV_DONTNEED)

    def timed_read_us(self, offset: int) -> float:
        began = time.perf_counter()
        os.pread(self.fd, PAGE, offset)
        return (time.perf_counter() - began) * 1e6

    def cached(self, offset: int) -> bool:
        """Whether the page is in the page cache, by ``preadv2(RWF_NOWAIT)`` (no disk
        read, no change to the cache)."""
        try:
            os.preadv(self.fd, [self.buffer], offset, os.RWF_NOWAIT)
        except BlockingIOError:
            return False
        return True


def mincore_resident(shared: SharedFile, offset: int) -> bool | str:
    """What ``mincore`` says of one page of a private mapping of the file (since
    Linux 5.2 it only tells a file's owner or writer about pages not mapped here)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    mapping = mmap.mmap(shared.fd, PAGE, access=mmap.ACCESS_COPY, offset=offset)
    try:
        anchor = ctypes.c_char.from_buffer(mapping)
        vector = (ctypes.c_ubyte * 1)()
        if libc.mincore(ctypes.addressof(anchor), PAGE, vector) != 0:
            return f"error {errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())}"
        del anchor
        return bool(vector[0] & 1)
    finally:
        with contextlib.suppress(BufferError):
            mapping.close()


def capabilities(path: str, seed: int) -> dict[str, Any]:
    """What the page-cache primitives do in this sandbox, on one page of ``path``."""
    caps: dict[str, Any] = {"file": path}
    try:
        shared = SharedFile(path)
    except OSError as error:
        return {**caps, "error": repr(error)}
    offset = shared.pages(seed ^ 0x5EED, 1, FRESH_SPACING)[0]

    def attempt(name: str, action: Callable[[], object]) -> None:
        try:
            caps[name] = action()
        except OSError as error:
            caps[name] = f"error {errno.errorcode.get(error.errno or 0, error.errno)}"

    def evicted() -> bool:
        shared.evict(offset)
        return shared.cached(offset)

    attempt("evicted_then_cached", evicted)
    attempt("evicted_read_us", lambda: round(shared.timed_read_us(offset), 1))
    attempt("read_then_cached", lambda: shared.cached(offset))
    attempt("cached_read_us", lambda: round(shared.timed_read_us(offset), 1))
    attempt("mincore_after_read", lambda: mincore_resident(shared, offset))
    attempt("evict_again", evicted)
    attempt("mincore_after_evict", lambda: mincore_resident(shared, offset))
    return caps


# -- the two ends --------------------------------------------------------------------------


class Sender:
    def __init__(self, shared: SharedFile | None, membw: bool) -> None:
        self.shared = shared
        size = (SENDER_STREAM_MB << 20) if membw else CHUNK
        self.stream, self.stream_to = bytearray(size), bytearray(size)
        self.stream_to[:] = self.stream  # touch every page before the first slot

    def run(self, experiment: Experiment) -> dict[str, Any]:
        late = 0
        width = experiment.width
        paged = experiment.channel.startswith("pagecache") and self.shared is not None
        pages = experiment.pages(self.shared) if paged and self.shared else []
        for index in range(experiment.slots):
            begin, end = experiment.slot_start(index), experiment.slot_start(index + 1)
            if time.time() > begin + experiment.slot_s / 4:
                late += 1
            else:
                wait_until(begin)
            bits = experiment.bits[index * width : (index + 1) * width]
            self._send(experiment.channel, bits, end, pages[index] if pages else [])
        wait_until(experiment.slot_start(experiment.slots))
        return {"late": late}

    def _send(self, channel: str, bits: str, end: float, pages: Sequence[int]) -> None:
        if channel == "cpu":
            if bits == "1":
                spin_until(end)
        elif channel == "membw":
            if bits == "1":
                self._stream_until(end)
        else:
            assert self.shared is not None
            for bit, page in zip(bits, pages, strict=True):
                if channel == "pagecache-fresh":
                    if bit == "1":
                        self.shared.warm(page)
                elif bit == "1":
                    self.shared.prefetch(page)
                else:
                    self.shared.evict(page)

    def _stream_until(self, end: float) -> None:
        source, target = memoryview(self.stream), memoryview(self.stream_to)
        size = len(self.stream)
        offset = 0
        while time.time() < end:
            target[offset : offset + CHUNK] = source[offset : offset + CHUNK]
            offset = (offset + CHUNK) % size


class Receiver:
    def __init__(self, shared: SharedFile | None, membw: bool) -> None:
        self.shared = shared
        size = (RECEIVER_COPY_MB << 20) if membw else CHUNK
        self.copy, self.copy_to = bytearray(size), bytearray(size)
        self.copy_to[:] = self.copy

    def run(self, experiment: Experiment) -> dict[str, Any]:
        values: list[float] = []
        late = 0
        measure = self._measure(experiment)
        for index in range(experiment.slots):
            begin, end = experiment.slot_start(index), experiment.slot_start(index + 1)
            if time.time() > begin + experiment.slot_s / 4:
                late += 1
            values += [round(value, 3) for value in measure(index, begin, end)]
        return {"late": late, "values": values}

    def _measure(self, experiment: Experiment) -> Callable[[int, float, float], list[float]]:
        channel, slot = experiment.channel, experiment.slot_s
        if channel == "cpu":
            return lambda _, begin, end: [self._iterations(begin + slot / 10, end)]
        if channel == "membw":
            return lambda _, begin, end: [self._bandwidth(begin + slot / 10, end)]
        assert self.shared is not None
        shared = self.shared
        pages = experiment.pages(shared)

        def probe(index: int, begin: float, end: float) -> list[float]:
            wait_until(begin + slot * PROBE_AT)
            if channel == "pagecache-probe":
                values = [1.0 if shared.cached(page) else 0.0 for page in pages[index]]
            else:
                values = [shared.timed_read_us(page) for page in pages[index]]
            wait_until(end)
            return values

        return probe

    @staticmethod
    def _iterations(begin: float, end: float) -> float:
        """Loop iterations per second between ``begin`` and ``end`` (spinning before)."""
        spin_until(begin)
        count = 0
        now = time.time()
        while now < end:
            for _ in range(64):
                pass
            count += 1
            now = time.time()
        return count * 64 / max(1e-9, now - begin)

    def _bandwidth(self, begin: float, end: float) -> float:
        """MB/s copied within the receiver's cache-sized buffer."""
        source, target = memoryview(self.copy), memoryview(self.copy_to)
        size = len(self.copy)
        spin_until(begin)
        copied = offset = 0
        now = time.time()
        while now < end:
            target[offset : offset + CHUNK] = source[offset : offset + CHUNK]
            copied += CHUNK
            offset = (offset + CHUNK) % size
            now = time.time()
        return copied / max(1e-9, now - begin) / 1e6


def run_plan(role: str, plan: dict[str, Any]) -> None:
    """Run every experiment of ``plan`` as ``role`` and report each."""
    experiments = [Experiment(**item) for item in plan["experiments"]]
    path = plan.get("file", "")
    shared: SharedFile | None = None
    if path:
        try:
            shared = SharedFile(path)
        except OSError as error:
            report("TIMING-ERROR", {"role": role, "error": f"cannot open {path}: {error!r}"})
    if role == "receiver" and path:
        report("TIMING-CAPS", capabilities(path, int(plan.get("seed", 0))))
    membw = any(experiment.channel == "membw" for experiment in experiments)
    end: Sender | Receiver = (Sender if role == "sender" else Receiver)(shared, membw)
    report("TIMING-READY", {"role": role, "at": time.time(), "cores": affinity()})
    for experiment in experiments:
        if shared is None and experiment.channel.startswith("pagecache"):
            continue
        try:
            result = end.run(experiment)
        except OSError as error:
            result = {"error": repr(error)}
        report(
            "TIMING",
            {
                "role": role,
                "channel": experiment.channel,
                "slot_ms": experiment.slot_s * 1e3,
                "slots": experiment.slots,
                "width": experiment.width,
                **result,
            },
        )
    report("TIMING-DONE", {"role": role, "cores": affinity()})


def affinity() -> list[int]:
    return sorted(os.sched_getaffinity(0))


class TimingBot(Bot[Observation, Action]):
    """Plays random legal moves if asked to; the channel runs beside."""

    game = "liars_dice"
    name = "timing"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--role", choices=("sender", "receiver"), required=True)
    parser.add_argument("--plan", required=True)
    options, _ = parser.parse_known_args(argv)
    plan = decode_plan(options.plan)
    threading.Thread(target=run_plan, args=(options.role, plan), daemon=True).start()
    run(TimingBot, argv=[])


if __name__ == "__main__":
    main()
