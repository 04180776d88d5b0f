"""The live pages over plain HTTP (no browser needed): the index's leaders, the league
page's crosstable and chart (the static report's, without a ``style`` attribute the
page CSP would refuse), the figures fragment the page swaps in, a bot's rank and its
matches link, the replay's menu bar. ``tests/browser/test_pages.py`` checks the same
in Chromium, with screenshots."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.server.harness import SCRIPT_BOT, Served, played_league, start_server, stop_server


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("pages")
    db = played_league(tmp, played=6)
    server = start_server(db, tmp / "store", tmp / "serve.log", extra=["--no-ladders"])
    yield server
    assert stop_server(server) == 0, (tmp / "serve.log").read_text()


def leader(served: Served) -> str:
    rows = served.get("/api/leagues/cup/standings").json()["standings"]
    return str(next(row["name"] for row in rows if row["rank"] == 1))


def test_the_index_names_the_leader(served: Served) -> None:
    page = served.get("/").text
    row = re.search(r'<tr data-league="cup">.*?</tr>', page, re.S)
    assert row is not None
    cell = re.search(r'<td class="leader"><a href="/bots/([^"]+)">', row.group(0))
    assert cell is not None and cell.group(1) == leader(served)
    assert "no finished match yet" in page  # the empty league has no leader


def test_the_league_page_has_the_reports_figures(served: Served) -> None:
    reply = served.get("/leagues/cup")
    page = reply.text
    assert reply.status == 200
    assert '<table id="crosstable"' in page and '<svg id="elo-chart"' in page
    assert page.count("<polyline data-bot=") == 3
    assert ' style="' not in page  # the page CSP has no 'unsafe-inline' for style
    assert "'unsafe-inline'" not in reply.headers["content-security-policy"]
    assert '<link rel="stylesheet" href="/static/report.css">' in page
    css = served.get("/static/report.css")
    assert css.status == 200 and css.headers["content-type"].startswith("text/css")
    assert "#crosstable" in css.text
    fragment = served.get("/leagues/cup/figures").text
    assert fragment.lstrip().startswith('<div id="figures">')
    assert re.search(r'<div id="figures">.*?</div>\s*$', fragment, re.S)
    figures = re.search(r'<div id="figures">.*<h2>Likelihood', page, re.S)
    assert figures is not None and '<table id="crosstable"' in figures.group(0)
    assert "<script" not in fragment


def test_the_league_page_has_the_population_view_and_no_infinity(served: Served) -> None:
    page = served.get("/leagues/cup").text
    fragment = served.get("/leagues/cup/figures").text
    api = served.get("/api/leagues/cup/standings")
    for text in (page, fragment, api.text):
        assert not re.search(r"\binf\b|∞|nan", text, re.IGNORECASE)
    for text in (page, fragment):
        table = re.search(r'<table id="population".*?</table>', text, re.S)
        assert table is not None and table.group(0).count("<tr data-bot=") == 3
    rows = api.json()["standings"]
    assert sum(row["nash_mass"] for row in rows) == pytest.approx(1.0, abs=1e-3)
    assert all(row["nash_value"] <= 0 for row in rows)
    assert all(row["elo_low"] < row["elo"] < row["elo_high"] for row in rows)


def test_a_bot_page_has_its_rank_and_matches(served: Served) -> None:
    rows = served.get("/api/leagues/cup/standings").json()["standings"]
    rank = next(row["rank"] for row in rows if row["name"] == "random")
    page = served.get("/bots/random").text
    assert f'<td class="num rank">{rank} of 3</td>' in page
    assert '<a class="matches-link" href="/leagues/cup/matches?bot=random">' in page
    escaped = served.get(f"/bots/{quote(SCRIPT_BOT, safe='')}").text
    assert "<script>alert" not in escaped and "of 3</td>" in escaped


def test_a_replay_has_the_sites_menu_bar(served: Served) -> None:
    reply = served.get("/matches/cup-0")
    assert reply.status == 200
    page = reply.text
    nav = re.search(r'<header class="top">\s*<nav>.*?</nav>', page, re.S)
    assert nav is not None
    assert re.findall(r'href="([^"]+)"', nav.group(0)) == [
        "/",
        "/",
        "/bots",
        "/live",
        "/submit",
        "/login",
    ]
    assert "form-action 'self'" in reply.headers["content-security-policy"]
