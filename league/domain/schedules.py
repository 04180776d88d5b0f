"""Round-robin league schedules with seat rotations and duplicate deals.

A schedule is a flat list of :class:`ScheduledMatch`.  For every round and every
combination of ``table_size`` distinct bots (a *table*), the table is played once
per cyclic seat rotation, so each bot of the table sits in each seat exactly once.
All rotations of one table in one round share one group id: they are a *duplicate*
deal — the same dice or cards with the seats swapped — which cancels most of the
luck of the deal between the bots of that table.  The group id is what
:func:`league.domain.ratings.bootstrap` resamples as a unit.

The schedule says nothing about the deals themselves: the deal of group ``G`` is
drawn from ``referee.core.chance.deal_key(league secret, G)`` and the secret stays
with the referee until the league is over (see ``docs/security-chance.md``).

Numbering is zero-based throughout: ``index`` counts matches over the whole
schedule, ``round`` counts rounds, ``table`` counts tables within a round (the
position of the combination in :func:`itertools.combinations` order, restarting
at 0 every round) and ``rotation`` is the cyclic shift of the table's seat order.

Everything is a pure function of the arguments: the same bots, table size and
rounds always give the same schedule.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ScheduleError", "ScheduledMatch", "expected_count", "group_at", "make_schedule"]


class ScheduleError(ValueError):
    """The schedule cannot be built from the given bots and options."""


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """One match of a league schedule.

    ``bots`` is in seat order (seat 0 first).  ``group`` (``f"r{round}-t{table}"``)
    is shared by every rotation of the same table in the same round, and names its
    deal.
    """

    index: int
    round: int
    table: int
    rotation: int
    bots: tuple[str, ...]
    group: str


def expected_count(n: int, k: int, rounds: int) -> int:
    """Number of matches :func:`make_schedule` produces: ``C(n, k) · k · rounds``.

    ``n`` bots, tables of ``k`` seats, ``rounds`` rounds.  It is ``0`` when
    ``k > n``; negative arguments raise :class:`ScheduleError`.
    """
    if n < 0 or k < 0 or rounds < 0:
        raise ScheduleError(f"counts must not be negative (n={n}, k={k}, rounds={rounds})")
    return math.comb(n, k) * k * rounds


def make_schedule(
    bots: Sequence[str], *, table_size: int = 2, rounds: int = 1
) -> list[ScheduledMatch]:
    """Build a round-robin schedule of every table of ``table_size`` bots.

    For each round, for each combination of ``table_size`` distinct bots (in
    :func:`itertools.combinations` order of ``bots``), for each cyclic rotation
    ``r`` in ``0 .. table_size-1`` the seat order is ``table[r:] + table[:r]``.
    The rotations of one table in one round share the group id
    ``f"r{round}-t{table}"`` (and so one deal); group ids are distinct across
    tables and rounds.

    The schedule has :func:`expected_count` ``(len(bots), table_size, rounds)``
    matches, and every bot sits in every seat equally often
    (``C(n-1, k-1) · rounds`` times).

    Raises :class:`ScheduleError` if ``table_size < 2``, ``rounds < 1``, a bot
    name is repeated, or there are fewer bots than ``table_size``.
    """
    names = list(bots)
    if table_size < 2:
        raise ScheduleError(f"table_size must be at least 2, got {table_size}")
    if rounds < 1:
        raise ScheduleError(f"rounds must be at least 1, got {rounds}")
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ScheduleError(f"duplicate bot names: {', '.join(map(repr, duplicates))}")
    if len(names) < table_size:
        raise ScheduleError(
            f"need at least table_size={table_size} bots for a table, got {len(names)}"
        )

    schedule: list[ScheduledMatch] = []
    for round_ in range(rounds):
        for table, members in enumerate(itertools.combinations(names, table_size)):
            group = f"r{round_}-t{table}"
            for rotation in range(table_size):
                schedule.append(
                    ScheduledMatch(
                        index=len(schedule),
                        round=round_,
                        table=table,
                        rotation=rotation,
                        bots=members[rotation:] + members[:rotation],
                        group=group,
                    )
                )
    return schedule


def group_at(index: int, *, bots: int, table_size: int, rounds: int) -> str:
    """The group id of match ``index`` of :func:`make_schedule` over ``bots`` bots.

    Groups depend on how many bots there are, not on their names or order, so a
    league published as its bots' names (sorted, not in the order it was created
    with) still names each match's deal. Raises :class:`ScheduleError` for an index
    outside the schedule or options it refuses."""
    schedule = make_schedule(
        [f"bot{number}" for number in range(bots)], table_size=table_size, rounds=rounds
    )
    if not 0 <= index < len(schedule):
        raise ScheduleError(f"the schedule has matches 0..{len(schedule) - 1}, not {index}")
    return schedule[index].group
