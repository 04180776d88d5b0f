"""The HTML replay viewer and league report, checked as text (no browser).

Records and leagues come from real matches over gRPC (example bots); the shared
helpers here are used by the browser tests too.
"""

from __future__ import annotations

import json
import re
import sys
import zlib
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import trio
from sqlalchemy import Engine
from sqlmodel import col, select

from example_bots.liars_dice_random import RandomLiarsDiceBot
from league.execution.league_run import LeagueRun, RunOptions
from league.store.db import open_database, session_scope
from league.store.leagues import (
    LeagueSettings,
    create_league,
    finished_results,
    get_league,
    league_bots,
)
from league.store.models import MatchRow
from league.store.registry import add_bot
from league.store.standings import crosstable, standings
from league.web.report import match_file_name, write_league_report
from referee.core.catalogue import get_entry
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.faults import FaultKind
from referee.gamekit.cards import parse_cards
from referee.gamekit.poker_hands import Announcement
from referee.gamekit.poker_hands import Category as CardCategory
from referee.games.liars_dice import engine as ld
from referee.games.liars_poker import engine as lp
from referee.records.html_replay import (
    json_for_script,
    render_replay_html,
    renderer_script,
    replay_data,
)
from referee.records.record import MatchRecord, RecordedFault
from referee.records.replay import replay_steps
from referee.runtime.match import MatchSpec, run_match
from referee.runtime.process import BotSpec
from sdk.local import play_local
from tests.forge import record_of
from tests.game_plugins import registered_games

EVIL = "</script><script>alert(1)</script>"
"""A bot name that would end the data script element if it were not escaped."""

RANDOM = (sys.executable, "-m", "example_bots.liars_dice_random")
PROBABILITY = (sys.executable, "-m", "example_bots.liars_dice_probability")


def play_liars_dice(
    seed: int = 5, names: tuple[str, str] = ("random", "probability")
) -> MatchRecord:
    bots = (BotSpec(name=names[0], command=RANDOM), BotSpec(name=names[1], command=PROBABILITY))
    spec = MatchSpec("liars_dice", bots, seed=seed, match_id=f"html-{seed}")
    return trio.run(lambda: run_match(spec))


@dataclass(frozen=True)
class League:
    engine: Engine
    name: str
    page: Path
    written: list[Path]


LEAGUE_BOTS = ("probability", "random", EVIL)


def build_league(directory: Path, *, played: int = 4) -> League:
    """A 3-bot liars_dice league (6 matches), ``played`` of them played; its report."""
    engine = open_database(f"sqlite:///{directory / 'arena.db'}")
    with session_scope(engine) as session:
        for name in LEAGUE_BOTS:
            command = PROBABILITY if name == "probability" else RANDOM
            add_bot(
                session=session,
                name=name,
                command=" ".join(command),
                games=["liars_dice"],
            )
        create_league(
            session=session, name="html", settings=LeagueSettings("liars_dice", LEAGUE_BOTS)
        )
    trio.run(
        lambda: LeagueRun(
            engine, "html", RunOptions(concurrency=3, max_matches=played, handle_signals=False)
        ).play()
    )
    page = directory / "report" / "league page.html"
    page.parent.mkdir()
    with session_scope(engine) as session:
        league = get_league(session=session, name="html")
        written = write_league_report(session=session, league=league, path=page, samples=100)
    return League(engine, "html", page, written)


class _Links(HTMLParser):
    """Every ``<a>``'s attributes, and the text outside script elements."""

    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[dict[str, str | None]] = []
        self.urls: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "a":
            self.anchors.append(found)
        self.urls += [v or "" for k, v in attrs if k in ("href", "src", "action")]
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def parse(page: str) -> _Links:
    parser = _Links()
    parser.feed(page)
    parser.close()
    return parser


def embedded_data(page: str) -> dict[str, Any]:
    found = re.search(
        r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S
    )
    assert found, "no embedded replay data"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def assert_self_contained(page: str) -> None:
    for url in parse(page).urls:
        assert not re.match(r"^\s*([a-z][a-z0-9+.-]*:|//)", url, re.I) or url == "data:,", url
    assert "@import" not in page and "url(" not in page
    assert not re.search(r"<(link|script|img|iframe)[^>]*\ssrc=", page, re.I)


