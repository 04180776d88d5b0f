"""Hostile values in every field of every endpoint get a 4xx, never a 5xx, and never
a word of the database or of a traceback (issue 42, item 3).

The attack round before this change found ``POST /play`` with ``seat=²`` (``str.isdigit``
takes it, ``int`` does not) and ``/move`` with ``Infinity``, ``1e400`` or a 5,000-digit
number answering HTTP 500, and a lost start race showing ``sqlite3.IntegrityError ...
[SQL: INSERT ...]`` to the player. Here hypothesis draws requests for every route of
the app — the route table is read from the app itself, so a new endpoint fails
:func:`test_every_route_is_attacked` until it is listed in :data:`ROUTES` — with
hostile values (huge and unicode digits, ``Infinity``, ``NaN``, ``1e400``, 5,000-digit
numbers, NUL bytes, long text, wrong JSON types, deep nesting, bodies that are not
UTF-8) in every path parameter, query parameter, form field, JSON member and the
headers read as values, logged in or not, with or without the CSRF token, from this
origin or another. Each answer must be under 500 and hold none of
:data:`FORBIDDEN`; the server's log must hold no incident (an unexpected error).

The server is the real ``arena serve`` (tests/server/harness.py). The guards at the
end plant the old parsing back (in a server running in this process) and show the
same requests answered 500, so the checks here are not checking nothing.
"""

from __future__ import annotations

import http.client
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Mount, Route

from tests.server.harness import (
    Served,
    add_author,
    played_league,
    start_server,
    stop_server,
)
from tests.server.test_server_submissions import login

pytestmark = pytest.mark.e2e

FORBIDDEN = ("sqlite3", "IntegrityError", "SQL", "Traceback", "psycopg")
"""Words no answer may hold (unless the request itself sent them)."""
EXAMPLES = int(os.environ.get("ARENA_HOSTILE_EXAMPLES", "50"))
"""Requests drawn per route (``ARENA_HOSTILE_EXAMPLES=500`` for a longer hunt)."""

ODD = [
    "", "0", "1", "-1", "+1", " 1", "1 ", "1_0", "01", "²", "٣", "１", "߁", "Ⅻ",
    "Infinity", "-Infinity", "NaN", "nan", "inf", "1e400", "-1e400", "1e-400", "0x1f",
    "1.5", "-0", "9" * 19, "9" * 20, "9" * 400, "9" * 5000, "\x00", "a\x00b", "\t", "\n",
    "\r\n", "\u202e", "\ufeff", "random", "../../etc/passwd", "%00", "%", "é", "x" * 5000,
    "<script>alert(1)</script>", "'", '"', "\\", "null", "true", "[]", "{}", "cup-",
    "-1-1", "cup-01", "humans-liars_dice-0", "arena_000000000000_" + "A" * 43, "http://[",
    "https://[::1", "//evil.example",
]  # fmt: skip
"""Values that broke parsers somewhere, or might."""
RAW_JSON = [
    "Infinity", "-Infinity", "NaN", "1e400", "-1e400", "9" * 5000, "-" + "9" * 30, "1.0",
    "-0", "true", "false", "null", '"1"', '"²"', "[1]", '{"a": 1}', "[" * 50 + "]" * 50,
    "1" * 19, "0.5", "1E2", "-1",
]  # fmt: skip
"""JSON member texts ``json.dumps`` would not write."""


NUMBERISH = st.one_of(
    st.sampled_from(["²", "¹", "①", "٣", "１", "߁", "Ⅻ", "+1", " 1", "1_0", "Infinity", "NaN",
                     "1e400", "-1", "0x1f", "1.5", "9" * 4301, "9" * 5000, "9" * 20]),
    st.text(st.characters(categories=["Nd", "No", "Nl"]), min_size=1, max_size=3),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.integers(min_value=1, max_value=6000).map(lambda n: "9" * n),
    st.floats().map(repr),
)  # fmt: skip
"""Text that looks like a number to some parser and not to another."""


