"""One replay per game in headless Chromium: every step, every view, no leaks.

The records are played in-process (heuristic example bots, fixed seeds) and built
with :func:`tests.forge.record_of`, so this needs no bot processes. For each game
the page is stepped through in the omniscient view and in each seat's view with
no console error. The omniscient view is one panel showing every die and card the
engine state hides, each where its holder sits (compared with the state itself). A
seat's view is checked three ways:

* directly: the only face-up hidden dice or cards it draws (``.hand[data-private-of]``)
  are that seat's own, equal to the private fields of its observation, and no other
  seat's secret action text (Liar's Poker discards) appears;
* by construction: the view renders the same with every other seat's observation
  and text blanked, the omniscient event texts replaced by the engine's texts
  for the seat and the omniscient view's data removed, so it depends on nothing
  but what the seat may know;
* against the engine state: what another seat holds is nowhere face up in it.

``ARENA_SCREENSHOTS=docs/screenshots`` also writes one screenshot per game there.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from example_bots.cockroach_poker_heuristic import HeuristicCockroachPokerBot
from example_bots.dice_poker_heuristic import HeuristicDicePokerBot
from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from example_bots.liars_dice_random import RandomLiarsDiceBot
from example_bots.liars_poker_dice_heuristic import HeuristicLiarsPokerDiceBot
from example_bots.liars_poker_heuristic import HeuristicLiarsPokerBot
from referee.records.html_replay import render_replay_html, replay_data
from referee.records.record import MatchRecord
from referee.records.replay import replay_steps
from sdk.local import play_local
from tests.browser.conftest import Watched
from tests.forge import record_of

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

BOTS: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
    "liars_dice": (ProbabilityLiarsDiceBot, RandomLiarsDiceBot),
    "liars_poker_dice": (HeuristicLiarsPokerDiceBot, HeuristicLiarsPokerDiceBot),
    "dice_poker": (HeuristicDicePokerBot, HeuristicDicePokerBot),
    "cockroach_poker": (HeuristicCockroachPokerBot, HeuristicCockroachPokerBot),
    "liars_poker": (HeuristicLiarsPokerBot, HeuristicLiarsPokerBot),
}


def _suit(card: dict[str, Any]) -> str:
    return str(card.get("suit", "")).removeprefix("LIARS_POKER_SUIT_")[:1]


def _card(card: dict[str, Any]) -> str:
    ranks = {11: "J", 12: "Q", 13: "K", 14: "A"}
    rank = card.get("rank", 0)
    return "Jk" if rank == 0 else f"{ranks.get(rank, rank)}{_suit(card)}"


def private_values(game: str, obs: dict[str, Any]) -> list[str]:
    """What a seat's observation holds that the other seats must not see, as the
    viewer's ``data-values`` strings (one per face-up private group)."""
    if game == "liars_dice":
        return [" ".join(map(str, obs["own_dice"]))] if obs["own_dice"] else []
    if game == "liars_poker_dice":
        mine = obs.get("holder") == obs["seat"] and obs["dice"]
        return [" ".join(map(str, obs["dice"]))] if mine else []
    if game == "cockroach_poker":
        out = [" ".join(map(str, obs["hand"]))]
        pending = obs.get("pending") or {}
        card = pending.get("card", "COCKROACH_POKER_KIND_UNSPECIFIED")
        if "RESPOND" in obs["phase"] and not card.endswith("UNSPECIFIED"):
            out.append(card.removeprefix("COCKROACH_POKER_KIND_").lower())
        return out
    if game == "liars_poker":
        return [" ".join(_card(c) for c in obs["hand"])] if obs["has_hand"] else []
    return []  # Dice Poker: nothing is hidden


@pytest.fixture(scope="module")
def records() -> dict[str, MatchRecord]:
    out = {}
    for game, bots in BOTS.items():
        match = play_local(game, list(bots), seed=3)
        out[game] = record_of(game, {}, match.events, match_id=f"{game}-3", bots=("alice", "bob"))
    return out