@pytest.fixture(scope="module")
def record() -> MatchRecord:
    return play_liars_dice()


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> League:
    return build_league(tmp_path_factory.mktemp("league"))


# ---------------------------------------------------------------- replay page


def test_replay_page_embeds_every_step_of_the_record(record: MatchRecord) -> None:
    page = render_replay_html(record, title="My replay")
    data = embedded_data(page)
    steps = replay_steps(record)
    assert len(data["steps"]) == len(record.events) + 1 == len(steps)
    for shown, step in zip(data["steps"], steps, strict=True):
        assert shown["index"] == step.index
        assert shown["event"] == step.event
        assert shown["actor"] == step.actor and shown["to_act"] == step.to_act
        assert shown["observations"] == list(step.observations)
    assert data["match_id"] == record.match_id and data["seed"] == record.seed
    assert [s["bot"] for s in data["seats"]] == [s.bot for s in record.seats]
    assert [s["place"] for s in data["seats"]] == list(record.places)
    assert "<title>My replay</title>" in page
    assert f"step 0 / {len(record.events)}" in page
    for element in ('id="next"', 'id="prev"', 'id="first"', 'id="last"', 'id="seat-select"'):
        assert element in page
    assert_self_contained(page)


def test_replay_header_shows_the_result_table(record: MatchRecord) -> None:
    page = render_replay_html(record)
    table = re.search(r'<table id="result-table".*?</table>', page, re.S)
    assert table
    rows = re.findall(r'<tr data-seat="(\d+)"><td class="num">(\d+)</td>', table.group(0))
    by_seat = {int(seat): int(place) for seat, place in rows}
    assert by_seat == dict(enumerate(record.places))
    assert [place for _, place in rows] == sorted(place for _, place in rows)
    for key, value in record.rules.items():
        assert f"<code>{key}={value}</code>" in page


def test_a_script_closing_bot_name_cannot_break_out(record: MatchRecord) -> None:
    evil = play_liars_dice(seed=6, names=(EVIL, "probability"))
    assert evil.seats[0].bot == EVIL
    page = render_replay_html(evil, title=EVIL)
    assert EVIL not in page
    assert "<script>alert" not in page
    # Only the two script elements of the page open and close.
    assert len(re.findall(r"<script\b", page, re.I)) == 2
    assert len(re.findall(r"</script", page, re.I)) == 2
    assert parse(page).scripts[0].strip().startswith("{")
    assert embedded_data(page)["seats"][0]["bot"] == EVIL
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page


@pytest.mark.parametrize(
    "text", ["</script><!--", "<!-- </SCRIPT >", "a & b > c", "line\u2028sep\u2029", "é ü ⚀"]
)
def test_json_for_script_round_trips_without_markup(text: str) -> None:
    encoded = json_for_script({"k": [text]})
    assert json.loads(encoded) == {"k": [text]}
    assert not set(encoded) & {"<", ">", "&", "\u2028", "\u2029"}


# ---------------------------------------------------------------- league report


def test_every_match_link_points_to_a_written_replay(league: League) -> None:
    page = league.page.read_text()
    links = [a for a in parse(page).anchors if "replay-link" in (a.get("class") or "")]
    assert len(links) == 4  # four of six matches were played
    targets = {(league.page.parent / str(a["href"]).replace("%20", " ")).resolve() for a in links}
    assert targets == {p.resolve() for p in league.written[1:]}
    assert league.written[0] == league.page
    assert all(p.is_file() for p in league.written)
    with session_scope(league.engine) as session:
        matches = list(session.exec(select(MatchRow).order_by(col(MatchRow.position))))
    done = {m.position for m in matches if m.status == "done"}
    assert len(done) == 4 and len(matches) == 6
    assert {p.name for p in league.written[1:]} == {match_file_name(n) for n in done}
    for position in done:
        replay = (
            league.page.parent / "league page_matches" / match_file_name(position)
        ).read_text()
        assert embedded_data(replay)["match_id"] == f"html-{position}"
        assert 'href="../league%20page.html"' in replay
    for match in matches:
        row = re.search(rf'<tr data-position="{match.position}".*?</tr>', page, re.S)
        assert row, match.position
        assert ("replay-link" in row.group(0)) == (match.status == "done")


