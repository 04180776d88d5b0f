"""The live leaderboard of ``arena serve`` in headless Chromium.

The page is opened once; another process plays one more match (``arena league
run NAME --max-matches 1``) and the standings table changes without a reload
(a marker set on ``window`` survives). Then the match list opens a replay, which
steps. Any console error (a CSP violation is one), uncaught exception, dialog (an
``alert`` from a bot name) or request to another origin fails the test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.conftest import Watched, watched_page
from tests.server.harness import (
    SCRIPT_BOT,
    Served,
    arena,
    played_league,
    start_server,
    stop_server,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

expect: Any = pytest.importorskip("playwright.sync_api").expect


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("live")
    db = played_league(tmp, played=4)
    server = start_server(db, tmp / "store", tmp / "serve.log")
    yield server
    assert stop_server(server) == 0, (tmp / "serve.log").read_text()


@pytest.fixture
def site(browser: Browser, served: Served) -> Iterator[Watched]:
    """A page that records console errors, page errors, dialogs and requests that
    leave the server's origin."""
    with watched_page(
        browser,
        lambda url: url.startswith(served.url + "/") or url.startswith("data:"),
        timeout_ms=15_000,
    ) as watched:
        yield watched


def matches_column(page: Any) -> dict[str, str]:
    return dict(
        page.eval_on_selector_all(
            "#standings tbody tr",
            "rows => rows.map(r => [r.dataset.bot, r.querySelector('td.matches').textContent])",
        )
    )


def test_the_leaderboard_updates_without_reload_and_opens_a_replay(
    site: Watched, served: Served
) -> None:
    page = site.page
    page.goto(served.url + "/leagues/cup")
    # Waiting is done with locators: the page's CSP forbids the eval behind wait_for_function.
    expect(page.locator("#live-status")).to_have_text(re.compile("^live updates: on"))
    assert page.inner_text("#done") == "4"
    before = matches_column(page)
    assert sum(int(v) for v in before.values()) == 8
    assert SCRIPT_BOT in before  # the name is text in the table, and no alert fired
    page.evaluate("window.__notReloaded = true")
    chart = "#figures #elo-chart text:text-is('matches finished')"
    assert page.locator(chart).count() == 1
    points = "#elo-chart polyline >> nth=0"
    before_points = len((page.get_attribute(points, "points") or "").split())

    arena("league", "run", "cup", "--max-matches", "1", "--no-progress", db=served.db)

    # Within 5 s: the watcher polls every second (a 15 s keepalive would not do).
    expect(page.locator("#done")).to_have_text("5", timeout=5_000)
    expect(page.locator("body")).to_have_attribute("data-done", "5")
    after = matches_column(page)
    assert sum(int(v) for v in after.values()) == 10
    assert page.evaluate("window.__notReloaded === true")
    # The crosstable and the rating chart were swapped in too: every line gained a point.
    assert len((page.get_attribute(points, "points") or "").split()) == before_points + 1
    assert page.locator("#standings tr.updated").count() >= 2  # the two bots that played
    assert page.locator(f'#standings td.bot a:text-is("{SCRIPT_BOT}")').count() == 1
    assert page.locator("#bluff tbody tr").count() == 3

    page.click("#matches-link")
    page.wait_for_selector("#matches")
    assert page.locator("#matches a.replay-link").count() == 5
    page.click("#matches a.replay-link >> nth=0")
    page.wait_for_selector("body[data-ready=true]")
    assert page.inner_text("#match-id") == "cup-0"
    page.click("#next")
    assert page.inner_text("#step-counter").startswith("step 1 /")
    page.click("#back-link")
    page.wait_for_selector("#matches")
    assert site.problems == []


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/bots",
        "/bots/probability",
        "/bots/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        "/leagues/%3Csvg%2Fonload%3Dalert(2)%3E",
        "/leagues/cup/matches?bot=random&result=lost",
        "/login",
        "/submit",
        "/no/such/page",
    ],
)
def test_pages_load_without_console_errors(site: Watched, served: Served, path: str) -> None:
    site.page.goto(served.url + path)
    site.page.wait_for_load_state("load")
    assert site.page.locator("nav .brand").count() == 1
    if path == "/no/such/page":  # Chromium reports the page's own 404 status, nothing else
        assert [p for p in site.problems if "status of 404" not in p] == []
        assert site.page.inner_text("#error-message") == "no page at /no/such/page"
    else:
        assert site.problems == []
