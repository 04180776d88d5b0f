"""A person plays a whole game of every game in headless Chromium, on the board (issue 43, item 2).

The author logs in, starts a game from a bot's page and plays it to the end the way a
person would: by clicking the table the game's renderer draws, never the list of
moves. Dice are clicked to choose the ones to re-roll, a card of the hand to pass and
the kind to claim, a bid by its face and quantity, a declaration or an announcement by
its category and then its faces or ranks, a scorecard line by the points it shows.

At every decision the numbers the board draws (scores, totals, counts, the bid to
beat, the points each open line would give) are kept, and once the game is stored
they are compared with the engine's numbers at that state of the record
(:mod:`tests.browser.screen_numbers`). "What happened" must tell every move of both
seats in the engine's words for the person's seat, the finished page how the game
ended, and the spectator's page the public table (nobody's cup or hand) with the
engine's public numbers. Any console error, page error, dialog or request to another
origin fails a test.

``ARENA_SCREENSHOTS=docs/screenshots`` writes the screenshots docs/server.md shows.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from referee.core.catalogue import get_game
from referee.core.events import ActionEvent
from referee.records.record import MatchRecord
from referee.records.replay import replay_states
from tests.browser.conftest import Watched, watched_page
from tests.browser.screen_numbers import COLLECT_NUMBERS, drawn, expected_numbers
from tests.server.harness import Served, add_author, played_league, start_server, stop_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

expect: Any = pytest.importorskip("playwright.sync_api").expect

BOTS = {
    "liars_dice": "probability",
    "dice_poker": "dp_heuristic",
    "liars_poker_dice": "lpd_heuristic",
    "cockroach_poker": "cp_heuristic",
    "liars_poker": "lp_heuristic",
}
"""The bot each game is played against (``probability`` is the harness's)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str]]:
    from league.store.db import open_database, session_scope
    from league.store.registry import add_bot

    tmp = tmp_path_factory.mktemp("play-games")
    db = played_league(tmp, played=0)
    engine = open_database(db)
    with session_scope(engine) as session:
        for game, name in BOTS.items():
            if name != "probability":
                module = f"example_bots.{game}_heuristic"
                command = f"{sys.executable} -m {module}"
                add_bot(session=session, name=name, command=command, games=[game])
    engine.dispose()
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
        timeout_ms=30_000,
    ) as watched:
        yield watched


