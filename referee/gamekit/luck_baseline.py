"""What a game's luck baseline is built from: the value ``f_p(s, c)`` of the state after a
chance event, for AIVAT's chance corrections (:mod:`referee.analysis.luck`).

A game brings its own baseline. Its registration (:class:`referee.gamekit.entry.GameEntry`)
names an instance of a :class:`Baseline` subclass in ``baseline`` (``"module:ATTRIBUTE"``:
the built-in games' ``referee/games/<game>/baseline.py``, ``BASELINE``); a game that names
none gets the :class:`ConstantBaseline` (no correction). Nothing in ``referee/analysis/``
names a game.

A baseline's fitted numbers are data beside it: its class's :attr:`Baseline.data` names
a package resource (``"package:file"``, the built-in games' ``baseline.json``), read once
on first use (:func:`load_fitted`), never when the referee is imported. The file is JSON,
written by :func:`format_fitted` (``python -m bench.luck --fit`` refits every game's);
here with comments, which the file has not::

    {
     "about": "...",
     "coefficient": 0.6558,        # b of the luck term (adjusted = score − b·luck); null: 1
     "fit_deals": 1000,            # duplicate pairs per bot pair b was fitted on; or null
     "tables": {                   # by name: a baseline reads the ones it knows
      "values": {
       "cells": {"5,5,1,3,2": 0.7, ...},   # a key's features, comma-separated ints
       "parents": {"5,5,1": 0.6, ...}      # the fallback per parent key (:func:`parent`)
      }
     }
    }

with one cell a line, tables by name and cells in the order of their keys as tuples of
ints, so a refit's diff shows the cells that moved. Standard library only, like the rest
of the gamekit.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, Final

from referee.gamekit import poker_dice
from referee.gamekit.base import ChanceOutcome, ChanceRequest

Key = tuple[int, ...]
"""A table key: the features of a state after a chance event, for one seat."""
Sampler = Callable[[ChanceRequest], list[ChanceOutcome]]
"""Draws outcomes of a request (independent of the outcome drawn in the match)."""

PARENT_FEATURES: Final = 3
"""A key's parent is its first three features (:func:`parent`)."""
ABOUT: Final = (
    "A game's luck-baseline data (the format: referee/gamekit/luck_baseline.py). The"
    " built-in games' are written by python -m bench.luck --fit, not by hand."
)


class BaselineDataError(ValueError):
    """A baseline's data file that does not parse (the message names what is wrong)."""


def parent(key: Key) -> Key:
    """The coarser key a missing one falls back to: its first three features."""
    return key[:PARENT_FEATURES]


@dataclass(frozen=True, slots=True, eq=False)
class FittedTable:
    """A fitted value per key, with the means per parent key as the fallback.

    Compared and hashed by identity: a table read once is the key of what is computed
    from it (:func:`functools.cache`)."""

    cells: Mapping[Key, float]
    parents: Mapping[Key, float] = field(default_factory=dict)

    def get(self, key: Key) -> float:
        """The value of ``key``: its own, else its parent's (:func:`parent`), else ½."""
        value = self.cells.get(key)
        if value is None:
            value = self.parents.get(parent(key), 0.5)
        return value


@dataclass(frozen=True, slots=True)
class Fitted:
    """A baseline's fitted data: its tables by name, and the coefficient ``b`` of its
    luck term with the number of duplicate pairs per bot pair it was fitted on."""

    tables: Mapping[str, FittedTable] = field(default_factory=dict)
    coefficient: float | None = None
    fit_deals: int | None = None


NO_DATA: Final = Fitted()
"""The data of a baseline that has none (no table, ``b`` = 1)."""


def _key(text: str) -> Key:
    return tuple(int(part) for part in text.split(",")) if text else ()


def _cells(found: Any, where: str) -> dict[Key, float]:
    if not isinstance(found, dict):
        raise BaselineDataError(f"{where}: expected an object of cells")
    try:
        return {_key(k): float(v) for k, v in found.items()}
    except (TypeError, ValueError) as error:
        raise BaselineDataError(f"{where}: {error}") from error