def hostile(*known: str) -> st.SearchStrategy[str]:
    """Text for a field: number-like text of every shape, odd values, any text, and
    the ``known`` good values (so a request also gets past one check to the next)."""
    choices = [NUMBERISH, NUMBERISH, st.sampled_from(ODD), st.text(max_size=30)]
    if known:
        choices += [st.sampled_from(known)] * 3
    return st.one_of(choices)


def header_safe(text: str) -> str:
    """``text`` as an HTTP client can send it in a header (latin-1, one line)."""
    return "".join(c for c in text if ord(c) < 256 and c not in "\r\n")


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.integers(min_value=-2, max_value=70),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@dataclass
class Site:
    served: Served
    log: Path
    cookie: str
    """ada's session cookie (``arena_session=...``)."""
    csrf: str
    token: str
    """ada's API token."""
    game: str
    """``/play/TOKEN`` of ada's game, running all along."""
    key: str
    """Its match key (``/watch/KEY``)."""
    seen_log: int = 0


def csrf_of(served: Served, cookie: str) -> str:
    page = served.get("/bots/probability", headers={"cookie": cookie}).text
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("hostile")
    db = played_league(tmp, played=2)
    ada = add_author(db, "ada")
    add_author(db, "bo")
    served = start_server(
        db, tmp / "store", tmp / "serve.log",
        extra=["--think-time", "900", "--submissions-per-hour", "1", "--max-human-games", "3"],
    )  # fmt: skip
    cookie = login(served, ada)
    csrf = csrf_of(served, cookie)
    headers = {
        "cookie": cookie,
        "origin": served.url,
        "content-type": "application/x-www-form-urlencoded",
    }
    body = f"csrf={csrf}&bot=probability&game=liars_dice&seat=0".encode()
    started = served.request("/play", method="POST", data=body, headers=headers)
    assert started.status == 303, started.text
    game = started.headers["location"]
    state = served.get(game + "/state", headers={"cookie": cookie}).json()
    try:
        yield Site(served, tmp / "serve.log", cookie, csrf, ada, game, state["match"])
    finally:
        assert stop_server(served) == 0, (tmp / "serve.log").read_text()[-3000:]


@dataclass
class Call:
    method: str
    target: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None

    def sent(self) -> str:
        """Everything the request carried, as text (to tell an echo from a leak)."""
        text = self.target + json.dumps(self.headers)
        return text + (self.body or b"").decode("utf-8", "replace")


Fields = dict[str, "str | bytes | None"]
"""A request's parts by name — path and query parameters, form fields, JSON members,
the session cookie, ``Origin``, the CSRF token — as text (bytes: a raw body); None
leaves the part out."""


@dataclass(frozen=True)
class Spec:
    """How to attack one route: its parts as the site's own pages send them, and the
    request made of them."""

    fields: Callable[[Site], Fields]
    build: Callable[[Site, Fields], Call]


def text_of(value: str | bytes | None) -> str:
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return "" if value is None else value


def part(value: str | bytes | None) -> str:
    """A path segment: percent-encoded."""
    return quote(text_of(value), safe="")


def query(fields: Fields, *names: str) -> str:
    chosen = {n: text_of(fields[n]) for n in names if fields.get(n) is not None}
    return "?" + urlencode(chosen) if chosen else ""


def headers_of(fields: Fields, **extra: str) -> dict[str, str]:
    """The cookie, ``Origin`` and CSRF header of ``fields`` (as far as given), one line
    each in latin-1 as a client can send them."""
    headers = {}
    if fields.get("cookie") is not None:
        headers["cookie"] = "arena_session=" + header_safe(text_of(fields["cookie"]))
    if fields.get("origin") is not None:
        headers["origin"] = header_safe(text_of(fields["origin"]))
    if fields.get("x-csrf-token") is not None:
        headers["x-csrf-token"] = header_safe(text_of(fields["x-csrf-token"]))
    if fields.get("authorization") is not None:
        headers["authorization"] = header_safe(text_of(fields["authorization"]))
    return {**headers, **extra}


def session(site: Site, **more: str | bytes | None) -> Fields:
    """A logged-in page's parts: the session cookie and this origin, and ``more``."""
    return {"cookie": site.cookie.split("=", 1)[1], "origin": site.served.url, **more}


