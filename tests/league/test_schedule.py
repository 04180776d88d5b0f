"""League schedules: counts, seat balance, duplicate deals, determinism, errors."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.domain.schedules import (
    ScheduledMatch,
    ScheduleError,
    expected_count,
    group_at,
    make_schedule,
)


def bots(n: int) -> list[str]:
    return [f"bot{i}" for i in range(n)]


@pytest.mark.parametrize(
    ("n", "k", "rounds"),
    [(2, 2, 1), (3, 2, 1), (4, 2, 3), (5, 3, 2), (6, 4, 1), (4, 4, 2), (7, 2, 1)],
)
def test_match_count_is_combinations_times_seats_times_rounds(n: int, k: int, rounds: int) -> None:
    schedule = make_schedule(bots(n), table_size=k, rounds=rounds)
    assert len(schedule) == math.comb(n, k) * k * rounds == expected_count(n, k, rounds)
    assert [m.index for m in schedule] == list(range(len(schedule)))


def test_two_seat_schedule_in_order() -> None:
    schedule = make_schedule(["a", "b", "c"])
    assert [m.bots for m in schedule] == [
        ("a", "b"),
        ("b", "a"),
        ("a", "c"),
        ("c", "a"),
        ("b", "c"),
        ("c", "b"),
    ]
    assert [(m.round, m.table, m.rotation) for m in schedule[:4]] == [
        (0, 0, 0),
        (0, 0, 1),
        (0, 1, 0),
        (0, 1, 1),
    ]
    assert [m.group for m in schedule] == ["r0-t0", "r0-t0", "r0-t1", "r0-t1", "r0-t2", "r0-t2"]


def test_three_seat_rotations_are_cyclic() -> None:
    schedule = make_schedule(["a", "b", "c"], table_size=3)
    assert [m.bots for m in schedule] == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=2, max_value=7).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(min_value=2, max_value=n), st.integers(1, 3))
    )
)
def test_every_bot_sits_in_every_seat_equally_often(params: tuple[int, int, int]) -> None:
    n, k, rounds = params
    names = bots(n)
    schedule = make_schedule(names, table_size=k, rounds=rounds)
    seats = Counter((bot, seat) for m in schedule for seat, bot in enumerate(m.bots))
    per_seat = math.comb(n - 1, k - 1) * rounds
    assert seats == {(bot, seat): per_seat for bot in names for seat in range(k)}
    for match in schedule:
        assert len(set(match.bots)) == k


def group_by_table(schedule: list[ScheduledMatch]) -> dict[str, list[ScheduledMatch]]:
    groups: dict[str, list[ScheduledMatch]] = {}
    for match in schedule:
        groups.setdefault(match.group, []).append(match)
    return groups


def test_rotations_share_one_group_and_groups_differ() -> None:
    schedule = make_schedule(bots(5), table_size=3, rounds=2)
    groups = group_by_table(schedule)
    assert len(groups) == math.comb(5, 3) * 2
    for group, matches in groups.items():
        assert len(matches) == 3
        assert {(m.round, m.table) for m in matches} == {(matches[0].round, matches[0].table)}
        assert group == f"r{matches[0].round}-t{matches[0].table}"
        assert sorted(m.rotation for m in matches) == [0, 1, 2]
        # Within the deal each bot takes each seat once.
        for seat in range(3):
            assert len({m.bots[seat] for m in matches}) == 3


def test_deterministic_and_says_nothing_about_deals() -> None:
    first = make_schedule(bots(4), table_size=2, rounds=2)
    assert make_schedule(bots(4), table_size=2, rounds=2) == first
    assert not any(hasattr(m, "seed") for m in first)


@pytest.mark.parametrize(
    ("names", "table_size", "rounds", "message"),
    [
        (["a"], 2, 1, "at least table_size=2 bots"),
        (["a", "b"], 3, 1, "at least table_size=3 bots"),
        (["a", "b"], 1, 1, "table_size must be at least 2"),
        (["a", "b"], 2, 0, "rounds must be at least 1"),
        (["a", "b", "a"], 2, 1, "duplicate bot names: 'a'"),
    ],
)
def test_errors(names: list[str], table_size: int, rounds: int, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        make_schedule(names, table_size=table_size, rounds=rounds)


def test_schedule_error_is_a_value_error() -> None:
    assert issubclass(ScheduleError, ValueError)


def test_expected_count_edges() -> None:
    assert expected_count(3, 4, 1) == 0
    assert expected_count(10, 2, 5) == 45 * 2 * 5
    with pytest.raises(ScheduleError):
        expected_count(-1, 2, 1)


@pytest.mark.parametrize(("n", "k", "rounds"), [(2, 2, 1), (3, 2, 2), (5, 3, 2), (4, 4, 1)])
def test_group_at_names_each_match_s_group_whatever_the_bots_names(
    n: int, k: int, rounds: int
) -> None:
    """A downloaded league lists its bots sorted by name, not in the order it was
    created with: the groups do not depend on it (``arena rerun --record``)."""
    names = [f"{chr(ord('z') - i)}-bot" for i in range(n)]  # not in sorted order
    schedule = make_schedule(names, table_size=k, rounds=rounds)
    assert [group_at(m.index, bots=n, table_size=k, rounds=rounds) for m in schedule] == [
        m.group for m in schedule
    ]
    with pytest.raises(ScheduleError, match=f"the schedule has matches 0..{len(schedule) - 1}"):
        group_at(len(schedule), bots=n, table_size=k, rounds=rounds)
