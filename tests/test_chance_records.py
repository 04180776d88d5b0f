"""Records of secret-chance matches, seeded matches and old (format 1) records verify."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest

from referee.core.catalogue import get_codec, get_game
from referee.core.chance import ChanceStream, new_secret
from referee.core.playout import legacy_match_rng, match_rng
from referee.gamekit.base import CHANCE, ChanceSource, draw_chance
from referee.records.record import FORMAT_VERSION, MatchRecord, RecordedEvent, RecordError, SeatInfo
from referee.records.replay import verify
from tests.forge import reforged


def engine_record(
    chance: ChanceSource, *, seed: int | None, fmt: int = FORMAT_VERSION
) -> MatchRecord:
    """A liars_dice match played in-process: chance from ``chance``, random actions."""
    game = get_game("liars_dice")
    codec = get_codec("liars_dice")
    rules = game.parse_rules({"dice_per_player": "2"})
    actions = random.Random(1)
    state = game.new_game(rules, 2)
    events: list[RecordedEvent] = []
    turn = 0
    while (actor := game.to_act(state)) is not None:
        if actor == CHANCE:
            drawn = draw_chance(game.chance_request(state), chance)
            state = game.apply_chance(state, drawn)
            events.append(RecordedEvent(seat=None, outcome=drawn, at_ms=float(len(events))))
        else:
            turn += 1
            action: Any = actions.choice(list(game.legal_actions(game.observe(state, actor))))
            state = game.apply_action(state, actor, action)
            events.append(
                RecordedEvent(
                    seat=actor,
                    action=codec.action_to_json(action),
                    turn=turn,
                    elapsed_ms=0.5,
                    at_ms=float(len(events)),
                )
            )
    outcome = game.outcome(state)
    record = MatchRecord(
        match_id="m",
        game="liars_dice",
        rules=game.format_rules(rules),
        num_seats=2,
        seed=seed,
        seats=(SeatInfo(seat=0, bot="a"), SeatInfo(seat=1, bot="b")),
        events=(),
        time_limit_ms=2000,
        duration_ms=float(len(events)),
        faults=(),
        reason="completed",
        places=outcome.places,
        scores=outcome.scores,
        format=fmt,
    )
    return reforged(record, events)


def test_a_secret_match_verifies_without_its_key_and_with_it() -> None:
    key = new_secret()
    record = engine_record(ChanceStream(key), seed=None)
    again = MatchRecord.from_json(record.to_json())
    assert again == record and again.seed is None and json.loads(record.to_json())["seed"] is None
    assert verify(again) == []
    assert verify(again, chance_key=key) == []
    problems = verify(again, chance_key=new_secret())
    assert problems and problems[0].startswith("event 1: chance outcome")
    assert "is not what the chance key draws" in problems[0]


def test_without_a_key_each_outcome_must_still_be_legal() -> None:
    record = engine_record(ChanceStream(new_secret()), seed=None)
    index = next(i for i, e in enumerate(record.events) if e.seat is None and i > 0)
    events = list(record.events)
    events[index] = replace(events[index], outcome=(7, *(events[index].outcome or ())[1:]))
    problems = verify(replace(record, events=tuple(events)).sealed())
    assert problems[0].startswith(f"event {index + 1}: not a legal chance outcome: (7,")
    events[index] = replace(events[index], outcome=(1,))
    problems = verify(replace(record, events=tuple(events)).sealed())
    assert problems[0].startswith(f"event {index + 1}: not a legal chance outcome: (1,)")


def test_a_seeded_match_must_draw_what_its_seed_draws() -> None:
    record = engine_record(match_rng(12), seed=12)
    assert verify(record) == []
    other = replace(record, seed=13).sealed()
    assert "is not what seed 13 draws" in verify(other)[0]


def test_format_1_records_still_load_and_verify_with_the_old_generator() -> None:
    record = engine_record(legacy_match_rng(7), seed=7, fmt=1)
    data = json.loads(record.to_json())
    assert data["format"] == 1 and data["seed"] == 7
    again = MatchRecord.from_json(record.to_json())
    assert again.format == 1 and again == record
    assert verify(again) == []
    # The same dice claimed under the new stream do not verify.
    assert "is not what seed 7 draws" in verify(replace(again, format=2).sealed())[0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": 7}, "record format 7 is not supported (this version reads 1, 2, 3, 4, 5, 6)"),
        ({"format": 1, "seed": None}, "format 1 record without a seed"),
    ],
)
def test_unreadable_versions_are_named(change: dict[str, object], message: str) -> None:
    data = json.loads(engine_record(ChanceStream(new_secret()), seed=None).to_json())
    data.update(change)
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)")):
        MatchRecord.from_dict(data)
