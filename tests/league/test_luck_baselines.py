"""Each game's luck baseline lives in its folder (``baseline.py``, its data in
``baseline.json``) and is found through its registration: a plugin game brings its own,
the data files are in their canonical form and read on first use only. And the numbers,
pinned: the luck of a fixed set of seeded matches per game is exactly (bit for bit)
what it was when the fitted tables were Python dictionaries in ``referee/analysis/``,
so moving a baseline or its data changes no result.

The pinned values were produced by the code before the move (commit d4c451b; the
matches with a random bot again at cd95f51, once the random bots answered mixed), with
the loop of :func:`_matches` and ``luck(game, rules, 2, events, salt=label.encode())``
printed with ``repr``. They change only when a baseline, its fitted data or its
coefficient ``b`` is refitted on purpose (``python -m bench.luck --fit``), or when an
engine or one of these example bots plays differently (the same seed then makes another
match); re-capture them then, from the code before the change.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.luck import main as bench_luck
from league.execution.counters import bot_class
from referee.analysis import luck
from referee.core.catalogue import BUILTIN_GAMES, game_folder, get_entry, get_game
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.playout import random_playout
from referee.gamekit import luck_baseline
from referee.gamekit.luck_baseline import (
    ConstantBaseline,
    data_file,
    format_fitted,
    load_fitted,
    parse_fitted,
)
from referee.games.liars_dice.baseline import LiarsDiceBaseline
from sdk.local import play_local
from tests.game_plugins.three_card_bluff import baseline as plugin_baseline
from tests.game_plugins.three_card_bluff.engine import Call, Claim

ROOT = Path(__file__).resolve().parents[2]

BOTS = {
    "liars_dice": ("liars_dice_probability", "liars_dice_random"),
    "liars_poker_dice": ("liars_poker_dice_heuristic", "liars_poker_dice_random"),
    "liars_poker": ("liars_poker_heuristic", "liars_poker_random"),
    "dice_poker": ("dice_poker_heuristic", "dice_poker_random"),
    "cockroach_poker": ("cockroach_poker_heuristic", "cockroach_poker_random"),
}
"""Per game its heuristic bot and its random one."""

PINNED: dict[tuple[str, str], tuple[float, float]] = {
    ("liars_dice", "bots 1"): (-0.07613751733988337, 0.07613759722772191),
    ("liars_dice", "bots 2"): (0.04699041553428057, -0.046990486355378266),
    ("liars_dice", "bots 3"): (-0.10931909136885039, 0.10931917125668894),
    ("liars_dice", "random 4"): (-0.023404842613951544, 0.02340492250179009),
    ("liars_dice", "random 5"): (0.07373521734725802, -0.07373528816835571),
    ("liars_poker_dice", "bots 1"): (0.07866677170524829, -0.0786667717052463),
    ("liars_poker_dice", "bots 2"): (0.0351253253935189, -0.03512532539351741),
    ("liars_poker_dice", "bots 3"): (0.13985473519290267, -0.1398547351929004),
    ("liars_poker_dice", "random 4"): (-0.4027114723842576, 0.40271108817129714),
    ("liars_poker_dice", "random 5"): (0.2188259316358045, -0.2188243947839499),
    ("liars_poker", "bots 1"): (-0.0030071437499999878, 0.0030071437500000125),
    ("liars_poker", "bots 2"): (0.0017335218750000058, -0.001733521874999996),
    ("liars_poker", "bots 3"): (0.0009882375000000066, -0.0009882375000000048),
    ("liars_poker", "random 4"): (6.843750000002285e-05, -6.843749999999332e-05),
    ("liars_poker", "random 5"): (0.0005871937500000094, -0.0005871937499999991),
    ("dice_poker", "bots 1"): (0.025477740652296476, -0.02547774065229496),
    ("dice_poker", "bots 2"): (-0.059656678182948376, 0.05965667818295055),
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
    "bots 1": (-0.10108497563331281, 0.1010859460932462),
    "bots 2": (-0.08086116503215866, 0.08086187829044594),
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


# -- where the baselines live ------------------------------------------------------


def test_a_plugin_game_brings_its_own_baseline() -> None:
    """Three-Card Bluff (tests/game_plugins, installed as an entry point) names its
    baseline in its registration and keeps its table beside it; the luck of its match
    is that baseline's, times the coefficient in its data, and no file of
    referee/analysis names the game."""
    assert luck.baseline_for("three_card_bluff") is plugin_baseline.BASELINE
    assert luck.coefficient_for("three_card_bluff") == 0.5
    game = get_game("three_card_bluff")
    events: list[Event] = [
        ChanceEvent((3, 1, 2)),
        ActionEvent(0, Claim(3)),
        ActionEvent(1, Call()),
    ]
    # seat 0's 3 is worth 0.9 of (0.2, 0.5, 0.9); seat 1's 1 is worth 0.3 of (0.3, 0.6, 0.7)
    assert luck.luck("three_card_bluff", game.parse_rules({}), 2, events) == pytest.approx(
        (0.5 * (0.9 - 1.6 / 3), 0.5 * (0.3 - 1.6 / 3))
    )
    for path in (ROOT / "referee" / "analysis").rglob("*.py"):
        assert "three_card_bluff" not in path.read_text(encoding="utf-8"), path


def test_a_game_without_a_baseline_gets_the_constant_one() -> None:
    assert get_entry("cockroach_poker").baseline is not None  # a constant, said so
    assert type(luck.baseline_for("cockroach_poker")) is ConstantBaseline
    assert type(luck.baseline_for("no_such_game")) is ConstantBaseline
    assert luck.coefficient_for("no_such_game") == 1.0


@pytest.mark.parametrize("game", BUILTIN_GAMES)
def test_each_games_data_is_beside_its_baseline_in_canonical_form(game: str) -> None:
    """The data file a baseline reads is in its game's folder, and is exactly what the
    refit writes for its data (one cell a line, keys in order: a refit's diff shows
    only the cells that moved)."""
    baseline = luck.baseline_for(game)
    assert get_entry(game).baseline == f"referee.games.{game}.baseline:BASELINE"
    if baseline.data is None:
        assert isinstance(baseline, ConstantBaseline)
        return
    path = data_file(baseline.data)
    assert path == game_folder(game) / "baseline.json"
    text = path.read_text(encoding="utf-8")
    assert format_fitted(parse_fitted(text)) == text
    assert baseline.fitted() is load_fitted(baseline.data)  # read once


def test_the_data_files_ship_in_the_wheel() -> None:
    """setuptools' package data carries every game folder's baseline.json."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "baseline.json" in config["tool"]["setuptools"]["package-data"]["*"]


