"""No byte a bot wrote in any public place (issue 42, item 2).

An attack round found a start-up fault's message ending "its output ends: …" (the
bot's stderr, a line of its source, its exception text) in 22 of 40 public ladder
records and in a browser game's record. A bot (``tests.security.canary_bot``, a real
process in the default sandbox) now writes a fresh random canary everywhere it can —
stdout, stderr, its exception's text, its own source, every protocol field it fills,
every gRPC status it ends a call with, bytes that are not a message — and fails at
one phase of a match: start-up (before serving, or at Health), the handshake (no
Ready), a turn (crash, abort with each status, undecodable bytes, a wrong nonce, an
illegal or foreign action, a timeout, an unasked answer) or the end.

The canary must be in no record (the stored one included), replay page, transcript,
league report, public page, API answer or live feed of the server (leagues and a
browser game against the bot), read anonymously. Guards: it *is* in the author-only
log of the bot (so the bot really wrote it and the referee captured it), in the bot's
source (a traceback line), and the bot really faulted the way its phase says.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
import trio

from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    find_match,
    get_league,
    list_matches,
    match_log,
)
from league.store.registry import add_bot
from referee.core.faults import FaultKind
from referee.records.html_replay import render_replay_html
from referee.records.record import MatchRecord
from referee.records.transcript import result_lines, transcript_lines
from referee.runtime.launcher import FreshLauncher
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from tests.e2e.conftest import EXAMPLE, module_bot
from tests.security.support import (
    HOSTILE_SEAT,
    RULES,
    VICTIM_SEAT,
    assert_no_processes_left,
    new_token,
)
from tests.server.harness import Served, add_author, arena, start_server, stop_server
from tests.server.test_server_submissions import login

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CANARY = f"canary{secrets.token_hex(12)}"
"""Fresh for every run: found anywhere, it came from this run's bot."""
HERE = Path(__file__).resolve().parent

STARTUP = FaultKind.STARTUP
CRASH = FaultKind.CRASH
MALFORMED = FaultKind.MALFORMED_MESSAGE
PHASES: dict[str, set[FaultKind | None]] = {
    "start-exit": {STARTUP},
    "start-hang": {STARTUP},
    "health-refuse": {STARTUP},
    "health-fail": {STARTUP},
    "ready-abort": {STARTUP},
    "ready-raise": {STARTUP},
    "ready-wrong": {STARTUP},
    "ready-bytes": {STARTUP},
    "turn-abort-INTERNAL": {CRASH},
    "turn-abort-UNAVAILABLE": {CRASH},
    "turn-abort-RESOURCE_EXHAUSTED": {MALFORMED},
    "turn-abort-DATA_LOSS": {CRASH},
    "turn-abort-UNAUTHENTICATED": {CRASH},
    "turn-raise": {CRASH},
    "turn-crash": {CRASH},
    "turn-bytes": {MALFORMED},
    "turn-nonce": {MALFORMED},
    "turn-illegal": {FaultKind.ILLEGAL_ACTION},
    "turn-foreign": {MALFORMED},
    "turn-timeout": {FaultKind.TIMEOUT},
    "turn-early": {MALFORMED},
    "end-abort": {None},
    "play": {None},
}
"""Every phase of the canary bot, and the fault it must end with (None: none)."""
WAITING = {"start-hang", "health-fail"}
"""Phases that fail only when the start-up budget runs out."""
LEAGUE_PHASES = (
    "start-exit",
    "health-refuse",
    "ready-raise",
    "turn-abort-UNAVAILABLE",
    "turn-nonce",
    "turn-illegal",
    "end-abort",
)
"""The phases also played as leagues the server shows."""
BROWSER_PHASES = ("start-exit", "turn-abort-INTERNAL")
"""The phases also played as a browser game against a person, on the server."""


