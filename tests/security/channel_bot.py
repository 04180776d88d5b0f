"""Two sandboxes talking: a sender and a receiver of bits, for every channel class.

    python -m tests.security.channel_bot --config HEX

At start-up, before it serves, the bot runs one side of a channel session, then plays
random legal Liar's Dice moves. Both sides keep wall-clock slots (``start`` + k ×
``slot_s``); in slot k the sender puts bit k of each of its *actions* on the shared
kernel object that action drives, and the receiver looks at each *channel* once (or
collects its events) in that slot. The receiver prints what it saw, per channel and
slot, as ``ATTACK {json}`` on stderr; the test decodes (tests/security/test_channels.py).

Actions (sender) and the channels (receiver) that observe them:

  lock      a read lock on bytes of a runtime file (fcntl)   -> fcntl (F_GETLK)
  ofd       an open-file-description lock on other bytes       -> ofd (F_OFD_GETLK)
  flock     a shared flock on another runtime file             -> flock (LOCK_EX|LOCK_NB)
  open      opens a file in a watched runtime directory        -> inotify (IN_OPEN events)
  wake      FUTEX_WAKE on a word of a mapped runtime file      -> futex (a shared FUTEX_WAIT)
  threads   100 more threads                                   -> loadavg (threads), sysinfo (procs)
  files     200 more open files                                -> file_nr (/proc/sys/fs/file-nr)
  memory    64 MiB more touched, kept to the end             -> meminfo (MemFree)
  forks     300 short-lived threads (clones)                   -> stat (``processes`` of /proc/stat)
  cache     reads a page of a cold runtime file                -> nowait (preadv2
                                                                  RWF_NOWAIT), cachestat
  shm       a System V shared memory segment with a known key  -> sysv (shmget)
  abstract  listens on an abstract unix socket name            -> abstract (connect)

The same, through raw system calls with bit 32 of the checked argument set (the kernel
reads the low 32 bits; the round-three filter compared all 64 and let them through):

  lock_hi   F_SETLK | 1 << 32 on other bytes                  -> fcntl_hi (F_GETLK | 1 << 32)
  ofd_hi    F_OFD_SETLK | 1 << 32 on other bytes              -> ofd_hi (F_OFD_GETLK | 1 << 32)
  evict_hi  fadvise(POSIX_FADV_DONTNEED | 1 << 32) of a page   -> evict_hi (preadv2 RWF_NOWAIT
            the receiver read at start-up                         | 1 << 32: not cached)

Everything the two sides must agree on (files, offsets, names) comes from the run's
``token``, so two sessions never share an object.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import errno
import json
import mmap
import os
import select
import socket
import struct
import sys
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sdk import Bot, run
from sdk.liars_dice import Action, Observation, legal_actions

ACTIONS = (
    "lock",
    "ofd",
    "flock",
    "open",
    "wake",
    "threads",
    "files",
    "memory",
    "forks",
    "cache",
    "shm",
    "abstract",
    "lock_hi",
    "ofd_hi",
    "evict_hi",
)
CHANNELS = {
    "fcntl": "lock",
    "ofd": "ofd",
    "flock": "flock",
    "inotify": "open",
    "futex": "wake",
    "loadavg": "threads",
    "sysinfo": "threads",
    "file_nr": "files",
    "meminfo": "memory",
    "stat": "forks",
    "nowait": "cache",
    "cachestat": "cache",
    "sysv": "shm",
    "abstract": "abstract",
    "fcntl_hi": "lock_hi",
    "ofd_hi": "ofd_hi",
    "evict_hi": "evict_hi",
}
"""Each channel the receiver reads, and the sender's action that drives it."""