COLLECT = """() => {
  const out = [];
  const last = parseInt(document.getElementById("step-slider").max, 10);
  document.getElementById("first").click();
  for (let i = 0; i <= last; i++) {
    const panels = document.getElementById("panels");
    out.push({
      step: Number(document.body.dataset.step),
      hands: [...panels.querySelectorAll(".hand[data-private-of]")].map(h => [
        Number(h.closest(".seat-panel").dataset.seat), Number(h.dataset.privateOf),
        h.dataset.values]),
      faceUpInOthersBoxes: [...panels.querySelectorAll(".seat-panel")].map(p =>
        p.querySelectorAll(`[data-seat-box]:not([data-seat-box="${p.dataset.seat}"])` +
          " .hand").length).reduce((a, b) => a + b, 0),
      html: panels.innerHTML + "|" + document.getElementById("event-text").textContent,
      text: panels.textContent + "|" + document.getElementById("event-text").textContent,
    });
    document.getElementById("next").click();
  }
  return {steps: out, list: document.getElementById("event-list").textContent};
}"""


def open_page(tab: Watched, path: Path, view: str) -> Page:
    page = tab.page
    if page.url.split("#")[0] != path.as_uri():
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-ready=true]")
    page.select_option("#seat-select", view)
    assert page.get_attribute("body", "data-view") == view
    return page


def seat_only(data: dict[str, Any], seat: int) -> dict[str, Any]:
    """``data`` as far as ``seat`` may know it: other observations, engine facts and
    texts blank, the omniscient event text replaced by the engine's text for ``seat``,
    nothing of the omniscient view (every hidden holding, the truth of claims)."""
    out = copy.deepcopy(data)
    for step in out["steps"]:
        for omniscient in ("hidden", "claim", "standing"):
            step.pop(omniscient, None)
        step["observations"] = [
            obs if index == seat else {} for index, obs in enumerate(step["observations"])
        ]
        step["seen"] = [text if index == seat else None for index, text in enumerate(step["seen"])]
        if "facts" in step:
            step["facts"] = [f if index == seat else {} for index, f in enumerate(step["facts"])]
        step["event"] = step["seen"][seat] or ""
    return out


@pytest.mark.parametrize("game", sorted(BOTS))
def test_every_step_of_every_view_without_errors_or_leaks(
    tab: Watched, records: dict[str, MatchRecord], game: str, tmp_path: Path
) -> None:
    record = records[game]
    data = replay_data(record)
    steps = data["steps"]
    assert (
        any(re.search(r": (challenge|disbelieve)$", s["event"]) for s in steps)
        or game == "dice_poker"
    ), "pick a seed whose match has a challenge"
    page_file = tmp_path / f"{game}.html"
    page_file.write_text(render_replay_html(record, data=data), encoding="utf-8")

    # View "all" is one panel with every hidden die and card: checked against the
    # engine state by test_the_omniscient_view_shows_every_seats_hidden_dice_and_cards.
    shown = open_page(tab, page_file, "all").evaluate(COLLECT)["steps"]
    assert [s["step"] for s in shown] == list(range(len(steps)))

    for seat in range(record.num_seats):
        # Omniscient texts the engine tells this seat otherwise (every seat's dice
        # or cards, Liar's Poker discards) must not appear anywhere in this view.
        secrets = {s["event"] for s in steps[1:] if s["event"] != s["seen"][seat]}
        collected = open_page(tab, page_file, str(seat)).evaluate(COLLECT)
        shown, listed = collected["steps"], collected["list"]
        assert [s["step"] for s in shown] == list(range(len(steps)))
        for step, view in zip(steps, shown, strict=True):
            where = f"{game} step {step['index']} seat {seat}"
            own = private_values(game, step["observations"][seat])
            assert {panel for panel, _, _ in view["hands"]} <= {seat}, where
            assert all(owner == seat for _, owner, _ in view["hands"]), where
            assert view["faceUpInOthersBoxes"] == 0, where
            assert sorted(values for _, _, values in view["hands"]) == sorted(own), where
            for other, obs in enumerate(step["observations"]):
                if other == seat:
                    continue
                leaked = set(private_values(game, obs)) - set(own)
                shown_values = {values for _, _, values in view["hands"]}
                assert not leaked & shown_values, where
            assert not [secret for secret in secrets if secret in view["text"]], where
        assert not [secret for secret in secrets if secret in listed], f"{game} seat {seat}"

        blind_file = tmp_path / f"{game}-seat{seat}.html"
        blind_file.write_text(
            render_replay_html(record, data=seat_only(data, seat)), encoding="utf-8"
        )
        blinded = open_page(tab, blind_file, str(seat)).evaluate(COLLECT)
        assert blinded["list"] == listed, f"{game} seat {seat}: event list"
        blind = blinded["steps"]
        for step, real, only in zip(steps, shown, blind, strict=True):
            assert real["html"] == only["html"], f"{game} step {step['index']} seat {seat}"
    assert tab.problems == []