def get(path: Callable[[Fields], str], *query_names: str) -> Callable[[Site, Fields], Call]:
    return lambda site, f: Call("GET", path(f) + query(f, *query_names), headers_of(f))


def form(path: str, *names: str) -> Callable[[Site, Fields], Call]:
    """A form post: an urlencoded body of ``names`` (a bytes ``body`` replaces it)."""

    def build(site: Site, f: Fields) -> Call:
        body = f.get("body")
        if not isinstance(body, bytes):
            body = urlencode({n: text_of(f[n]) for n in names if f.get(n) is not None}).encode()
        kind = text_of(f.get("content-type")) or "application/x-www-form-urlencoded"
        return Call("POST", path, headers_of(f, **{"content-type": header_safe(kind)}), body)

    return build


def upload(path: str) -> Callable[[Site, Fields], Call]:
    """A submission: multipart ``name``, ``game`` and the file ``bot``, as ``arena
    submit`` and the upload form send it."""

    def build(site: Site, f: Fields) -> Call:
        from league.cli.authors import multipart

        names = [n for n in ("name", "game", "csrf") if f.get(n) is not None]
        data = f.get("data")
        body, kind = multipart(
            {n: text_of(f[n]) for n in names},
            "bot",
            text_of(f.get("filename")),
            data if isinstance(data, bytes) else text_of(data).encode(),
        )
        if isinstance(f.get("body"), bytes):
            body = f["body"]  # type: ignore[assignment]
        if f.get("content-type") is not None:
            kind = text_of(f["content-type"])
        return Call("POST", path, headers_of(f, **{"content-type": header_safe(kind)}), body)

    return build


def move_call(site: Site, f: Fields) -> Call:
    """``POST /play/TOKEN/move`` as the page sends it, ``{"decision": N, "choice": I}``,
    each member's JSON text from ``f`` (a bytes ``body`` replaces it)."""
    body = f.get("body")
    if not isinstance(body, bytes):
        members = [
            f'"{n}": {text_of(f[n])}' for n in ("decision", "choice") if f.get(n) is not None
        ]
        body = ("{" + ", ".join(members) + "}").encode()
    headers = headers_of(f, **{"content-type": "application/json"})
    return Call("POST", f"/play/{part(f['token'])}/move", headers, body)


def league_spec(suffix: str, api: bool = False) -> Spec:
    head = "/api/leagues/" if api else "/leagues/"
    return Spec(
        lambda site: session(site, name="cup", bot="probability", result="won", fault="timeout"),
        get(lambda f: f"{head}{part(f['name'])}{suffix}", "bot", "result", "fault"),
    )


def page(path: str) -> Spec:
    """A route without parameters: a stray query parameter and the headers."""
    return Spec(lambda site: session(site, page="1"), get(lambda f: path, "page"))