STDLIB = Path(os.__file__).parent
LOCK_FILE = STDLIB / "os.py"
FLOCK_FILE = STDLIB / "json" / "__init__.py"
WATCHED_DIR = STDLIB / "xmlrpc"
OPENED_FILE = WATCHED_DIR / "__init__.py"
CACHE_FILE = STDLIB / "pydoc_data" / "topics.py"
EVICT_FILE = STDLIB / "_pydecimal.py"
EVICT_STRIDE = 2
PAGE = 4096
MEMORY_BYTES = 64 << 20
"""Kept until the session ends: pages freed go to the kernel's per-CPU lists, and
the next block is served from them without MemFree moving (measured: a second
384 MiB block freed and taken again moved MemFree by 0)."""
FORKS = 300
CACHE_STRIDE = 8
"""Pages apart that two slots' cache pages lie (read-ahead is off; a margin anyway)."""

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.memset.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t)
libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
MMAP_RW = mmap.PROT_READ | mmap.PROT_WRITE
MMAP_ANON = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
)
SYS_FUTEX, SYS_CACHESTAT = 202, 451
RAW = {
    "x86_64": {"fcntl": 72, "fadvise64": 221, "preadv2": 327},
    "aarch64": {"fcntl": 25, "fadvise64": 223, "preadv2": 286},
}.get(os.uname().machine, {})
HIGH_BIT = 1 << 32
"""Set in a checked 32-bit argument: the kernel ignores it."""
F_GETLK, F_SETLK = 5, 6
POSIX_FADV_DONTNEED = 4
RWF_NOWAIT = 0x08
FUTEX_WAIT, FUTEX_WAKE = 0, 1
IPC_CREAT, IPC_RMID = 0o1000, 0
F_OFD_GETLK, F_OFD_SETLK = 36, 37
IN_OPEN = 0x20


COUNTERS = ("loadavg", "sysinfo", "file_nr")
"""Host-wide levels the receiver reads with the sender's bit on and again after."""


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class SysInfo(ctypes.Structure):
    _fields_ = [
        ("uptime", ctypes.c_long),
        ("loads", ctypes.c_ulong * 3),
        ("totalram", ctypes.c_ulong),
        ("freeram", ctypes.c_ulong),
        ("sharedram", ctypes.c_ulong),
        ("bufferram", ctypes.c_ulong),
        ("totalswap", ctypes.c_ulong),
        ("freeswap", ctypes.c_ulong),
        ("procs", ctypes.c_ushort),
        ("pad", ctypes.c_char * 22),
    ]


def encode_config(**values: Any) -> str:
    """``--config`` for ``values`` (hex in chunks: see hostile_bot.encode_config)."""
    text = json.dumps(values, sort_keys=True).encode().hex()
    return "/".join(text[i : i + 128] for i in range(0, len(text), 128))


def errname(error: OSError | int) -> str:
    number = error if isinstance(error, int) else (error.errno or 0)
    return errno.errorcode.get(number, str(number))