def shots(site: Served) -> Path:
    folder = Path(os.environ.get("ARENA_SCREENSHOTS") or site.store.parent / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start(page: Page, site: Served, token: str, game: str, seat: int) -> None:
    """Log in and start a game of ``game`` against its bot from the bot's page."""
    page.goto(site.url + "/login")
    page.fill("input[name=token]", token)
    page.click("#login-form button[type=submit]")
    page.goto(f"{site.url}/bots/{BOTS[game]}")
    page.select_option("#play-game", game)
    page.select_option("#play-seat", str(seat))
    page.click("#play-button")
    expect(page.locator("#play-title")).to_contain_text(f"you (seat {seat}) against")


@dataclass
class Played:
    record: MatchRecord
    numbers: list[list[tuple[str, int | None, str]]] = field(default_factory=list)
    """The numbers the board drew at each of the person's decisions."""
    story: list[tuple[str, str | None]] = field(default_factory=list)
    """'What happened' at the end: each line's text and its seat (None: none)."""


Person = Callable[["Page", int], None]
"""Makes one move on the board: the page and the number of the decision (0, 1, ...)."""


def play(page: Page, site: Served, seat: int, person: Person, shot: str | None = None) -> Played:
    """Play until the game is over, ``person`` moving at each decision; the record."""
    numbers: list[list[tuple[str, int | None, str]]] = []
    decision = 0
    while True:
        expect(page.locator("body[data-state=your-move], body[data-state=over]")).to_have_count(
            1, timeout=60_000
        )
        if page.get_attribute("body", "data-state") == "over":
            break
        asked = page.get_attribute("body", "data-decision")
        numbers.append(
            drawn(page.evaluate(f"({COLLECT_NUMBERS})(document.getElementById('board'))"))
        )
        # The board takes the moves: the list is folded away.
        assert page.locator("#move-list").get_attribute("open") is None
        if shot and decision == 2:
            page.screenshot(path=str(shots(site) / shot), full_page=True)
        person(page, decision)
        expect(page.locator(f"body[data-decision='{asked}'][data-state=your-move]")).to_have_count(
            0, timeout=60_000
        )
        decision += 1
    expect(page.locator("#replay-link")).to_be_visible()
    replay = page.get_attribute("#replay-link", "href")
    assert replay and replay.startswith("/matches/humans-")
    record = MatchRecord.from_dict(site.get("/api" + replay).json())
    story = page.eval_on_selector_all(
        "#news li", "items => items.map(i => [i.textContent, i.dataset.seat ?? null])"
    )
    return Played(record, numbers, [(text, seat) for text, seat in story])


def check(played: Played, game: str, seat: int) -> None:
    """What the page drew is the engine's: the numbers at each decision, and every move
    of both seats in "What happened" in the engine's words for the person's seat."""
    record = played.record
    engine = get_game(game)
    states = replay_states(record)
    asked = [index for index, event in enumerate(record.events) if event.seat == seat]
    assert len(asked) == len(played.numbers) >= 3
    for number, (index, shown) in enumerate(zip(asked, played.numbers, strict=True)):
        expected = expected_numbers(game, states[index], seat)
        assert shown == expected, f"{game}: decision {number} (event {index + 1})"
    texts = [text for text, _ in played.story]
    position = 0
    moves = 0
    for event in record.engine_events():
        if not isinstance(event, ActionEvent):
            continue
        said = engine.describe_action(event.action, viewer=seat, actor=event.seat)
        who = "you" if event.seat == seat else f"seat {event.seat} ("
        found = next(
            (
                i
                for i in range(position, len(texts))
                if texts[i].startswith(who) and said in texts[i]
            ),
            None,
        )
        assert found is not None, f"{game}: {said!r} by seat {event.seat} is not told: {texts}"
        position = found + 1
        moves += 1
    assert moves == sum(1 for event in record.events if event.seat is not None)
    bot = 1 - seat
    assert any(s == str(bot) for _, s in played.story), "the bot's moves are told"


def ended(page: Page, record: MatchRecord, seat: int) -> str:
    """The finished page's words on how the game ended, checked against the record."""
    text = page.inner_text("#ending")
    mine, theirs = record.places[seat], record.places[1 - seat]
    verdict = "a draw" if mine == theirs else "you won" if mine < theirs else "you lost"
    assert verdict in text, text
    for score in record.scores:
        assert f"{score:g}" in text, text
    return text


def watch_final(page: Page, site: Served, record: MatchRecord, game: str) -> None:
    """The spectator's page, the game over: the public table with the engine's numbers,
    nobody's cup or hand face up, the whole text and the replay link."""
    page.goto(f"{site.url}/watch/{record.match_id}")
    expect(page.locator("body[data-state=over]")).to_have_count(1)
    expect(page.locator("#watch-replay")).to_be_visible()
    final = replay_states(record)[-1]
    shown = drawn(page.evaluate(f"({COLLECT_NUMBERS})(document.getElementById('watch-board'))"))
    assert shown == expected_numbers(game, final, "public")
    assert page.locator("#watch-board .game").count() == 1
    assert page.locator("#watch-board .hand[data-private-of]").count() == 0
    assert page.locator("#watch-board .badge", has_text="you").count() == 0


# ---------------------------------------------------------------------------
# The person in each game: moves made by clicking the board


def click_first_enabled(page: Page, selector: str) -> None:
    page.locator(f"{selector}:not([disabled])").first.click()


def dice_poker(page: Page, decision: int, shot: Path | None = None) -> None:
    """Re-roll the dice that do not show the most common face (clicked on the table)
    while re-rolls are left, then score the open line showing the most points.
    ``shot``: a screenshot once the dice to re-roll are picked."""
    board = page.locator("#board")
    dice = board.locator("[data-dice=table] .die").evaluate_all("ds => ds.map(d => d.dataset.v)")
    rerolls = board.locator("button[data-act=reroll]").count()
    most = max(set(dice), key=lambda v: (dice.count(v), v))
    keep = [i for i, v in enumerate(dice) if v != most]
    if rerolls and keep and decision % 3 != 2:
        for position in keep:
            board.locator(f"[data-dice=table] .die[data-pos='{position}']").click()
        button = board.locator("button[data-act=reroll]")
        expect(button).to_have_text(f"Re-roll {len(keep)} di{'e' if len(keep) == 1 else 'ce'}")
        if shot is not None:
            page.screenshot(path=str(shot), full_page=True)
        button.click()
        return
    scores = board.locator("button[data-act=score]")
    points = scores.evaluate_all(
        "bs => bs.map(b => Number(b.querySelector('[data-num^=choice]').textContent))"
    )
    assert points, "an open line to score"
    scores.nth(points.index(max(points))).click()


def liars_dice(page: Page, decision: int) -> None:
    """Bid on the face held most (its die clicked, now and then + once: the next legal
    quantity) or, every other time a bid stands, challenge it."""
    board = page.locator("#board")
    challenge = board.locator("button[data-act=challenge]")
    if challenge.count() and decision % 2 == 1:
        challenge.click()
        return
    sums = board.locator("button[data-act=sum]")
    if sums.count():
        sums.first.click()
        return
    own = board.locator(".hand[data-private-of] .die").evaluate_all(
        "ds => ds.map(d => d.dataset.v)"
    )
    faces = sorted(set(own), key=lambda v: -own.count(v)) + [str(v) for v in range(6, 0, -1)]
    for face in faces:
        die = board.locator(f"[data-controls=bid] .faces .die[data-face='{face}']:not(.dim)")
        if die.count():
            die.click()
            break
    else:
        challenge.click()
        return
    more = board.locator("[data-controls=bid] button[data-act=more]")
    if decision % 4 == 0 and more.is_enabled():
        before = int(board.locator("[data-quantity]").get_attribute("data-quantity") or 0)
        more.click()
        assert int(board.locator("[data-quantity]").get_attribute("data-quantity") or 0) > before
    board.locator("button[data-act=bid]").click()


def pick_all_the_way(page: Page, act: str, group: int) -> None:
    """A declaration or announcement by its category (the ``group``-th offered, counted
    from the end when negative), then its faces or ranks, each the first offered."""
    picker = page.locator(f"#board [data-picker={act}]")
    groups = picker.locator("button[data-group]")
    groups.nth(group if group >= 0 else groups.count() + group).click()
    send = picker.locator(f"button[data-act={act}]")
    for _ in range(8):
        if send.is_enabled():
            break
        picker.locator("button.pick.value").first.click()
    send.click()


def liars_poker_dice(page: Page, decision: int) -> None:
    """Re-roll two dice (clicked), declare the lowest hand of the lowest category
    offered, accept a declaration the first time and challenge it after."""
    board = page.locator("#board")
    if board.locator("button[data-act=reroll]").count():
        for position in (0, 2):
            board.locator(f".hand[data-private-of] .die[data-pos='{position}']").click()
        click_first_enabled(page, "#board button[data-act=reroll]")
    elif board.locator("[data-picker=declare]").count():
        pick_all_the_way(page, "declare", 0)
    elif board.locator("button[data-act=accept]").count() and decision < 3:
        board.locator("button[data-act=accept]").click()
    else:
        board.locator("button[data-act=challenge]").click()


KINDS = ["cockroach", "scorpion", "toad", "spider", "rat", "bat", "centipede", "fly"]


def cockroach_poker(page: Page, decision: int) -> None:
    """Pass a card of the hand (clicked), claiming its kind or, every other time, the
    next kind; believe a pass the first time, disbelieve the others."""
    board = page.locator("#board")
    cards = board.locator(".hand[data-private-of] .ccard[data-card]")
    if cards.count():
        card = cards.nth(decision % cards.count())
        kind = card.get_attribute("data-card") or ""
        card.click()
        claim = kind if decision % 2 == 0 else KINDS[(KINDS.index(kind) + 1) % len(KINDS)]
        board.locator(f"[data-claim='{claim}']").click()
        button = board.locator("button[data-act=pass]")
        expect(button).to_contain_text(f"Pass the {kind}: \u201cit is a {claim}\u201d")
        button.click()
    elif board.locator("button[data-act=believe]").count() and decision == 1:
        board.locator("button[data-act=believe]").click()
    else:
        board.locator("button[data-act=disbelieve]").click()


def liars_poker(page: Page, decision: int) -> None:
    """Exchange the first two cards (clicked), announce the highest category offered
    (so the bot calls it), accept the first announcement and challenge the others."""
    board = page.locator("#board")
    if board.locator("button[data-act=exchange]").count():
        for position in (0, 1):
            board.locator(f".hand[data-private-of] .pcard[data-pos='{position}']").click()
        button = board.locator("button[data-act=exchange]")
        expect(button).to_have_text("Exchange 2 cards")
        button.click()
    elif board.locator("[data-picker=announce]").count():
        pick_all_the_way(page, "announce", -1)
    elif board.locator("button[data-act=accept]").count() and decision < 2:
        board.locator("button[data-act=accept]").click()
    else:
        board.locator("button[data-act=challenge]").click()


PEOPLE: dict[str, tuple[Person, int]] = {
    "dice_poker": (dice_poker, 0),
    "liars_dice": (liars_dice, 0),
    "liars_poker_dice": (liars_poker_dice, 1),
    "cockroach_poker": (cockroach_poker, 0),
    "liars_poker": (liars_poker, 1),
}
"""How the person plays each game, and from which seat."""


@pytest.mark.parametrize("game", sorted(PEOPLE))
def test_a_person_plays_a_whole_game_on_the_board(
    tab: Watched, served: tuple[Served, str], game: str
) -> None:
    site, token = served
    person, seat = PEOPLE[game]
    if game == "dice_poker":  # the docs' screenshot: a later turn, two or more dice picked
        shot = shots(site) / "play_move.png"

        def person(page: Page, decision: int) -> None:
            first = decision >= 3 and not shot.exists()
            dice_poker(page, decision, shot if first else None)

        shot.unlink(missing_ok=True)
    page = tab.page
    start(page, site, token, game, seat)
    played = play(page, site, seat, person, shot=f"play_{game}.png")
    record = played.record
    assert record.reason == "completed" and not record.faults
    assert record.seats[seat].bot == "human:ada" and record.seats[1 - seat].bot == BOTS[game]
    check(played, game, seat)
    text = ended(page, record, seat)
    assert text.startswith("the game was played to the end"), text
    if game == "dice_poker":
        page.screenshot(path=str(shots(site) / "play_over.png"), full_page=True)
    watch_final(page, site, record, game)
    assert tab.problems == []


def test_a_person_who_resigns_reads_so_and_the_record_says_resigned(
    tab: Watched, served: tuple[Served, str]
) -> None:
    site, token = served
    page = tab.page
    start(page, site, token, "liars_dice", 0)
    expect(page.locator("body[data-state=your-move]")).to_have_count(1, timeout=60_000)
    page.click("#resign")
    page.click("#resign-confirm")
    expect(page.locator("body[data-state=over]")).to_have_count(1, timeout=60_000)
    expect(page.locator("#ending")).to_contain_text("you resigned: you lost")
    assert page.locator("#board button.move, #board [data-controls]").count() == 0
    assert page.locator("#resign-box").is_hidden()
    replay = page.get_attribute("#replay-link", "href")
    record = MatchRecord.from_dict(site.get(f"/api{replay}").json())
    assert [(f.seat, f.kind.value) for f in record.faults] == [(0, "resigned")]
    assert tab.problems == []


def test_a_spectator_sees_the_public_table_a_round_behind(
    browser: Browser, tab: Watched, served: tuple[Served, str]
) -> None:
    """Mid-game, the spectator's table is the public view of the state after the last
    line the feed shows: the engine's public numbers there, never a cup."""
    site, token = served
    page = tab.page
    start(page, site, token, "liars_dice", 1)
    cuts: list[tuple[int, list[tuple[str, int | None, str]]]] = []
    with watched_page(browser, lambda url: url.startswith(site.url + "/")) as spectator:
        watch = spectator.page
        for decision in range(30):
            expect(page.locator("body[data-state=your-move], body[data-state=over]")).to_have_count(
                1, timeout=60_000
            )
            if page.get_attribute("body", "data-state") == "over":
                break
            if decision == 0:
                state = page.evaluate("fetch(document.body.dataset.stateUrl).then(r => r.json())")
                watch.goto(f"{site.url}/watch/{state['match']}")
            expect(watch.locator("body[data-state=running]")).to_have_count(1)
            # One poll's lines and table (drawn together): the event numbers shown.
            seen = watch.evaluate(
                f"""() => [document.getElementById("feed").textContent,
                  ({COLLECT_NUMBERS})(document.getElementById("watch-board")),
                  document.querySelectorAll("#watch-board .hand[data-private-of]").length]"""
            )
            shown = [int(n) for n in re.findall(r"^\s*(\d+)  ", seen[0], re.MULTILINE)]
            assert seen[2] == 0  # no cup face up
            cuts.append((shown[-1] if shown else 0, drawn(seen[1])))
            if len([cut for cut, _ in cuts if cut]) == 2:  # the docs' screenshot
                watch.screenshot(path=str(shots(site) / "watch.png"), full_page=True)
            asked = page.get_attribute("body", "data-decision")
            liars_dice(page, decision)
            expect(
                page.locator(f"body[data-decision='{asked}'][data-state=your-move]")
            ).to_have_count(0, timeout=60_000)
        assert spectator.problems == []
    if page.get_attribute("body", "data-state") != "over":
        page.click("#resign")
        page.click("#resign-confirm")
        expect(page.locator("body[data-state=over]")).to_have_count(1, timeout=60_000)
    replay = page.get_attribute("#replay-link", "href")
    record = MatchRecord.from_dict(site.get(f"/api{replay}").json())
    states = replay_states(record)
    assert any(cut for cut, _ in cuts), "the feed showed a finished round during the game"
    for cut, numbers in cuts:
        assert numbers == expected_numbers("liars_dice", states[cut], "public"), cut
    assert tab.problems == []
