"""Golden playthroughs: one seeded random match per game, step by step, with a digest
of every seat's observation bytes. Any change in the rules or in what a seat sees
shows up as a diff here.

After an intended change, regenerate with ``ARENA_UPDATE_GOLDEN=1 pytest
tests/test_golden_playthroughs.py`` and review the diff.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from referee.core.catalogue import BUILTIN_GAMES, get_codec, get_game
from referee.core.digests import observation_digest
from referee.core.events import describe_event
from referee.core.playout import random_playout
from referee.games.base import CHANCE

GOLDEN = Path(__file__).resolve().parent / "golden"
SETUPS: dict[str, tuple[dict[str, str], int]] = {
    "liars_dice": ({"dice_per_player": "2", "wild_face": "1"}, 3),
    "liars_poker_dice": ({"chips": "2"}, 2),
    "dice_poker": ({}, 1),
    "cockroach_poker": ({}, 3),
    "liars_poker": ({"penalty_limit": "2"}, 3),
}


def playthrough(name: str) -> str:
    game = get_game(name)
    codec = get_codec(name)
    raw, seats = SETUPS[name]
    rules = game.parse_rules(raw)
    playout = random_playout(game, rules, seats, random.Random(2026))
    lines = [f"game {name}  rules {game.format_rules(rules)}  seats {seats}  seed 2026"]
    for index, state in enumerate(playout.states):
        if index == 0:
            text = "start"
        else:
            text = describe_event(game, playout.states[index - 1], playout.events[index - 1])
        actor = game.to_act(state)
        who = "over" if actor is None else "chance" if actor == CHANCE else f"seat {actor}"
        views = " ".join(
            observation_digest(codec.observation_bytes(game.observe(state, seat)))
            for seat in range(seats)
        )
        lines.append(f"{index:4d}  {text}  -> {who}  [{views}]")
    lines.append(f"outcome {game.outcome(playout.final)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_playthrough_matches_golden_file(name: str) -> None:
    path = GOLDEN / f"{name}.txt"
    text = playthrough(name)
    if os.environ.get("ARENA_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing {path}; run with ARENA_UPDATE_GOLDEN=1 to create it"
    expected = path.read_text()
    if text != expected:
        for number, (got, want) in enumerate(
            zip(text.splitlines(), expected.splitlines(), strict=False), start=1
        ):
            assert got == want, f"{path.name} line {number} differs"
        assert text == expected


def test_every_game_has_a_playthrough() -> None:
    assert set(SETUPS) == set(BUILTIN_GAMES)