class Session:
    """What both sides derive from the config."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.token: str = config["token"]
        self.start: float = config["start"]
        self.slot_s: float = config["slot_s"]
        self.slots: int = config["slots"]
        seed = zlib.crc32(self.token.encode())
        self.lock_offset = 1 << 20 | (seed % 100_000) * 4
        self.futex_offset = (seed % 1000) * 4
        self.shm_key = 0x5A000000 | (seed & 0xFFFFFF)
        self.abstract_name = b"\0arena-channel-" + self.token.encode()

    def slot_time(self, slot: int, fraction: float) -> float:
        return self.start + (slot + fraction) * self.slot_s

    def sleep_until(self, when: float, late: float = 0.1) -> bool:
        """Sleep until ``when``; False when it has already passed by ``late`` of a slot."""
        delay = when - time.time()
        if delay < -late * self.slot_s:
            return False
        if delay > 0:
            time.sleep(delay)
        return True

    def cache_page(self, slot: int) -> int:
        return (1 + slot * CACHE_STRIDE) * PAGE

    def evict_page(self, slot: int) -> int:
        return (1 + slot * EVICT_STRIDE) * PAGE


def flock_struct(kind: int, start: int, pid: int = 0) -> bytes:
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, start, 1, pid)


def raw(name: str, *args: Any) -> int:
    """The system call ``name`` made directly, each integer a full 64-bit register."""
    words = [ctypes.c_ulong(a & 0xFFFF_FFFF_FFFF_FFFF) if isinstance(a, int) else a for a in args]
    result = int(libc.syscall(ctypes.c_long(RAW[name]), *words))
    if result < 0:
        raise OSError(ctypes.get_errno(), name)
    return result


def raw_fcntl_lock(fd: int, command: int, argument: bytes) -> bytes:
    """fcntl(fd, command | 1 << 32, &flock): a lock command with bit 32 set."""
    buffer = ctypes.create_string_buffer(argument, len(argument))
    raw("fcntl", fd, command | HIGH_BIT, buffer)
    return buffer.raw[: len(argument)]


def lock_held(answer: bytes) -> bool:
    return bool(struct.unpack("hhqqi4x", answer)[0] != 2)


# -- the sender -----------------------------------------------------------------------------


class Sender:
    def __init__(self, session: Session, bits: dict[str, list[int]]) -> None:
        self.s = session
        self.bits = bits
        self.errors: dict[str, str] = {}
        self.lock_fd = os.open(LOCK_FILE, os.O_RDONLY)
        self.ofd_fd = os.open(LOCK_FILE, os.O_RDONLY)
        self.flock_fd = os.open(FLOCK_FILE, os.O_RDONLY)
        self.cache_fd = os.open(CACHE_FILE, os.O_RDONLY)
        self.evict_fd = os.open(EVICT_FILE, os.O_RDONLY)
        with contextlib.suppress(OSError):
            os.posix_fadvise(self.cache_fd, 0, 0, os.POSIX_FADV_RANDOM)
        with contextlib.suppress(OSError):  # start cold (a no-op with the channels closed)
            os.posix_fadvise(self.cache_fd, 0, 0, os.POSIX_FADV_DONTNEED)
        self.futex_map = libc.mmap(None, PAGE, mmap.PROT_READ, mmap.MAP_SHARED, self.lock_fd, 0)
        self.held: list[Callable[[], object]] = []
        self.kept: list[Callable[[], object]] = []

    def note(self, action: str, error: OSError | int) -> None:
        self.errors.setdefault(action, errname(error))

    @staticmethod
    def unlocker(fd: int, command: int, start: int) -> Callable[[], object]:
        return lambda: raw_fcntl_lock(fd, command, flock_struct(2, start))

    def on(self, action: str, slot: int) -> bool:
        bits = self.bits.get(action)
        return bool(bits and bits[slot])

    def hold(self, slot: int) -> None:
        """Slot start: put on the state of every level action whose bit is 1."""
        if self.on("lock", slot):
            try:
                fcntl_call(self.lock_fd, 6, flock_struct(0, self.s.lock_offset))  # F_SETLK rd
                self.held.append(
                    lambda: fcntl_call(self.lock_fd, 6, flock_struct(2, self.s.lock_offset))
                )
            except OSError as error:
                self.note("lock", error)
        if self.on("ofd", slot):
            try:
                fcntl_call(self.ofd_fd, F_OFD_SETLK, flock_struct(0, self.s.lock_offset + 8))
                self.held.append(
                    lambda: fcntl_call(
                        self.ofd_fd, F_OFD_SETLK, flock_struct(2, self.s.lock_offset + 8)
                    )
                )
            except OSError as error:
                self.note("ofd", error)
        for action, command, offset in (("lock_hi", F_SETLK, 16), ("ofd_hi", F_OFD_SETLK, 24)):
            if self.on(action, slot):
                fd = self.lock_fd if action == "lock_hi" else self.ofd_fd
                try:
                    raw_fcntl_lock(fd, command, flock_struct(0, self.s.lock_offset + offset))
                    self.held.append(self.unlocker(fd, command, self.s.lock_offset + offset))
                except OSError as error:
                    self.note(action, error)
        if self.on("flock", slot):
            import fcntl

            try:
                fcntl.flock(self.flock_fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                self.held.append(lambda: fcntl.flock(self.flock_fd, fcntl.LOCK_UN))
            except OSError as error:
                self.note("flock", error)
        if self.on("threads", slot):
            stop = threading.Event()
            threads = [threading.Thread(target=stop.wait, daemon=True) for _ in range(100)]
            started = []
            for thread in threads:
                try:
                    thread.start()
                    started.append(thread)
                except RuntimeError as error:
                    self.errors.setdefault("threads", str(error))
                    break
            self.held.append(stop.set)
        if self.on("files", slot):
            fds = []
            for _ in range(200):
                try:
                    fds.append(os.open("/dev/null", os.O_RDONLY))
                except OSError as error:
                    self.note("files", error)
                    break
            self.held.append(lambda: closerange(fds))
        if self.on("shm", slot):
            segment = libc.shmget(self.s.shm_key, PAGE, IPC_CREAT | 0o600)
            if segment < 0:
                self.note("shm", ctypes.get_errno())
            else:
                self.held.append(lambda: libc.shmctl(segment, IPC_RMID, None) and None)
        if self.on("abstract", slot):
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                listener.bind(self.s.abstract_name)
                listener.listen(8)
            except OSError as error:
                self.note("abstract", error)
            self.held.append(listener.close)

    def events(self, slot: int) -> None:
        """Mid-slot: the event actions (memory is one: pages taken show up in the
        host's free memory at once)."""
        if self.on("memory", slot):
            block = libc.mmap(None, MEMORY_BYTES, MMAP_RW, MMAP_ANON, -1, 0)
            if block in (None, ctypes.c_void_p(-1).value):
                self.note("memory", ctypes.get_errno())
            else:
                self.kept.append(self.touch(block))
        if self.on("cache", slot):
            try:
                os.pread(self.cache_fd, PAGE, self.s.cache_page(slot))
            except OSError as error:
                self.note("cache", error)
        if self.on("evict_hi", slot):
            try:
                advice = POSIX_FADV_DONTNEED | HIGH_BIT
                raw("fadvise64", self.evict_fd, self.s.evict_page(slot), PAGE, advice)
            except OSError as error:
                self.note("evict_hi", error)
        if self.on("open", slot):
            for _ in range(3):
                with contextlib.suppress(OSError):
                    os.close(os.open(OPENED_FILE, os.O_RDONLY))
        if self.on("wake", slot):
            address = self.futex_map + self.s.futex_offset
            for _ in range(2):
                woken = libc.syscall(SYS_FUTEX, ctypes.c_void_p(address), FUTEX_WAKE, 1 << 30)
                if woken < 0:
                    self.note("wake", ctypes.get_errno())
                time.sleep(0.05 * self.s.slot_s)
        if self.on("forks", slot):
            for _ in range(FORKS):
                thread = threading.Thread(target=int)
                try:
                    thread.start()
                except RuntimeError as error:
                    self.errors.setdefault("forks", str(error))
                    break
                thread.join()

    @staticmethod
    def touch(block: int) -> Callable[[], None]:
        """Fill ``block`` in a thread (memset drops the GIL: the other events do not
        wait); what lets it go."""
        toucher = threading.Thread(target=libc.memset, args=(block, 1, MEMORY_BYTES), daemon=True)
        toucher.start()

        def free() -> None:
            toucher.join()
            libc.munmap(ctypes.c_void_p(block), MEMORY_BYTES)

        return free

    def release(self) -> None:
        while self.held:
            with contextlib.suppress(OSError):
                self.held.pop()()

    def run(self) -> dict[str, Any]:
        sent = []
        for slot in range(self.s.slots):
            if not self.s.sleep_until(self.s.slot_time(slot, 0.02), late=0.3):
                continue
            self.hold(slot)
            self.s.sleep_until(self.s.slot_time(slot, 0.3))
            if time.time() < self.s.slot_time(slot, 0.55):
                self.events(slot)
            self.s.sleep_until(self.s.slot_time(slot, 0.85))
            self.release()
            sent.append(slot)
        self.held, self.kept = self.kept, []
        self.release()
        return {"role": "send", "slots": sent, "errors": self.errors}


def closerange(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def fcntl_call(fd: int, command: int, argument: bytes) -> bytes:
    import fcntl

    return fcntl.fcntl(fd, command, argument)


# -- the receiver ---------------------------------------------------------------------------


class Receiver:
    def __init__(self, session: Session) -> None:
        self.s = session
        self.seen: dict[str, list[tuple[int, Any]]] = {name: [] for name in CHANNELS}
        self.errors: dict[str, str] = {}
        self.lock_fd = os.open(LOCK_FILE, os.O_RDONLY)
        self.flock_fd = os.open(FLOCK_FILE, os.O_RDONLY)
        self.cache_fd = os.open(CACHE_FILE, os.O_RDONLY)
        with contextlib.suppress(OSError):
            os.posix_fadvise(self.cache_fd, 0, 0, os.POSIX_FADV_RANDOM)
        self.evict_fd = os.open(EVICT_FILE, os.O_RDONLY)
        with contextlib.suppress(OSError):
            os.posix_fadvise(self.evict_fd, 0, 0, os.POSIX_FADV_RANDOM)
        for slot in range(session.slots):  # every page the sender may evict, cached
            os.pread(self.evict_fd, PAGE, session.evict_page(slot))
        self.futex_map = libc.mmap(None, PAGE, mmap.PROT_READ, mmap.MAP_SHARED, self.lock_fd, 0)
        self.inotify_fd = libc.inotify_init1(os.O_NONBLOCK)
        watched = str(WATCHED_DIR).encode()
        if self.inotify_fd < 0 or libc.inotify_add_watch(self.inotify_fd, watched, IN_OPEN) < 0:
            self.errors["inotify"] = errname(ctypes.get_errno())

    def record(self, channel: str, slot: int, read: Callable[..., Any], *args: Any) -> None:
        try:
            value = read(*args)
        except OSError as error:
            self.errors.setdefault(channel, errname(error))
            return
        except (ValueError, IndexError) as error:  # a file with nothing to parse
            self.errors.setdefault(channel, f"{type(error).__name__}: {error}")
            return
        self.seen[channel].append((slot, value))

    @staticmethod
    def change(read: Callable[[], int], before: int, sign: int = 1) -> int:
        """How far ``read()`` moved from ``before`` (``sign`` -1: ``before`` minus it)."""
        return sign * (read() - before)

    # Level channels, read once mid-slot.

    def fcntl(self) -> bool:
        answer = fcntl_call(self.lock_fd, 5, flock_struct(1, self.s.lock_offset))  # F_GETLK wr
        return bool(struct.unpack("hhqqi4x", answer)[0] != 2)

    def ofd(self) -> bool:
        answer = fcntl_call(self.lock_fd, F_OFD_GETLK, flock_struct(1, self.s.lock_offset + 8))
        return bool(struct.unpack("hhqqi4x", answer)[0] != 2)

    def fcntl_hi(self) -> bool:
        return lock_held(
            raw_fcntl_lock(self.lock_fd, F_GETLK, flock_struct(1, self.s.lock_offset + 16))
        )

    def ofd_hi(self) -> bool:
        answer = raw_fcntl_lock(self.lock_fd, F_OFD_GETLK, flock_struct(1, self.s.lock_offset + 24))
        return lock_held(answer)

    def evict_hi(self, slot: int) -> bool:
        """Whether the page is gone from the cache (preadv2 RWF_NOWAIT | 1 << 32)."""
        buffer = ctypes.create_string_buffer(PAGE)
        vector = (ctypes.c_void_p * 2)(ctypes.cast(buffer, ctypes.c_void_p).value, PAGE)
        try:
            raw(
                "preadv2",
                self.evict_fd,
                vector,
                1,
                self.s.evict_page(slot),
                0,
                RWF_NOWAIT | HIGH_BIT,
            )
        except BlockingIOError:
            return True
        return False

    def flock(self) -> bool:
        import fcntl

        try:
            fcntl.flock(self.flock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(self.flock_fd, fcntl.LOCK_UN)
        return False

    @staticmethod
    def loadavg() -> int:
        return int(Path("/proc/loadavg").read_text().split()[3].split("/")[1])

    @staticmethod
    def sysinfo() -> int:
        info = SysInfo()
        if libc.sysinfo(ctypes.byref(info)) != 0:
            raise OSError(ctypes.get_errno(), "sysinfo")
        return int(info.procs)

    @staticmethod
    def file_nr() -> int:
        return int(Path("/proc/sys/fs/file-nr").read_text().split()[0])

    @staticmethod
    def meminfo() -> int:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemFree:"):
                return int(line.split()[1])
        raise OSError(errno.ENOENT, "no MemFree")

    @staticmethod
    def processes() -> int:
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("processes "):
                return int(line.split()[1])
        raise OSError(errno.ENOENT, "no processes line")

    def nowait(self, slot: int) -> bool:
        buffer = bytearray(PAGE)
        try:
            os.preadv(self.cache_fd, [buffer], self.s.cache_page(slot), os.RWF_NOWAIT)
        except BlockingIOError:
            return False
        return True

    def cachestat(self, slot: int) -> int:
        span = (ctypes.c_uint64 * 2)(self.s.cache_page(slot), PAGE)
        stats = (ctypes.c_uint64 * 5)()
        if libc.syscall(SYS_CACHESTAT, self.cache_fd, span, stats, 0) < 0:
            raise OSError(ctypes.get_errno(), "cachestat")
        return int(stats[0])

    def sysv(self) -> bool:
        if libc.shmget(self.s.shm_key, 0, 0) >= 0:
            return True
        return ctypes.get_errno() != errno.ENOENT  # EACCES: it exists

    def abstract(self) -> bool:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(self.s.abstract_name)
        except (ConnectionRefusedError, FileNotFoundError):
            return False
        finally:
            probe.close()
        return True

    # Event channels, collected over a window of the slot.

    def futex_waits(self) -> None:
        """A thread: in each slot, wait on the shared word until 0.9 of the slot."""
        address = ctypes.c_void_p(self.futex_map + self.s.futex_offset)
        for slot in range(self.s.slots):
            if not self.s.sleep_until(self.s.slot_time(slot, 0.1)):
                continue
            woken = False
            while (left := self.s.slot_time(slot, 0.9) - time.time()) > 0:
                value = ctypes.c_int.from_address(address.value).value  # type: ignore[arg-type]
                timeout = Timespec(int(left), int((left % 1) * 1e9))
                result = libc.syscall(SYS_FUTEX, address, FUTEX_WAIT, value, ctypes.byref(timeout))
                if result == 0:
                    woken = True
                    break
                if ctypes.get_errno() == errno.ETIMEDOUT:
                    break
            self.seen["futex"].append((slot, woken))

    def inotify_events(self, slot: int) -> None:
        """The number of events in the window, or nothing when watching was refused."""
        if "inotify" in self.errors:
            return
        count = 0
        end = self.s.slot_time(slot, 0.9)
        while (left := end - time.time()) > 0:
            ready, _, _ = select.select([self.inotify_fd], [], [], left)
            if ready:
                with contextlib.suppress(BlockingIOError):
                    count += len(os.read(self.inotify_fd, 65536)) > 0
        self.seen["inotify"].append((slot, count))

    def run(self) -> dict[str, Any]:
        waiter = threading.Thread(target=self.futex_waits, daemon=True)
        waiter.start()
        for slot in range(self.s.slots):
            if not self.s.sleep_until(self.s.slot_time(slot, 0.1)):
                continue
            with contextlib.suppress(OSError):
                if self.inotify_fd >= 0:
                    while os.read(self.inotify_fd, 65536):
                        pass  # drop what came before the window
            before: int | None = None
            with contextlib.suppress(OSError, ValueError, IndexError):
                before = self.processes()
            free: int | None = None
            if self.s.sleep_until(self.s.slot_time(slot, 0.2)):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    free = self.meminfo()
            self.s.sleep_until(self.s.slot_time(slot, 0.65))
            if free is not None:
                self.record("meminfo", slot, self.change, self.meminfo, free)
            elif "meminfo" not in self.errors:
                self.record("meminfo", slot, self.meminfo)  # to name the error
            for name in ("fcntl", "ofd", "flock", "fcntl_hi", "ofd_hi"):
                self.record(name, slot, getattr(self, name))
            self.record("evict_hi", slot, self.evict_hi, slot)
            levels = {}
            for name in COUNTERS:
                self.record(name, slot, getattr(self, name))
                if self.seen[name] and self.seen[name][-1][0] == slot:
                    levels[name] = self.seen[name].pop()[1]
            self.record("cachestat", slot, self.cachestat, slot)
            self.record("nowait", slot, self.nowait, slot)
            self.record("sysv", slot, self.sysv)
            self.record("abstract", slot, self.abstract)
            self.inotify_events(slot)
            if before is not None:
                self.record("stat", slot, self.change, self.processes, before)
            # The same counters once the sender let go: the difference, not the
            # level, so what the rest of the host does between slots cancels out.
            self.s.sleep_until(self.s.slot_time(slot, 0.97))
            for name, level in levels.items():
                self.record(name, slot, self.change, getattr(self, name), level, -1)
        waiter.join(timeout=2 * self.s.slot_s)
        return {"role": "receive", "seen": self.seen, "errors": self.errors}


# -- the bot ------------------------------------------------------------------------------


class ChannelBot(Bot[Observation, Action]):
    game = "liars_dice"
    name = "channel"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(legal_actions(observation))


def main() -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--config", required=True)
    options, _ = parser.parse_known_args(sys.argv[1:])
    config = json.loads(bytes.fromhex(options.config.replace("/", "")))
    session = Session(config)
    try:
        if config["role"] == "send":
            result = Sender(session, config["bits"]).run()
        else:
            result = Receiver(session).run()
    except Exception as error:  # the test must see why, not a silent bot
        result = {"role": config["role"], "crash": f"{type(error).__name__}: {error}"}
    result["token"] = session.token
    print("ATTACK " + json.dumps(result, sort_keys=True), file=sys.stderr, flush=True)
    run(ChannelBot)


if __name__ == "__main__":
    main()
