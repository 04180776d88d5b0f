"""Failed token checks, counted per client address and per token id, refused early.

A well-formed token costs a scrypt hash (tens of milliseconds of a core) to check.
:class:`AuthThrottle` counts the *failed* checks in a sliding window of
:data:`WINDOW_S` seconds, separately per client address and per token id; once a
client address has :data:`PER_ADDRESS` failures in the window, or a token id has
:data:`PER_TOKEN` failures in it, further attempts with that address or that id are
answered 429 with ``Retry-After`` **before any hashing** (and before the database is
asked). Every admitted attempt counts as a failure from the moment it is admitted (before
its hash), and is taken back only if it succeeds: so a burst of attempts sent
together is cut at the limit too. A success does not erase earlier failures: the
window simply slides.

The per-address limit is lower than the per-token one, so one address flooding an
author's token id (with wrong secrets) is stopped by its own limit before the id's
limit locks the author out; only many addresses together (:data:`PER_TOKEN`
failures on one id within the window) can make the author wait for the window.
A token whose id exists nowhere is refused without hashing at all (see
:func:`league.store.authors.authenticate`), but still counts as a failure of its address.

State is in memory (one server process); a restart forgets it. At most
:data:`MAX_KEYS` addresses and ids are tracked; beyond that the oldest are dropped.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from league.store.authors import AuthError, parse_token

WINDOW_S = 300.0
"""Failures older than this no longer count."""
PER_ADDRESS = 10
"""Failed checks one client address may make within :data:`WINDOW_S`."""
PER_TOKEN = 30
"""Failed checks one token id may see (from every address) within :data:`WINDOW_S`."""
MAX_KEYS = 100_000
"""Addresses plus token ids tracked at most (memory bound)."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One admitted token check, counted as a failure until it succeeds."""

    keys: tuple[str, ...]
    at: float


class Throttled(Exception):
    """Too many failed token checks from this address or for this token id."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


@dataclass
class AuthThrottle:
    """Sliding-window counts of failed token checks (see the module docstring)."""

    window_s: float = WINDOW_S
    per_address: int = PER_ADDRESS
    per_token: int = PER_TOKEN
    enabled: bool = True
    """Tests switch it off to show the flood it stops (every attempt is hashed)."""
    clock: Callable[[], float] = time.monotonic
    _failures: OrderedDict[str, deque[float]] = field(default_factory=OrderedDict)

    def _recent(self, key: str, now: float) -> deque[float] | None:
        times = self._failures.get(key)
        if times is None:
            return None
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if not times:
            del self._failures[key]
            return None
        return times

    def _retry_after(self, times: deque[float], limit: int, now: float) -> int | None:
        if len(times) < limit:
            return None
        # The attempt is allowed again once enough of the oldest failures slid out.
        frees_at = times[len(times) - limit] + self.window_s
        return max(1, math.ceil(frees_at - now))

    def check(self, address: str, token_id: str | None) -> None:
        """Raise :class:`Throttled` if ``address`` or ``token_id`` is over its limit."""
        if not self.enabled:
            return
        now = self.clock()
        for key, limit, what in (
            (f"addr:{address}", self.per_address, f"client address {address}"),
            (f"token:{token_id}", self.per_token, f"token id {token_id}"),
        ):
            if key.startswith("token:") and token_id is None:
                continue
            times = self._recent(key, now)
            if times is None:
                continue
            retry = self._retry_after(times, limit, now)
            if retry is not None:
                raise Throttled(
                    f"too many failed token checks from {what}: try again in {retry} s", retry
                )

    def admit(self, address: str, token_id: str | None) -> Attempt | None:
        """Raise :class:`Throttled` if ``address`` or ``token_id`` is over its limit;
        otherwise count this attempt as a failure *now*, until :meth:`succeeded`
        takes it back — so attempts sent together are counted before any of them
        has been hashed, and at most the limit of them ever is."""
        if not self.enabled:
            return None
        self.check(address, token_id)
        now = self.clock()
        keys = [(f"addr:{address}", self.per_address)]
        if token_id is not None:
            keys.append((f"token:{token_id}", self.per_token))
        for key, limit in keys:
            times = self._failures.setdefault(key, deque(maxlen=limit))
            times.append(now)
            self._failures.move_to_end(key)
        while len(self._failures) > MAX_KEYS:
            self._failures.popitem(last=False)
        return Attempt(tuple(key for key, _ in keys), now)

    def succeeded(self, attempt: Attempt | None) -> None:
        """The attempt authenticated: it is not a failure after all."""
        if attempt is None:
            return
        for key in attempt.keys:
            times = self._failures.get(key)
            if times is not None and attempt.at in times:
                times.remove(attempt.at)


def token_id_of(token: str) -> str | None:
    """The id part of a well-formed token, else None (nothing to count it under)."""
    try:
        return parse_token(token)[0]
    except AuthError:
        return None