@pytest.fixture(scope="module")
def script() -> Iterator[Path]:
    """The canary bot as a script of its own with the canary in its source, in a
    world-readable directory (a sandboxed bot runs as a user of its own); its path
    holds no canary, so no command line does."""
    directory = Path(tempfile.mkdtemp(prefix="arena-canary-"))
    os.chmod(directory, 0o755)
    path = directory / f"bot_{secrets.token_hex(4)}.py"
    text = (HERE / "canary_bot.py").read_text().replace("CANARY_PLACEHOLDER", CANARY)
    assert text.count(CANARY) >= 2  # the constant and a source line's comment
    path.write_text(text)
    os.chmod(path, 0o644)
    yield path
    shutil.rmtree(directory, ignore_errors=True)


def canary_bot(script: Path, phase: str) -> BotSpec:
    return BotSpec(
        name=f"planter-{phase.lower()}", command=(sys.executable, str(script), "--phase", phase)
    )


def assert_clean(text: str, where: str) -> None:
    assert CANARY not in text, f"the canary is in {where}: …{around(text)}…"


def around(text: str) -> str:
    at = text.find(CANARY)
    return text[max(0, at - 300) : at + len(CANARY) + 100]


def assert_record_clean(record: MatchRecord, where: str) -> None:
    """The record as stored and as every renderer shows it."""
    assert_clean(record.to_json(), f"{where}: the record")
    assert_clean(render_replay_html(record), f"{where}: the replay page")
    assert_clean("\n".join(transcript_lines(record)), f"{where}: the transcript")
    assert_clean("\n".join(result_lines(record)), f"{where}: the result lines")


# -- every phase, played by the referee --------------------------------------------------


@dataclass
class Played:
    record: MatchRecord
    log: bytes


async def play_phase(script: Path, phase: str) -> Played:
    startup_s = 8.0 if phase in WAITING else 30.0
    limits = Limits(decision_s=2.0, startup_s=startup_s)
    victim = module_bot(EXAMPLE["random"], f"--victim={new_token()}", name="victim")
    logs: dict[int, bytes] = {}
    record = await run_match(
        MatchSpec(
            "liars_dice",
            (canary_bot(script, phase), victim),
            seed=7,  # the attacker always gets a turn (support.RULES)
            rules=RULES,
            match_id=f"canary-{new_token()}",
        ),
        limits,
        launcher=FreshLauncher(),
        logs=logs,
    )
    return Played(record, logs.get(HOSTILE_SEAT, b""))


@pytest.mark.parametrize("phase", list(PHASES))
async def test_no_record_of_a_match_holds_the_bots_canary(script: Path, phase: str) -> None:
    played = await play_phase(script, phase)
    record = played.record
    fault = record.fault_of(HOSTILE_SEAT)
    kinds = {fault.kind if fault else None}
    assert kinds <= PHASES[phase], (phase, record.faults)
    assert record.fault_of(VICTIM_SEAT) is None, f"the victim was blamed: {record.faults}"
    assert record.seats[VICTIM_SEAT].ready
    if fault is None:
        assert record.reason == "completed" and len(record.events) > 4, record.reason
    assert_record_clean(record, phase)
    # Guard: the bot wrote it, and its author gets it (arena match, bot check, league logs).
    assert CANARY.encode() in played.log, f"the author's log lacks the canary: {played.log!r}"
    if phase == "start-exit":  # its exception's text, and a line of its source
        text = played.log.decode()
        assert f"dies before serving: {CANARY}" in text and f"# {CANARY}" in text, text
        assert "Traceback (most recent call last)" in text
    assert_no_processes_left()


def test_the_author_reads_it_on_the_terminal_and_the_record_file_does_not(
    script: Path, tmp_path: Path
) -> None:
    """``arena match`` and ``arena bot check`` show a bot that failed to start its own
    output (on stderr, the author's terminal); the record file and the verdict (stdout,
    which the server keeps as a submission's reasons) hold the referee's words only."""
    command = shlex.join(canary_bot(script, "start-exit").command)
    record = tmp_path / "record.json"
    random_bot = f"python -m {EXAMPLE['random']}"
    for args in (
        ["match", "--game", "liars_dice", "--bot", command, "--bot", random_bot,
         "--rule", "dice_per_player=2", "--record", str(record)],
        ["bot", "check", command, "--game", "liars_dice", "--matches", "2"],
    ):  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "league.cli", "--db", f"sqlite:///{tmp_path / 'a.db'}", *args],
            capture_output=True, text=True, timeout=300, cwd=HERE.parents[1], check=False,
        )  # fmt: skip
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert CANARY in done.stderr and "Traceback" in done.stderr, done.stderr
        assert_clean(done.stdout, f"the stdout of arena {args[0]}")
    assert_clean(record.read_text(), "arena match's record file")
    assert_no_processes_left()


