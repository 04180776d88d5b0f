"""Seeded matches of every example bot, pinned by the digests of every event.

Each built-in game's example bots (its roster: random, heuristic, counters, strong and
the counter set) play a seeded match in-process (:func:`sdk.local.play_local`) against
the game's random bot; the events are then replayed through a
:class:`~referee.core.driver.MatchDriver` the way the referee records them: the state
digest after every event (canonical form, and the ``repr`` form of older records), the
digest of every observation as sent (seat 0 takes deltas, the others full
observations), and the outcome. The digest of all of it must equal the pinned one in
``seeded_digests.json``: any change in what the engines do, what a seat is sent or what
``play_local(seed=s)`` deals shows up here. A speed-up must leave every line alone.

Regenerate after an intended change with ``ARENA_UPDATE_GOLDEN=1 pytest
tests/games/test_seeded_digests.py`` and review the diff.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from league.execution.counters import bot_class
from referee.core.catalogue import get_codec, get_entry, get_game
from referee.core.digests import StateDigester, canonical, repr_form, state_digest
from referee.core.driver import MatchDriver
from referee.core.events import ActionEvent, ChanceEvent
from sdk.local import play_local

PINNED = Path(__file__).with_name("seeded_digests.json")
GAMES = ("liars_dice", "liars_poker_dice", "dice_poker", "cockroach_poker", "liars_poker")
SEEDS = (11, 12)
VARIANTS: tuple[tuple[str, int, tuple[tuple[str, str], ...]], ...] = (
    ("liars_dice", 2, (("raise_rule", "quantity-or-face"),)),
    ("liars_dice", 2, (("raise_rule", "reset-face"), ("wild_face", "1"))),
    (
        "liars_dice",
        2,
        (
            ("dice_per_player", "5"),
            ("raise_rule", "reset-face"),
            ("wild_face", "6"),
            ("wild_opening", "keep"),
            ("sum_endgame", "false"),
            ("one_round", "true"),
            ("roll_off", "false"),
        ),
    ),
    ("liars_dice", 2, (("wild_face", "6"), ("dice_per_player", "2"))),
    ("liars_dice", 2, (("sum_endgame", "false"), ("dice_per_player", "1"))),
    ("liars_dice", 3, ()),
    ("liars_dice", 4, (("dice_per_player", "3"), ("wild_face", "6"), ("wild_opening", "keep"))),
    ("liars_poker_dice", 2, (("chips", "1"), ("min_reroll", "2"))),
    ("dice_poker", 1, (("upper_bonus_inclusive", "false"),)),
    ("dice_poker", 3, ()),
    ("cockroach_poker", 3, (("call_rule", "published"),)),
    ("cockroach_poker", 4, ()),
    ("liars_poker", 3, (("chips_variant", "true"), ("starting_chips", "5"))),
    ("liars_poker", 4, (("penalty_limit", "3"),)),
)
"""Other rules and seat counts, random bots in every seat."""

Case = tuple[str, str, int, int, tuple[tuple[str, str], ...]]

NEEDS_A_SOLVED_TABLE = frozenset({"dice_poker_optimal"})
"""Roster bots left out: their play reads a value table that ``make dice-poker-table``
solves (git ignores it), so on a fresh clone they cannot play; the engine paths they
use are pinned by the other Dice Poker bots."""


def cases() -> list[Case]:
    """(game, bot module, seats, seed, rules): every roster bot at the demo's table
    size, the random and heuristic bots again at the ladder's when it differs, and the
    random bots under :data:`VARIANTS`."""
    found: list[Case] = []
    for game in GAMES:
        roster = get_entry(game).roster
        assert roster is not None
        bots = dict.fromkeys((*roster.ladder, *roster.counter_set))
        for bot in (b for b in bots if b not in NEEDS_A_SOLVED_TABLE):
            for seed in SEEDS:
                found.append((game, bot, roster.table_size, seed, roster.rules))
        if roster.ladder_seats != roster.table_size:
            found.append((game, roster.random, roster.ladder_seats, SEEDS[0], roster.rules))
            found.append((game, roster.heuristic, roster.ladder_seats, SEEDS[0], roster.rules))
    for game, seats, rules in VARIANTS:
        roster = get_entry(game).roster
        assert roster is not None
        for seed in SEEDS:
            found.append((game, roster.random, seats, seed, rules))
    return found


def match_digest(
    game_name: str, bot: str, seats: int, seed: int, rules: tuple[tuple[str, str], ...]
) -> str:
    roster = get_entry(game_name).roster
    assert roster is not None
    rules_text = dict(rules)
    random_bot = bot_class(roster.random)
    # the bot under test in seat 0 for even seeds, in the last seat for odd ones
    factories: list[Any] = [random_bot] * seats
    factories[0 if seed % 2 == 0 else seats - 1] = bot_class(bot)
    match = play_local(game_name, factories, seed=seed, rules=rules_text)
    game = get_game(game_name)
    driver = MatchDriver(
        game,
        game.parse_rules(rules_text),
        seats,
        codec=get_codec(game_name),
        deltas=[seat == 0 for seat in range(seats)],
        digest=StateDigester(canonical),
    )
    old = StateDigester(repr_form)
    lines: list[str] = []
    for event in match.events:
        if isinstance(event, ChanceEvent):
            text = f"chance {event.outcome}"
            digest = driver.apply_chance(event.outcome)
            obs: str | None = "-"
        else:
            assert isinstance(event, ActionEvent)
            decision = driver.decision_for(event)
            text = f"seat {event.seat} {event.action!r}"
            digest = driver.act(decision, event.action)
            obs = decision.digest
        lines.append(f"{text} {digest} {old(driver.state)} {obs}")
    lines.append(f"final {state_digest(driver.state)} {match.outcome}")
    for seat in range(seats):
        final = driver.final_observation(seat).SerializeToString(deterministic=True)
        lines.append(f"end {seat} {hashlib.sha256(final).hexdigest()[:16]}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:24] + f" {len(match.events)}"


def key(case: Case) -> str:
    game, bot, seats, seed, rules = case
    text = f"{game} {bot} seats={seats} seed={seed}"
    return f"{text} {dict(rules)}" if rules else text


@pytest.fixture(scope="module")
def pinned() -> dict[str, str]:
    if os.environ.get("ARENA_UPDATE_GOLDEN"):
        computed = {key(case): match_digest(*case) for case in cases()}
        PINNED.write_text(json.dumps(computed, indent=1, sort_keys=True) + "\n")
    loaded: dict[str, str] = json.loads(PINNED.read_text())
    return loaded


@pytest.mark.parametrize("case", cases(), ids=key)
def test_seeded_match_digests_are_pinned(case: Case, pinned: dict[str, str]) -> None:
    assert match_digest(*case) == pinned[key(case)], key(case)


def test_every_case_is_pinned(pinned: dict[str, str]) -> None:
    assert sorted(pinned) == sorted(key(case) for case in cases())
