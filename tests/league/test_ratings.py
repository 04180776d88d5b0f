"""League ratings: pair games, Bradley–Terry fit, bootstrap, table, history, head to head."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.domain.ratings import (
    CUTECHESS_Z95,
    EXACT_Z95,
    MatchResult,
    NoEstimateError,
    PairGame,
    bootstrap,
    elo_history,
    elo_update,
    fit_bradley_terry,
    head_to_head,
    head_to_head_from_results,
    league_table,
    pair_elo,
    pair_games,
)

LOG3_ELO = 400.0 * math.log10(3.0)  # 190.848...


def duels(winner: str, loser: str, count: int) -> list[MatchResult]:
    """``count`` two-seat matches won by ``winner``, seats alternating."""
    out = []
    for i in range(count):
        if i % 2 == 0:
            out.append(MatchResult((winner, loser), (1, 2)))
        else:
            out.append(MatchResult((loser, winner), (2, 1)))
    return out


# A beats B 15-5, B beats C 15-5, A beats C 18-2: BT fits exactly 3:1, 3:1, 9:1.
TRIANGLE = [
    *duels("A", "B", 15),
    *duels("B", "A", 5),
    *duels("B", "C", 15),
    *duels("C", "B", 5),
    *duels("A", "C", 18),
    *duels("C", "A", 2),
]


# ------------------------------------------------------------------- match results


@pytest.mark.parametrize(
    ("bots", "places"),
    [(("A", "B"), (1,)), (("A",), (1,)), (("A", "B"), (0, 1))],
)
def test_match_result_rejects_malformed_input(
    bots: tuple[str, ...], places: tuple[int, ...]
) -> None:
    with pytest.raises(ValueError):
        MatchResult(bots, places)


# ---------------------------------------------------------------------- pair games


def test_three_player_match_gives_three_pairs_of_weight_half() -> None:
    games = pair_games([MatchResult(("A", "B", "C"), (1, 2, 3))])
    assert games == [
        PairGame("A", "B", 1.0, 0.5),
        PairGame("A", "C", 1.0, 0.5),
        PairGame("B", "C", 1.0, 0.5),
    ]


def test_pair_scores_follow_places_and_ties_are_half() -> None:
    games = pair_games([MatchResult(("A", "B", "C", "D"), (3, 1, 1, 4))])
    scores = {(g.a, g.b): g.score for g in games}
    assert scores == {
        ("A", "B"): 0.0,
        ("A", "C"): 0.0,
        ("A", "D"): 1.0,
        ("B", "C"): 0.5,
        ("B", "D"): 1.0,
        ("C", "D"): 1.0,
    }
    assert [g.weight for g in games] == [1 / 3] * 6


def test_pairs_of_the_same_bot_are_skipped() -> None:
    games = pair_games([MatchResult(("A", "A", "B"), (1, 2, 3))])
    assert games == [PairGame("A", "B", 1.0, 0.5), PairGame("A", "B", 1.0, 0.5)]


# ------------------------------------------------------------------- Bradley–Terry


def test_triangle_fit_recovers_log3_steps() -> None:
    ratings = fit_bradley_terry(TRIANGLE, prior_draws=0)
    assert ratings["A"] - ratings["B"] == pytest.approx(LOG3_ELO, abs=0.01)
    assert ratings["B"] - ratings["C"] == pytest.approx(LOG3_ELO, abs=0.01)
    assert math.fsum(ratings.values()) / 3 == pytest.approx(1500.0, abs=1e-9)
    # Tight convergence: the exact MLE, not merely within 0.01.
    assert ratings["A"] - ratings["C"] == pytest.approx(2 * LOG3_ELO, abs=1e-8)


def test_mean_parameter_shifts_ratings() -> None:
    base = fit_bradley_terry(TRIANGLE)
    shifted = fit_bradley_terry(TRIANGLE, mean=0.0)
    assert base != fit_bradley_terry(TRIANGLE, prior_draws=0)
    for bot, rating in base.items():
        assert shifted[bot] == pytest.approx(rating - 1500.0, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.permutations(TRIANGLE))
def test_fit_does_not_depend_on_match_order(order: list[MatchResult]) -> None:
    assert fit_bradley_terry(order) == fit_bradley_terry(TRIANGLE)


def test_multiplayer_weights_are_one_over_n_minus_one() -> None:
    # (A, A, B) places 1,2,3: the A-A pair is skipped, A beats B twice at weight ½
    # = one whole win.  Against three whole B wins: P(A beats B) = 1/4.
    results = [MatchResult(("A", "A", "B"), (1, 2, 3)), *duels("B", "A", 3)]
    ratings = fit_bradley_terry(results, prior_draws=0)
    assert ratings["B"] - ratings["A"] == pytest.approx(LOG3_ELO, abs=1e-8)


def test_ties_count_half_a_win_each() -> None:
    # A beats B twice and they draw twice: A scores 3 of 4, so the odds are 3:1.
    results = [*duels("A", "B", 2), *[MatchResult(("A", "B"), (1, 1))] * 2]
    ratings = fit_bradley_terry(results, prior_draws=0)
    assert ratings["A"] - ratings["B"] == pytest.approx(LOG3_ELO, abs=1e-8)


def test_three_player_matches_fit_like_their_pairs() -> None:
    rng = random.Random(5)
    bots = ["A", "B", "C", "D"]
    strength = {"A": 3.0, "B": 2.0, "C": 1.0, "D": 1.5}
    multi: list[MatchResult] = []
    for _ in range(60):
        table = rng.sample(bots, 3)
        order = sorted(table, key=lambda bot: -strength[bot] * rng.random())
        multi.append(MatchResult(tuple(table), tuple(order.index(bot) + 1 for bot in table)))
    # The same information as two-seat matches: weights are uniform (½), so the
    # maximum-likelihood estimate is the same.
    pairs = [
        MatchResult((g.a, g.b), (1, 2) if g.score == 1.0 else (2, 1)) for g in pair_games(multi)
    ]
    fitted = fit_bradley_terry(multi, prior_draws=0)
    expected = fit_bradley_terry(pairs, prior_draws=0)
    for bot in bots:
        assert fitted[bot] == pytest.approx(expected[bot], abs=1e-6)
    assert fitted["A"] > fitted["C"]


def test_perfect_score_is_regularised_to_finite_ordered_ratings() -> None:
    results = [*duels("A", "B", 10), *duels("A", "C", 10), *duels("B", "C", 7), *duels("C", "B", 3)]
    with pytest.raises(NoEstimateError, match="prior"):
        fit_bradley_terry(results, prior_draws=0)
    ratings = fit_bradley_terry(results)
    assert all(math.isfinite(r) for r in ratings.values())
    assert ratings["A"] > ratings["B"] > ratings["C"]
    # Clearly ahead but bounded: two virtual draws weigh against twenty wins.
    assert 150.0 < ratings["A"] - ratings["B"] < 800.0
    assert math.fsum(ratings.values()) / 3 == pytest.approx(1500.0, abs=1e-9)


def test_prior_is_two_virtual_draws_against_the_mean() -> None:
    # A beat B 10-0. A's log-strength a (B's is -a) satisfies the stationarity
    # condition 10·σ(-2a) = 2·(σ(a) - ½): about 1740 against 1260.
    ratings = fit_bradley_terry(duels("A", "B", 10))
    a = (ratings["A"] - 1500.0) * math.log(10.0) / 400.0

    def sigma(x: float) -> float:
        return 1.0 / (1.0 + math.exp(-x))

    assert 10 * sigma(-2 * a) == pytest.approx(2 * (sigma(a) - 0.5), abs=1e-9)
    assert ratings["A"] == pytest.approx(1739.4, abs=0.1)
    # Many games outweigh the prior: 300-100 is close to the odds' 190.85.
    many = fit_bradley_terry([*duels("A", "B", 300), *duels("B", "A", 100)])
    assert many["A"] - many["B"] == pytest.approx(LOG3_ELO, abs=2.0)


def test_disconnected_groups_and_self_play_still_get_ratings() -> None:
    results = [*duels("A", "B", 3), *duels("B", "A", 1), *duels("C", "D", 2)]
    results.append(MatchResult(("E", "E"), (1, 2)))
    with pytest.raises(NoEstimateError):
        fit_bradley_terry(results, prior_draws=0)
    ratings = fit_bradley_terry(results)
    assert set(ratings) == {"A", "B", "C", "D", "E"}
    assert all(math.isfinite(r) for r in ratings.values())
    assert ratings["A"] > ratings["B"]
    assert ratings["C"] > ratings["D"]


def test_single_bot_and_empty_input() -> None:
    assert fit_bradley_terry([MatchResult(("A", "A"), (1, 2))]) == {"A": 1500.0}
    assert fit_bradley_terry([]) == {}


# ----------------------------------------------------------------------- bootstrap


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    first = bootstrap(TRIANGLE, samples=40, seed=3)
    assert bootstrap(TRIANGLE, samples=40, seed=3) == first
    assert bootstrap(list(reversed(TRIANGLE)), samples=40, seed=3) == first
    assert bootstrap(TRIANGLE, samples=40, seed=4).intervals != first.intervals


def test_bootstrap_intervals_contain_the_estimate_and_los_is_complementary() -> None:
    boot = bootstrap(TRIANGLE, samples=60, seed=1)
    assert boot.ratings == fit_bradley_terry(TRIANGLE)
    for bot, (lo, hi) in boot.intervals.items():
        assert lo < boot.ratings[bot] < hi
        assert boot.present[bot] == 60
    for a in boot.los:
        assert boot.los[a][a] == 0.5
        for b in boot.los:
            assert boot.los[a][b] + boot.los[b][a] == pytest.approx(1.0, abs=1e-12)
    assert boot.los["A"]["C"] > 0.95
    assert boot.los["C"]["A"] < 0.05


def test_higher_level_gives_wider_intervals() -> None:
    wide = bootstrap(TRIANGLE, samples=60, seed=2, level=0.95)
    narrow = bootstrap(TRIANGLE, samples=60, seed=2, level=0.5)
    for bot in wide.intervals:
        assert wide.intervals[bot][0] < narrow.intervals[bot][0]
        assert narrow.intervals[bot][1] < wide.intervals[bot][1]


def test_bootstrap_resamples_whole_groups() -> None:
    # A duplicate deal: A wins in one seat order, B in the other.
    grouped = [MatchResult(("A", "B"), (1, 2), group=f"g{i}") for i in range(4)] + [
        MatchResult(("B", "A"), (1, 2), group=f"g{i}") for i in range(4)
    ]
    boot = bootstrap(grouped, samples=30, seed=0)
    assert boot.percentile == {"A": (1500.0, 1500.0), "B": (1500.0, 1500.0)}
    assert boot.los["A"]["B"] == 0.5
    # The interval is never that narrow: at least the posterior's ± 1.96 sd.
    lo, hi = boot.intervals["A"]
    assert lo == pytest.approx(1500.0 - EXACT_Z95 * boot.sd["A"], abs=1e-3)
    assert hi - lo > 50.0
    # Without the groups the two halves are resampled separately and vary.
    loose = [MatchResult(m.bots, m.places) for m in grouped]
    lo, hi = bootstrap(loose, samples=30, seed=0).intervals["A"]
    assert hi - lo > 50.0


def test_all_wins_give_finite_intervals_with_width() -> None:
    # Every resample of a 10-0 record is 10-0: the percentile interval has no width.
    boot = bootstrap(duels("A", "B", 10), samples=50, seed=0)
    assert boot.percentile["A"] == (boot.ratings["A"], boot.ratings["A"])
    for bot, (lo, hi) in boot.intervals.items():
        assert math.isfinite(lo) and math.isfinite(hi)
        assert lo < boot.ratings[bot] < hi
        assert hi - lo > 100.0  # ten games say little: a few hundred Elo
    assert boot.intervals["A"][0] > boot.intervals["B"][1] - 400.0


@pytest.mark.parametrize(("samples", "level"), [(0, 0.95), (10, 0.0), (10, 1.0)])
def test_bootstrap_rejects_bad_options(samples: int, level: float) -> None:
    with pytest.raises(ValueError):
        bootstrap(TRIANGLE, samples=samples, level=level)


# --------------------------------------------------------------------- league table


def test_league_table_rows() -> None:
    results = [*TRIANGLE, MatchResult(("A", "B", "C"), (2, 1, 2))]
    table = league_table(results, samples=40, seed=0)
    assert [(row.rank, row.bot) for row in table] == [(1, "A"), (2, "B"), (3, "C")]
    assert [row.elo for row in table] == sorted((row.elo for row in table), reverse=True)
    a, b, c = table
    # A: 20 + 20 duels + the 3-seat match; first places 15 + 18 (+0 in the 3-seat match).
    assert (a.games, a.wins) == (41, 33)
    assert a.mean_place == pytest.approx((33 * 1 + 7 * 2 + 2) / 41)
    assert (b.games, b.wins) == (41, 21)
    assert (c.games, c.wins) == (41, 7)
    boot = bootstrap(results, samples=40, seed=0)
    for row in table:
        assert row.lo <= row.elo <= row.hi
        assert (row.lo, row.hi) == boot.intervals[row.bot]
        assert row.los == boot.los[row.bot]
        assert row.margin == pytest.approx((row.minus + row.plus) / 2)
    assert a.los["C"] > 0.95


# ---------------------------------------------------------------------- elo history


def test_elo_history_hand_checked() -> None:
    history = elo_history(
        [MatchResult(("A", "B"), (1, 2)), MatchResult(("A", "B"), (2, 1))], k=16.0
    )
    assert history[0] == {"A": 1508.0, "B": 1492.0}
    # B's expected score at 1492 vs 1508 is 1/(1 + 10^0.04) = 0.476985...; B wins.
    assert history[1]["B"] == pytest.approx(1500.368153, abs=1e-6)
    assert history[1]["A"] == pytest.approx(1499.631847, abs=1e-6)


def test_elo_history_multiplayer_scales_by_n_minus_one_and_is_order_dependent() -> None:
    history = elo_history([MatchResult(("A", "B", "C"), (1, 2, 3))], k=16.0)
    # Each pair moves k/(n-1)·½ = 4 points: A +8, B +4-4, C -8.
    assert history == [{"A": 1508.0, "B": 1500.0, "C": 1492.0}]
    matches = [MatchResult(("A", "B"), (1, 2)), MatchResult(("B", "C"), (1, 2))]
    forward = elo_history(matches)[-1]
    backward = elo_history(list(reversed(matches)))[-1]
    assert forward != backward


# --------------------------------------------------------------------- head to head


def test_head_to_head_matches_cutechess_300_games() -> None:
    h = head_to_head(99, 104, 97)
    assert h.games == 300
    assert h.elo is not None and round(h.elo, 1) == 2.3
    assert h.margin is not None and round(h.margin, 1) == 31.8
    assert round(h.los * 100, 1) == 55.7


def test_head_to_head_matches_cutechess_100_games() -> None:
    h = head_to_head(45, 18, 37)
    assert h.score == pytest.approx(0.54)
    assert h.elo is not None and round(h.elo, 1) == 27.9
    assert h.margin is not None and round(h.margin, 1) == 62.4
    assert round(h.los * 100, 1) == 81.2


def test_head_to_head_quantile_choice() -> None:
    assert abs(CUTECHESS_Z95 - 1.957162) < 1e-6
    exact = head_to_head(45, 18, 37, z=EXACT_Z95)
    assert exact.margin is not None and round(exact.margin, 1) == 62.5
    exact = head_to_head(99, 104, 97, z=EXACT_Z95)
    assert exact.margin is not None and round(exact.margin, 1) == 31.9


def test_head_to_head_edge_cases() -> None:
    empty = head_to_head(0, 0, 0)
    assert (empty.score, empty.elo, empty.margin, empty.los) == (None, None, None, 0.5)
    sweep = head_to_head(10, 0, 0)
    assert (sweep.score, sweep.elo, sweep.margin) == (1.0, math.inf, math.inf)
    assert sweep.los > 0.99
    wiped = head_to_head(0, 1, 9)
    assert wiped.elo is not None and wiped.elo < 0
    assert head_to_head(0, 0, 4).elo == -math.inf
    draws = head_to_head(0, 6, 0)
    assert (draws.elo, draws.margin, draws.los) == (0.0, 0.0, 0.5)
    # The score interval reaches 1 → unbounded margin.
    assert head_to_head(9, 0, 1).margin == math.inf
    with pytest.raises(ValueError):
        head_to_head(-1, 0, 0)


def test_head_to_head_from_results_counts_pairs() -> None:
    results = [
        MatchResult(("A", "B"), (1, 2)),
        MatchResult(("B", "A"), (1, 1)),
        MatchResult(("C", "B", "A"), (1, 2, 3)),
        MatchResult(("A", "C"), (1, 2)),  # B absent: ignored
        MatchResult(("A", "B", "B"), (2, 1, 3)),  # one loss, one win
        MatchResult(("A", "B"), (1, 2)),
    ]
    h = head_to_head_from_results(results, "A", "B")
    assert (h.wins, h.draws, h.losses) == (3, 1, 2)
    assert h == head_to_head(3, 1, 2)
    reverse = head_to_head_from_results(results, "B", "A")
    assert (reverse.wins, reverse.draws, reverse.losses) == (2, 1, 3)
    with pytest.raises(ValueError):
        head_to_head_from_results(results, "A", "A")


def test_elo_update_is_one_history_step_and_leaves_others_alone() -> None:
    current = {"A": 1600.0, "B": 1400.0, "Z": 1234.0}
    updated = elo_update(current, MatchResult(("B", "A", "C"), (1, 2, 2)), k=20.0)
    assert current == {"A": 1600.0, "B": 1400.0, "Z": 1234.0}  # not mutated
    assert updated["Z"] == 1234.0
    # B beats A and C at weight k/(n-1) = 10; A and C (new, 1500) draw.
    e_ba = 1 / (1 + 10 ** (200 / 400))
    e_bc = 1 / (1 + 10 ** (100 / 400))
    e_ac = 1 / (1 + 10 ** (-100 / 400))
    assert updated["B"] == pytest.approx(1400 + 10 * (1 - e_ba) + 10 * (1 - e_bc))
    assert updated["A"] == pytest.approx(1600 - 10 * (1 - e_ba) + 10 * (0.5 - e_ac))
    assert updated["C"] == pytest.approx(1500 - 10 * (1 - e_bc) - 10 * (0.5 - e_ac))
    assert math.fsum(updated.values()) == pytest.approx(1600 + 1400 + 1234 + 1500)


def test_elo_history_can_continue_from_start_ratings() -> None:
    matches = [MatchResult(("A", "B"), (1, 2)), MatchResult(("B", "C"), (1, 2))]
    whole = elo_history(matches)
    continued = elo_history(matches[1:], start=whole[0])
    assert continued == whole[1:]


def test_pair_elo_is_finite_for_a_perfect_score() -> None:
    assert head_to_head(10, 0, 0).elo == math.inf
    shown = pair_elo(head_to_head(10, 0, 0))
    assert shown is not None
    # Ten wins and two virtual draws: a score of 11/12.
    assert shown.elo == pytest.approx(400.0 * math.log10(11.0), abs=1e-9)
    assert 100.0 < shown.margin < 400.0
    lost = pair_elo(head_to_head(0, 0, 10))
    assert lost is not None and lost.elo == pytest.approx(-shown.elo)
    assert pair_elo(head_to_head(0, 0, 0)) is None
    # Far from the edges it is close to cutechess-cli's numbers.
    usual = pair_elo(head_to_head(45, 18, 37))
    assert usual is not None
    assert usual.elo == pytest.approx(27.9, abs=1.0)
    assert usual.margin == pytest.approx(62.4, abs=3.0)
    with pytest.raises(NoEstimateError):
        pair_elo(head_to_head(3, 0, 0), prior_draws=0)