def test_league_page_tables_match_the_standings(league: League) -> None:
    page = league.page.read_text()
    assert_self_contained(page)
    assert EVIL not in page and "<script" not in page
    with session_scope(league.engine) as session:
        row = get_league(session=session, name="html")
        table = standings(session=session, league=row, samples=100)
        cross = crosstable(session=session, league=row)
        entries = {bot.name: entry.elo for entry, bot in league_bots(session=session, league=row)}
        results = finished_results(session=session, league=row)
    body = re.search(r'<table id="standings".*?</table>', page, re.S)
    assert body
    ranked = re.findall(r'<tr data-bot="([^"]*)">', body.group(0))
    assert [name.replace("&lt;", "<").replace("&gt;", ">") for name in ranked] == [
        s.bot for s in table
    ]
    for standing in table:
        assert standing.elo is not None
        assert f'<td class="num elo">{standing.elo:.0f}</td>'.replace("-", "−") in page
    for row_ in cross.values():
        for b, h2h in row_.items():
            if h2h.games:
                cell = f'data-col="{_html(b)}"><div class="wdl"'
                assert cell in page
                assert f"{h2h.wins}-{h2h.draws}-{h2h.losses}</div>" in page
    # One point per finished match from a bot's first one (plus its 1500 start before it);
    # the legend shows where each line ends: the bot's incremental Elo.
    for name, elo in entries.items():
        line = re.search(rf'<polyline data-bot="{re.escape(_html(name))}" points="([^"]*)"', page)
        assert line, name
        first = next(i for i, result in enumerate(results) if name in result.bots)
        assert len(line.group(1).split()) == len(results) - first + 1
        assert f"{_html(name)} ({elo:.0f})" in page


def test_an_unreplayable_record_gets_an_error_page(league: League, tmp_path: Path) -> None:
    with session_scope(league.engine) as session:
        match = session.exec(select(MatchRow).where(MatchRow.status == "done")).first()
        assert match is not None
        position = match.position
        match.record = zlib.compress(b"{not json")
        session.add(match)
        session.flush()
        row = get_league(session=session, name="html")
        written = write_league_report(
            session=session, league=row, path=tmp_path / "broken.html", samples=10
        )
        session.rollback()
    broken = tmp_path / "broken_matches" / match_file_name(position)
    assert broken in written
    assert 'id="replay-error"' in broken.read_text()
    assert "not JSON" in broken.read_text()


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def test_each_seat_reads_the_engines_text_for_it() -> None:
    """``step.seen[seat]`` is the engine's text for that seat: the cards a seat takes
    are its own to read, another seat's discards are not."""
    announce = lp.Announce(Announcement(CardCategory.HIGH_CARD, (9,)))
    higher = lp.Announce(Announcement(CardCategory.PAIR, (2,)))
    events: list[Event] = [
        ChanceEvent(tuple(range(54))),
        ActionEvent(0, announce),
        ActionEvent(1, lp.Accept()),
        ActionEvent(1, lp.Exchange(parse_cards("2c 3c"))),
        ChanceEvent(tuple(range(49))),
        ActionEvent(1, higher),
        ActionEvent(2, lp.Challenge()),
    ]
    record = record_of("liars_poker", {"penalty_limit": "1"}, events, bots=("a", "b", "c"))
    steps = replay_data(record)["steps"]
    assert steps[0]["seen"] == ["", "", ""]
    assert steps[1]["event"] == "chance: deal 2c 2d 2h 2s 3c to seat 0"
    assert steps[1]["seen"] == [
        "chance: deal 2c 2d 2h 2s 3c to seat 0",
        "chance: deal 5 cards to seat 0",
        "chance: deal 5 cards to seat 0",
    ]
    assert steps[2]["seen"] == ["seat 0: announce high card 9"] * 3
    assert steps[4]["event"] == "seat 1: exchange 2 (2c 3c)"
    assert steps[4]["seen"] == [
        "seat 1: exchange 2",
        "seat 1: exchange 2 (2c 3c)",
        "seat 1: exchange 2",
    ]
    assert steps[5]["seen"] == [
        "chance: shuffle the stock; seat 1 draws 2 cards",
        "chance: shuffle the stock; seat 1 draws 3d 3h",
        "chance: shuffle the stock; seat 1 draws 2 cards",
    ]
    assert steps[7]["seen"] == ["seat 2: challenge"] * 3
    # Every number the table shows comes from the engine, for each seat's view.
    assert [facts_of(steps[6], seat)["penalties"] for seat in range(3)] == [[0, 0, 0]] * 3
    assert [facts_of(steps[7], seat)["penalties"] for seat in range(3)] == [[0, 0, 1]] * 3
    assert all(facts_of(steps[2], seat)["held"] == 5 for seat in range(3))
    # Alike for every seat (Liar's Poker's numbers are public): sent once per step.
    assert "facts" not in steps[7] and steps[7]["facts_all"]["deal"] == 1


