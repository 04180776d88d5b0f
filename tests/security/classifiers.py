"""Two simple classifiers the "can a bot tell?" tests train on what a sniffer saw.

A decision stump (the single feature and threshold that separate the training rows
best) and a nearest centroid on standardised features. If neither does better than
chance on rows it did not train on, no single number and no plain combination of
them tells the two contexts apart; the guards show both do tell when a protection is
off. Labels are 0 and 1; rows are equal-length sequences of numbers.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Row = Sequence[float]


@dataclass(frozen=True, slots=True)
class Stump:
    feature: int
    cut: float
    above_is_one: bool

    def predict(self, row: Row) -> int:
        return int((row[self.feature] > self.cut) == self.above_is_one)


def fit_stump(rows: Sequence[Row], labels: Sequence[int], max_cuts: int | None = None) -> Stump:
    """The feature, threshold and direction with the best training accuracy (the first
    found on ties); ``max_cuts`` thresholds per feature at most (evenly spaced)."""
    best: tuple[float, Stump] = (-1.0, Stump(0, 0.0, True))
    for feature in range(len(rows[0])):
        values = sorted({row[feature] for row in rows})
        step = 1 if max_cuts is None else max(1, len(values) // max_cuts)
        cuts = [(a + b) / 2 for a, b in zip(values[::step], values[step::step], strict=False)]
        for cut in cuts or values[:1]:
            for above_is_one in (True, False):
                stump = Stump(feature, cut, above_is_one)
                right = sum(
                    stump.predict(row) == label for row, label in zip(rows, labels, strict=True)
                )
                if right / len(rows) > best[0]:
                    best = (right / len(rows), stump)
    return best[1]


def fit_centroid(rows: Sequence[Row], labels: Sequence[int]) -> Callable[[Row], int]:
    """Nearest centroid on the features that vary in training, standardised there (the
    majority label when none varies)."""
    width = len(rows[0])
    mean = [statistics.fmean(row[i] for row in rows) for i in range(width)]
    spread = [statistics.pstdev([row[i] for row in rows]) for i in range(width)]
    kept = [i for i in range(width) if spread[i] > 0]
    if not kept:
        majority = round(statistics.fmean(labels))
        return lambda row: majority

    def norm(row: Row) -> list[float]:
        return [(row[i] - mean[i]) / spread[i] for i in kept]

    centres = {}
    for label in (0, 1):
        members = [norm(row) for row, y in zip(rows, labels, strict=True) if y == label]
        centres[label] = [statistics.fmean(m[k] for m in members) for k in range(len(kept))]

    def predict(row: Row) -> int:
        z = norm(row)
        return min(
            (0, 1), key=lambda c: sum((a - b) ** 2 for a, b in zip(z, centres[c], strict=True))
        )

    return predict
