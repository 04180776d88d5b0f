"""The luck baselines' numbers, pinned: the luck of a fixed set of seeded matches per game
is exactly (bit for bit) what it was when the fitted tables were Python dictionaries in
``referee/analysis/``, so moving a baseline or its data changes no result.

The pinned values were produced by the code of commit d4c451b (before the move), with
the loop of :func:`_matches` and ``luck(game, rules, 2, events, salt=label.encode())``
printed with ``repr``. They change only when a baseline, its fitted data or its
coefficient ``b`` is refitted on purpose (``python -m bench.luck --fit``), or when an
engine or one of these example bots plays differently (the same seed then makes another
match); re-capture them then, from the code before the change.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from league.execution.counters import bot_class
from referee.analysis import luck
from referee.core.catalogue import get_game
from referee.core.events import Event
from referee.core.playout import random_playout
from referee.games.liars_dice.baseline import LiarsDiceBaseline
from sdk.local import play_local

BOTS = {
    "liars_dice": ("liars_dice_probability", "liars_dice_random"),
    "liars_poker_dice": ("liars_poker_dice_heuristic", "liars_poker_dice_random"),
    "liars_poker": ("liars_poker_heuristic", "liars_poker_random"),
    "dice_poker": ("dice_poker_heuristic", "dice_poker_random"),
    "cockroach_poker": ("cockroach_poker_heuristic", "cockroach_poker_random"),
}
"""Per game its heuristic bot and its random one."""

PINNED: dict[tuple[str, str], tuple[float, float]] = {
    ("liars_dice", "bots 1"): (0.05811174793354424, -0.05811181838151937),
    ("liars_dice", "bots 2"): (0.039177886804798626, -0.039177957252773773),
    ("liars_dice", "bots 3"): (-0.10931909136885039, 0.10931917125668894),
    ("liars_dice", "random 4"): (-0.023404842613951544, 0.02340492250179009),
    ("liars_dice", "random 5"): (0.07373521734725802, -0.07373528816835571),
    ("liars_poker_dice", "bots 1"): (0.2776044315972239, -0.27760443159722153),
    ("liars_poker_dice", "bots 2"): (0.11310903048611144, -0.11310903048610998),
    ("liars_poker_dice", "bots 3"): (0.13985473519290267, -0.1398547351929004),
    ("liars_poker_dice", "random 4"): (-0.4027114723842576, 0.40271108817129714),
    ("liars_poker_dice", "random 5"): (0.2188259316358045, -0.2188243947839499),
    ("liars_poker", "bots 1"): (-0.0030071437499999878, 0.0030071437500000125),
    ("liars_poker", "bots 2"): (0.0017335218750000058, -0.001733521874999996),
    ("liars_poker", "bots 3"): (0.0009882375000000066, -0.0009882375000000048),
    ("liars_poker", "random 4"): (6.843750000002285e-05, -6.843749999999332e-05),
    ("liars_poker", "random 5"): (0.0005871937500000094, -0.0005871937499999991),
    ("dice_poker", "bots 1"): (-0.02578819279143444, 0.025788192791435825),
    ("dice_poker", "bots 2"): (-0.031019177016826566, 0.031019177016828076),
    ("dice_poker", "bots 3"): (0.03347436158927855, -0.033474361589275595),
    ("dice_poker", "random 4"): (-0.21274227073137714, 0.21274227073137966),
    ("dice_poker", "random 5"): (-0.01987290238536714, 0.019872902385369956),
    ("cockroach_poker", "bots 1"): (0.0, 0.0),
    ("cockroach_poker", "bots 2"): (0.0, 0.0),
    ("cockroach_poker", "bots 3"): (0.0, 0.0),
    ("cockroach_poker", "random 4"): (0.0, 0.0),
    ("cockroach_poker", "random 5"): (0.0, 0.0),
}
"""``luck(...)`` of each match: the game's baseline and fitted coefficient ``b``."""

PINNED_LIARS_DICE_TABLE: dict[str, tuple[float, float]] = {
    "bots 1": (0.034959704936543656, -0.034959591815422915),
    "bots 2": (-0.07415959181542287, 0.07415970493654372),
    "bots 3": (-0.26601405390675387, 0.26601502436668717),
    "random 4": (-0.0643743274851648, 0.06437529794509798),
    "random 5": (0.18986187829044582, -0.1898611650321587),
}
"""Liar's Dice's matches under its plain fitted table (the round baseline's fallback;
``b`` = 1, as for any baseline the caller passes): that table's data is pinned too,
though the round shares hide it."""


def _matches(game: str) -> Iterator[tuple[str, list[Event]]]:
    """Three seeded in-process matches of the game's example bots and two seeded random
    playouts, each with its label (the salt of sampled expectations)."""
    heuristic, rand = BOTS[game]
    engine = get_game(game)
    rules = engine.parse_rules({})
    pairs = ((1, (heuristic, rand)), (2, (rand, heuristic)), (3, (heuristic, heuristic)))
    for seed, pair in pairs:
        played = play_local(game, [bot_class(m) for m in pair], seed=seed, fast_chance=True)
        yield f"bots {seed}", list(played.events)
    for seed in (4, 5):
        yield f"random {seed}", list(random_playout(engine, rules, 2, random.Random(seed)).events)


@pytest.mark.parametrize("game", list(BOTS))
def test_the_luck_of_seeded_matches_is_unchanged_bit_for_bit(game: str) -> None:
    rules: Any = get_game(game).parse_rules({})
    found = {
        (game, label): luck.luck(game, rules, 2, events, salt=label.encode())
        for label, events in _matches(game)
    }
    assert found == {key: value for key, value in PINNED.items() if key[0] == game}


def test_the_liars_dice_table_baseline_is_unchanged_bit_for_bit() -> None:
    rules: Any = get_game("liars_dice").parse_rules({})
    baseline = LiarsDiceBaseline()
    found = {
        label: luck.luck("liars_dice", rules, 2, events, salt=label.encode(), baseline=baseline)
        for label, events in _matches("liars_dice")
    }
    assert found == PINNED_LIARS_DICE_TABLE
