"""Failed token checks, counted so a flood is refused early, without locking out
an author whose token is valid.

**A valid token is never refused because of failures.** Checking a token is cheap
(:mod:`league.store.authors`: a lookup by its id, then SHA-256), so the server
always checks it first; the counts below only decide whether a *failed* check is
answered 401 or 429 (with ``Retry-After``). An author whose token is right gets in
whatever anybody else — at their address, behind the same proxy, or with their
token id — did before.

What is counted, in a sliding window of :data:`WINDOW_S` seconds:

* per client address (unauthenticated work: malformed tokens, unknown token ids,
  wrong secrets, failed logins): once an address has :data:`PER_ADDRESS` failures
  in the window, its further failures are 429 — so guessing token ids from one
  address is slow, and says so;
* per token id (wrong secrets, from any address): :data:`PER_TOKEN`, likewise.

**Older tokens with a slow hash** (scrypt, made before the fast hash; upgraded at
their first successful check) cost tens of milliseconds of a core each, so for
them the count comes *before* the hash: once a token id has :data:`PER_TOKEN`
failures in the window, or one address has :data:`PER_ADDRESS` failures on that
token id, further checks of that id (from that address) are 429 without hashing.
Every admitted slow check counts as a failure from the moment it is admitted
(before its hash) and is taken back only if it succeeds, so a burst sent together
is cut at the limit too. The address's count of other failures never gates it.

The client address is the peer's, or — when the peer is a trusted proxy
(``arena serve --forwarded-allow-ips``) — the one its ``X-Forwarded-For`` names
(:func:`forwarded_client`).

State is in memory (one server process); a restart forgets it. At most
:data:`MAX_KEYS` keys are tracked; beyond that the oldest are dropped.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

WINDOW_S = 300.0
"""Failures older than this no longer count."""
PER_ADDRESS = 10
"""Failed checks one client address may make within :data:`WINDOW_S` before its
failures are answered 429 (and slow checks of one token id from it are refused)."""
PER_TOKEN = 30
"""Failed checks one token id may see (from every address) within :data:`WINDOW_S`."""
MAX_KEYS = 100_000
"""Keys (addresses, token ids, pairs) tracked at most (memory bound)."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One admitted slow token check, counted as a failure until it succeeds."""

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
    """Tests switch it off to show the flood it stops (every slow check is hashed)."""
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

    def _over(self, keys: Iterable[tuple[str, int, str]], now: float) -> Throttled | None:
        """The refusal for the first key at or over its limit, else None."""
        for key, limit, what in keys:
            times = self._recent(key, now)
            if times is None or len(times) < limit:
                continue
            # Allowed again once enough of the oldest failures slid out.
            frees_at = times[len(times) - limit] + self.window_s
            retry = max(1, math.ceil(frees_at - now))
            return Throttled(
                f"too many failed token checks from {what}: try again in {retry} s", retry
            )
        return None

    def _count(self, keys: Iterable[tuple[str, int, str]], now: float) -> tuple[str, ...]:
        counted = []
        for key, limit, _what in keys:
            times = self._failures.setdefault(key, deque(maxlen=limit))
            times.append(now)
            self._failures.move_to_end(key)
            counted.append(key)
        while len(self._failures) > MAX_KEYS:
            self._failures.popitem(last=False)
        return tuple(counted)

    def _keys(self, address: str, token_id: str | None) -> list[tuple[str, int, str]]:
        keys = [(f"addr:{address}", self.per_address, f"client address {address}")]
        if token_id is not None:
            keys.append((f"token:{token_id}", self.per_token, f"token id {token_id}"))
        return keys

    def failed(self, address: str, token_id: str | None = None) -> Throttled | None:
        """A (cheap) check failed: the :class:`Throttled` to answer with if ``address``
        or the known ``token_id`` was already over its limit (not counted again),
        else None after counting this failure (answer 401)."""
        if not self.enabled:
            return None
        now = self.clock()
        keys = self._keys(address, token_id)
        refusal = self._over(keys, now)
        if refusal is None:
            self._count(keys, now)
        return refusal

    def admit_slow(self, address: str, token_id: str) -> Attempt | None:
        """Before a slow (scrypt) check of ``token_id``: raise :class:`Throttled` if the
        id, or this address on this id, is over its limit; otherwise count the attempt
        as a failure *now* (of the id, the pair and the address) until
        :meth:`succeeded` takes it back — so attempts sent together are counted before
        any of them has been hashed."""
        if not self.enabled:
            return None
        now = self.clock()
        gates = [
            (f"token:{token_id}", self.per_token, f"token id {token_id}"),
            (
                f"pair:{token_id}@{address}",
                self.per_address,
                f"client address {address} for token id {token_id}",
            ),
        ]
        refusal = self._over(gates, now)
        if refusal is not None:
            raise refusal
        counted = self._count([*gates, self._keys(address, None)[0]], now)
        return Attempt(counted, now)

    def succeeded(self, attempt: Attempt | None) -> None:
        """The slow check authenticated: it is not a failure after all."""
        if attempt is None:
            return
        for key in attempt.keys:
            times = self._failures.get(key)
            if times is not None and attempt.at in times:
                times.remove(attempt.at)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_trusted(text: str) -> tuple[Network, ...]:
    """``--forwarded-allow-ips``: comma-separated addresses or networks
    (``127.0.0.1,10.0.0.0/8``); ``*`` trusts every peer; ``""`` none.
    :class:`ValueError` for anything else."""
    networks: list[Network] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if part == "*":
            networks += [ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")]
            continue
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {part!r}") from None
    return tuple(networks)


def _trusted(host: str, trusted: tuple[Network, ...]) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in network for network in trusted)


def forwarded_client(peer: str, forwarded_for: str | None, trusted: tuple[Network, ...]) -> str:
    """The client address of a request from ``peer`` with ``X-Forwarded-For:
    forwarded_for``: the peer itself unless it is trusted; else the right-most
    address of the header that is not a trusted proxy (each proxy appends the
    address it got the request from, so the ones to its left may be written by the
    client). As uvicorn's and gunicorn's ``--forwarded-allow-ips``."""
    if not trusted or not _trusted(peer, trusted) or not forwarded_for:
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, trusted):
            return hop[:64]
    return hops[0][:64] if hops else peer
