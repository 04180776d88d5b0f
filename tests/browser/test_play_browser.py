"""A person plays a ladder bot in headless Chromium from the list of moves (issue 32, item 5).

The author logs in through the login form, opens a bot's page, chooses seat 0 and
clicks "Play against ...", then opens "every legal move, as a list" (folded away: the
board takes the moves, tests/browser/test_play_games.py) and clicks one of the listed
moves at every turn until the game is over; the page then links the replay, and the
match is in the humans league. What the page showed at each turn is checked against
the stored record: the seat's observation before each decision, exactly, recomputed
from the record. Any console error (a CSP violation), page error, dialog or request
to another origin fails the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from referee.core.catalogue import get_game
from referee.core.events import ActionEvent
from referee.games.liars_dice.engine import Challenge
from referee.records.record import MatchRecord
from referee.records.replay import replay_states
from sdk.human import observation_lines
from tests.browser.conftest import Watched, watched_page
from tests.server.harness import Served, add_author, played_league, start_server, stop_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

expect: Any = pytest.importorskip("playwright.sync_api").expect


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str]]:
    tmp = tmp_path_factory.mktemp("play")
    db = played_league(tmp, played=2)
    token = add_author(db, "ada")
    server = start_server(db, tmp / "store", tmp / "serve.log", extra=["--no-ladders"])
    yield server, token
    assert stop_server(server) == 0, (tmp / "serve.log").read_text()


@pytest.fixture
def tab(browser: Browser, served: tuple[Served, str]) -> Iterator[Watched]:
    site = served[0]
    with watched_page(
        browser,
        lambda url: url.startswith(site.url + "/") or url.startswith("data:"),
        timeout_ms=20_000,
    ) as watched:
        yield watched


def test_a_person_plays_a_bot_from_the_list_of_moves(
    tab: Watched, served: tuple[Served, str]
) -> None:
    site, token = served
    page = tab.page
    page.goto(site.url + "/bots/probability")
    expect(page.locator("#play-login")).to_be_visible()  # logged out: no form
    page.goto(site.url + "/login")
    page.fill("input[name=token]", token)
    page.click("#login-form button[type=submit]")
    page.goto(site.url + "/bots/probability")
    page.select_option("#play-seat", "0")
    page.click("#play-button")
    expect(page.locator("#play-title")).to_contain_text("you (seat 0) against")
    views: list[str] = []
    views_board: list[list[str]] = []
    while True:
        expect(page.locator("body[data-state=your-move], body[data-state=over]")).to_have_count(
            1, timeout=30_000
        )
        if page.get_attribute("body", "data-state") == "over":
            break
        views.append(page.text_content("#view") or "")
        # The table is drawn by the game's replay renderer: seat 0's own dice face up,
        # nobody else's hand drawn at all.
        own = page.eval_on_selector_all(
            "#board .hand[data-private-of='0'] .die", "ds => ds.map(d => d.dataset.v)"
        )
        assert page.locator("#board .hand[data-private-of='1']").count() == 0
        views_board.append(own)
        assert page.get_attribute("#move-list", "open") is None  # folded: the board plays
        page.click("#move-list > summary")
        buttons = page.locator("#choices button.choice")
        assert buttons.count() >= 1
        if buttons.count() >= 12:  # the box narrows a long list of moves, then clears
            wanted = buttons.nth(buttons.count() - 1).inner_text()  # "challenge", "bid 10 x 6s"
            page.fill("#choice-filter", wanted)
            assert page.locator("#choices button.choice:visible").all_inner_texts() == [wanted]
            page.fill("#choice-filter", "")
            assert page.locator("#choices button.choice:visible").count() == buttons.count()
        decision = page.get_attribute("body", "data-decision")
        buttons.nth(buttons.count() - 1).click()  # the last move offered
        expect(
            page.locator(f"body[data-decision='{decision}'][data-state=your-move]")
        ).to_have_count(0, timeout=30_000)
    expect(page.locator("#result")).to_contain_text("you placed")
    expect(page.locator("#ending")).to_contain_text("the game was played to the end")
    expect(page.locator("#replay-link")).to_be_visible()
    replay = page.get_attribute("#replay-link", "href")
    assert replay and replay.startswith("/matches/humans-liars_dice-")
    record = MatchRecord.from_dict(site.get("/api" + replay).json())
    assert record.seats[0].bot == "human:ada" and record.seats[1].bot == "probability"
    assert sum(1 for e in record.events if e.seat == 0) == len(views)
    # Each view was exactly seat 0's observation before its decision, as the engine
    # computes it from the stored record: nothing more (no other seat's dice).
    game = get_game("liars_dice")
    states = replay_states(record)
    expected = [
        "\n".join(observation_lines(game.observe(states[i], 0)))
        for i, event in enumerate(record.events)
        if event.seat == 0
    ]
    assert [v.strip() for v in views] == expected
    own_dice = [
        [str(d) for d in game.observe(states[i], 0).own_dice]
        for i, event in enumerate(record.events)
        if event.seat == 0
    ]
    assert views_board == own_dice and any(own_dice)
    # "What happened": each round's reveal once (a second polling loop per move used
    # to add the last one again and again).
    news = page.eval_on_selector_all("#news li.settles", "items => items.map(i => i.textContent)")
    challenges = sum(
        1
        for event in record.engine_events()
        if isinstance(event, ActionEvent) and isinstance(event.action, Challenge)
    )
    assert len(news) == challenges, news
    key = replay.rsplit("/", 1)[1]
    page.goto(f"{site.url}/watch/{key}")  # what spectators saw, now whole
    expect(page.locator("body[data-state=over]")).to_have_count(1)
    expect(page.locator("#watch-replay")).to_be_visible()
    assert "dice shown" in page.inner_text("#feed")
    page.click("#watch-replay")
    page.wait_for_selector("body[data-ready=true]")
    humans = site.get("/api/leagues/humans-liars_dice/standings").json()
    assert {row["bot"] for row in humans["standings"]} == {"human:ada", "probability"}
    assert tab.problems == []
