"""Luck-adjusted results: the chance corrections have mean zero (exactly, against a
brute-force enumeration of every outcome, and over seeded random deals), a hand-checked
example on one-die Liar's Dice, and the statistics built on them."""

from __future__ import annotations

import itertools
import math
import random
import statistics
from dataclasses import replace
from typing import Any

import pytest

from bench.luck import measure, variance_ratio
from league.domain.luck import (
    LuckError,
    LuckSprt,
    adjusted_pair_score,
    expected_score,
    fitted_coefficient,
    pair_interval,
    summarize,
)
from referee.analysis import luck
from referee.core.catalogue import BUILTIN_GAMES, get_game
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.playout import random_playout
from referee.gamekit.base import CHANCE, DiceRoll
from referee.gamekit.luck_baseline import Fitted, FittedTable, Key, TableBaseline
from referee.games.dice_poker import baseline as dice_poker_baseline
from referee.games.liars_dice import baseline as liars_dice_baseline


def _uneven(_baseline: TableBaseline, key: tuple[int, ...]) -> float:
    """A table with a different value for nearly every key (tuples of ints hash the
    same in every run), so that the checks below do not depend on the fitted data."""
    return (hash(key) % 1009) / 1009


@pytest.fixture
def uneven_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(TableBaseline, "lookup", _uneven)


def _chance_states(game_name: str, rules: dict[str, str], seed: int, limit: int) -> list[Any]:
    """Up to ``limit`` states at chance nodes of seeded random two-seat playouts."""
    game = get_game(game_name)
    parsed = game.parse_rules(rules)
    rng = random.Random(seed)
    found: list[Any] = []
    while len(found) < limit:
        playout = random_playout(game, parsed, 2, rng)
        found += [s for s in playout.states if game.to_act(s) == CHANCE]
    return found[:limit]


def _dice(request: object) -> int:
    assert isinstance(request, DiceRoll)
    return request.count


def _brute_force_expectation(game_name: str, state: Any, seat: int) -> float:
    """E[f(s, c)] over every ordered outcome of the roll, each with probability 6^-k."""
    game = get_game(game_name)
    request = game.chance_request(state)
    assert isinstance(request, DiceRoll)
    baseline = luck.baseline_for(game_name)
    outcomes = list(itertools.product(range(1, request.sides + 1), repeat=request.count))
    return math.fsum(baseline.value(state, o, seat) for o in outcomes) / len(outcomes)


@pytest.mark.parametrize(
    ("game_name", "rules"),
    [
        ("liars_dice", {"dice_per_player": "2"}),
        ("liars_poker_dice", {}),
        ("dice_poker", {}),
    ],
)
def test_the_exact_expectation_is_the_mean_over_every_outcome(
    game_name: str, rules: dict[str, str], uneven_tables: None
) -> None:
    """The enumerated expectation (sorted rolls with their multinomial weights, kept
    dice added) equals the plain mean over all 6^k ordered outcomes."""
    game = get_game(game_name)
    baseline = luck.baseline_for(game_name)
    states = _chance_states(game_name, rules, seed=3, limit=40)
    small = [s for s in states if _dice(game.chance_request(s)) <= 4][:6]
    assert small, "no chance node with at most 4 dice"
    for state in small:
        request = game.chance_request(state)
        for seat in (0, 1):
            exact = baseline.expected(state, request, seat, lambda _r: [])
            assert exact == pytest.approx(
                _brute_force_expectation(game_name, state, seat), abs=1e-12
            )


def test_the_liars_dice_strength_counts_wilds_and_sum_rounds() -> None:
    assert liars_dice_baseline._dice_strength((2, 2, 5), None, False) == 2
    assert (
        liars_dice_baseline._dice_strength((1, 2, 5), 1, False) == 2
    )  # the 1 is wild: counts for 2 and 5
    assert liars_dice_baseline._dice_strength((1, 1, 1), 1, False) == 3
    assert liars_dice_baseline._dice_strength((4,), None, True) == 4
    assert liars_dice_baseline._dice_strength((), None, False) == 0


def _match_luck(game_name: str, seed: int) -> tuple[float, float]:
    game = get_game(game_name)
    parsed = game.parse_rules({})
    playout = random_playout(game, parsed, 2, random.Random(seed))
    return luck.luck(game_name, parsed, 2, playout.events, salt=str(seed).encode())