def facts_of(step: dict[str, Any], seat: int) -> dict[str, Any]:
    """The engine's facts for ``seat``'s view of ``step`` (as the viewer reads them)."""
    facts: dict[str, Any] = step["facts_all"] if "facts_all" in step else step["facts"][seat]
    return facts


def test_liars_dice_steps_carry_the_faces_that_count() -> None:
    """The viewer marks counting dice from ``step.facts``, computed by the engine's
    count: with wild 1s, a bid on 5s counts 5s and 1s; an opening bid on 1s cancels
    the wilds for the round."""
    rules = {
        "wild_face": "1",
        "roll_off": "false",
        "dice_per_player": "2",
        "raise_rule": "reset-face",
    }
    events: list[Event] = [
        ChanceEvent((3, 1, 2, 5)),
        ActionEvent(0, ld.Bid(1, 5)),
        ActionEvent(1, ld.Challenge()),  # a 5 and a wild 1: true, seat 1 loses a die
        ChanceEvent((1, 1, 4)),
        ActionEvent(1, ld.Bid(1, 1)),
        ActionEvent(0, ld.Bid(2, 4)),
    ]
    record = record_of("liars_dice", rules, events, reason="aborted", meta={"error": "stopped"})
    steps = replay_data(record)["steps"]

    def counts(step: int, seat: int) -> dict[str, Any]:
        facts = facts_of(steps[step], seat)
        return {key: facts[key] for key in ("bid_counts", "reveal_counts")}

    none: dict[str, Any] = {"bid_counts": [], "reveal_counts": None}
    assert [counts(1, 0), counts(1, 1)] == [none, none]
    assert [counts(2, 0), counts(2, 1)] == [{"bid_counts": [1, 5], "reveal_counts": None}] * 2
    revealed = {"bid_counts": [], "reveal_counts": [1, 5]}
    assert [counts(3, 0), counts(3, 1)] == [revealed, revealed]
    assert counts(5, 0) == {"bid_counts": [1], "reveal_counts": [1, 5]}
    assert counts(6, 1) == {"bid_counts": [4], "reveal_counts": [1, 5]}  # no wilds
    # The numbers the table shows, by the engine: dice per seat, the bid to beat, the
    # last challenge's count and loser.
    assert facts_of(steps[3], 0)["dice_counts"] == [2, 1]
    assert facts_of(steps[3], 0)["reveal"] == {
        "round": 1, "actual": 2, "loser": 1, "bid": {"quantity": 1, "face": 5}
    }  # fmt: skip
    assert facts_of(steps[6], 1)["bid"] == {"quantity": 2, "face": 4}


