"""Acceptance: a bot that guesses seeds from its own dice finds nothing unless the
operator asked for a reproducible (guessable) seed.

The bot (``tests/security/seed_guesser.py``) runs as a real process and reports
through its first action, which the test decodes from the match record.
"""

from __future__ import annotations

import base64
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from league.cli import app
from league.store.db import open_database, session_scope
from league.store.leagues import decompress_record, get_league
from league.store.models import MatchRow
from referee.core.catalogue import get_codec, get_game
from referee.core.chance import new_secret
from referee.gamekit.base import CHANCE, draw_chance
from referee.games.liars_dice.engine import Challenge
from referee.records.record import MatchRecord
from referee.records.replay import replay_states, verify
from referee.runtime.match import Limits, MatchSpec, MessageLog, run_match
from sdk.bot import MatchInfo
from tests.e2e.conftest import module_bot
from tests.security.seed_guesser import (
    NOTHING_FOUND,
    SEED_FOUND,
    SEED_RANGE,
    expected_candidate_count,
    search,
)

pytestmark = pytest.mark.e2e

GUESSER = "tests.security.seed_guesser"
RULES = {"dice_per_player": "10"}
"""Ten dice each: the roll-off and its own dice show a seat 14 dice, so a wrong
candidate matches by accident with probability about 210000 / 6**14 (3e-6)."""
LIMITS = Limits(decision_s=120.0, startup_s=30.0)
"""The search takes a few seconds (more on a loaded machine)."""
runner = CliRunner()


def verdicts(record: MatchRecord, bot: str | None = None, seats: tuple[int, ...] = ()) -> list[int]:
    """What the given seats (or the seats played by ``bot``) reported: the index of
    their first action among the legal bids of that turn."""
    game = get_game(record.game)
    codec = get_codec(record.game)
    states = replay_states(record)
    found = []
    for seat in seats or tuple(s.seat for s in record.seats if s.bot == bot):
        index = next(i for i, e in enumerate(record.events) if e.seat == seat)
        view = game.observe(states[index], seat)
        bids = [a for a in game.legal_actions(view) if not isinstance(a, Challenge)]
        found.append(bids.index(codec.action_from_json(record.events[index].action or {})))
    return found


def test_the_search_covers_every_guessable_seed_and_finds_an_old_style_one() -> None:
    """In-process: the old generator with a guessable seed is found, among all candidates."""
    game = get_game("liars_dice")
    rules = game.parse_rules(RULES)
    stream = random.Random("bluff-arena:31337")  # what `arena match --seed 31337` used to do
    state = game.new_game(rules, 2)
    while game.to_act(state) == CHANCE:
        state = game.apply_chance(state, draw_chance(game.chance_request(state), stream))
    seat: Any = game.to_act(state)
    report = search(MatchInfo("cafe01", "liars_dice", rules, seat, 2), game.observe(state, seat))
    assert report.complete and report.matched == ["old:31337"]
    assert report.candidates == expected_candidate_count("cafe01") > 2 * SEED_RANGE


async def test_guard_a_reproducible_seed_is_found() -> None:
    """The attack is real: an explicit seed (here the old default 1) is guessed."""
    bots = (module_bot(GUESSER, name="guesser"), module_bot(GUESSER, "--no-search", name="quiet"))
    record = await run_match(MatchSpec("liars_dice", bots, seed=1, rules=RULES), LIMITS)
    assert record.reason == "completed", record.faults
    assert verdicts(record, "guesser") == [SEED_FOUND]


async def test_the_chance_key_reaches_no_bot_and_no_record() -> None:
    key = new_secret()
    bots = (
        module_bot("example_bots.liars_dice_random", name="a"),
        module_bot("example_bots.liars_dice_random", name="b"),
    )
    log = MessageLog()
    spec = MatchSpec("liars_dice", bots, rules={"dice_per_player": "2"}, chance_key=key)
    record = await run_match(spec, Limits(), observer=log)
    assert record.reason == "completed", record.faults
    sent = b"".join(b"".join(messages) for messages in log.sent.values())
    text = record.to_json()
    for form in (key, key.hex().encode(), base64.b64encode(key)):
        assert form not in sent and form.decode("latin-1") not in text
    assert record.seed is None
    assert verify(record, chance_key=key) == []
    assert verify(record, chance_key=new_secret()) != []


@pytest.mark.slow
def test_a_default_arena_match_is_not_guessable(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    guesser = f"{sys.executable} -m {GUESSER}"
    result = runner.invoke(
        app,
        [
            "match", "--game", "liars_dice", "--bot", guesser, "--bot", f"{guesser} --no-search",
            "--rule", "dice_per_player=10", "--time-limit", "120", "--record", str(path), "-q",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    record = MatchRecord.from_json(path.read_text())
    assert record.seed is None and json.loads(path.read_text())["seed"] is None
    assert record.reason == "completed", record.faults
    assert verdicts(record, seats=(0,)) == [NOTHING_FOUND]


@pytest.mark.slow
def test_a_default_league_is_not_guessable(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"

    def arena(*args: str) -> str:
        result = runner.invoke(app, ["--db", f"sqlite:///{db}", *args])
        assert result.exit_code == 0, result.output
        return result.output

    guesser = f"{sys.executable} -m {GUESSER}"
    arena("bot", "add", "guesser", "--cmd", guesser, "--game", "liars_dice", "--no-check")
    arena("bot", "add", "quiet", "--cmd", f"{guesser} --no-search", "--game", "liars_dice")
    arena(
        "league", "create", "open", "--game", "liars_dice", "--bot", "guesser", "--bot", "quiet",
        "--rule", "dice_per_player=10", "--time-limit", "120",
    )  # fmt: skip
    assert "played 2 matches" in arena("league", "run", "open", "--no-progress")
    engine = open_database(f"sqlite:///{db}")
    with session_scope(engine) as session:
        league = get_league(session=session, name="open")
        rows = session.exec(
            select(MatchRow).where(MatchRow.league_id == league.id).order_by(col(MatchRow.position))
        ).all()
        records = [decompress_record(row.record or b"") for row in rows]
    engine.dispose()
    assert len(records) == 2
    for record in records:
        assert record.reason == "completed", record.faults
        assert verdicts(record, "guesser") == [NOTHING_FOUND]
    assert "verified" in arena("league", "verify", "open")