def test_importing_the_luck_module_loads_no_baseline_and_reads_no_data() -> None:
    """A game's baseline module (and its data) is loaded when a match of it is measured,
    not when the referee or the luck module is imported."""
    probe = (
        "import sys, json, referee.analysis.luck\n"
        "from referee.gamekit import luck_baseline\n"
        "print(json.dumps([sorted(m for m in sys.modules if m.endswith('.baseline')),"
        " luck_baseline.load_fitted.cache_info().currsize]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [[], 0]


def test_one_command_refits_a_games_data_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m bench.luck --fit --game liars_poker_dice`` (on a few matches) rewrites
    the game's data file (here a copy: the shipped one stays) with a new table and a new
    ``b``, in the canonical form, and what is read next is the new data."""
    reference = luck.baseline_for("liars_poker_dice").data
    assert reference is not None
    real = data_file(reference)
    shipped = real.read_text(encoding="utf-8")
    copy = tmp_path / "baseline.json"
    copy.write_text(shipped, encoding="utf-8")
    original = luck_baseline.data_file
    monkeypatch.setattr(
        luck_baseline, "data_file", lambda r: copy if r == reference else original(r)
    )
    load_fitted.cache_clear()
    try:
        args = ["--fit", "--game", "liars_poker_dice", "--fit-matches", "4", "--fit-deals", "2"]
        assert bench_luck(args) == 0
        refit = parse_fitted(copy.read_text(encoding="utf-8"))
        assert luck.baseline_for("liars_poker_dice").fitted().coefficient == refit.coefficient
    finally:
        load_fitted.cache_clear()
    assert refit.fit_deals == 2
    assert refit.coefficient is not None and math.isfinite(refit.coefficient)
    cells = len(refit.tables["values"].cells)
    assert 0 < cells < len(parse_fitted(shipped).tables["values"].cells)
    assert format_fitted(refit) == copy.read_text(encoding="utf-8")
    assert real.read_text(encoding="utf-8") == shipped
