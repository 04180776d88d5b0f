"""Pairing that learns the most (league/domain/pairing.py): by hand, then issue 22's
acceptance on simulated outcomes with the real pairing and rating code."""

from __future__ import annotations

import pytest

from bench.pairing import MEASURED, simulate
from league.domain.pairing import LadderEntry, PairingError, choose_tables, overlaps, settled
from league.domain.ratings import MatchResult, bootstrap, fit_bradley_terry, fit_with_sd


def entry(
    key: str, rating: float, spread: float, matches: int, order: int, recent: int = 0
) -> LadderEntry:
    return LadderEntry(
        key=key, rating=rating, spread=spread, matches=matches, order=order, recent=recent
    )


def test_a_new_entry_plays_its_placement_matches_first_against_the_closest() -> None:
    a = entry("a", 1600, 200, 40, 1)
    b = entry("b", 1400, 300, 40, 2)
    c = entry("c", 1500, 962, 0, 3)
    # c places (0, then 2 < 4 matches); its interval overlaps b's more than a's.
    assert choose_tables([a, b, c], groups=2, placement_matches=4) == [("c", "b"), ("c", "b")]


def test_a_wide_interval_that_overlaps_nobody_is_not_seeded() -> None:
    # random is far below (wide interval, rank certain); the doubtful pair is b–c.
    entries = [
        entry("random", 600, 500, 50, 1),
        entry("b", 1500, 200, 50, 2),
        entry("c", 1600, 150, 50, 3),
    ]
    assert overlaps(entries)["random"] < 0 < overlaps(entries)["b"]
    assert choose_tables(entries, groups=3, placement_matches=0, min_share=0) == [
        ("b", "c"),
        ("b", "c"),
        ("b", "c"),
    ]


def test_the_widest_doubtful_interval_is_seeded_against_its_doubtful_neighbour() -> None:
    entries = [
        entry("a", 1000, 100, 50, 1),
        entry("b", 1300, 300, 50, 2),
        entry("c", 1450, 200, 50, 3),
        entry("d", 1900, 600, 50, 4),
    ]
    # d is widest but 450 away from c (gap 50); b (300) overlaps c by 100.
    assert choose_tables(entries, groups=1, placement_matches=0, min_share=0) == [("b", "c")]


def test_with_every_order_settled_the_smallest_gap_is_played() -> None:
    entries = [
        entry("a", 1000, 100, 50, 1),
        entry("b", 1200, 100, 50, 2),
        entry("c", 1320, 100, 50, 3),
    ]
    assert choose_tables(entries, groups=1, placement_matches=0, min_share=0) == [("b", "c")]


def test_an_entry_below_its_minimum_share_is_seeded_first() -> None:
    entries = [
        entry("random", 600, 500, 50, 1, recent=11),
        entry("b", 1500, 200, 50, 2, recent=95),
        entry("c", 1600, 150, 50, 3, recent=95),
    ]
    # 11 of the last 100 matches is above the minimum (10%): random is owed nothing.
    assert choose_tables(entries, groups=1, placement_matches=0, recent_total=100) == [("b", "c")]
    # 11 of 120 is below 12: random gets a table, against the closest rating; then
    # 13 of 122 is enough.
    tables = choose_tables(entries, groups=2, placement_matches=0, recent_total=120)
    assert tables == [("random", "b"), ("b", "c")]


def test_the_share_is_capped_so_keeping_it_takes_at_most_half_the_matches() -> None:
    # 3 entries at a 50% minimum would need all matches: capped at 2/(2·3) = 1/3.
    entries = [
        entry("random", 600, 500, 50, 1, recent=34),
        entry("b", 1500, 200, 50, 2, recent=100),
        entry("c", 1600, 150, 50, 3, recent=100),
    ]
    tables = choose_tables(entries, groups=1, min_share=0.5, recent_total=100, placement_matches=0)
    assert tables == [("b", "c")]


def test_ties_go_to_fewer_matches_then_entry_order_not_to_the_name() -> None:
    entries = [entry("z", 1500, 500, 10, 1), entry("y", 1500, 500, 10, 2)]
    assert choose_tables(entries, groups=1) == [("z", "y")]
    fewer = [entry("z", 1500, 500, 10, 1), entry("y", 1500, 500, 8, 2)]
    assert choose_tables(fewer, groups=1, placement_matches=0) == [("y", "z")]


def test_tables_of_three_take_the_two_most_overlapping() -> None:
    entries = [
        entry("a", 1500, 900, 10, 1),
        entry("b", 1520, 100, 10, 2),
        entry("c", 1300, 100, 10, 3),
        entry("d", 1450, 100, 10, 4),
    ]
    assert choose_tables(entries, groups=1, table_size=3) == [("a", "b", "d")]


def test_too_few_entries_or_bad_input_give_no_table_or_a_named_error() -> None:
    assert choose_tables([entry("a", 1500, 9, 0, 1)], groups=4) == []
    assert choose_tables([], groups=4) == []
    two = [entry("a", 1500, 9, 0, 1), entry("b", 1500, 9, 0, 2)]
    assert choose_tables(two, groups=2, table_size=3) == []
    with pytest.raises(PairingError, match="table_size must be at least 2, got 1"):
        choose_tables(two, groups=1, table_size=1)
    with pytest.raises(PairingError, match=r"min_share must be between 0 and 1, got 1\.5"):
        choose_tables(two, groups=1, min_share=1.5)
    with pytest.raises(PairingError, match=r"entry keys repeat: \['a'\]"):
        choose_tables([two[0], two[0]], groups=1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_acceptance_most_matches_go_to_the_uncertain_pair_and_nobody_starves(seed: int) -> None:
    """Issue 22: random, counting, probability (Liar's Dice win rates measured on the
    real bots); simulated outcomes, real pairing, fit and intervals."""
    run = simulate(MEASURED, adaptive=True, max_matches=240, seed=seed)
    total = sum(run.pairs.values())
    assert run.pairs[frozenset(("counting", "probability"))] >= 0.5 * total
    assert min(run.seats.values()) >= 0.10 * total
    assert set(run.seats) == {"random", "counting", "probability"}


def test_settled_when_every_adjacent_difference_is_ordered_or_tied() -> None:
    apart = [entry("a", 1000, 100, 50, 1), entry("b", 1200, 100, 50, 2)]
    assert settled(apart)
    # b–c: 60 apart; without the fit's differences the sd of the difference is the
    # marginal ones combined, hypot(100, 100)/3.92 = 36.08, so 60 < 1.96·36.08 = 70.7.
    assert not settled([*apart, entry("c", 1260, 100, 50, 3)])
    # The fit's own sd of the difference (covariance included) decides: 25 → ±49.
    assert settled([*apart, entry("c", 1260, 100, 50, 3)], {frozenset("bc"): 25.0})
    assert settled([entry("a", 1000, 100, 50, 1)])


def test_the_pairing_interval_is_the_ratings_modules_posterior() -> None:
    results = [
        MatchResult(("a", "b"), (1, 2), "g0"),
        MatchResult(("b", "a"), (2, 1), "g0"),
        MatchResult(("b", "c"), (1, 2), "g1"),
        MatchResult(("c", "b"), (1, 2), "g1"),
    ]
    ratings, sd = fit_with_sd(results)
    boot = bootstrap(results, samples=5)
    assert ratings == pytest.approx(fit_bradley_terry(results))
    assert sd == pytest.approx(boot.sd) and all(0 < v < 1000 for v in sd.values())
    with pytest.raises(ValueError, match="prior_draws must not be negative, got -1"):
        fit_with_sd(results, prior_draws=-1)