def parse_fitted(text: str, where: str = "baseline data") -> Fitted:
    """The :class:`Fitted` data of a JSON text (:func:`format_fitted`'s form)."""
    try:
        found = json.loads(text)
    except json.JSONDecodeError as error:
        raise BaselineDataError(f"{where}: not JSON: {error}") from error
    if not isinstance(found, dict):
        raise BaselineDataError(f"{where}: expected an object")
    unknown = sorted(set(found) - {"about", "coefficient", "fit_deals", "tables"})
    if unknown:
        raise BaselineDataError(f"{where}: unknown fields {unknown}")
    listed = found.get("tables") or {}
    if not isinstance(listed, dict):
        raise BaselineDataError(f"{where}: tables: expected an object of tables")
    tables = {}
    for name, table in listed.items():
        if not isinstance(table, dict) or set(table) - {"cells", "parents"}:
            raise BaselineDataError(f"{where}: table {name!r}: expected cells and parents")
        tables[name] = FittedTable(
            _cells(table.get("cells", {}), f"{where}: table {name!r}"),
            _cells(table.get("parents", {}), f"{where}: table {name!r} parents"),
        )
    coefficient, deals = found.get("coefficient"), found.get("fit_deals")
    return Fitted(
        tables,
        None if coefficient is None else float(coefficient),
        None if deals is None else int(deals),
    )


def _ordered(cells: Mapping[Key, float]) -> dict[str, float]:
    return {",".join(map(str, key)): cells[key] for key in sorted(cells)}


def format_fitted(fitted: Fitted) -> str:
    """The JSON text of ``fitted``: one cell a line, every key in a fixed order (see the
    module docstring); :func:`parse_fitted` reads it back exactly (floats by ``repr``)."""
    tables = {
        name: {"cells": _ordered(t.cells), "parents": _ordered(t.parents)}
        for name, t in sorted(fitted.tables.items())
    }
    document = {
        "about": ABOUT,
        "coefficient": fitted.coefficient,
        "fit_deals": fitted.fit_deals,
        "tables": tables,
    }
    return json.dumps(document, indent=1, separators=(",", ":"), ensure_ascii=False) + "\n"


def data_file(reference: str) -> Traversable:
    """The file a ``"package:file"`` reference names (what a refit writes)."""
    package, _, name = reference.partition(":")
    return resources.files(package).joinpath(name)


@cache
def load_fitted(reference: str) -> Fitted:
    """The fitted data in the package resource ``reference`` (``"package:file"``), read
    once per process."""
    return parse_fitted(data_file(reference).read_text(encoding="utf-8"), reference)


# ---------------------------------------------------------------------------
# Baselines


