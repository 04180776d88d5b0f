"""Exact expectations over a scorecard turn's re-rolls (Dice Poker's luck baseline).

A turn is a roll of five dice and up to two re-rolls of any of them. Given what each
sorted throw is worth once no re-roll is left, :func:`chained` gives what it is worth
with one and two re-rolls left when the mover keeps, each time, the dice whose
re-rolled expectation is largest (exact: every sorted outcome with its probability).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Final

from referee.gamekit.poker_dice import NUM_DICE, roll_outcomes

THROWS: Final = tuple(throw for throw, _ in roll_outcomes(NUM_DICE))
"""Every sorted throw of the five dice."""
THROW_INDEX: Final = {throw: i for i, throw in enumerate(THROWS)}
KEEPS: Final = tuple(
    kept
    for count in range(NUM_DICE + 1)
    for kept in itertools.combinations_with_replacement(range(1, 7), count)
)
"""Every sorted multiset of kept dice (none to all five)."""
KEEP_INDEX: Final = {kept: i for i, kept in enumerate(KEEPS)}
SPREAD: Final = tuple(
    tuple(
        (THROW_INDEX[tuple(sorted(kept + roll))], p)
        for roll, p in roll_outcomes(NUM_DICE - len(kept))
    )
    for kept in KEEPS
)
"""Per kept multiset, the throws re-rolling the rest reaches, with their probabilities."""
SUBSETS: Final = tuple(
    tuple(
        sorted(
            {
                KEEP_INDEX[tuple(sorted(kept))]
                for count in range(NUM_DICE + 1)
                for kept in itertools.combinations(throw, count)
            }
        )
    )
    for throw in THROWS
)
"""Per throw, every multiset of its dice the mover may keep."""


def expect(values: Sequence[float]) -> list[float]:
    """Per kept multiset (indexed as :data:`KEEPS`), the mean value of the throws its
    re-roll reaches."""
    return [math.fsum(p * values[i] for i, p in spread) for spread in SPREAD]


def chained(last: tuple[float, ...], rerolls: int) -> tuple[tuple[float, ...], ...]:
    """Per re-rolls left (0 .. ``rerolls``) each throw's value (indexed as
    :data:`THROWS`), from ``last``, its value with none left."""
    out = [last]
    for _ in range(rerolls):
        means = expect(out[-1])
        out.append(tuple(max(means[k] for k in subsets) for subsets in SUBSETS))
    return tuple(out)
