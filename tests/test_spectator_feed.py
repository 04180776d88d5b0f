"""A spectator's feed: public text only, at least one full round behind (issue 32, item 5).

``public_entries`` must say nothing a seat alone knows: for every game, the public
text of a whole match is the same whatever the seats hold, as long as what the
match reveals is the same. Checked directly: every chance line a spectator reads is
the text the engine gives a viewer holding no seat, no Liar's Dice cup appears
before its challenge, and a Cockroach Poker card taken face down stays unnamed.
``delayed`` must keep the feed at least one finished round behind at every moment.
"""

from __future__ import annotations

import random
import re

import pytest

from league.server.human_games import delayed
from referee.core.catalogue import game_names, get_game
from referee.core.events import ActionEvent, ChanceEvent
from referee.core.playout import random_playout
from referee.records.transcript import PRIVATE_OUTCOME, public_entries


@pytest.mark.parametrize("name", sorted(game_names()))
def test_a_spectator_reads_each_action_as_a_seat_that_did_not_act(name: str) -> None:
    game = get_game(name)
    rules = game.default_rules()
    playout = random_playout(game, rules, 2, random.Random(3))
    entries = public_entries(game, rules, 2, playout.events)
    assert len(entries) == len(playout.events)
    for entry, event, before in zip(entries, playout.events, playout.states, strict=False):
        if isinstance(event, ActionEvent):
            other = 1 - event.seat
            assert (
                game.describe_action(event.action, viewer=other, actor=event.seat) in entry.lines[0]
            )
        else:
            assert isinstance(event, ChanceEvent)
            seen = game.describe_chance(before, event.outcome, viewer=2)
            assert seen is None or seen in entry.lines[0]


def test_no_liars_dice_cup_shows_before_its_challenge() -> None:
    game = get_game("liars_dice")
    rules = game.default_rules()
    playout = random_playout(game, rules, 2, random.Random(8))
    entries = public_entries(game, rules, 2, playout.events)
    rolls = [
        (index, event.outcome)
        for index, event in enumerate(playout.events)
        if isinstance(event, ChanceEvent) and len(event.outcome) > 4
    ]
    assert len(rolls) >= 3
    for index, outcome in rolls:
        line = entries[index].lines[0]
        assert re.search(r"seat 0 \(\d dic?e\); seat 1 \(\d dic?e\)", line), line
        assert " ".join(map(str, outcome[:3])) not in line


def test_a_card_taken_face_down_stays_unnamed() -> None:
    game = get_game("cockroach_poker")
    rules = game.default_rules()
    playout = random_playout(game, rules, 2, random.Random(5))
    entries = public_entries(game, rules, 2, playout.events)
    private = [e for e in entries if any(PRIVATE_OUTCOME in line for line in e.lines)]
    assert private and all(e.settles for e in private)
    for entry in entries:
        text = "\n".join(entry.lines)
        if "face down" in text:
            assert "it was a" not in text, text


@pytest.mark.parametrize("name", ["liars_dice", "cockroach_poker", "liars_poker_dice"])
def test_the_feed_is_always_at_least_one_finished_round_behind(name: str) -> None:
    game = get_game(name)
    rules = game.default_rules()
    playout = random_playout(game, rules, 2, random.Random(11))
    entries = public_entries(game, rules, 2, playout.events)
    ends = [index for index, entry in enumerate(entries) if entry.settles]
    assert len(ends) >= 3
    for now in range(1, len(entries)):
        shown = delayed(entries[:now], over=False)
        assert shown == entries[: len(shown)]
        finished = [end for end in ends if end < now]
        if finished:  # the last finished round and everything after it are held back
            assert len(shown) <= (finished[-2] + 1 if len(finished) >= 2 else 0)
        else:
            assert shown == []
    assert delayed(entries, over=True) == entries
