"""Match results as the ratings see them: who sat where and finished where, and the
weighted two-player games each match stands for (standard library only)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["MatchResult", "PairGame", "pair_games"]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The outcome of one match.

    ``bots[i]`` sat in seat ``i`` and finished in ``places[i]`` (1 = best; ties share
    a place, e.g. ``(1, 1, 3)``).  Matches with the same non-empty ``group`` (a
    duplicate deal) are resampled together by :func:`bootstrap`; an empty group
    means the match is a group of its own.
    """

    bots: tuple[str, ...]
    places: tuple[int, ...]
    group: str = ""

    def __post_init__(self) -> None:
        if len(self.bots) != len(self.places):
            raise ValueError(
                f"{len(self.bots)} bots but {len(self.places)} places in {self.bots!r}"
            )
        if len(self.bots) < 2:
            raise ValueError(f"a match needs at least 2 seats, got {self.bots!r}")
        if any(place < 1 for place in self.places):
            raise ValueError(f"places start at 1, got {self.places!r}")


@dataclass(frozen=True, slots=True)
class PairGame:
    """One weighted two-player game derived from a match.

    ``score`` is ``a``'s result against ``b``: 1 (better place), 0.5 (same place)
    or 0 (worse place).  ``weight`` is ``1/(n-1)`` for an ``n``-seat match.
    """

    a: str
    b: str
    score: float
    weight: float


def _pair_score(place_a: int, place_b: int) -> float:
    if place_a < place_b:
        return 1.0
    if place_a > place_b:
        return 0.0
    return 0.5


def pair_games(results: Iterable[MatchResult]) -> list[PairGame]:
    """Expand every match into one :class:`PairGame` per pair of seats ``i < j``.

    The first bot of the pair is seat ``i``.  Each pair game of an ``n``-seat match
    weighs ``1/(n-1)``, so every seat contributes total weight 1 per match whatever
    the table size.  Pairs in which both seats are the same bot are skipped (they
    carry no information about relative strength).
    """
    games: list[PairGame] = []
    for match in results:
        weight = 1.0 / (len(match.bots) - 1)
        for i in range(len(match.bots)):
            for j in range(i + 1, len(match.bots)):
                a, b = match.bots[i], match.bots[j]
                if a == b:
                    continue
                games.append(PairGame(a, b, _pair_score(match.places[i], match.places[j]), weight))
    return games