def test_cockroach_published_call_passes_read_as_calls(tab: Watched, tmp_path: Path) -> None:
    """Under call_rule=published the Passes list says "called true/false", never
    "believed" or "disbelieved"."""
    rules = {"call_rule": "published"}
    bots = BOTS["cockroach_poker"]
    match = play_local("cockroach_poker", list(bots), seed=3, rules=rules)
    record = record_of("cockroach_poker", rules, match.events, bots=("alice", "bob"))
    page_file = tmp_path / "published.html"
    page_file.write_text(render_replay_html(record, data=replay_data(record)), encoding="utf-8")
    last = open_page(tab, page_file, "0").evaluate(COLLECT)["steps"][-1]["text"]
    calls = re.findall(r"\u201d, (called true|called false|believed|disbelieved); seat", last)
    assert calls and set(calls) <= {"called true", "called false"}, calls
    assert tab.problems == []


SHOT_AT = {
    "liars_dice": r": challenge$",
    "liars_poker_dice": r": challenge$",
    "liars_poker": r": challenge$",
    "cockroach_poker": r": disbelieve$",
    "dice_poker": r"^chance: seat 0 re-rolls",
}


@pytest.mark.parametrize("game", sorted(BOTS))
def test_screenshot_per_game(
    tab: Watched, records: dict[str, MatchRecord], game: str, tmp_path: Path
) -> None:
    record = records[game]
    data = replay_data(record)
    matches = [s["index"] for s in data["steps"] if re.search(SHOT_AT[game], s["event"])]
    index = matches[min(len(matches) - 1, 2)]
    page_file = tmp_path / f"{game}.html"
    page_file.write_text(render_replay_html(record, data=data), encoding="utf-8")
    page = tab.page
    page.goto(f"{page_file.as_uri()}#step={index}&seat=0")
    page.wait_for_selector("body[data-ready=true]")
    assert page.get_attribute("body", "data-step") == str(index)
    page.evaluate("document.getElementById('controls').scrollIntoView()")
    directory = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{game}.png"
    page.screenshot(path=str(target))
    assert target.stat().st_size > 10_000
    if game == "liars_dice":  # the omniscient view too, mid-round: every cup face up
        page.select_option("#seat-select", "all")
        while ": bid " not in page.inner_text("#event-text"):
            page.click("#next")
        page.evaluate("document.getElementById('controls').scrollIntoView()")
        page.screenshot(path=str(directory / "liars_dice_all.png"))
    assert tab.problems == []


# ---------------------------------------------------------------------------
# The omniscient view: every seat's hidden dice and cards in one panel (issue 32, item 1)


def held_in_state(game: str, state: Any) -> list[tuple[int, str]]:
    """Every die or card the full engine state hides from some seat, as ``(holder,
    data-values)`` the way the viewer writes a face-up hand: Liar's Dice each seat's cup,
    Liar's Poker Dice and Liar's Poker the holder's dice or cards, Cockroach Poker each
    seat's hand (counts per kind) and the card in flight (its kind, held by its passer).
    Read from the state itself, not from the page's data."""
    if game == "liars_dice":
        return [(seat, " ".join(map(str, hand))) for seat, hand in enumerate(state.hands) if hand]
    if game == "liars_poker_dice":
        return [(state.holder, " ".join(map(str, state.dice)))] if state.dice else []
    if game == "cockroach_poker":
        out = [(seat, " ".join(map(str, hand))) for seat, hand in enumerate(state.hands)]
        if state.pending is not None:
            out.append((state.pending.announcer, state.pending.card.name.lower()))
        return out
    if game == "liars_poker":
        ranks = {11: "J", 12: "Q", 13: "K", 14: "A"}
        codes = [
            "Jk" if c.rank == 0 else f"{ranks.get(c.rank, c.rank)}{c.suit.name[:1]}"
            for c in state.hand
        ]
        return [(state.holder, " ".join(codes))] if codes else []
    return []  # Dice Poker: nothing is hidden