# -- leagues and a browser game, read from the server anonymously ----------------------


@dataclass
class Site:
    served: Served
    db: str
    leagues: list[str]
    games: list[str]
    """Match keys of the browser games."""
    report: Path


def play_leagues(db: str, script: Path) -> list[str]:
    """One league per phase of :data:`LEAGUE_PHASES`: the canary bot against the
    random example bot, both seat orders, played as ``arena league run`` plays."""
    engine = open_database(db)
    names = []
    try:
        with session_scope(engine) as session:
            add_bot(
                session=session,
                name="random",
                command=f"{sys.executable} -m {EXAMPLE['random']}",
                games=["liars_dice"],
            )
            for phase in dict.fromkeys((*LEAGUE_PHASES, *BROWSER_PHASES)):
                spec = canary_bot(script, phase)
                add_bot(
                    session=session,
                    name=spec.name,
                    command=shlex.join(spec.command),
                    games=["liars_dice"],
                )
            for phase in LEAGUE_PHASES:
                name = f"cup-{phase.lower()}"
                create_league(
                    session=session,
                    name=name,
                    settings=LeagueSettings(
                        game="liars_dice",
                        bots=(canary_bot(script, phase).name, "random"),
                        rules=RULES,
                        decision_s=2.0,
                        startup_s=30.0,
                    ),
                )
                names.append(name)

        async def run_all() -> None:
            options = RunOptions(concurrency=2, workers=1, handle_signals=False)
            for name in names:
                await LeagueRun(engine, name, options).play()

        trio.run(run_all)
    finally:
        engine.dispose()
    return names


def csrf_of(served: Served, cookie: str, bot: str) -> str:
    page = served.get(f"/bots/{quote(bot, safe='')}", headers={"cookie": cookie}).text
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def play_browser_game(served: Served, cookie: str, bot: str) -> str:
    """A person (``cookie``) plays ``bot`` in the browser, first choice every time, to
    the end, while the public live list and spectator feed are read; the match key."""
    token = csrf_of(served, cookie, bot)
    form = {"cookie": cookie, "origin": served.url}
    body = f"csrf={token}&bot={quote(bot)}&game=liars_dice&seat=0".encode()
    reply = served.request(
        "/play",
        method="POST",
        data=body,
        headers={**form, "content-type": "application/x-www-form-urlencoded"},
    )
    assert reply.status == 303, reply.text
    page = reply.headers["location"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = served.get(page + "/state", headers={"cookie": cookie})
        assert state.status == 200, state.text
        data = state.json()
        key = data.get("match")
        if key:
            assert_clean(served.get("/live").text, "/live")
            assert_clean(served.get(f"/watch/{quote(key, safe='')}").text, "a watch page")
            assert_clean(served.get(f"/watch/{quote(key, safe='')}/feed").text, "a watch feed")
        if data["state"] == "over":
            assert key, data
            return str(key)
        if data["state"] == "your-move":
            move = json.dumps({"decision": data["view"]["decision"], "choice": 0}).encode()
            headers = {**form, "content-type": "application/json", "x-csrf-token": token}
            sent = served.request(page + "/move", method="POST", data=move, headers=headers)
            assert sent.status == 200, sent.text
        time.sleep(0.1)
    raise AssertionError(f"the browser game against {bot} did not end: {data}")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, script: Path) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("canary-site")
    db = f"sqlite:///{tmp / 'arena.db'}"
    leagues = play_leagues(db, script)
    report = tmp / "report"
    arena("league", "report", leagues[0], "--html", str(report / "index.html"), db=db)
    ada = add_author(db, "ada")
    served = start_server(db, tmp / "store", tmp / "serve.log", extra=["--think-time", "5"])
    try:
        cookie = login(served, ada)
        games = [
            play_browser_game(served, cookie, canary_bot(script, phase).name)
            for phase in BROWSER_PHASES
        ]
        yield Site(served, db, leagues, games, report)
    finally:
        assert stop_server(served) == 0, (tmp / "serve.log").read_text()
        time.sleep(0.1)


