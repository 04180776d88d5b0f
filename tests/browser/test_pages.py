"""What a newcomer sees on ``arena serve``'s pages, in headless Chromium (issue 21, item 9).

One server over two played leagues: ``cup`` (Liar's Dice, three bots, one of them
``sly_bot``, submitted by an author with a hostile README kept under a home
directory) and ``critters`` (Cockroach Poker, whose deal is a long text). Each test
checks one page in the DOM and takes its screenshot (``ARENA_SCREENSHOTS=docs/screenshots``
writes them there, else into the test's temporary directory):

* the index names each league's leader (``server_index.png``);
* the league page has the static report's crosstable and rating chart
  (``server_league.png``), and the static report's standings fit 1280 px;
* a bot page shows its rank per league, links to its matches and renders its
  README as Markdown with no script, handler, unsafe link or local path
  (``server_bot.png``);
* a replay has the site's menu bar and its deal text collapsed (``server_replay.png``).

Any console error (an inline style the CSP refuses is one), uncaught exception,
dialog (an ``alert`` from the README) or request to another origin fails a test.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.conftest import Watched, watched_page
from tests.server.harness import Served, arena, start_server, stop_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

expect: Any = pytest.importorskip("playwright.sync_api").expect

SLY_README = """# Sly bot <script>alert(1)</script>

