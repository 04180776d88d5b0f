"""The toy plugin game end to end: registered once, it plays everywhere a built-in game does.

Its conformance, leak and PettingZoo ``api_test`` runs are in the generic suites
(tests/games/test_conformance.py, tests/games/test_leak_generic.py,
tests/test_pettingzoo_env.py), which iterate every registered game; this file checks
that they see it, and plays it over real gRPC with sandboxed bot processes, in
process through ``sdk.local``, in the HTML viewer and through analytics.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from referee.core.catalogue import game_names, get_codec, get_entry, get_game
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.gamekit.base import MalformedActionError
from referee.games.liars_dice.engine import Challenge as LiarsDiceChallenge
from referee.records import analytics
from referee.records.html_replay import render_replay_html, replay_data
from referee.records.record import MatchRecord
from referee.records.replay import verify
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.pool import WarmPool
from sdk.local import play_local
from tests.browser import conftest as browser_fixtures
from tests.browser.conftest import Watched
from tests.e2e.conftest import module_bot
from tests.forge import record_of
from tests.game_plugins import registered_games
from tests.game_plugins.three_card_bluff import ENTRY
from tests.game_plugins.three_card_bluff.engine import (
    Believe,
    Call,
    Claim,
    Observation,
    State,
    ThreeCardBluff,
)
from tests.game_plugins.three_card_bluff.leak_rules import LEAK_RULES
from tests.game_plugins.three_card_bluff.random_bot import RandomThreeCardBluffBot
from tests.games.test_leak_generic import Spec, check_no_leak

NAME = "three_card_bluff"
BOT = module_bot("tests.game_plugins.three_card_bluff.random_bot")


def test_one_registration_puts_it_in_the_catalogue_and_the_generic_suites() -> None:
    assert NAME in registered_games()
    assert NAME in game_names()
    assert get_entry(NAME) is ENTRY
    assert get_game(NAME).title == ENTRY.title
    assert get_codec(NAME).game == NAME


def test_its_actions_travel_in_the_extension_field() -> None:
    codec = get_codec(NAME)
    for action in (Claim(2), Believe(), Call()):
        message = codec.encode_action(action)
        assert message.WhichOneof("game") == "extension"
        assert codec.decode_action(message) == action
        assert codec.action_from_json(codec.action_to_json(action)) == action
    with pytest.raises(MalformedActionError, match="expected a three_card_bluff action"):
        codec.decode_action(get_codec("liars_dice").encode_action(LiarsDiceChallenge()))


async def _play(seed: int) -> MatchRecord:
    pool = WarmPool()  # the default sandbox
    try:
        return await run_match(MatchSpec(NAME, (BOT, BOT), seed=seed), Limits(), launcher=pool)
    finally:
        await pool.aclose()


@pytest.mark.e2e
async def test_it_plays_over_grpc_with_sandboxed_bots_and_verifies() -> None:
    record = await _play(seed=3)
    assert record.reason == "completed", record.faults
    assert verify(record) == []
    assert sorted(record.places) == [1, 2]
    page = render_replay_html(record)
    assert "Three-Card Bluff" in page
    assert "window.ArenaGames.three_card_bluff" in page  # its own renderer, inlined
    data = replay_data(record)
    assert data["renderer"] == "three_card_bluff"
    assert len(data["steps"]) == len(record.events) + 1
    last = data["steps"][-1]
    called = last["event"].endswith("call")
    assert len(last["observations"][0].get("shown", [])) == (2 if called else 0)


def test_it_plays_in_process_through_the_sdk() -> None:
    results = [
        play_local(NAME, [RandomThreeCardBluffBot, RandomThreeCardBluffBot], seed=seed)
        for seed in range(20)
    ]
    assert {r.outcome.places for r in results} == {(1, 2), (2, 1)}


def test_analytics_judges_its_claims() -> None:
    # Seat 0 holds a 1 and claims a 3 (a bluff); seat 1 calls it: a correct challenge.
    events: list[Event] = [ChanceEvent((1, 2, 3)), ActionEvent(0, Claim(3)), ActionEvent(1, Call())]
    stats = analytics.analyse_events(NAME, {}, 2, events)
    assert stats is not None
    assert (stats[0].claims, stats[0].false_claims) == (1, 1)
    assert (stats[1].opportunities, stats[1].challenges) == (1, 1)


class _PeekingThreeCardBluff(ThreeCardBluff):
    """A planted leak: every seat's observation shows both seats' cards at once."""

    def observe(self, state: State, seat: int) -> Observation:
        view = super().observe(state, seat)
        return dataclasses.replace(view, shown=state.cards[:2])


def test_the_leak_suite_catches_a_planted_leak_in_it() -> None:
    leaky = _PeekingThreeCardBluff()
    reports = [
        check_no_leak(leaky, get_codec(NAME), Spec(*LEAK_RULES), leaky.default_rules(), 2, seed)
        for seed in range(3)
    ]
    assert any(report.problems for report in reports)
    honest = get_game(NAME)
    assert not check_no_leak(
        honest, get_codec(NAME), Spec(*LEAK_RULES), honest.default_rules(), 2, 0
    ).problems


# The browser fixtures (a headless Chromium; skipped without one) of tests/browser.
browser = browser_fixtures.browser
tab = browser_fixtures.tab


@pytest.mark.e2e  # a real Chromium (tests/browser's fixtures skip without one)
def test_its_renderer_draws_each_seats_view_in_a_browser(tab: Watched, tmp_path: Path) -> None:
    # Seat 0 holds a 2 and claims a 3; seat 1 (holding a 1) calls: both cards are shown.
    events: list[Event] = [ChanceEvent((2, 1, 3)), ActionEvent(0, Claim(3)), ActionEvent(1, Call())]
    path = tmp_path / "replay.html"
    path.write_text(render_replay_html(record_of(NAME, {}, events)), encoding="utf-8")
    page = tab.page
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#seat-select", "1")
    page.click("#next")  # after the deal: seat 1 sees its own card, not seat 0's
    panel = page.locator(".seat-panel[data-seat='1'] .three-card-bluff")
    assert panel.locator(".hand[data-private-of='1'] .card").get_attribute("data-v") == "1"
    assert panel.locator(".hand.other .card").get_attribute("data-v") == "0"
    assert "2" not in panel.inner_text()
    page.click("#last")
    assert "seat 0 claims a 3" in panel.inner_text()
    assert panel.locator(".reveal .card").count() == 2  # the call showed both cards
    assert tab.problems == []