def public_paths(site: Site) -> list[str]:
    """Every public page and API answer about the leagues, their bots and matches."""
    served = site.served
    paths = ["/", "/bots", "/api/bots", "/api/leagues", "/live"]
    leagues = [*site.leagues, "humans-liars_dice"]
    for league in leagues:
        part = quote(league, safe="")
        paths += [f"/leagues/{part}", f"/api/leagues/{part}", f"/api/leagues/{part}/standings"]
        paths += [f"/leagues/{part}/matches", f"/api/leagues/{part}/matches"]
        paths += [f"/leagues/{part}/figures"]
        for match in served.get(f"/api/leagues/{part}/matches").json():
            key = quote(match["key"], safe="")
            paths += [f"/matches/{key}", f"/api/matches/{key}", f"/watch/{key}/feed"]
            paths += [f"/matches/{key}/logs/{seat}" for seat in range(len(match["bots"]))]
    for bot in served.get("/api/bots").json():
        name = quote(bot["name"], safe="")
        paths += [f"/bots/{name}", f"/api/bots/{name}"]
    return paths


def test_no_public_page_api_answer_or_feed_holds_the_canary(site: Site) -> None:
    served = site.served
    paths = public_paths(site)
    faults = 0
    for path in paths:
        reply = served.get(path)
        assert_clean(reply.text, f"GET {path} ({reply.status})")
        if path.startswith(("/api/matches/", "/matches/")) and "/logs/" not in path:
            assert reply.status == 200, (path, reply.status)
        if path.startswith("/api/matches/"):
            faults += len(MatchRecord.from_dict(reply.json()).faults)
    assert faults >= 2 * (len(LEAGUE_PHASES) - 2) + len(BROWSER_PHASES), faults
    for league in site.leagues:
        with served.events(league, timeout=10) as events:
            assert_clean(str(next(events)), f"the events of {league}")
    for key, phase in zip(site.games, BROWSER_PHASES, strict=True):
        # The browser games' records are public like the rest; the bot (seat 1) faulted.
        record = MatchRecord.from_dict(served.get(f"/api/matches/{quote(key, safe='')}").json())
        fault = record.fault_of(1)
        assert fault is not None and fault.kind in PHASES[phase], (phase, record.faults)
        assert_record_clean(record, f"the browser game against {phase}")
    for written in sorted(site.report.rglob("*")):
        if written.is_file():
            text = written.read_text(errors="replace")
            assert_clean(text, f"the league report's {written.name}")


def test_the_canary_is_in_the_authors_log_only(site: Site) -> None:
    """Guard: every canary bot's output, the canary in it, is kept for its author
    (``arena league logs``, the server's log page for the author), and the stored
    records of the same matches hold none of it."""
    engine = open_database(site.db)
    try:
        with session_scope(engine) as session:
            for name in site.leagues:
                league = get_league(session=session, name=name)
                for row in list_matches(session=session, league=league):
                    _, match = find_match(session=session, key=row.key)
                    assert match.record is not None
                    seat = row.bots.index(next(b for b in row.bots if b.startswith("planter-")))
                    log = match_log(session=session, match=match, seat=seat) or b""
                    assert CANARY.encode() in log, (row.key, log[-500:])
                    assert_clean(site.served.get(f"/api/matches/{row.key}").text, row.key)
    finally:
        engine.dispose()
    first = site.served.get(f"/api/leagues/{site.leagues[0]}/matches").json()[0]
    seat = next(i for i, bot in enumerate(first["bots"]) if bot.startswith("planter-"))
    position = first["key"].rsplit("-", 1)[1]
    out = arena("league", "logs", site.leagues[0], position, "--seat", str(seat), db=site.db)
    assert CANARY in out  # what the bot wrote, as its author reads it
