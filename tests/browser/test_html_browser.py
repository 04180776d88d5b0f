"""The replay viewer and league report in a real headless Chromium.

Needs Playwright for Python and a Chromium binary (Debian's ``chromium``; another
path via ``ARENA_CHROMIUM``); without them every test here is skipped. Pages are
opened from file:// URLs; any request that is not a local file, any console error,
uncaught exception or dialog fails the test.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sqlmodel import select

from league.store.db import session_scope
from league.store.leagues import decompress_record
from league.store.models import MatchRow
from referee.records.html_replay import render_replay_html, replay_data
from referee.records.record import MatchRecord
from referee.records.replay import replay_steps
from tests.browser.conftest import Watched
from tests.test_html_render import League, build_league, play_liars_dice

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def record() -> MatchRecord:
    return play_liars_dice(seed=5)


@pytest.fixture(scope="module")
def replay_file(record: MatchRecord, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "replay.html"
    path.write_text(render_replay_html(record, title="browser replay"), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> League:
    return build_league(tmp_path_factory.mktemp("league"))


def open_replay(tab: Watched, path: Path) -> Page:
    tab.page.goto(path.as_uri())
    tab.page.wait_for_selector("body[data-ready=true]")
    return tab.page


def shown(page: Page) -> tuple[str, str]:
    return page.inner_text("#step-counter"), page.inner_text("#event-text")


def test_replay_page_loads_without_errors(
    tab: Watched, replay_file: Path, record: MatchRecord
) -> None:
    page = open_replay(tab, replay_file)
    assert page.title() == "browser replay"
    assert shown(page) == (f"step 0 / {len(record.events)}", "start of the match")
    assert page.locator(".seat-panel").count() == 1  # the omniscient view: one panel
    assert page.locator('.seat-panel[data-seat="all"]').is_visible()
    assert page.locator("#event-list li").count() == len(record.events) + 1
    assert tab.problems == []


def omniscient_text(step: dict[str, Any]) -> str:
    """A step's text in the "all seats" view, as viewer.js writes it: the event, the
    truth of the claim it made, the mover's thinking time (a number as JS prints it)."""
    if step["index"] == 0:
        return "start of the match"
    claim = step.get("claim")
    truth = " [true]" if claim is True else " [a bluff]" if claim is False else ""
    think = step.get("think_ms")
    shown = "" if think is None else f" ({int(think) if float(think).is_integer() else think} ms)"
    return f"{step['event']}{truth}{shown}"


def test_stepping_with_buttons_keys_and_the_event_list(
    tab: Watched, replay_file: Path, record: MatchRecord
) -> None:
    texts = [omniscient_text(step) for step in replay_data(record)["steps"]]
    last = len(texts) - 1
    assert last >= 3 and len(set(texts[1:4])) == 3
    page = open_replay(tab, replay_file)
    assert page.is_disabled("#prev") and page.is_disabled("#first")
    page.click("#next")
    assert shown(page) == (f"step 1 / {last}", texts[1])
    page.click("#next")
    assert shown(page) == (f"step 2 / {last}", texts[2])
    page.click("#prev")
    assert shown(page) == (f"step 1 / {last}", texts[1])
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert shown(page) == (f"step 3 / {last}", texts[3])
    page.keyboard.press("ArrowLeft")
    assert shown(page) == (f"step 2 / {last}", texts[2])
    page.keyboard.press("End")
    assert shown(page) == (f"step {last} / {last}", texts[-1])
    assert page.is_disabled("#next") and page.is_disabled("#last")
    assert page.inner_text("#to-act") == "the match is over"
    page.keyboard.press("Home")
    assert shown(page)[0] == f"step 0 / {last}"
    page.click("#last")
    assert shown(page) == (f"step {last} / {last}", texts[-1])
    page.click("#first")
    assert shown(page)[0] == f"step 0 / {last}"
    page.click('#event-list li[data-step="3"]')
    assert shown(page) == (f"step 3 / {last}", texts[3])
    assert page.get_attribute('#event-list li[data-step="3"]', "class") == "current"
    assert tab.problems == []