ROUTES: dict[tuple[str, str], Spec] = {
    ("/leagues/{name:path}/events", "GET"): league_spec("/events"),
    ("/", "GET"): page("/"),
    ("/static/report.css", "GET"): page("/static/report.css"),
    ("/leagues/{name:path}/matches", "GET"): league_spec("/matches"),
    ("/leagues/{name:path}/figures", "GET"): league_spec("/figures"),
    ("/leagues/{name:path}", "GET"): league_spec(""),
    ("/bots", "GET"): page("/bots"),
    ("/bots/{name:path}", "GET"): Spec(
        lambda site: session(site, name="probability"), get(lambda f: f"/bots/{part(f['name'])}")
    ),
    ("/matches/{key:path}/logs/{seat}", "GET"): Spec(
        lambda site: session(site, key="cup-0", seat="1"),
        get(lambda f: f"/matches/{part(f['key'])}/logs/{part(f['seat'])}"),
    ),
    ("/matches/{key:path}", "GET"): Spec(
        lambda site: session(site, key="cup-0"), get(lambda f: f"/matches/{part(f['key'])}")
    ),
    ("/login", "GET"): page("/login"),
    ("/login", "POST"): Spec(
        lambda site: {"origin": site.served.url, "token": site.token}, form("/login", "token")
    ),
    ("/logout", "POST"): Spec(lambda site: session(site, csrf=site.csrf), form("/logout", "csrf")),
    ("/api/submissions", "POST"): Spec(
        lambda site: {
            "authorization": f"Bearer {site.token}",
            "name": "ok_bot",
            "game": "liars_dice",
            "filename": "bot.py",
            "data": b"import sys\nsys.exit(3)\n",
        },
        upload("/api/submissions"),
    ),
    ("/api/submissions", "GET"): Spec(
        lambda site: {"authorization": f"Bearer {site.token}"},
        get(lambda f: "/api/submissions"),
    ),
    ("/submit", "GET"): page("/submit"),
    ("/submit", "POST"): Spec(
        lambda site: session(
            site,
            csrf=site.csrf,
            name="ok_bot",
            game="liars_dice",
            filename="bot.py",
            data=b"import sys\nsys.exit(3)\n",
        ),
        upload("/submit"),
    ),
    ("/play", "POST"): Spec(
        lambda site: session(site, csrf=site.csrf, bot="probability", game="liars_dice", seat="0"),
        form("/play", "csrf", "bot", "game", "seat"),
    ),
    ("/play/{token}", "GET"): Spec(
        lambda site: session(site, token=site.game.rsplit("/", 1)[1]),
        get(lambda f: f"/play/{part(f['token'])}"),
    ),
    ("/play/{token}/state", "GET"): Spec(
        lambda site: session(site, token=site.game.rsplit("/", 1)[1], seen="0", told="0"),
        get(lambda f: f"/play/{part(f['token'])}/state", "seen", "told"),
    ),
    # A game token that is nobody's: every part is parsed and checked (origin, session,
    # CSRF token, the token's form) before the game is looked up, and ada's game,
    # running all along, is never resigned by an attack that happens to be valid.
    ("/play/{token}/resign", "POST"): Spec(
        lambda site: session(site, **{"x-csrf-token": site.csrf}, token="N0tAnyb0dysGame_0000x"),
        lambda site, f: Call(
            "POST",
            f"/play/{part(f['token'])}/resign",
            headers_of(f),
            text_of(f.get("body")).encode("latin-1"),
        ),
    ),
    ("/play/{token}/move", "POST"): Spec(
        lambda site: session(
            site,
            **{"x-csrf-token": site.csrf},
            token=site.game.rsplit("/", 1)[1],
            decision="0",
            choice="0",
        ),
        move_call,
    ),
    ("/static/viewer/board.css", "GET"): page("/static/viewer/board.css"),
    ("/static/viewer/{name}.js", "GET"): Spec(
        lambda site: session(site, name="liars_dice"),
        get(lambda f: f"/static/viewer/{part(f['name'])}.js"),
    ),
    ("/live", "GET"): page("/live"),
    ("/watch/{key}", "GET"): Spec(
        lambda site: session(site, key=site.key), get(lambda f: f"/watch/{part(f['key'])}")
    ),
    ("/watch/{key}/feed", "GET"): Spec(
        lambda site: session(site, key=site.key), get(lambda f: f"/watch/{part(f['key'])}/feed")
    ),
    ("/api/leagues", "GET"): page("/api/leagues"),
    ("/api/leagues/{name:path}/standings", "GET"): league_spec("/standings", api=True),
    ("/api/leagues/{name:path}/matches", "GET"): league_spec("/matches", api=True),
    ("/api/leagues/{name:path}", "GET"): league_spec("", api=True),
    ("/api/bots", "GET"): page("/api/bots"),
    ("/api/bots/{name:path}", "GET"): Spec(
        lambda site: session(site, name="probability"),
        get(lambda f: f"/api/bots/{part(f['name'])}"),
    ),
    ("/api/matches/{key:path}", "GET"): Spec(
        lambda site: session(site, key="cup-0"), get(lambda f: f"/api/matches/{part(f['key'])}")
    ),
    ("/static", "GET"): Spec(
        lambda site: session(site, file="style.css"), get(lambda f: f"/static/{part(f['file'])}")
    ),
}


