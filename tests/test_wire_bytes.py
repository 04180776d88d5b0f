"""The wire format, locked: the bytes every game's codec produces, as digests.

For every game of the catalogue (built-in and plugin), seeded random matches at each
number of seats with the default rules: every seat's observation after every event,
the same observations as a delta-asking seat receives them, and every action a seat
took, each serialised deterministically, length-prefixed and hashed. The digests are
in each game's folder (``golden_wire_bytes.json`` beside its engine); the built-in
games' and Three-Card Bluff's were written once from their hand-written codecs, which
the derived codec (``referee/wire/derived.py``) replaced reproducing every byte.

Each message is also decoded back (the observation and the action as they were, the
deltas to the whole observation), so a codec that encodes right and decodes wrong
fails too. A new game writes its own file with ``ARENA_UPDATE_GOLDEN=1 pytest
tests/test_wire_bytes.py -k <game>``; for any other game a diff is a change of the
protocol.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest

from referee.core.catalogue import game_folder, get_codec, get_game
from referee.core.events import ActionEvent
from referee.core.playout import random_playout
from referee.wire.deltas import DeltaDecoder, DeltaEncoder
from tests.game_plugins import registered_games

SEEDS = range(4)
MAX_SEATS = 4
"""Seat counts from the game's minimum up to this (or its maximum)."""


def _framed(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def wire_digest(name: str, seats: int, seed: int) -> dict[str, object]:
    """The digest of one match's wire bytes, and how many messages went into it."""
    game, codec = get_game(name), get_codec(name)
    rules = game.parse_rules({})
    playout = random_playout(game, rules, seats, random.Random(f"{name}/{seats}/{seed}"))
    digest = hashlib.sha256()
    messages = 0
    for seat in range(seats):
        encoder, decoder = DeltaEncoder(codec, enabled=True), DeltaDecoder(codec)
        for state in playout.states:
            observation = game.observe(state, seat)
            whole = codec.encode_observation(observation)
            assert codec.decode_observation(whole) == observation
            delta = encoder.encode(observation)
            assert decoder.decode(delta) == observation
            for message in (whole, delta):
                digest.update(_framed(message.SerializeToString(deterministic=True)))
                messages += 1
    for event in playout.events:
        if isinstance(event, ActionEvent):
            action = codec.encode_action(event.action)
            assert codec.decode_action(action) == event.action
            digest.update(_framed(action.SerializeToString(deterministic=True)))
            messages += 1
    return {"messages": messages, "sha256": digest.hexdigest()}


def cases() -> list[tuple[str, int, int]]:
    found: list[tuple[str, int, int]] = []
    for name in registered_games():
        game = get_game(name)
        for seats in range(game.min_seats, min(game.max_seats, MAX_SEATS) + 1):
            found.extend((name, seats, seed) for seed in SEEDS)
    return found


def _key(name: str, seats: int, seed: int) -> str:
    return f"{name} seats={seats} seed={seed}"


def fixture(name: str) -> Path:
    """The game's locked digests, in its own folder (beside its engine module)."""
    return game_folder(name) / "golden_wire_bytes.json"


@pytest.mark.parametrize("name", registered_games())
def test_the_fixture_covers_every_seat_count_of_the_game(name: str) -> None:
    mine = [case for case in cases() if case[0] == name]
    if os.environ.get("ARENA_UPDATE_GOLDEN"):
        written = {_key(*case): wire_digest(*case) for case in mine}
        fixture(name).write_text(json.dumps(written, indent=1, sort_keys=True) + "\n")
    assert fixture(name).exists(), f"{name} has no locked wire bytes: see the module docstring"
    stored = json.loads(fixture(name).read_text())
    assert sorted(stored) == sorted(_key(*case) for case in mine), (
        "seat counts without locked wire bytes: regenerate (module docstring)"
    )


@pytest.mark.parametrize(("name", "seats", "seed"), cases())
def test_every_message_is_byte_identical_to_the_locked_wire_format(
    name: str, seats: int, seed: int
) -> None:
    stored = json.loads(fixture(name).read_text())
    assert wire_digest(name, seats, seed) == stored[_key(name, seats, seed)]