@pytest.mark.parametrize(
    ("game_name", "matches"),
    [("liars_dice", 300), ("liars_poker_dice", 200), ("dice_poker", 20), ("liars_poker", 30)],
)
def test_the_luck_averages_to_zero_over_random_deals(
    game_name: str, matches: int, uneven_tables: None
) -> None:
    """Over seeded random playouts (two identical random players) each seat's luck per
    match has mean zero within 4 standard errors, and is not identically zero."""
    totals = [_match_luck(game_name, seed) for seed in range(matches)]
    for seat in (0, 1):
        values = [t[seat] for t in totals]
        spread = statistics.stdev(values)
        assert spread > 0.01
        assert abs(statistics.fmean(values)) <= 4 * spread / math.sqrt(matches)


def test_every_tabular_game_ships_a_fitted_table() -> None:
    tabular = []
    for game_name in BUILTIN_GAMES:
        baseline = luck.baseline_for(game_name)
        if isinstance(baseline, TableBaseline):
            tabular.append(game_name)
            table = baseline.fitted().tables[baseline.table_name]
            assert len(table.cells) > 20
            assert all(0.0 <= v <= 1.0 for v in [*table.cells.values(), *table.parents.values()])
    assert sorted(tabular) == ["liars_dice", "liars_poker", "liars_poker_dice"]
    rounds = liars_dice_baseline.BASELINE.fitted().tables["round_wins"]
    assert len(rounds.cells) > 20


def test_cockroach_poker_has_no_correction() -> None:
    assert _match_luck("cockroach_poker", 1) == (0.0, 0.0)


def test_a_hand_checked_one_die_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """One die each is a sum round: a hand's strength is its die. With a table worth 1
    when my die is higher, ½ when equal and 0 when lower, a roll is worth ½ on average
    (15 + 3 of 36), so a 6 against a 2 is luck +½ for seat 0 and −½ for seat 1, and the
    roll-off before it is not corrected."""
    table: dict[Key, float] = {
        (1, 1, opens, a, b): 1.0 if a > b else 0.5 if a == b else 0.0
        for opens in (0, 1)
        for a in range(1, 7)
        for b in range(1, 7)
    }
    game = get_game("liars_dice")
    rules = game.parse_rules({"dice_per_player": "1"})
    state = game.new_game(rules, 2)
    assert game.chance_request(state) == DiceRoll(4)  # the roll-off: two dice each
    events: list[Event] = [ChanceEvent((5, 5, 3, 3)), ChanceEvent((6, 2))]
    state = game.apply_chance(state, (5, 5, 3, 3))
    assert state.opener == 0
    table_baseline = liars_dice_baseline.LiarsDiceBaseline(Fitted({"values": FittedTable(table)}))
    rows = luck.chance_corrections("liars_dice", rules, 2, events, baseline=table_baseline)
    assert rows == [(0.0, 0.0), pytest.approx((0.5, -0.5))]
    events.append(
        ActionEvent(0, game.legal_actions(game.observe(game.apply_chance(state, (6, 2)), 0))[0])
    )
    assert luck.luck("liars_dice", rules, 2, events, baseline=table_baseline) == pytest.approx(
        (0.5, -0.5)
    )
    assert luck.luck(
        "liars_dice", rules, 2, events, baseline=table_baseline, coefficient=0.4
    ) == pytest.approx((0.2, -0.2))
    # by default the luck is the game's fitted coefficient b times the corrections' sum
    fitted = liars_dice_baseline.BASELINE.fitted()
    monkeypatch.setattr(
        liars_dice_baseline,
        "BASELINE",
        liars_dice_baseline.LiarsDiceRoundBaseline(replace(fitted, coefficient=0.4)),
    )
    assert luck.coefficient_for("liars_dice") == 0.4
    unit = luck.luck("liars_dice", rules, 2, events, coefficient=1.0)
    assert luck.luck("liars_dice", rules, 2, events) == pytest.approx(
        (0.4 * unit[0], 0.4 * unit[1])
    )


def test_a_match_that_does_not_replay_is_refused() -> None:
    game = get_game("liars_dice")
    rules = game.parse_rules({})
    with pytest.raises(luck.LuckError, match="event 1"):
        luck.chance_corrections("liars_dice", rules, 2, [ChanceEvent((9, 9))])


def test_only_two_seat_matches_are_adjusted() -> None:
    game = get_game("liars_dice")
    assert luck.chance_corrections("liars_dice", game.parse_rules({}), 3, []) == []