def hostile_part(name: str) -> st.SearchStrategy[str | bytes | None]:
    """What replaces the part ``name``: nothing, hostile text, or — for a JSON member —
    JSON text of a wrong type or an unbounded number, or — for a body — any bytes."""
    if name in ("decision", "choice"):
        return st.one_of(
            st.sampled_from(RAW_JSON),
            JSON_VALUES.map(json.dumps),  # floats include Infinity and NaN
            hostile().map(json.dumps),
            st.none(),
        )
    if name in ("body", "data"):
        return st.one_of(
            st.binary(max_size=3000),
            st.sampled_from([b"[" * 5000, b"{" * 600, b"\xff\xfe", b'{"decision": 0', b""]),
            JSON_VALUES.map(lambda v: json.dumps(v).encode()),
        )
    if name == "content-type":
        return st.sampled_from(
            ["text/plain", "multipart/form-data; boundary=x", "multipart/form-data",
             "application/json", "application/x-www-form-urlencoded; charset=latin-1", "\x00"]
        )  # fmt: skip
    return st.one_of(st.none(), hostile())


@st.composite
def attacks(draw: st.DrawFn, site: Site, spec: Spec) -> Call:
    """The route's request as its page sends it, with one to three parts made hostile
    (or left out), now and then a body of any bytes or another content type."""
    fields = spec.fields(site)
    names = [*sorted(fields), "body", "content-type"]
    count = draw(st.sampled_from([1, 1, 1, 2, 3]))  # mostly one: the rest gets it parsed
    for name in draw(st.lists(st.sampled_from(names), min_size=count, max_size=count, unique=True)):
        fields[name] = draw(hostile_part(name))
    call = spec.build(site, fields)
    if draw(st.integers(0, 15)) == 0:  # a method the route does not take
        call.method = draw(st.sampled_from(["PUT", "DELETE", "PATCH", "OPTIONS", "POST", "GET"]))
    return call


def app_routes() -> set[tuple[str, str]]:
    """Every (path, method) the app serves (HEAD aside), read from the app itself."""
    from league.server.app import create_app

    found: set[tuple[str, str]] = set()
    for route in create_app(None).routes:  # type: ignore[arg-type]
        if isinstance(route, Route):
            found |= {(route.path, m) for m in route.methods or () if m != "HEAD"}
        elif isinstance(route, Mount):
            found.add((route.path, "GET"))
        else:
            raise AssertionError(f"a route of a kind this test does not know: {route!r}")
    return found


def test_every_route_is_attacked() -> None:
    """A new endpoint fails here until :data:`ROUTES` says how to attack it."""
    assert app_routes() == set(ROUTES)


@dataclass
class Answer:
    status: int
    body: bytes
    streaming: bool


def send(url: str, call: Call, timeout: float = 120) -> Answer:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
    try:
        connection.request(call.method, call.target, body=call.body, headers=call.headers)
        response = connection.getresponse()
        if response.getheader("content-type", "").startswith("text/event-stream"):
            return Answer(response.status, b"", True)  # a live stream: its status is enough
        return Answer(response.status, response.read(4 << 20), False)
    finally:
        connection.close()


def problems(call: Call, answer: Answer) -> list[str]:
    """What is wrong with ``answer`` to the hostile ``call``."""
    found = []
    if answer.status >= 500:
        found.append(f"HTTP {answer.status}")
    text = answer.body.decode("utf-8", "replace")
    sent = call.sent()
    found += [f"answer holds {word!r}" for word in FORBIDDEN if word in text and word not in sent]
    return found


def incidents(site: Site) -> list[str]:
    """Unexpected errors the server logged since the last look."""
    text = site.log.read_text(errors="replace")
    new, site.seen_log = text[site.seen_log :], len(text)
    lines = new.splitlines()
    found = []
    for k, line in enumerate(lines):
        if "incident" in line:
            found.append(line)
        elif "Traceback" in line:  # with what it says, to tell where it came from
            found.append("\n".join(lines[k : k + 40]))
    return found


@pytest.mark.parametrize("route", sorted(ROUTES), ids=lambda r: f"{r[1]} {r[0]}")
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=False,
)
@given(data=st.data())
def test_hostile_values_get_a_4xx_and_no_database_text(
    site: Site, route: tuple[str, str], data: st.DataObject
) -> None:
    incidents(site)  # another test's are not this one's
    call = data.draw(attacks(site, ROUTES[route]))
    answer = send(site.served.url, call)
    wrong = problems(call, answer)
    assert not wrong, (
        wrong,
        call.method,
        call.target[:300],
        (call.body or b"")[:300],
        answer.body[:500],
    )
    assert not incidents(site), (call.method, call.target[:300], incidents(site))


