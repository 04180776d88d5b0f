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
matches. So the question is asked of neighbouring *pairs* (the next rating up or
down): the seed comes from the open pair whose difference is least known, and its
opponent is the other member. A minimum share keeps every entry in play, so a
rating that drifts (a bot's opponents change) is noticed. A pair's order is known
when its difference's own 95% interval excludes 0 (:func:`ordered`; with the fit's
covariance, :func:`difference_sd`, not the two marginal intervals).

A pair can also be *tied*: its rating difference known, at 95%, to lie inside the
indifference zone (:data:`TIE_ZONE`, ±10 Elo by default), from the pair's own
covariance in the fit (:func:`league.domain.bradley_terry.fit_with_differences`). Two
equal bots never separate, so before this rule such a pair kept the widest interval
and every match (384 of 400 in a league of four). A tied pair is settled like an
ordered one. Knowing a tie to ±10 Elo takes thousands of games, though (about 4,600
at 50%), so an open pair whose question needs more further matches than
:data:`REACH` (:func:`matches_to_settle`) is *out of reach* for now: it is not
seeded for its doubt, and no longer starves the others. Once no pair is open, the
adjacent pairs take turns (fewest recent matches first), so no one pair — an
unresolved near-tie, or the closest ordered pair — takes every match.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from league.domain.bradley_terry import ELO_PER_NAT
from league.domain.errors import LeagueError

MIN_SHARE = 0.10
"""Default minimum share: each active entry sits in at least this fraction of the
last :data:`SHARE_WINDOW` matches (see :func:`choose_tables`)."""
SHARE_WINDOW = 200
"""Matches (the most recent ones, finished or scheduled) over which shares are counted:
a window, so a version entering a long-running ladder is not owed a share of its
whole history."""


TIE_ZONE = 10.0
"""Default indifference zone, in Elo: a pair whose difference is known at 95% to lie
within ±this is tied (settled, and shown as "tied within ±10" in the standings)."""
REACH = SHARE_WINDOW / 4.0
"""An open pair that needs more than this many further matches (a quarter of the share
window) to be settled (:func:`matches_to_settle`) is out of reach: its doubt seeds no
table, and it plays in turns with the settled pairs. ``bench.pairing --tie`` chose the
quarter: with a whole window (200) one pair still took up to 64% of the matches after
the others had separated in 4 of 100 simulated ladders, with a quarter in none."""
Z95 = 1.959964
"""The exact 97.5% standard-normal quantile (two-sided 95%)."""

Pair = frozenset[str]
"""Two entry keys."""


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


def adjacent(entries: Sequence[LadderEntry]) -> list[tuple[LadderEntry, LadderEntry]]:
    """The neighbouring pairs (lower rating first), entries ranked by rating then order."""
    ranked = sorted(entries, key=lambda e: (e.rating, e.order))
    return list(pairwise(ranked))


def overlaps(entries: Sequence[LadderEntry]) -> dict[str, float]:
    """How much each entry's interval overlaps its neighbours' (Elo; negative: the gap
    to the nearer one), the neighbours being the next ratings up and down.

    Positive means the two marginal intervals overlap. (Whether the order is in doubt
    is a question for the pair's own difference: :func:`pair_states`.) An entry
    without neighbours gets ``-inf``.
    """
    result: dict[str, float] = {e.key: -math.inf for e in entries}
    for low, high in adjacent(entries):
        shared = min(low.high, high.high) - max(low.low, high.low)
        result[low.key] = max(result[low.key], shared)
        result[high.key] = max(result[high.key], shared)
    return result


def difference_sd(
    a: LadderEntry, b: LadderEntry, differences: Mapping[Pair, float] | None = None
) -> float:
    """The standard deviation (Elo) of ``a.rating − b.rating``: the fit's own
    (``differences``, with the pair's covariance) when given, else the two marginal
    ones combined as if independent."""
    if differences is not None and frozenset((a.key, b.key)) in differences:
        return differences[frozenset((a.key, b.key))]
    return math.hypot(a.spread, b.spread) / (2.0 * Z95)


def tied(difference: float, sd: float, zone: float = TIE_ZONE) -> bool:
    """The difference's 95% interval ``difference ± 1.96·sd`` lies inside ``±zone``."""
    return abs(difference) + Z95 * sd < zone


def ordered(difference: float, sd: float) -> bool:
    """The difference's 95% interval ``difference ± 1.96·sd`` excludes 0: the order is
    known."""
    return abs(difference) > Z95 * sd


