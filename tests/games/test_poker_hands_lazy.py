"""The announcement table is built lazily and directly, and equals the filtered one."""

from __future__ import annotations

import itertools

import referee.gamekit.poker_hands as poker_hands
import sdk.liars_poker
from referee.gamekit.cards import RANKS
from referee.gamekit.poker_hands import (
    HIGHEST,
    LOWEST,
    SHAPES,
    Announcement,
    all_announcements,
    announcement_error,
)


def _filtered() -> tuple[Announcement, ...]:
    # The definition: every candidate shape that announcement_error accepts.
    found: list[Announcement] = []
    for category, (defining, max_kickers) in SHAPES.items():
        for head in itertools.product(RANKS, repeat=defining):
            for count in range(max_kickers + 1):
                for kickers in itertools.combinations(sorted(RANKS, reverse=True), count):
                    candidate = Announcement(category, head + kickers)
                    if announcement_error(candidate) is None:
                        found.append(candidate)
    return tuple(sorted(found))


def test_direct_construction_equals_filtering_every_candidate() -> None:
    assert all_announcements() == _filtered()


def test_module_attribute_and_constants_match_the_table() -> None:
    table = all_announcements()
    assert poker_hands.ALL_ANNOUNCEMENTS is table
    assert sdk.liars_poker.ALL_ANNOUNCEMENTS is table
    assert (table[0], table[-1]) == (LOWEST, HIGHEST)