SWEEP: list[str | None] = [
    None, "", "²", "٣", "１", "+1", " 1", "1_0", "-1", "1.5", "Infinity", "NaN", "1e400",
    "\x00", "a\x00b", "\u202e", "9" * 20, "9" * 400, "9" * 4400, "x" * 3000, "http://[",
]  # fmt: skip
"""The value classes of the issue (and a malformed address), tried in every part of
every route."""
JSON_SWEEP: list[str | None] = [
    None, "Infinity", "-Infinity", "NaN", "1e400", "9" * 400, "-1", "1.5", "true", '"0"',
    '"²"', "null", "[0]", '{"a": 0}', "[" * 40 + "]" * 40,
]  # fmt: skip


@pytest.mark.parametrize("route", sorted(ROUTES), ids=lambda r: f"{r[1]} {r[0]}")
def test_every_part_of_every_route_refuses_the_issues_values(
    site: Site, route: tuple[str, str]
) -> None:
    """Each part of the route's request in turn (the rest as the page sends it) takes
    each value of :data:`SWEEP` (:data:`JSON_SWEEP` for a JSON member)."""
    spec = ROUTES[route]
    incidents(site)  # another test's are not this one's
    found = []
    for name in sorted(spec.fields(site)):
        values = JSON_SWEEP if name in ("decision", "choice") else SWEEP
        if name == "key":  # a match key's position too: LEAGUE-VALUE
            values = values + [f"cup-{v}" for v in SWEEP if v is not None]
        if name == "cookie":  # a session cookie's MAC too: AUTHOR.EXPIRES.NONCE.VALUE
            signed = text_of(spec.fields(site)["cookie"]).rsplit(".", 1)[0]
            values = values + [f"{signed}.{v}" for v in SWEEP if v is not None]
        for value in values:
            fields = spec.fields(site)
            fields[name] = value
            call = spec.build(site, fields)
            wrong = problems(call, send(site.served.url, call))
            if wrong:
                found.append((name, (value or "")[:12], wrong))
    assert not found, found
    assert not incidents(site)


def test_the_issue_42_requests_are_refused_by_name(site: Site) -> None:
    """The requests the attack round sent, one by one: a 4xx naming the field."""
    incidents(site)  # another test's are not this one's
    served, cookie = site.served, site.cookie
    form = {
        "cookie": cookie,
        "origin": served.url,
        "content-type": "application/x-www-form-urlencoded",
    }
    for seat, says in (("²", "seat"), ("5" * 900, "seat"), ("٣", "seat"), ("+1", "seat")):
        body = urlencode(
            {"csrf": site.csrf, "bot": "probability", "game": "liars_dice", "seat": seat}
        )
        reply = served.request("/play", method="POST", data=body.encode(), headers=form)
        assert reply.status == 400 and says in reply.text, (
            seat[:9],
            reply.status,
            reply.text[-400:],
        )
        assert "5" * 50 not in reply.text  # a long value is never echoed whole
    move = {"cookie": cookie, "origin": served.url, "x-csrf-token": site.csrf}
    for number in ("Infinity", "1e400", "9" * 900, "9" * 5000, "NaN", "true", '"0"'):
        sent = f'{{"decision": {number}, "choice": 0}}'.encode()
        reply = served.request(site.game + "/move", method="POST", data=sent, headers=move)
        assert 400 <= reply.status < 500, (number[:9], reply.status, reply.text[-400:])
    for path in ("/api/matches/cup-%C2%B2", "/api/matches/cup-99999999999999999999999",
                 "/matches/cup-1/logs/" + "9" * 5000, "/matches/cup-1/logs/99999999999999999999",
                 "/api/leagues/a%00b", "/watch/cup-%D9%A3/feed"):  # fmt: skip
        reply = served.get(path)
        assert reply.status == 404, (path[:60], reply.status, reply.text[-300:])
    assert not incidents(site)