Bluffs *early*, folds late. <img src=x onerror=alert(2)>
[Click me](javascript:alert(3)) · [source](https://example.org/sly)

Run it from its folder:

    arena bot check "python {home}/sly_bot.py" --game liars_dice

My notes: {home}/notes.md
"""


@dataclass
class Site:
    served: Served
    home: Path
    report: Path
    shots: Path


def _seed(tmp: Path) -> tuple[str, Path]:
    """The database: ``cup`` (12 Liar's Dice matches) and ``critters`` (2 Cockroach
    Poker matches), every bot unsandboxed; ``sly_bot``'s files under a fake home."""
    from league.cli.scaffold import write_project
    from league.store.authors import add_author
    from league.store.db import open_database, session_scope
    from league.store.leagues import LeagueSettings, create_league
    from league.store.registry import add_bot
    from referee.runtime.sandbox import SandboxConfig

    home = tmp / "home" / "alice" / "bots" / "sly_bot"
    write_project("sly_bot", "liars_dice", home)
    (home / "README.md").write_text(SLY_README.format(home=home))
    db = f"sqlite:///{tmp / 'arena.db'}"
    engine = open_database(db)
    python = sys.executable
    with session_scope(engine) as session:
        author, _token = add_author(session=session, name="alice")
        bots = {
            "probability": ("liars_dice", f"{python} -m example_bots.liars_dice_probability"),
            "random": ("liars_dice", f"{python} -m example_bots.liars_dice_random"),
            "sly_bot": ("liars_dice", f"{python} {home / 'sly_bot.py'}"),
            "roach": ("cockroach_poker", f"{python} -m example_bots.cockroach_poker_heuristic"),
            "roach_random": ("cockroach_poker", f"{python} -m example_bots.cockroach_poker_random"),
        }
        for name, (game, command) in bots.items():
            row = add_bot(session=session, name=name, command=command, games=[game])
            if name == "sly_bot":
                row.author_id = author.id  # as if alice had submitted it
                session.add(row)
        for league, game, names, rounds in (
            ("cup", "liars_dice", ("probability", "random", "sly_bot"), 2),
            ("critters", "cockroach_poker", ("roach", "roach_random"), 1),
        ):
            create_league(
                session=session,
                name=league,
                settings=LeagueSettings(
                    game=game, bots=names, rounds=rounds, sandbox=SandboxConfig(enabled=False)
                ),
            )
    engine.dispose()
    for league in ("cup", "critters"):
        arena("league", "run", league, "--concurrency", "2", "--no-progress", db=db)
    report = tmp / "report" / "cup.html"
    arena("league", "report", "cup", "--html", str(report), "--samples", "100", db=db)
    return db, home


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("pages")
    db, home = _seed(tmp)
    served = start_server(db, tmp / "store", tmp / "serve.log", extra=["--no-ladders"])
    shots = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    yield Site(served, home, tmp / "report" / "cup.html", shots)
    assert stop_server(served) == 0, (tmp / "serve.log").read_text()


@pytest.fixture
def tab(browser: Browser, site: Site) -> Iterator[Watched]:
    with watched_page(
        browser,
        lambda url: (
            url.startswith(site.served.url + "/")
            or url.startswith("data:")
            or url.startswith("file://")
        ),
        timeout_ms=20_000,
    ) as watched:
        yield watched


def shoot(page: Page, site: Site, name: str) -> None:
    target = site.shots / name
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 10_000


def leader_of(site: Site, league: str) -> str:
    rows = site.served.get(f"/api/leagues/{league}/standings").json()["standings"]
    return str(next(row["bot"] for row in rows if row["rank"] == 1))


def test_the_index_names_each_leagues_leader(tab: Watched, site: Site) -> None:
    page = tab.page
    page.goto(site.served.url + "/")
    for league in ("cup", "critters"):
        cell = page.locator(f'#leagues tr[data-league="{league}"] td.leader a')
        expect(cell).to_have_text(leader_of(site, league))
        assert cell.get_attribute("href") == f"/bots/{leader_of(site, league)}"
    shoot(page, site, "server_index.png")
    assert tab.problems == []


def test_the_league_page_has_the_reports_crosstable_and_chart(tab: Watched, site: Site) -> None:
    page = tab.page
    page.goto(site.served.url + "/leagues/cup")
    expect(page.locator("#live-status")).to_have_text(re.compile("^live updates: on"))
    bots = page.eval_on_selector_all("#standings tbody tr", "rows => rows.map(r => r.dataset.bot)")
    assert sorted(bots) == ["probability", "random", "sly_bot"]
    # The crosstable: every pair, in the standings' order, W-D-L in each off-diagonal cell.
    assert (
        page.eval_on_selector_all(
            "#figures #crosstable thead th[data-col]", "ths => ths.map(t => t.dataset.col)"
        )
        == bots
    )
    cells = page.locator("#crosstable td[data-row][data-col]")
    assert cells.count() == 9
    assert page.locator("#crosstable td .wdl").count() == 6
    # The chart: one line per bot, drawn (not refused by the CSP: no console error).
    assert page.locator("#figures svg#elo-chart polyline[data-bot]").count() == 3
    box = page.locator("#elo-chart").bounding_box()
    assert box is not None and box["width"] > 400 and box["height"] > 150
    legend = page.locator("#figures .legend-item rect")
    assert legend.count() == 3
    shoot(page, site, "server_league.png")
    assert tab.problems == []


OVERFLOW = """() => {
  const table = document.getElementById("standings");
  const wrap = table.parentElement;
  return {page: document.documentElement.scrollWidth, view: window.innerWidth,
          wrap: wrap.scrollWidth, room: wrap.clientWidth,
          bluff: table.querySelectorAll("td.bluff").length};
}"""


def test_the_static_reports_standings_fit_1280_px(tab: Watched, site: Site) -> None:
    page = tab.page
    assert page.viewport_size == {"width": 1280, "height": 900}
    page.goto(site.report.as_uri())
    sizes = page.evaluate(OVERFLOW)
    assert sizes["bluff"] == 12  # the widest table: four bluff columns per bot
    assert sizes["page"] <= sizes["view"], sizes
    assert sizes["wrap"] <= sizes["room"], sizes
    assert tab.problems == []


def test_a_bot_page_shows_rank_matches_and_a_safe_readme(tab: Watched, site: Site) -> None:
    page = tab.page
    page.goto(site.served.url + "/bots/sly_bot")
    row = page.locator('#results tr[data-league="cup"]')
    rows = site.served.get("/api/leagues/cup/standings").json()["standings"]
    rank = next(r["rank"] for r in rows if r["bot"] == "sly_bot")
    expect(row.locator("td.rank")).to_have_text(f"{rank} of 3")

    readme = page.locator("#readme")
    expect(readme.locator("h1")).to_have_text("Sly bot <script>alert(1)</script>")
    assert readme.locator("em").inner_text() == "early"
    assert readme.locator("script, img, iframe, object, style").count() == 0
    handlers = readme.evaluate(
        "r => [...r.querySelectorAll('*')].flatMap(e => [...e.attributes]"
        ".filter(a => a.name.startsWith('on')).map(a => a.name))"
    )
    assert handlers == []
    hrefs = readme.evaluate("r => [...r.querySelectorAll('a')].map(a => a.getAttribute('href'))")
    assert hrefs == ["https://example.org/sly"]
    text = readme.inner_text()
    assert "javascript:alert(3)" in text  # shown as the text it was, not a link
    assert str(site.home) not in text and "/home/" not in text and "alice/bots" not in text
    assert 'arena bot check "python sly_bot.py" --game liars_dice' in text
    assert "My notes: notes.md" in text
    api = site.served.get("/api/bots/sly_bot").json()["readme"]
    assert str(site.home) not in api and "/home/" not in api
    shoot(page, site, "server_bot.png")

    row.locator("a.matches-link").click()
    page.wait_for_selector("#matches")
    keys = page.locator("#matches tbody tr")
    assert keys.count() == 8  # sly_bot's matches in a 3-bot, 2-round league
    seats = page.eval_on_selector_all("#matches td.seats", "tds => tds.map(t => t.textContent)")
    assert all("sly_bot" in seat for seat in seats)
    assert tab.problems == []


def test_a_replay_has_the_menu_bar_and_no_wall_of_deal_text(tab: Watched, site: Site) -> None:
    page = tab.page
    page.goto(site.served.url + "/leagues/critters/matches")
    page.click("#matches a.replay-link >> nth=0")
    page.wait_for_selector("body[data-ready=true]")
    nav = page.locator("header.top nav")
    assert nav.locator("a.brand").inner_text() == "Bluff Arena"
    assert [a.get_attribute("href") for a in nav.locator("a").all()] == [
        "/",
        "/",
        "/bots",
        "/live",
        "/submit",
        "/login",
    ]
    # The deal (step 1): hundreds of characters, collapsed to a line until asked for.
    deal = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent)")["steps"][
        1
    ]["event"]
    assert len(deal) > 200
    item = page.locator('#event-list li[data-step="1"]')
    assert len(item.inner_text()) < 100 and item.locator("span[title]").count() == 1
    page.click("#next")
    summary = page.locator("#event-text details.long-event summary")
    assert len(summary.inner_text()) < 100
    assert not page.locator("#event-text .rest").is_visible()
    text_box = page.locator("#current").bounding_box()
    assert text_box is not None and text_box["height"] < 150
    shoot(page, site, "server_replay.png")
    summary.click()
    assert page.locator("#event-text .rest").inner_text() == deal
    nav.locator("a.brand").click()
    page.wait_for_selector("#leagues")
    assert tab.problems == []
