"""Who plays next in a growing schedule: pairing that learns the most (``docs/rolling.md``).

A pure function, :func:`choose_tables`, over what the ratings say of each active
entry (:class:`LadderEntry`: its Bradley–Terry rating and the width of its 95%
interval, from :func:`league.domain.ratings.fit_with_sd`) and how many matches it
has. The rolling ladder (:func:`league.store.rolling_ladders.extend_schedule`) calls it for
each batch of duplicate groups.

Why this rule: a match tells the most where two ratings are close *and* their order
is still in doubt. The widest interval alone is not enough: a bot far below the
rest (a random bot) wins so rarely that each game carries little information
(``p·(1 − p)`` is small), so its interval stays the widest however many matches it
plays, though its rank was settled long ago — the old rule gave it 215 of 222
matches. So the seed is the widest interval *that overlaps a neighbour's* (the
next rating up or down), and its opponent is that neighbour. A minimum share keeps
every entry in play, so a rating that drifts (a bot's opponents change) is noticed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from league.domain.errors import LeagueError

MIN_SHARE = 0.10
"""Default minimum share: each active entry sits in at least this fraction of the
last :data:`SHARE_WINDOW` matches (see :func:`choose_tables`)."""
SHARE_WINDOW = 200
"""Matches (the most recent ones, finished or scheduled) over which shares are counted:
a window, so a version entering a long-running ladder is not owed a share of its
whole history."""


class PairingError(LeagueError):
    """Bad input to the pairing (the message names it)."""


@dataclass(frozen=True, slots=True)
class LadderEntry:
    """What pairing knows of one active entry."""

    key: str
    """Its label (:func:`league.store.leagues.bot_labels`)."""
    rating: float
    """Bradley–Terry Elo from the finished matches (1500 without any)."""
    spread: float
    """Width of its 95% rating interval, in Elo (``rating ± spread/2``)."""
    matches: int
    """Matches finished or already scheduled."""
    order: int
    """Entry order (older first): the last tie-break."""
    recent: int = 0
    """Its matches among the ladder's last :data:`SHARE_WINDOW` matches."""

    @property
    def low(self) -> float:
        return self.rating - self.spread / 2.0

    @property
    def high(self) -> float:
        return self.rating + self.spread / 2.0


def overlaps(entries: Sequence[LadderEntry]) -> dict[str, float]:
    """How much each entry's interval overlaps its neighbours' (Elo; negative: the gap
    to the nearer one), the neighbours being the next ratings up and down.

    Positive means the order of the entry and a neighbour is still in doubt at 95%.
    An entry without neighbours gets ``-inf``.
    """
    ranked = sorted(entries, key=lambda e: (e.rating, e.order))
    result: dict[str, float] = {}
    for i, entry in enumerate(ranked):
        around = ranked[max(0, i - 1) : i] + ranked[i + 1 : i + 2]
        result[entry.key] = max(
            (min(entry.high, n.high) - max(entry.low, n.low) for n in around), default=-math.inf
        )
    return result


def settled(entries: Sequence[LadderEntry]) -> bool:
    """Every entry's interval is clear of its neighbours' (no adjacent pair's order is
    in doubt at 95%): an adaptive league run has learnt what it set out to."""
    return all(v <= 0 for v in overlaps(entries).values())


def choose_tables(
    entries: Sequence[LadderEntry],
    *,
    groups: int,
    table_size: int = 2,
    placement_matches: int = 4,
    min_share: float = MIN_SHARE,
    recent_total: int = 0,
) -> list[tuple[str, ...]]:
    """The next ``groups`` tables (entry keys, seat order of rotation 0).

    Each table has a *seed* and ``table_size - 1`` opponents. The seed, in order:

    1. **Placement**: an entry with fewer than ``placement_matches`` matches (fewest
       first), so a new version plays its placement matches before anything else.
    2. **Minimum share**: an entry that sits in fewer than ``share · recent_total`` of
       the last ``recent_total`` matches (the largest shortfall first), where
       ``share = min(min_share, table_size / (2 · entries))`` — capped so that
       keeping shares never takes more than half the matches.
    3. **Uncertainty where it matters**: the widest interval among the entries whose
       interval overlaps a neighbour's (:func:`overlaps`); when no two adjacent
       intervals overlap, the entry whose gap to a neighbour is smallest.

    Ties go to fewer matches, then entry order. The opponents are the entries whose
    intervals overlap the seed's most — for a seed chosen by 3, its doubtful
    neighbour — then the closest in rating.

    After each table its members count ``table_size`` more matches (one per seat
    rotation), ``recent_total`` grows by ``table_size``, and their spread shrinks as
    ``1/sqrt(matches + 1)``, so one batch moves on once a pair is played enough.
    Any ``table_size`` from 2 up works; fewer entries than ``table_size`` (or no
    groups) give no tables. Pure and deterministic.
    """
    if table_size < 2:
        raise PairingError(f"table_size must be at least 2, got {table_size}")
    if not 0.0 <= min_share <= 1.0:
        raise PairingError(f"min_share must be between 0 and 1, got {min_share}")
    if len(entries) < table_size or groups < 1:
        return []
    keys = [e.key for e in entries]
    if len(set(keys)) != len(keys):
        raise PairingError(
            f"entry keys repeat: {sorted(k for k, c in Counter(keys).items() if c > 1)}"
        )
    share = min(min_share, table_size / (2.0 * len(entries)))
    current = {e.key: e for e in entries}
    total = recent_total
    tables: list[tuple[str, ...]] = []
    for _ in range(groups):
        table = _table(list(current.values()), table_size, placement_matches, share * total)
        tables.append(table)
        total += table_size
        for key in table:
            e = current[key]
            after = e.matches + table_size
            current[key] = LadderEntry(
                key=e.key,
                rating=e.rating,
                spread=e.spread * math.sqrt((e.matches + 1) / (after + 1)),
                matches=after,
                order=e.order,
                recent=e.recent + table_size,
            )
    return tables


def _table(
    entries: list[LadderEntry], table_size: int, placement: int, owed: float
) -> tuple[str, ...]:
    """One table: the seed by :func:`choose_tables`' rules, then its opponents."""
    overlap = overlaps(entries)
    doubtful = any(v > 0 for v in overlap.values())

    def need(e: LadderEntry) -> tuple[int, float, int, int]:
        if e.matches < placement:
            return (0, float(e.matches), 0, e.order)
        if e.recent < owed:
            return (1, e.recent - owed, e.matches, e.order)
        if doubtful:
            return (2, -e.spread if overlap[e.key] > 0 else math.inf, e.matches, e.order)
        return (2, -overlap[e.key], e.matches, e.order)

    seed = min(entries, key=need)

    def fit(e: LadderEntry) -> tuple[float, float, int, int]:
        shared = min(seed.high, e.high) - max(seed.low, e.low)
        return (-shared, abs(e.rating - seed.rating), e.matches, e.order)

    opponents = sorted((e for e in entries if e.key != seed.key), key=fit)
    return (seed.key, *(e.key for e in opponents[: table_size - 1]))
