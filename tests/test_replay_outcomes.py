"""Text replays say what each challenge, pass and score led to (``=>`` lines), in the
omniscient transcript and in a seat's, where they never say more than the seat's
observations did."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from league.cli import app
from referee.core.catalogue import get_game
from referee.core.playout import random_playout
from referee.records.record import MatchRecord
from referee.records.transcript import OUTCOME_MARK, event_entries, transcript_lines
from tests.forge import record_of

SETUPS: dict[str, tuple[dict[str, str], int, str, str]] = {
    # game: rules, seats, the public record of finished rounds, a phrase of its outcome
    "liars_dice": ({"dice_per_player": "2"}, 3, "history", "the bid was"),
    "liars_poker": ({"penalty_limit": "2"}, 3, "results", "cards shown ["),
    "liars_poker_dice": ({"chips": "2"}, 2, "rounds", "pays a chip (chips "),
    "cockroach_poker": ({}, 3, "history", " takes it face "),
    "dice_poker": ({}, 2, "cards", " scores "),
}


def played(name: str, seed: int = 7) -> tuple[MatchRecord, Any]:
    rules, seats, _, _ = SETUPS[name]
    game = get_game(name)
    playout = random_playout(game, game.parse_rules(rules), seats, random.Random(seed))
    bots = tuple(f"bot{seat}" for seat in range(seats))
    return record_of(name, rules, playout.events, bots=bots), playout.final


def outcomes(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(OUTCOME_MARK)]


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_every_settled_round_gets_an_outcome_line(name: str) -> None:
    record, final = played(name)
    _, _, field, phrase = SETUPS[name]
    lines = outcomes(transcript_lines(record))
    # Dice Poker: one per score, 15 lines on each card.
    expected = 15 * record.num_seats if field == "cards" else len(getattr(final, field))
    assert len(lines) == expected > 0
    assert all(phrase in line for line in lines), lines[:3]
    # Each follows the action that settled it.
    for entry in event_entries(record):
        assert all(not line.startswith(OUTCOME_MARK) for line in entry[:1])
        assert len(entry) <= 2


def test_liars_dice_outcome_names_the_challenge_reveal_and_loser() -> None:
    record, final = played("liars_dice")
    first = final.history[0]
    line = outcomes(transcript_lines(record))[0]
    shown = ", ".join(
        f"seat {s} [{' '.join(map(str, dice))}]" for s, dice in enumerate(first.dice) if dice
    )
    assert line.startswith(f"{OUTCOME_MARK}seat {first.challenger} challenged seat ")
    assert f"dice shown {shown}: {first.actual} counted" in line
    assert f"seat {first.loser} lose" in line


@pytest.mark.parametrize("name", ["liars_dice", "liars_poker", "liars_poker_dice"])
def test_a_reveal_is_public_so_every_seat_reads_the_same_outcome(name: str) -> None:
    record, _ = played(name)
    everyone = outcomes(transcript_lines(record))
    for seat in range(record.num_seats):
        assert outcomes(transcript_lines(record, viewer=seat)) == everyone


def test_a_believed_cockroach_card_is_named_only_to_its_passer() -> None:
    for seed in range(20):
        record, final = played("cockroach_poker", seed)
        if any(r.believed for r in final.history):
            break
    else:
        raise AssertionError("no believed pass in 20 playouts")
    everyone = outcomes(transcript_lines(record))
    for seat in range(record.num_seats):
        mine = outcomes(transcript_lines(record, viewer=seat))
        for result, omniscient, line in zip(final.history, everyone, mine, strict=True):
            assert f"it was a {result.card.label}" in omniscient
            hidden = result.believed and result.announcer != seat
            assert ("it is not shown" in line) == hidden, line
            assert (result.card.label in line.split(":", 1)[1].split(";")[0]) == (not hidden)


def test_cockroach_published_call_outcomes_name_the_call_and_every_card_to_everyone() -> None:
    rules = {"call_rule": "published"}
    game = get_game("cockroach_poker")
    playout = random_playout(game, game.parse_rules(rules), 2, random.Random(5))
    record = record_of("cockroach_poker", rules, playout.events, bots=("bot0", "bot1"))
    everyone = outcomes(transcript_lines(record))
    assert len(everyone) == len(playout.final.history) > 0
    for result, line in zip(playout.final.history, everyone, strict=True):
        call = "true" if result.believed else "false"
        right = result.believed == (result.card == result.claim)
        assert f"'it is a {result.claim.label}' {call} ({'right' if right else 'wrong'})" in line
        assert f"it was a {result.card.label}; seat {result.taker} takes it face up" in line
        assert result.taker == (result.announcer if right else result.target)
    for seat in range(2):
        assert outcomes(transcript_lines(record, viewer=seat)) == everyone


def test_arena_replay_prints_outcomes_and_readable_seat_pages(tmp_path: Path) -> None:
    record, _ = played("liars_poker")
    path = tmp_path / "m.json"
    path.write_text(record.to_json())
    runner = CliRunner()
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "rules chips_variant=false, penalty_limit=2" in result.output
    assert "{'" not in result.output and "is penalised (penalties " in result.output
    result = runner.invoke(app, ["replay", str(path), "--seat", "2"])
    assert result.exit_code == 0, result.output
    assert "--- message 1: MatchStart: you are seat 2 of 3 ---" in result.output
    assert "  penalties: " in result.output and "{'" not in result.output
    assert result.output.rstrip().splitlines()[-4].startswith("place")
