"""Golden playthroughs: one seeded random match per game, step by step, with a digest
of every seat's observation bytes. Any change in the rules or in what a seat sees
shows up as a diff here.

Every game of the catalogue is covered: its playthrough is ``golden_playthrough.txt``
in the game's own folder (beside its engine), whose first line says the rules and
seats it was played with. A new game writes its own with ``ARENA_UPDATE_GOLDEN=1
pytest tests/test_golden_playthroughs.py -k <game>`` (default rules, fewest seats
unless its file says otherwise); after an intended change, regenerate the same way and
review the diff.
"""

from __future__ import annotations

import ast
import os
import random
from pathlib import Path

import pytest

from referee.core.catalogue import game_folder, get_codec, get_game
from referee.core.digests import observation_digest
from referee.core.events import describe_event
from referee.core.playout import random_playout
from referee.gamekit.base import CHANCE
from tests.game_plugins import registered_games

SEED = 2026


def golden_path(name: str) -> Path:
    """The game's playthrough file, in its own folder (beside its engine module)."""
    return game_folder(name) / "golden_playthrough.txt"


def setup(name: str) -> tuple[dict[str, str], int]:
    """The rules and seats of the game's playthrough: its file's first line, else the
    default rules at the fewest seats."""
    path = golden_path(name)
    if path.exists():
        header = path.read_text().splitlines()[0]
        rules = header.split("  rules ", 1)[1].split("  seats ", 1)[0]
        seats = int(header.split("  seats ", 1)[1].split()[0])
        return ast.literal_eval(rules), seats
    return {}, get_game(name).min_seats


def playthrough(name: str) -> str:
    game = get_game(name)
    codec = get_codec(name)
    raw, seats = setup(name)
    rules = game.parse_rules(raw)
    playout = random_playout(game, rules, seats, random.Random(SEED))
    lines = [f"game {name}  rules {game.format_rules(rules)}  seats {seats}  seed {SEED}"]
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


@pytest.mark.parametrize("name", registered_games())
def test_playthrough_matches_golden_file(name: str) -> None:
    path = golden_path(name)
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