# --- Guards: the same requests with the old parsing planted back ------------------


@dataclass
class InProcess:
    live: Any
    cookie: str
    csrf: str
    game: str


@pytest.fixture
def in_process(tmp_path: Path) -> Iterator[InProcess]:
    """The server in this process (so a test can plant the old parsing), an author
    logged in, and a game of theirs waiting for nothing (no bot is started)."""
    from league.server.auth import new_session
    from league.server.human_tables import WebGame
    from league.store.authors import add_author as make_author
    from league.store.db import open_database, session_scope
    from tests.security.live_server import live_server

    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    with session_scope(engine) as session:
        author, _token = make_author(session=session, name="ada")
        author_id = author.id
    assert author_id is not None
    with live_server(engine, tmp_path / "store") as live:
        value, author_session = new_session(live.server.key, author_id)
        game = WebGame("guardgame", author_id, "ada", "probability", "liars_dice", 0)
        live.server.human_tables.games[game.token] = game
        yield InProcess(live, f"arena_session={value}", author_session.csrf, game.token)
    engine.dispose()


def guard_requests(site: InProcess) -> list[Call]:
    """``seat=²`` and a move of ``Infinity``: what the attack round sent."""
    url = site.live.url
    form = {"cookie": site.cookie, "origin": url}
    play = urlencode({"csrf": site.csrf, "bot": "probability", "game": "liars_dice", "seat": "²"})
    move = {**form, "x-csrf-token": site.csrf, "content-type": "application/json"}
    return [
        Call(
            "POST",
            "/play",
            {**form, "content-type": "application/x-www-form-urlencoded"},
            play.encode(),
        ),
        Call("POST", f"/play/{site.game}/move", move, b'{"decision": Infinity, "choice": 0}'),
        Call("POST", f"/play/{site.game}/move", move, b'{"decision": 1e400, "choice": 0}'),
    ]


def test_guard_the_requests_are_refused_with_the_validators(in_process: InProcess) -> None:
    for call in guard_requests(in_process):
        answer = send(in_process.live.url, call)
        assert 400 <= answer.status < 500 and not problems(call, answer), (call.target, answer)


def test_guard_without_the_validators_the_same_requests_answer_500(
    in_process: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old parsing (``int(text) if text.isdigit()``, ``json.loads`` and ``int``)
    planted back: each request of the attack round is a 500 again, and the checks of
    this file say so."""
    from league.server import inputs

    def old_int(value: object, low: int, high: int, field: str, **_: object) -> int:
        return int(value) if isinstance(value, str) and value.isdigit() else -1  # the old seat

    monkeypatch.setattr(inputs, "ascii_int", old_int)
    monkeypatch.setattr(inputs, "json_object", lambda body, *a, **k: json.loads(body))
    monkeypatch.setattr(inputs, "json_int", lambda value, *a, **k: int(value))
    for call in guard_requests(in_process):
        answer = send(in_process.live.url, call)
        assert problems(call, answer) == ["HTTP 500"], (call.target, answer.status)


def test_an_unexpected_error_shows_an_incident_id_and_logs_the_details(
    in_process: InProcess, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A database error nobody expected: the answer is a generic page with an incident
    id, the traceback (SQL and all) goes to the server's log under that id."""
    import sqlite3

    from sqlalchemy.exc import IntegrityError

    from league.server import views

    def broken(session: object) -> object:
        raise IntegrityError(
            "INSERT INTO league (name) VALUES (?)", ("x",), sqlite3.IntegrityError("UNIQUE")
        )

    monkeypatch.setattr(views, "leagues", broken)
    for path in ("/", "/api/leagues"):
        call = Call("GET", path, {"cookie": in_process.cookie})
        answer = send(in_process.live.url, call)
        text = answer.body.decode()
        assert answer.status == 500 and problems(call, answer) == ["HTTP 500"], text
        incident = re.search(r"incident ([0-9a-f]{12})", text)
        assert incident, text
        logged = [r for r in caplog.records if incident.group(1) in r.getMessage()]
        assert logged and logged[0].exc_info is not None, caplog.text
        assert "INSERT INTO league" in caplog.text  # the details: in the log only