def test_the_viewer_files_are_inlined(record: MatchRecord) -> None:
    page = render_replay_html(record)
    assert "window.ArenaKit" in page and "window.ArenaGames.liars_dice = liarsDice" in page
    assert ".pcard.back" in page and 'id="step-slider"' in page


@pytest.mark.parametrize("name", registered_games())
def test_a_named_renderer_comes_with_the_script_that_defines_it(name: str) -> None:
    """The kit defines no game's renderer: each comes from its game's own script."""
    viewer = get_entry(name).viewer
    if viewer.renderer is None:
        return
    assert viewer.script is not None, f"{name} names a renderer but no script"
    assert f"window.ArenaGames.{viewer.renderer} =" in renderer_script(name)


def test_the_llr_chart_draws_the_path_between_its_bounds() -> None:
    from league.web.report import llr_chart_html

    html = llr_chart_html([0.5, 1.25, 2.96], -2.94, 2.94)
    assert 'id="llr-chart"' in html and 'data-pairs="3"' in html
    assert "H1 at 2.94" in html and "H0 at -2.94" in html
    assert "LLR 2.96 after 3 pairs" in html and "style=" not in html
    assert "No finished pair yet" in llr_chart_html([], -2.94, 2.94)


def test_the_omniscient_view_marks_each_claim_and_every_move_its_time(
    record: MatchRecord,
) -> None:
    """The "all seats" view said nothing of whether a bid was a bluff: each step now
    carries the engine's truth of the claim it made (and of the claim standing after
    it) and each action the referee's measured thinking time."""
    data = embedded_data(render_replay_html(record))
    steps = replay_steps(record)
    engine = ld.LIARS_DICE
    claims = 0
    pairs = zip(data["steps"][1:], record.engine_events(), steps[:-1], strict=True)
    for shown, event, before in pairs:
        if isinstance(event, ActionEvent):
            truth = engine.claim_truth(before.state, event.action)
            assert shown["claim"] == truth
            claims += truth is not None
            elapsed = record.events[shown["index"] - 1].elapsed_ms
            assert shown["think_ms"] == round(elapsed, 1)
            assert shown["standing"] == truth
        else:
            assert shown["claim"] is None and shown["standing"] is None
            assert "think_ms" not in shown
    assert claims > 3 and any(s["claim"] is False for s in data["steps"][1:])
    page = render_replay_html(record)
    assert 'id="claim-truth"' in page and "the standing claim is a BLUFF" in page


def test_a_faulted_seats_output_shows_escaped_under_its_fault_only_when_passed() -> None:
    """``arena replay --html`` passes the last lines a faulted bot wrote (its
    traceback): they show under the fault, escaped (untrusted text; the page allows no
    script of its own), and only for a faulted seat. Without them (the server's page,
    the league report) the page holds no bot output at all."""
    events = play_local("liars_dice", [RandomLiarsDiceBot, RandomLiarsDiceBot], seed=1).events
    fault = RecordedFault(seat=1, kind=FaultKind.CRASH, message="stream broke", at_event=3)
    record = record_of("liars_dice", {}, events[:3], reason="forfeit", faults=(fault,))
    tail = f'Traceback (most recent call last):\n  File "bot.py"\nValueError: {EVIL} & <b>'
    page = render_replay_html(record, fault_output={1: tail, 0: "seat 0 chatter"})
    faults = re.search(r'<ul id="faults".*?</ul>', page, re.S)
    assert faults is not None
    shown = re.search(
        r'<li data-seat="1">.*<details class="fault-output" data-seat="1" open>'
        r"<summary>[^<]*</summary><pre>(.*?)</pre></details></li>",
        faults.group(0),
        re.S,
    )
    assert shown is not None and unescape(shown.group(1)) == tail
    assert "&amp; &lt;b&gt;" in shown.group(1) and EVIL not in page
    assert len(re.findall(r"<script\b", page, re.I)) == 2
    assert "seat 0 chatter" not in page  # seat 0 did not fault
    public = render_replay_html(record)
    assert 'id="faults"' in public and 'class="fault-output"' not in public
    assert "Traceback" not in public
