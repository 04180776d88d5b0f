"""Every number a screen draws is the engine's, at every step of seeded matches (issue 43, item 1).

For each game, matches of example bots from fixed seeds (one where a Dice Poker seat
earns its upper bonus at exactly 63, with an extra Poker, and the same deal under
``upper_bonus_inclusive=false``) are stepped through in headless Chromium:

* the replay viewer, in the omniscient view and in each seat's view, every step;
* the spectator's table (what ``/watch`` draws: the game's renderer over the public
  view, ``ViewerSpec.public``), every step;

and at each step every number drawn (each element marked ``data-num``: scores,
totals, upper sums and bonuses, dice and card counts, chips, penalties, the bid to
beat, the points an open scorecard line would give) must equal the number the
engine's own state gives (:mod:`tests.browser.screen_numbers`), as a multiset: none
missing, none extra, none different. A renderer that adds numbers up itself (the
old Dice Poker total, which left the 35-point upper bonus out) fails here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from referee.core.catalogue import get_codec, get_entry, get_game, load
from referee.records.html_replay import (
    BASE_CSS,
    json_for_script,
    render_replay_html,
    renderer_script,
    viewer_asset,
)
from referee.records.record import MatchRecord
from referee.records.replay import observation_json, replay_states
from sdk.local import play_local
from tests.browser.conftest import Watched
from tests.browser.screen_numbers import COLLECT_NUMBERS, drawn, expected_numbers
from tests.browser.test_viewer_games import BOTS
from tests.forge import record_of

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

MATCHES: list[tuple[str, int, dict[str, str]]] = [
    *((game, 3, {}) for game in sorted(BOTS)),
    *((game, 25, {}) for game in sorted(BOTS)),
    ("dice_poker", 25, {"upper_bonus_inclusive": "false"}),
]
"""(game, seed, rules). Dice Poker seed 3: seat 1 earns the upper bonus; seed 25: seat
0 reaches exactly 63 (the bonus under the default rule, none under the other) and
seat 1 scores an extra Poker."""


def match_id(match: tuple[str, int, dict[str, str]]) -> str:
    game, seed, rules = match
    return f"{game}-{seed}" + "".join(f"-{k}={v}" for k, v in rules.items())


def play(game: str, seed: int, rules: dict[str, str]) -> MatchRecord:
    match = play_local(game, list(BOTS[game]), seed=seed, rules=rules)
    return record_of(game, rules, match.events, match_id=f"{game}-{seed}", bots=("alice", "bob"))


STEP_NUMBERS = """(collect) => {
  const out = [];
  const last = parseInt(document.getElementById("step-slider").max, 10);
  document.getElementById("first").click();
  for (let i = 0; i <= last; i++) {
    out.push(collect(document.getElementById("panels")));
    document.getElementById("next").click();
  }
  return out;
}"""


def walk(page: Page) -> list[list[list[Any]]]:
    """The numbers drawn at every step of the replay open in ``page``, in its view."""
    result: list[list[list[Any]]] = page.evaluate(f"() => ({STEP_NUMBERS})({COLLECT_NUMBERS})")
    return result


def test_the_numbers_are_checked_in_every_game() -> None:
    """Every game with a renderer is walked, and every renderer marks its numbers."""
    assert {game for game, _, _ in MATCHES} == set(BOTS)
    for game in BOTS:
        assert "K.num" in renderer_script(game) or "num(" in renderer_script(game), game


@pytest.mark.parametrize("match", MATCHES, ids=match_id)
def test_every_number_the_replay_viewer_draws_is_the_engines(
    tab: Watched, tmp_path: Path, match: tuple[str, int, dict[str, str]]
) -> None:
    game, seed, rules = match
    record = play(game, seed, rules)
    states = replay_states(record)
    page_file = tmp_path / f"{game}.html"
    page_file.write_text(render_replay_html(record), encoding="utf-8")
    page = tab.page
    page.goto(page_file.as_uri())
    page.wait_for_selector("body[data-ready=true]")
    checked = 0
    for view in ["all", *map(str, range(record.num_seats))]:
        page.select_option("#seat-select", view)
        shown = walk(page)
        assert len(shown) == len(states)
        seen: int | str = view if view == "all" else int(view)
        for index, (state, numbers) in enumerate(zip(states, shown, strict=True)):
            expected = expected_numbers(game, state, seen)
            assert drawn(numbers) == expected, f"{game} seed {seed} step {index} view {view}"
            checked += len(expected)
    assert checked > len(states)
    if game == "dice_poker":  # the match is one where the bonus rule decides a total
        final = states[-1]
        bonuses = [card.upper_bonus(final.rules.upper_bonus_inclusive) for card in final.cards]
        uppers = [card.upper_total for card in final.cards]
        assert 63 in uppers or any(bonuses), (uppers, bonuses)
    assert tab.problems == []


def spectator_page(game: str) -> str:
    """A page with the viewer kit and ``game``'s renderer that draws one public table
    as ``static/watch.js`` does (``window.drawPublic(spec)``)."""
    script = viewer_asset("games.js") + renderer_script(game)
    draw = """