class Baseline:
    """A baseline for one game: ``value(s, c, p)`` and its expectation over ``c``.

    ``fitted``: data to use instead of the file :attr:`data` names (a test's table)."""

    game: str = ""
    data: str | None = None
    """``"package:file"`` of the fitted data (:func:`load_fitted`); None: none."""

    def __init__(self, fitted: Fitted | None = None) -> None:
        self._fitted = fitted

    def fitted(self) -> Fitted:
        """The baseline's fitted data (read on first use)."""
        if self._fitted is not None:
            return self._fitted
        return NO_DATA if self.data is None else load_fitted(self.data)

    def coefficient(self) -> float:
        """The fitted coefficient ``b`` of the luck term (1 when none is fitted)."""
        b = self.fitted().coefficient
        return 1.0 if b is None else b

    def value(self, state: Any, outcome: ChanceOutcome, seat: int) -> float:
        return 0.5

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        return 0.5

    def keys(self, state: Any, outcome: ChanceOutcome) -> tuple[Key, Key] | None:
        """Both seats' table keys after ``outcome`` (for fitting); None: not tabular."""
        return None

    def pair(
        self, state: Any, outcome: ChanceOutcome, request: ChanceRequest, sample: Sampler
    ) -> tuple[float, float]:
        """Both seats' corrections ``f_p(s, c) − E[f_p(s, c')]`` for this event."""
        return (
            self.value(state, outcome, 0) - self.expected(state, request, 0, sample),
            self.value(state, outcome, 1) - self.expected(state, request, 1, sample),
        )

    def after_action(self, state: Any, actor: int, action: Any, seat: int) -> float | None:
        """The value for ``seat`` of the state after ``actor`` takes ``action`` (AIVAT's
        action terms, for a seat that answered with a mixed move); None: this baseline
        values no actions (the default), so the match gets chance terms only."""
        return None

    def action_pair(
        self, state: Any, actor: int, drawn: Any, policy: Sequence[tuple[Any, float]]
    ) -> tuple[float, float] | None:
        """Both seats' action corrections ``f_p(s·a) − Σ_a' π(a') f_p(s·a')`` for the action
        ``drawn`` from ``policy`` (each legal action with its stated probability); None
        when the baseline values no actions."""
        out = []
        for seat in (0, 1):
            taken = self.after_action(state, actor, drawn, seat)
            if taken is None:
                return None
            values = [(p, self.after_action(state, actor, a, seat)) for a, p in policy]
            out.append(taken - math.fsum(p * (v or 0.0) for p, v in values))
        return out[0], out[1]


class ConstantBaseline(Baseline):
    """No correction at all (a game without a baseline of its own)."""


class TableBaseline(Baseline):
    """A fitted table (:attr:`table_name` of the data) over a key of the state after the
    chance event; the expectation is the mean over the sampler's outcomes."""

    table_name: str = "values"

    def key(self, state: Any, outcome: ChanceOutcome, seat: int) -> Key | None:
        raise NotImplementedError

    def lookup(self, key: Key) -> float:
        """The fitted value of ``key`` (:meth:`FittedTable.get`); ½ without a table."""
        table = self.fitted().tables.get(self.table_name)
        return 0.5 if table is None else table.get(key)

    def keys(self, state: Any, outcome: ChanceOutcome) -> tuple[Key, Key] | None:
        first, second = self.key(state, outcome, 0), self.key(state, outcome, 1)
        if first is None or second is None:
            return None
        return first, second

    def value(self, state: Any, outcome: ChanceOutcome, seat: int) -> float:
        key = self.key(state, outcome, seat)
        return 0.5 if key is None else self.lookup(key)

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        outcomes = sample(request)
        return math.fsum(self.value(state, o, seat) for o in outcomes) / len(outcomes)


# ---------------------------------------------------------------------------
# Dice helpers shared by the dice games' baselines


@cache
def sorted_rolls(count: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every sorted roll of ``count`` six-sided dice with its probability."""
    if count <= poker_dice.NUM_DICE:
        return poker_dice.roll_outcomes(count)
    total = 6**count
    out = []
    for roll in itertools.combinations_with_replacement(range(1, 7), count):
        ways = math.factorial(count)
        for face in set(roll):
            ways //= math.factorial(roll.count(face))
        out.append((roll, ways / total))
    return tuple(out)


def rerolled(
    dice: Sequence[int], pending: Sequence[int], outcome: Sequence[int]
) -> tuple[int, ...]:
    """The dice after a (re-)roll: the outcome fills ``pending`` in order, or is the
    whole throw when nothing is pending."""
    if not pending:
        return tuple(outcome)
    new = list(dice)
    for position, value in zip(pending, outcome, strict=True):
        new[position] = value
    return tuple(new)


def kept_dice(dice: Sequence[int], pending: Sequence[int]) -> tuple[int, ...]:
    """The dice a re-roll keeps (all but ``pending``), sorted; none for a fresh throw."""
    if not pending:
        return ()
    return tuple(sorted(d for i, d in enumerate(dice) if i not in pending))