def test_an_unseen_key_falls_back_to_its_parent_then_to_a_half() -> None:
    table = FittedTable({(5, 5, 1, 3, 2): 0.7}, {(5, 5, 1): 0.6})
    baseline = liars_dice_baseline.LiarsDiceBaseline(Fitted({"values": table}))
    assert baseline.lookup((5, 5, 1, 3, 2)) == 0.7
    assert baseline.lookup((5, 5, 1, 4, 4)) == 0.6
    assert baseline.lookup((4, 5, 1, 4, 4)) == 0.5
    # no table at all: ½ everywhere
    assert liars_dice_baseline.LiarsDiceBaseline(Fitted()).lookup((5, 5, 1, 3, 2)) == 0.5


# -- the statistics -------------------------------------------------------------


def test_the_adjusted_pair_score_is_the_mean_of_score_minus_luck() -> None:
    assert adjusted_pair_score([(1.0, 0.3), (0.0, -0.1)]) == pytest.approx(0.4)
    with pytest.raises(LuckError, match="at least one game"):
        adjusted_pair_score([])


def test_the_interval_is_the_normal_one() -> None:
    low, high = pair_interval([0.0, 1.0, 0.0, 1.0])
    margin = 1.959964 * statistics.stdev([0.0, 1.0, 0.0, 1.0]) / 2
    assert (low, high) == pytest.approx((0.5 - margin, 0.5 + margin))
    with pytest.raises(LuckError, match="got 1"):
        pair_interval([0.5])


def test_a_summary_averages_each_group_first() -> None:
    summary = summarize([[1.0, 0.0], [1.0, 1.0], [0.0]])
    assert summary is not None
    assert summary.mean == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    assert summary.groups == 3
    assert summarize([[1.0, 0.0]]) is None


def test_the_luck_sprt_decides_by_the_normal_llr() -> None:
    test = LuckSprt(elo0=0.0, elo1=10.0)
    assert test.score0 == 0.5
    assert test.score1 == pytest.approx(expected_score(10.0))
    state = test.start()
    assert test.decision(state) == "continue"
    for _ in range(30):
        state = state.add(0.9)
    mu0, mu1 = test.score0, test.score1
    assert test.llr(state) == pytest.approx(
        30 * (mu1 - mu0) * (2 * 0.9 - mu0 - mu1) / (2 * (2 * 0.1) / 32)
    )
    assert test.decision(state) == "H1"
    low = test.start()
    for _ in range(30):
        low = low.add(0.1)
    assert test.decision(low) == "H0"
    with pytest.raises(LuckError, match="elo0 must be below"):
        LuckSprt(elo0=5.0, elo1=5.0)
    with pytest.raises(LuckError, match="finite"):
        state.add(math.nan)


def test_the_luck_sprt_keeps_its_error_rates_on_normal_pairs() -> None:
    """Seeded simulation on normal pair scores at H0 and at H1 (elo1 = 20, σ = 0.2):
    each error rate within 5% ± 3 points over 400 tests."""
    test = LuckSprt(elo0=0.0, elo1=20.0)
    rng = random.Random(7)
    for truth, wrong in ((test.score0, "H1"), (test.score1, "H0")):
        errors = 0
        for _ in range(400):
            state = test.start()
            while test.decision(state) == "continue":
                state = state.add(rng.gauss(truth, 0.2))
            errors += test.decision(state) == wrong
        assert errors / 400 <= 0.08


def test_the_bench_measures_a_small_run_and_its_variance_ratio() -> None:
    assert variance_ratio([0.0, 1.0, 0.0, 1.0], [0.25, 0.75, 0.25, 0.75]) == pytest.approx(4.0)
    assert variance_ratio([0.0, 1.0], [0.5, 0.5]) == math.inf
    rows = measure(["liars_poker_dice"], 12, seed=5)
    assert len(rows) == 3
    assert all(row.section == "luck" and row.value is not None for row in rows)


def test_the_fitted_coefficient_recovers_a_planted_linear_relation() -> None:
    rng = random.Random(3)
    lucks = [rng.gauss(0.0, 0.3) for _ in range(4000)]
    exact = [0.4 + 0.7 * x for x in lucks]
    assert fitted_coefficient(exact, lucks) == pytest.approx(0.7, abs=1e-12)
    noisy = [0.5 + 0.6 * x + rng.gauss(0.0, 0.2) for x in lucks]
    assert fitted_coefficient(noisy, lucks) == pytest.approx(0.6, abs=0.03)
    # luck unrelated to the score: b near 0 (the adjustment then adds no noise)
    unrelated = [rng.gauss(0.5, 0.2) for _ in lucks]
    assert abs(fitted_coefficient(unrelated, lucks)) < 0.05
    with pytest.raises(LuckError, match="never varies"):
        fitted_coefficient([0.0, 1.0], [0.2, 0.2])
    with pytest.raises(LuckError, match="3 scores but 2"):
        fitted_coefficient([0.0, 1.0, 0.5], [0.2, 0.1])


