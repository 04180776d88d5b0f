"""A rate learned from observations, shared by the strong example bots' opponent models."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_WEIGHT = 2.0
"""Pseudo-observations behind a prior rate unless a bot says otherwise."""


@dataclass(slots=True)
class Rate:
    """A Beta-distributed rate: prior mean and weight, plus observed hits and trials."""

    prior: float
    weight: float = DEFAULT_WEIGHT
    hits: float = 0.0
    trials: float = 0.0

    @property
    def mean(self) -> float:
        return (self.prior * self.weight + self.hits) / (self.weight + self.trials)

    def observe(self, hit: bool) -> None:
        self.hits += 1.0 if hit else 0.0
        self.trials += 1.0