HANDS = """() => {
  const out = [];
  const last = parseInt(document.getElementById("step-slider").max, 10);
  document.getElementById("first").click();
  for (let i = 0; i <= last; i++) {
    const panels = [...document.querySelectorAll("#panels .seat-panel")];
    out.push({
      step: Number(document.body.dataset.step),
      panels: panels.map(p => p.dataset.seat),
      hands: [...document.querySelectorAll("#panels .hand[data-private-of]")].map(h => {
        const box = h.closest("[data-seat-box]");
        return {owner: Number(h.dataset.privateOf), values: h.dataset.values,
          panel: h.closest(".seat-panel").dataset.seat,
          box: box ? Number(box.dataset.seatBox) : null};
      }),
      faceDownIn: [...document.querySelectorAll(
        "#panels [data-seat-box] .hidden-dice, #panels [data-seat-box] .hidden-cards")].map(
        h => Number(h.closest("[data-seat-box]").dataset.seatBox)),
    });
    document.getElementById("next").click();
  }
  return out;
}"""


@pytest.mark.parametrize("game", sorted(BOTS))
def test_the_omniscient_view_shows_every_seats_hidden_dice_and_cards_in_one_panel(
    tab: Watched, records: dict[str, MatchRecord], game: str, tmp_path: Path
) -> None:
    """View "all": one panel, and in it, at every step, every die and card the engine
    state hides (each seat's cup or hand, Cockroach Poker's card in flight) face up,
    each in its holder's place at the table, none of them drawn face down."""
    record = records[game]
    states = [step.state for step in replay_steps(record)]
    page_file = tmp_path / f"{game}-all.html"
    page_file.write_text(render_replay_html(record), encoding="utf-8")
    shown = open_page(tab, page_file, "all").evaluate(HANDS)
    assert [s["step"] for s in shown] == list(range(len(states)))
    hidden_steps = 0
    for index, (state, view) in enumerate(zip(states, shown, strict=True)):
        where = f"{game} step {index}"
        expected = sorted(held_in_state(game, state))
        hidden_steps += bool(expected)
        assert view["panels"] == ["all"], where
        assert sorted((h["owner"], h["values"]) for h in view["hands"]) == expected, where
        assert all(h["box"] in (None, h["owner"]) for h in view["hands"]), where
        holders = {owner for owner, _ in expected}
        assert not holders & set(view["faceDownIn"]), where
    assert hidden_steps > 0 or game == "dice_poker"
    assert tab.problems == []


@pytest.mark.parametrize("game", sorted(set(BOTS) - {"dice_poker"}))
def test_a_seat_view_shows_no_other_seats_hidden_dice_or_cards(
    tab: Watched, records: dict[str, MatchRecord], game: str, tmp_path: Path
) -> None:
    """A seat's view draws face up only what that seat holds in the engine state; what
    another seat holds (unless the two hold the same values) is nowhere in it."""
    record = records[game]
    states = [step.state for step in replay_steps(record)]
    page_file = tmp_path / f"{game}-seats.html"
    page_file.write_text(render_replay_html(record), encoding="utf-8")
    for seat in range(record.num_seats):
        shown = open_page(tab, page_file, str(seat)).evaluate(HANDS)
        for index, (state, view) in enumerate(zip(states, shown, strict=True)):
            where = f"{game} step {index} seat {seat}"
            held = held_in_state(game, state)
            own = {values for owner, values in held if owner == seat}
            others = {values for owner, values in held if owner != seat} - own
            assert view["panels"] == [str(seat)], where
            values = {h["values"] for h in view["hands"]}
            assert all(h["owner"] == seat for h in view["hands"]), where
            assert own <= values and not others & values, where
    assert tab.problems == []