def test_a_coefficient_fitted_apart_keeps_the_mean_and_lowers_the_variance() -> None:
    """b fitted on one sample, applied to fresh ones: the adjusted means average to the
    true mean (E[luck] = 0), with less spread than the raw means."""
    rng = random.Random(11)

    def sample(n: int) -> tuple[list[float], list[float]]:
        lucks = [rng.gauss(0.0, 0.3) for _ in range(n)]
        return [0.6 + 0.5 * x + rng.gauss(0.0, 0.1) for x in lucks], lucks

    b = fitted_coefficient(*sample(500))
    raw_means, adjusted_means = [], []
    for _ in range(300):
        scores, lucks = sample(50)
        raw_means.append(statistics.fmean(scores))
        adjusted_means.append(
            statistics.fmean(s - b * x for s, x in zip(scores, lucks, strict=True))
        )
    assert statistics.fmean(adjusted_means) == pytest.approx(0.6, abs=0.003)
    # per score: Var raw 0.5² · 0.3² + 0.1² = 0.0325, adjusted about 0.1² = 0.01
    assert statistics.pvariance(adjusted_means) < statistics.pvariance(raw_means) / 2


def test_the_liars_dice_round_baseline_chains_round_wins_through_the_dice_counts() -> None:
    """With every round won 60% of the time, W(1, 1) = 0.6 and W(2, 1) = 0.6 + 0.4·0.6 =
    0.84 (the round's loser loses a die); a roll that wins the round for sure is worth
    W(2, 0) = 1, one that loses it W(1, 1) = 0.6."""
    shares: dict[Key, float] = dict.fromkeys(itertools.product((1, 2), (1, 2), (0, 1)), 0.6)
    rounds = FittedTable({(2, 1, 1, 2, 0, 1, 0): 1.0, (2, 1, 1, 1, 0, 1, 1): 0.0}, shares)
    assert liars_dice_baseline.match_win(rounds, 1, 1, 0) == pytest.approx(0.6)
    assert liars_dice_baseline.match_win(rounds, 2, 1, 1) == pytest.approx(0.84)
    baseline = liars_dice_baseline.LiarsDiceRoundBaseline(Fitted({"round_wins": rounds}))
    assert baseline.table((2, 1, 1, 2, 0, 1, 0)) == pytest.approx(1.0)
    assert baseline.table((2, 1, 1, 1, 0, 1, 1)) == pytest.approx(0.6)
    assert baseline.table((2, 1, 1, 1, 1, 1, 1)) == pytest.approx(0.84)  # the parent's
    # without round shares the round baseline is its plain table
    plain = liars_dice_baseline.LiarsDiceRoundBaseline(
        Fitted({"values": FittedTable({(2, 1, 1, 2, 0, 1, 0): 0.3})})
    )
    assert plain.table((2, 1, 1, 2, 0, 1, 0)) == 0.3


def test_the_dice_poker_turn_values_on_a_card_with_only_chance_open() -> None:
    # Only Chance (par 22) open: the mover keeps each die worth more than a re-rolled
    # one. Last roll: the sum less par. One re-roll left: a die is worth max(d, 3.5).
    # Two left: a re-rolled die is then worth (3·3.5 + 4 + 5 + 6) / 6 = 4.25, so only
    # the 5s and 6s stay.
    lines = (0,) * 14 + (None,)
    last, one, two = dice_poker_baseline.turn_values(lines)
    throw = dice_poker_baseline.THROWS.index((1, 2, 3, 4, 6))
    assert last[throw] == pytest.approx(16 - 22)
    assert one[throw] == pytest.approx(3 * 3.5 + 4 + 6 - 22)
    assert two[throw] == pytest.approx(4 * 4.25 + 6 - 22)
    sixes = dice_poker_baseline.THROWS.index((6, 6, 6, 6, 6))
    assert last[sixes] == one[sixes] == two[sixes] == pytest.approx(30 - 22)