def matches_to_settle(difference: float, sd: float, zone: float = TIE_ZONE) -> float:
    """About how many more matches of the pair settle it: until its difference's 95%
    half-width is below ``|difference|`` (order known) or ``zone − |difference|`` (tie
    known), whichever comes first, each match adding the Fisher information
    ``p·(1 − p)`` at the present difference (Elo to natural units: 400/ln 10)."""
    target = max(abs(difference), zone - abs(difference))
    if target <= 0.0:
        return math.inf
    p = 1.0 / (1.0 + math.pow(10.0, -difference / 400.0))
    have = (ELO_PER_NAT / sd) ** 2 if sd > 0 else math.inf
    need = (ELO_PER_NAT * Z95 / target) ** 2
    if need <= have:
        return 0.0
    information = p * (1.0 - p)
    return (need - have) / information if information > 0 else math.inf


def pair_states(
    entries: Sequence[LadderEntry],
    differences: Mapping[Pair, float] | None = None,
    *,
    tie_zone: float = TIE_ZONE,
    reach: float = REACH,
) -> dict[Pair, str]:
    """Each adjacent pair's state: ``"ordered"`` (:func:`ordered`), ``"tied"``
    (:func:`tied`, checked first), ``"out of reach"`` (open, but
    :func:`matches_to_settle` > ``reach``) or ``"open"``."""
    states: dict[Pair, str] = {}
    for a, b in adjacent(entries):
        sd = difference_sd(a, b, differences)
        if tied(b.rating - a.rating, sd, tie_zone):
            state = "tied"
        elif ordered(b.rating - a.rating, sd):
            state = "ordered"
        elif matches_to_settle(b.rating - a.rating, sd, tie_zone) > reach:
            state = "out of reach"
        else:
            state = "open"
        states[frozenset((a.key, b.key))] = state
    return states


def settled(
    entries: Sequence[LadderEntry],
    differences: Mapping[Pair, float] | None = None,
    *,
    tie_zone: float = TIE_ZONE,
) -> bool:
    """Every adjacent pair is ordered (its difference's 95% interval excludes 0) or
    tied (its difference known at 95% to lie within ``±tie_zone``): an adaptive
    league run has learnt what it set out to. An out-of-reach pair is not settled."""
    states = pair_states(entries, differences, tie_zone=tie_zone, reach=math.inf)
    return all(state in ("ordered", "tied") for state in states.values())


def choose_tables(  # long: its docstring states the whole pairing rule; the body is short
    entries: Sequence[LadderEntry],
    *,
    groups: int,
    table_size: int = 2,
    placement_matches: int = 4,
    min_share: float = MIN_SHARE,
    recent_total: int = 0,
    differences: Mapping[Pair, float] | None = None,
    tie_zone: float = TIE_ZONE,
    reach: float = REACH,
    pair_recent: Mapping[Pair, int] | None = None,
) -> list[tuple[str, ...]]:
    """The next ``groups`` tables (entry keys, seat order of rotation 0).

    Each table has a *seed* and ``table_size - 1`` opponents. The seed, in order:

    1. **Placement**: an entry with fewer than ``placement_matches`` matches (fewest
       first), so a new version plays its placement matches before anything else.
    2. **Minimum share**: an entry that sits in fewer than ``share · recent_total`` of
       the last ``recent_total`` matches (the largest shortfall first), where
       ``share = min(min_share, table_size / (2 · entries))`` — capped so that
       keeping shares never takes more than half the matches.
    3. **Uncertainty where it matters**: the *open* adjacent pair (:func:`pair_states`:
       neither ordered nor tied at 95%, nor out of reach) whose difference is the
       least known (largest standard deviation), seeded by its member with the wider
       interval.
    4. **Turns**: when no adjacent pair is open, the adjacent pair with the fewest
       recent matches (``pair_recent``, its matches among the last ``recent_total``;
       without it, its members' ``recent`` added), then the smaller gap, seeded by
       the member with fewer matches.

    Ties go to fewer matches, then entry order. The opponents are, first, the seed's
    partner in an open pair (for a seed chosen by 3, its doubtful neighbour; by 4,
    its turn's partner), then the entries whose intervals overlap the seed's most,
    then the closest in rating; they sit in that order without the first rule.

    ``differences``: the standard deviation of each pair's rating difference
    (:func:`difference_sd`); ``tie_zone`` (Elo, 0: no ties) and ``reach`` (matches;
    ``math.inf``: nothing is out of reach) as in :func:`pair_states`.

    After each table its members count ``table_size`` more matches (one per seat
    rotation), ``recent_total`` grows by ``table_size``, their spread shrinks as
    ``1/sqrt(matches + 1)`` and each pair at the table gains the information of
    its games, so one batch moves on once a pair is played enough.
    Any ``table_size`` from 2 up works; fewer entries than ``table_size`` (or no
    groups) give no tables. Pure and deterministic.
    """
    _check_settings(table_size, min_share, tie_zone)
    if len(entries) < table_size or groups < 1:
        return []
    keys = [e.key for e in entries]
    if len(set(keys)) != len(keys):
        raise PairingError(
            f"entry keys repeat: {sorted(k for k, c in Counter(keys).items() if c > 1)}"
        )
    share = min(min_share, table_size / (2.0 * len(entries)))
    current = {e.key: e for e in entries}
    sds = {
        frozenset((a.key, b.key)): difference_sd(a, b, differences)
        for i, a in enumerate(entries)
        for b in entries[i + 1 :]
    }
    played: Counter[Pair] = Counter()
    if pair_recent is not None:
        played.update(pair_recent)
    total = recent_total
    tables: list[tuple[str, ...]] = []
    for _ in range(groups):
        table = _table(
            list(current.values()),
            table_size,
            placement_matches,
            share * total,
            sds,
            tie_zone,
            reach,
            played if pair_recent is not None else None,
        )
        tables.append(table)
        total += table_size
        _as_if_played(table, current, sds, played)
    return tables


