"""Server-sent events: ``/leagues/{name}/events`` tells a standings page when to refetch.

One event ``results`` with the league's state (matches done, aborted, last
finish, scheduled) when the stream opens and each time :class:`~league.server.watcher.LeagueWatcher`
sees it change; a comment line every :data:`KEEPALIVE_S` keeps proxies from
closing an idle stream. The page's script (``static/league.js``) then fetches
``/api/leagues/{name}/standings`` and redraws the table.

**Capped per client, per network and in total.** A client — the author its
session cookie names, else its address (:func:`league.server.state.client_address`,
the real one behind a trusted proxy) — holds at most
``Settings.max_streams_per_client`` streams at once; one more is answered 429 with
``Retry-After``. Anonymous streams are also counted per address group
(:func:`address_group`: the IPv4 /24, the IPv6 /64 by default), at most
``Settings.max_streams_per_group`` (429 beyond): one client with many addresses of
one network — the attack of issue 42 opened 16 streams from each of 13 loopback
addresses ``127.0.0.x`` — takes one group's share, not the server's
:attr:`~league.server.state.Settings.max_streams` (503 beyond that) from everybody
else. A logged-in author's streams count only under the author (and in the total),
so a flooded network does not lock its authors out. A stream is counted from the
moment it is admitted (before its first byte, so a burst is cut at the cap too)
until its response ends, however it ends.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
from collections.abc import AsyncIterator

import anyio
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from league.server import views
from league.server.state import Server, client_address, server_of
from league.server.watcher import State

KEEPALIVE_S = 15.0


async def _stream(server: Server, league_id: int) -> AsyncIterator[str]:
    yield "retry: 2000\n\n"
    seen: State | None = None
    while not server.watcher.closed:
        state = await server.watcher.wait_change(league_id, seen, KEEPALIVE_S)
        if server.watcher.closed:
            return
        if state == seen:
            yield ": keepalive\n\n"
            continue
        seen = state
        done, aborted, last, total = state
        data = json.dumps(
            {"done": done, "aborted": aborted, "last_finished": last, "matches": total}
        )
        yield f"event: results\ndata: {data}\n\n"


UNPARSED_GROUP = "unparsed"
"""The one address group of every client address that is not an IP address (a
proxy's odd ``X-Forwarded-For``): such clients share one cap rather than each
string making a group of its own."""


class StreamRefused(HTTPException):
    """A live-update stream refused by a cap (429 per client or network, 503 in
    total); the message names the client or network and the cap."""


def address_group(address: str, ipv4_prefix: int = 24, ipv6_prefix: int = 64) -> str:
    """The network ``address`` is counted in for the per-group stream cap: its IPv4
    ``/ipv4_prefix`` (``127.0.0.9`` → ``127.0.0.0/24``), an IPv4-mapped IPv6 address
    (``::ffff:127.0.0.9``) as the IPv4 address it maps, an IPv6 address's
    ``/ipv6_prefix`` (a zone ``%eth0`` dropped); :data:`UNPARSED_GROUP` for anything
    that is not an IP address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return UNPARSED_GROUP
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ipaddress.IPv4Network((int(ip), ipv4_prefix), strict=False))
    return str(ipaddress.IPv6Network((int(ip), ipv6_prefix), strict=False))


def _canonical(address: str) -> str:
    """One spelling per address: an IPv4-mapped IPv6 address as its IPv4 address, IPv6
    compressed; other strings as they are."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def stream_owner(server: Server, request: Request) -> tuple[str, str | None]:
    """Whose streams a request's stream counts among: (client, address group).
    The client is the logged-in author (a valid session cookie, whatever the address)
    with no group, else the client address with its :func:`address_group`."""
    session = server.session_of(request)
    if session is not None:
        return f"author:{session.author_id}", None
    address = client_address(request)
    settings = server.settings
    group = address_group(
        address, settings.stream_group_ipv4_prefix, settings.stream_group_ipv6_prefix
    )
    return f"address:{_canonical(address)}", group


def _drop(counts: dict[str, int], key: str) -> None:
    left = counts.get(key, 1) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class _CountedStream(StreamingResponse):
    """A stream admitted under ``client`` (and anonymous ones under ``group``):
    counted until its response ends."""

    def __init__(
        self, server: Server, client: str, group: str | None, body: AsyncIterator[str]
    ) -> None:
        super().__init__(
            body,
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )
        self.server, self.client, self.group, self.counted = server, client, group, True

    def release(self) -> None:
        if self.counted:
            self.counted = False
            self.server.streams -= 1
            _drop(self.server.streams_of, self.client)
            if self.group is not None:
                _drop(self.server.streams_of_group, self.group)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()
            # A client that went away leaves the generator suspended: close it here,
            # not whenever the garbage collector gets to it.
            close = getattr(self.body_iterator, "aclose", None)
            if close is not None:
                with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                    await close()


async def league_events(request: Request) -> Response:
    server = server_of(request)
    league_id = await server.db(views.league_id, request.path_params["name"])
    client, group = stream_owner(server, request)
    settings = server.settings
    # From here to the response being returned nothing awaits: check and count are one step.
    held = server.streams_of.get(client, 0)
    if held >= settings.max_streams_per_client:
        raise StreamRefused(
            429,
            f"this client has {held} live-update streams open (at most"
            f" {settings.max_streams_per_client}): close one first",
            headers={"retry-after": "5"},
        )
    in_group = 0 if group is None else server.streams_of_group.get(group, 0)
    if group is not None and in_group >= settings.max_streams_per_group:
        raise StreamRefused(
            429,
            f"the network {group} has {in_group} live-update streams open (at most"
            f" {settings.max_streams_per_group} for visitors not logged in): log in, or"
            " close one first",
            headers={"retry-after": "5"},
        )
    if server.streams >= settings.max_streams:
        raise StreamRefused(
            503,
            f"too many open event streams ({server.streams}, at most {settings.max_streams})",
            headers={"retry-after": "5"},
        )
    server.streams += 1
    server.streams_of[client] = held + 1
    if group is not None:
        server.streams_of_group[group] = in_group + 1
    return _CountedStream(server, client, group, _stream(server, league_id))


def routes() -> list[BaseRoute]:
    return [Route("/leagues/{name:path}/events", league_events)]