window.drawPublic = function (spec) {
  const board = document.getElementById("board");
  board.textContent = "";
  const ctx = {me: 0, spectator: true, seats: spec.seats, prevObs: spec.prev,
    facts: spec.facts, step: {index: 1, event_public: ""}};
  board.appendChild(window.ArenaGames[spec.renderer](spec.obs, ctx));
};"""
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{BASE_CSS}"
        f"{viewer_asset('viewer.css')}</style></head><body><div id='board'></div>"
        f"<script>{script}{draw}</script></body></html>"
    )


def public_boards(record: MatchRecord) -> list[dict[str, Any]]:
    """Each step's public table as the server sends it to spectators
    (:func:`league.server.human_games.public_board` for the state after the step)."""
    game = get_game(record.game)
    codec = get_codec(record.game)
    spec = get_entry(record.game).viewer
    assert spec.public is not None and spec.facts is not None
    public: Callable[[Any], Any] = load(spec.public)
    facts = load(spec.facts)
    boards = []
    before = None
    for state in replay_states(record):
        view = public(game.observe(state, 0))
        prev: dict[str, Any] | None = (
            observation_json(codec, public(game.observe(before, 0))) if before else None
        )
        boards.append(
            {
                "renderer": spec.renderer,
                "obs": observation_json(codec, view),
                "prev": prev,
                "facts": facts(view),
                "seats": [{"seat": s, "bot": f"player {s}"} for s in range(record.num_seats)],
            }
        )
        before = state
    return boards


@pytest.mark.parametrize("match", MATCHES, ids=match_id)
def test_every_number_the_spectators_table_draws_is_the_engines(
    tab: Watched, tmp_path: Path, match: tuple[str, int, dict[str, str]]
) -> None:
    game, seed, rules = match
    record = play(game, seed, rules)
    states = replay_states(record)
    page_file = tmp_path / f"{game}-public.html"
    page_file.write_text(spectator_page(game), encoding="utf-8")
    page = tab.page
    page.goto(page_file.as_uri())
    boards = json.loads(json_for_script(public_boards(record)))
    shown = page.evaluate(
        f"""(boards) => boards.map(b => {{ window.drawPublic(b);
          return [({COLLECT_NUMBERS})(document.getElementById("board")),
            document.querySelectorAll("#board .hand[data-private-of]").length,
            document.querySelectorAll("#board .badge").length ?
              [...document.querySelectorAll("#board .badge")].map(x => x.textContent) : []]; }})""",
        boards,
    )
    for index, (state, (numbers, hands, badges)) in enumerate(zip(states, shown, strict=True)):
        where = f"{game} seed {seed} step {index}"
        assert drawn(numbers) == expected_numbers(game, state, "public"), where
        assert hands == 0, where  # no cup or hand face up: a spectator holds no seat
        assert "you" not in badges, where
    assert tab.problems == []