def test_a_seat_view_shows_only_that_seats_hidden_information(
    tab: Watched, replay_file: Path, record: MatchRecord
) -> None:
    steps = replay_steps(record)
    # The first roll of a round: each seat sees its own dice only.
    index, step = next(
        (i, s)
        for i, s in enumerate(steps)
        if s.event.startswith("chance: round")
        and sorted(s.observations[0]["own_dice"]) != sorted(s.observations[1]["own_dice"])
    )
    dice = [" ".join(str(d) for d in step.observations[seat]["own_dice"]) for seat in (0, 1)]
    secret = f"seat 1 {dice[1]}"
    assert step.event.endswith(secret), step.event  # the omniscient text shows seat 1's roll
    page = open_replay(tab, replay_file)
    page.click(f'#event-list li[data-step="{index}"]')
    panels = {seat: page.locator(f'.seat-panel[data-seat="{seat}"]') for seat in (0, 1)}
    everyone = page.locator('.seat-panel[data-seat="all"]')

    # The omniscient view: one panel, both cups face up, each in its seat's place.
    assert everyone.is_visible() and panels[0].count() == 0 and panels[1].count() == 0
    for seat in (0, 1):
        cup = everyone.locator(f'[data-seat-box="{seat}"] .hand[data-private-of="{seat}"]')
        assert cup.get_attribute("data-values") == dice[seat]
        faces = cup.locator(".die").evaluate_all("ds => ds.map(d => d.dataset.v)")
        assert faces == dice[seat].split()
    assert everyone.locator(".hidden-dice").count() == 0
    assert secret in page.inner_text("body")
    own = ".hand[data-private-of]"

    page.select_option("#seat-select", "0")
    assert page.inner_text("#step-counter").startswith(f"step {index} /")
    assert panels[0].is_visible()
    assert panels[1].count() == 0
    assert page.locator(own).count() == 1
    assert page.locator(own).get_attribute("data-private-of") == "0"
    assert page.locator(own).get_attribute("data-values") == dice[0]
    # Seat 1's dice are drawn face down in seat 0's view.
    hidden = page.locator('[data-seat-box="1"] .hidden-dice')
    assert hidden.get_attribute("data-hidden-count") == str(len(dice[1].split()))
    assert page.locator('[data-seat-box="1"] .die[data-v]').count() == 0
    body = page.inner_text("body")
    assert "Seat 1's view" not in body
    assert secret not in body and dice[1] not in body
    # The engine's text for seat 0: its own cup, and how many dice seat 1 rolled.
    assert page.inner_text("#event-text") == step.seen[0]
    assert step.seen[0] == (
        f"chance: round {step.event.split()[2]} roll: seat 0 {dice[0]};"
        f" seat 1 ({len(dice[1].split())} dice)"
    )

    page.select_option("#seat-select", "1")
    assert panels[0].count() == 0 and panels[1].is_visible()
    assert dice[0] not in page.inner_text("body")

    page.select_option("#seat-select", "all")
    assert everyone.is_visible() and panels[0].count() == 0 and panels[1].count() == 0
    assert everyone.locator(own).count() == 2
    assert page.inner_text("#event-text") == step.event
    assert tab.problems == []


def test_league_report_loads_and_links_to_replays(tab: Watched, league: League) -> None:
    page = tab.page
    page.goto(league.page.as_uri())
    assert page.title().startswith("League html")
    assert page.locator("#standings tbody tr").count() == 3
    assert page.locator("#elo-chart polyline").count() == 3
    links = page.locator("a.replay-link")
    assert links.count() == 4
    href = links.first.get_attribute("href")
    assert href is not None
    target = league.page.parent / href.replace("%20", " ")
    position = int(target.stem.removeprefix("match-"))
    with session_scope(league.engine) as session:
        match = session.exec(select(MatchRow).where(MatchRow.position == position)).one()
        assert match.record is not None
        events = len(decompress_record(match.record).events)
    links.first.click()
    page.wait_for_selector("body[data-ready=true]")
    assert page.url == target.resolve().as_uri()
    assert page.title() == f"html · match {position}"
    assert page.inner_text("#step-counter") == f"step 0 / {events}"
    page.keyboard.press("End")
    assert page.inner_text("#step-counter") == f"step {events} / {events}"
    page.click("#back-link")
    page.wait_for_selector("#standings")
    assert page.title().startswith("League html")
    assert tab.problems == []