def _check_settings(table_size: int, min_share: float, tie_zone: float) -> None:
    if table_size < 2:
        raise PairingError(f"table_size must be at least 2, got {table_size}")
    if not 0.0 <= min_share <= 1.0:
        raise PairingError(f"min_share must be between 0 and 1, got {min_share}")
    if not tie_zone >= 0.0:
        raise PairingError(f"tie_zone must not be negative, got {tie_zone}")


def _as_if_played(
    table: tuple[str, ...],
    current: dict[str, LadderEntry],
    sds: dict[Pair, float],
    played: Counter[Pair],
) -> None:
    """Count ``table`` as played (in place): each pair at it gains its games'
    information, each member ``len(table)`` matches and a narrower spread."""
    table_size = len(table)
    for i, a in enumerate(table):
        for b in table[i + 1 :]:
            pair = frozenset((a, b))
            gap = current[a].rating - current[b].rating
            p = 1.0 / (1.0 + 10.0 ** (-gap / 400.0))
            gained = p * (1.0 - p) * table_size / (table_size - 1)
            sds[pair] = ELO_PER_NAT / math.sqrt((ELO_PER_NAT / sds[pair]) ** 2 + gained)
            played[pair] += table_size
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


def _table(
    entries: list[LadderEntry],
    table_size: int,
    placement: int,
    owed: float,
    sds: Mapping[Pair, float],
    tie_zone: float,
    reach: float,
    pair_recent: Mapping[Pair, int] | None,
) -> tuple[str, ...]:
    """One table: the seed by :func:`choose_tables`' rules, then its opponents."""
    states = pair_states(entries, sds, tie_zone=tie_zone, reach=reach)
    pairs = adjacent(entries)
    open_pairs = [(a, b) for a, b in pairs if states[frozenset((a.key, b.key))] == "open"]
    by_key = {e.key: e for e in entries}

    def need(e: LadderEntry) -> tuple[int, float, int, int]:
        if e.matches < placement:
            return (0, float(e.matches), 0, e.order)
        if e.recent < owed:
            return (1, e.recent - owed, e.matches, e.order)
        return (2, 0.0, 0, 0)

    seed = min(entries, key=need)
    partner: str | None = None
    if need(seed)[0] == 2 and pairs:
        if open_pairs:

            def doubt(pair: tuple[LadderEntry, LadderEntry]) -> tuple[float, int, int]:
                a, b = pair
                return (-sds[frozenset((a.key, b.key))], a.matches + b.matches, a.order + b.order)

            chosen = min(open_pairs, key=doubt)
            rank = lambda e: (-e.spread, e.matches, e.order)  # noqa: E731
        else:

            def turn(pair: tuple[LadderEntry, LadderEntry]) -> tuple[int, float, int]:
                a, b = pair
                gap = max(a.low, b.low) - min(a.high, b.high)
                if pair_recent is None:
                    return (a.recent + b.recent, gap, min(a.order, b.order))
                return (pair_recent.get(frozenset((a.key, b.key)), 0), gap, min(a.order, b.order))

            chosen = min(pairs, key=turn)
            rank = lambda e: (0.0, e.matches, e.order)  # noqa: E731
        seed, other = sorted(chosen, key=rank)
        partner = other.key

    def fit(e: LadderEntry) -> tuple[float, float, int, int]:
        shared = min(seed.high, e.high) - max(seed.low, e.low)
        return (-shared, abs(e.rating - seed.rating), e.matches, e.order)

    others = sorted((e for e in entries if e.key not in (seed.key, partner)), key=fit)
    members = ([by_key[partner]] if partner is not None else []) + others
    return (seed.key, *(e.key for e in sorted(members[: table_size - 1], key=fit)))
