"""Optimal solitaire play of scorecard dice games (Dice Poker, Yahtzee) by dynamic programming.

Needs numpy (the ``bots`` extra). The solver is generic over a
:class:`ScorecardSpec`: the lines (a scoring function over five dice each), which
of them are upper lines with the upper bonus threshold and amount, the
five-of-a-kind line with its extra bonus, and the joker rule. Two specs ship:
:func:`yahtzee_spec` (standard Yahtzee, to check the solver against the published
optimum 254.5896) and :func:`dice_poker_spec` (our 15 lines, built from
the engine's own scoring functions, through :mod:`sdk.dice_poker`, so the rules
exist once).

The state between turns is ``(used lines as a bitmask, upper total capped at the
threshold, whether the five-of-a-kind line holds its points)``: everything else
about the card is irrelevant to the future, and the value of a state is the
expected score still to come when playing optimally. One turn (roll, keep,
re-roll, keep, re-roll, score) is solved backwards over the 252 sorted throws and
the 462 multisets of kept dice; all states sharing a mask are solved at once as
numpy columns, masks in order of decreasing number of used lines.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from sdk import dice_poker as dp

Throw = tuple[int, ...]
"""Dice as a sorted tuple."""
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

NUM_DICE: Final = 5
FACES: Final = 6
SOLVER_VERSION: Final = 1
"""Part of the cache key: bump when the table's meaning or layout changes."""


class SpecError(ValueError):
    """A scorecard definition the solver cannot handle."""


class TableError(ValueError):
    """A value table that does not belong to the scorecard or state asked about."""


# ---------------------------------------------------------------------------
# Scorecard definitions


@dataclass(frozen=True)
class LineSpec:
    """One scorecard line.

    ``points(throw, joker)`` is what a sorted throw scores in the line;
    ``joker`` asks for the joker value (lower lines score their full value).
    """

    name: str
    points: Callable[[Throw, bool], int]
    face: int | None = None
    """The face an upper line counts (``None``: a lower line)."""

    @property
    def is_upper(self) -> bool:
        return self.face is not None


@dataclass(frozen=True)
class ScorecardSpec:
    """Everything about a scorecard that the optimal policy depends on."""

    name: str
    lines: tuple[LineSpec, ...]
    upper_threshold: int
    """The upper bonus is earned when the upper lines total at least this."""
    upper_bonus: int
    kind_line: int
    """Index (into ``lines``) of the five-of-a-kind line (Yahtzee / Poker)."""
    kind_points: int
    """What five of a kind scores there (50); the extra bonus needs it to hold this."""
    extra_kind_bonus: int
    """Bonus per further five of a kind while the line holds ``kind_points`` (100)."""
    joker_needs_points: bool
    """Joker only while the five-of-a-kind line holds its points (ours), or as soon
    as it is filled, even with 0 (official Yahtzee)."""
    forced_joker: bool
    """Forced joker (ours, and Hasbro's printed rules): the face's upper line if
    open, else a lower line at joker value, else 0 in an upper line. Otherwise the
    free choice of the published optimum (Verhoeff's rules): any open line, lower
    lines at joker value only when the face's upper line is already filled."""

    def __post_init__(self) -> None:
        faces = [line.face for line in self.lines if line.face is not None]
        if sorted(faces) != list(range(1, FACES + 1)):
            raise SpecError(f"{self.name}: upper lines must count faces 1..6 once, got {faces}")
        if not 0 <= self.kind_line < len(self.lines) or self.lines[self.kind_line].is_upper:
            raise SpecError(f"{self.name}: kind_line {self.kind_line} is not a lower line")
        if len(self.lines) > 20:
            raise SpecError(f"{self.name}: {len(self.lines)} lines is too many for a table")

    @property
    def num_lines(self) -> int:
        return len(self.lines)

    def points_table(self) -> IntArray:
        """Points of every throw in every line: shape (lines, 252, 2), last axis joker."""
        return _points_table(self)

    def key(self) -> str:
        """A digest of everything the values depend on (the cache key)."""
        return _key(self)


@cache
def _key(spec: ScorecardSpec) -> str:
    digest = hashlib.sha256()
    digest.update(f"v{SOLVER_VERSION}:{spec.num_lines}:".encode())
    digest.update(repr([line.face for line in spec.lines]).encode())
    digest.update(
        repr(
            (
                spec.upper_threshold,
                spec.upper_bonus,
                spec.kind_line,
                spec.kind_points,
                spec.extra_kind_bonus,
                spec.joker_needs_points,
                spec.forced_joker,
            )
        ).encode()
    )
    digest.update(spec.points_table().tobytes())
    return digest.hexdigest()[:16]


@cache
def _points_table(spec: ScorecardSpec) -> IntArray:
    table = np.zeros((spec.num_lines, len(THROWS), 2), dtype=np.int64)
    for i, line in enumerate(spec.lines):
        for t, throw in enumerate(THROWS):
            table[i, t, 0] = line.points(throw, False)
            table[i, t, 1] = line.points(throw, True)
    table.flags.writeable = False  # shared by every caller through the cache
    return table


def _upper(face: int) -> Callable[[Throw, bool], int]:
    return lambda throw, joker: face * throw.count(face)


def _sum_if(need: Callable[[Throw], bool]) -> Callable[[Throw, bool], int]:
    return lambda throw, joker: sum(throw) if joker or need(throw) else 0


def _fixed_if(points: int, need: Callable[[Throw], bool]) -> Callable[[Throw, bool], int]:
    return lambda throw, joker: points if joker or need(throw) else 0


def _most(throw: Throw) -> int:
    return max(throw.count(face) for face in set(throw))


def _run(throw: Throw, length: int) -> bool:
    faces = set(throw)
    return any(set(range(s, s + length)) <= faces for s in range(1, 8 - length))


def yahtzee_spec() -> ScorecardSpec:
    """Standard Yahtzee: 13 lines, 35 at 63, 50 + 100 per extra Yahtzee, free joker.

    The rules of the published optimum 254.5896 (Verhoeff's Optimal Solitaire
    Yahtzee Player; Glenn): a full house is three of one face and two of another;
    once the Yahtzee box is filled (50 or 0) a five of a kind may go into any open
    line, scoring the lower lines at full value only if its face's upper line is
    filled; the 100 bonus needs the box to hold 50. (With ``forced_joker=True``,
    Hasbro's printed forced joker, the optimum is 254.5877.)
    """
    names = ("Aces", "Twos", "Threes", "Fours", "Fives", "Sixes")
    lines = [LineSpec(names[f - 1], _upper(f), f) for f in range(1, 7)]
    lines += [
        LineSpec("Three of a Kind", _sum_if(lambda t: _most(t) >= 3)),
        LineSpec("Four of a Kind", _sum_if(lambda t: _most(t) >= 4)),
        LineSpec(
            "Full House",
            _fixed_if(25, lambda t: sorted(t.count(f) for f in set(t)) == [2, 3]),
        ),
        LineSpec("Small Straight", _fixed_if(30, lambda t: _run(t, 4))),
        LineSpec("Large Straight", _fixed_if(40, lambda t: _run(t, 5))),
        LineSpec("Yahtzee", lambda t, joker: 50 if _most(t) == 5 else 0),
        LineSpec("Chance", lambda t, joker: sum(t)),
    ]
    return ScorecardSpec(
        name="yahtzee",
        lines=tuple(lines),
        upper_threshold=63,
        upper_bonus=35,
        kind_line=11,
        kind_points=50,
        extra_kind_bonus=100,
        joker_needs_points=False,
        forced_joker=False,
    )


def _engine_points(line: dp.Line) -> Callable[[Throw, bool], int]:
    return lambda throw, joker: dp.line_points(line, throw, joker=joker)


def dice_poker_spec(rules: dp.Rules | None = None) -> ScorecardSpec:
    """Our 15-line Dice Poker, scored by the engine's own :func:`line_points`.

    One spec object per rules, so its points table and digest are computed once.
    """
    return _dice_poker_spec(rules or dp.Rules())


@cache
def _dice_poker_spec(rules: dp.Rules) -> ScorecardSpec:
    threshold = dp.UPPER_BONUS_THRESHOLD + (0 if rules.upper_bonus_inclusive else 1)
    return ScorecardSpec(
        name="dice_poker" + ("" if rules.upper_bonus_inclusive else "_exclusive"),
        lines=tuple(
            LineSpec(
                dp.LINE_NAMES[line], _engine_points(line), int(line) if line.is_upper else None
            )
            for line in dp.Line
        ),
        upper_threshold=threshold,
        upper_bonus=dp.UPPER_BONUS,
        kind_line=int(dp.Line.POKER) - 1,
        kind_points=dp.POKER_POINTS,
        extra_kind_bonus=dp.EXTRA_POKER_BONUS,
        joker_needs_points=True,
        forced_joker=True,
    )


# ---------------------------------------------------------------------------
# Dice combinatorics (shared by every spec)


def _multisets(size: int) -> list[Throw]:
    return list(itertools.combinations_with_replacement(range(1, FACES + 1), size))


def _probability(roll: Throw) -> float:
    ways = math.factorial(len(roll))
    for face in set(roll):
        ways //= math.factorial(roll.count(face))
    return float(ways) / float(FACES ** len(roll))


THROWS: Final[tuple[Throw, ...]] = tuple(_multisets(NUM_DICE))
"""The 252 sorted throws of five dice."""
THROW_INDEX: Final = {throw: i for i, throw in enumerate(THROWS)}
KEEPS: Final[tuple[Throw, ...]] = tuple(k for n in range(NUM_DICE + 1) for k in _multisets(n))
"""The 462 sorted multisets of 0..5 kept dice."""
KEEP_INDEX: Final = {keep: i for i, keep in enumerate(KEEPS)}


def _transitions() -> tuple[IntArray, FloatArray, IntArray]:
    """Sparse keep -> throw probabilities: (throw index, probability, row starts)."""
    cols: list[int] = []
    probs: list[float] = []
    starts: list[int] = []
    for keep in KEEPS:
        starts.append(len(cols))
        for roll in _multisets(NUM_DICE - len(keep)):
            cols.append(THROW_INDEX[tuple(sorted(keep + roll))])
            probs.append(_probability(roll))
    return np.array(cols), np.array(probs), np.array(starts)


_COLS, _PROBS, _STARTS = _transitions()
_FIRST_ROLL: Final = np.zeros(len(THROWS))
_FIRST_ROLL[_COLS[: len(THROWS)]] = _PROBS[: len(THROWS)]  # keep () is KEEPS[0]


FIVE_OF_A_KIND: Final = tuple(THROW_INDEX[(f,) * NUM_DICE] for f in range(1, FACES + 1))
"""Throw index of five ``f`` is ``FIVE_OF_A_KIND[f - 1]``."""


def _levels() -> tuple[list[slice], list[IntArray], list[IntArray]]:
    """Per number of kept dice: its slice of KEEPS, each keep's six one-die-larger
    keeps (``children``) and its distinct one-die-smaller keeps (``parents``, padded)."""
    slices = []
    children: list[IntArray] = []
    parents: list[IntArray] = []
    start = 0
    for size in range(NUM_DICE + 1):
        level = _multisets(size)
        slices.append(slice(start, start + len(level)))
        start += len(level)
        if size < NUM_DICE:
            children.append(
                np.array(
                    [
                        [KEEP_INDEX[tuple(sorted((*k, f)))] for f in range(1, FACES + 1)]
                        for k in level
                    ]
                )
            )
        rows = [sorted({KEEP_INDEX[k[:i] + k[i + 1 :]] for i in range(size)}) for k in level]
        width = max((len(r) for r in rows), default=0)
        parents.append(np.array([r + [r[-1]] * (width - len(r)) for r in rows] if width else []))
    return slices, children, parents


_SLICES, _CHILDREN, _PARENTS = _levels()


def keep_values(throw_values: FloatArray) -> FloatArray:
    """Expected value of each keep after one re-roll: (252, B) -> (462, B).

    Keeping ``k`` and rolling the rest is the average over the next die's face of
    keeping one die more, so the levels fill from five kept dice down (1,260 row
    reads instead of the 4,368 entries of the keep x throw matrix).
    """
    out = np.empty((len(KEEPS), throw_values.shape[1]))
    out[_SLICES[NUM_DICE]] = throw_values  # five kept dice: the throw itself
    for size in range(NUM_DICE - 1, -1, -1):
        out[_SLICES[size]] = out[_CHILDREN[size]].sum(axis=1) / FACES
    return out


def best_keep_values(keep_vals: FloatArray) -> FloatArray:
    """Value of holding each throw with a re-roll left: max over its keeps (incl. all).

    The best sub-keep of a multiset is itself or the best sub-keep of one of its
    one-die-smaller multisets, so the maxima fill from no kept dice up.
    """
    best = keep_vals.copy()
    for size in range(1, NUM_DICE + 1):
        np.maximum(best[_SLICES[size]], best[_PARENTS[size]].max(axis=1), out=best[_SLICES[size]])
    return best[_SLICES[NUM_DICE]]


# ---------------------------------------------------------------------------
# The solver


@dataclass(frozen=True)
class Turn:
    """One turn's values for one or more states (columns).

    ``final[t]``: the best the throw ``t`` is worth when scored now (points, bonuses
    and the value of the resulting state); ``keep2[k]``/``keep1[k]``: keeping ``k``
    and re-rolling with one/no re-roll after; ``hold2[t]``/``hold1[t]``: holding
    throw ``t`` after the first/second roll; ``start``: the turn before rolling.
    """

    final: FloatArray
    keep2: FloatArray
    hold2: FloatArray
    keep1: FloatArray
    hold1: FloatArray
    start: FloatArray


class Solver:
    """Values of every state of a spec; :meth:`solve` fills the table."""

    def __init__(self, spec: ScorecardSpec, values: FloatArray | None = None) -> None:
        self.spec = spec
        self.points = spec.points_table()
        self.cap = spec.upper_threshold
        self.upper_bits = [i for i, line in enumerate(spec.lines) if line.is_upper]
        self.upper_of_face = {line.face: i for i, line in enumerate(spec.lines) if line.face}
        self.lower_bits = [i for i, line in enumerate(spec.lines) if not line.is_upper]
        shape = (1 << spec.num_lines, self.cap + 1, 2)
        if values is None:
            values = np.zeros(shape)
        elif values.shape != shape:
            raise TableError(f"{spec.name}: table shape {values.shape}, expected {shape}")
        self.values = values

    # -- reachable states --------------------------------------------------

    @cache  # noqa: B019 - one solver per spec, lives as long as its table
    def reachable_upper(self, mask: int) -> tuple[int, ...]:
        """Capped upper totals reachable with the upper lines used in ``mask``."""
        totals = {0}
        for i in self.upper_bits:
            if mask >> i & 1:
                face = self.spec.lines[i].face or 0
                totals = {min(self.cap, t + face * n) for t in totals for n in range(NUM_DICE + 1)}
        return tuple(sorted(totals))

    def columns(self, mask: int) -> tuple[IntArray, IntArray]:
        """(upper totals, kind flags) of the reachable states with ``mask`` used."""
        uppers = self.reachable_upper(mask)
        flags = (0, 1) if mask >> self.spec.kind_line & 1 else (0,)
        pairs = [(u, f) for f in flags for u in uppers]
        return np.array([u for u, _ in pairs]), np.array([f for _, f in pairs])

    # -- one turn ---------------------------------------------------------

    def _line_value(
        self, mask: int, line: int, upper: IntArray, flag: IntArray, pts: IntArray
    ) -> FloatArray:
        """Worth of writing throws with points ``pts`` (rows) into ``line`` per column."""
        spec = self.spec
        nxt = self.values[mask | 1 << line]
        if spec.lines[line].is_upper:
            raw = upper[None, :] + pts[:, None]
            new_upper = np.minimum(raw, self.cap)
            bonus = np.where((upper[None, :] < self.cap) & (raw >= self.cap), spec.upper_bonus, 0)
            later: FloatArray = bonus + nxt[new_upper, flag[None, :]]
        elif line == spec.kind_line:
            new_flag = (pts == spec.kind_points).astype(np.int64)
            later = nxt[upper[None, :], new_flag[:, None]]
        else:
            later = nxt[upper, flag][None, :]
        result: FloatArray = pts[:, None] + later
        return result

    def final_values(self, mask: int, upper: IntArray, flag: IntArray) -> FloatArray:
        """Best worth of scoring each throw now, per column: shape (252, B)."""
        spec = self.spec
        open_lines = [i for i in range(spec.num_lines) if not mask >> i & 1]
        if not open_lines:
            raise TableError(f"{spec.name}: no open line in mask {mask:#x}")
        best = np.full((len(THROWS), len(upper)), -np.inf)
        for line in open_lines:
            worth = self._line_value(mask, line, upper, flag, self.points[line, :, 0])
            np.maximum(best, worth, out=best)
        if mask >> spec.kind_line & 1:
            joker_cols = flag == 1 if spec.joker_needs_points else np.ones(len(flag), dtype=bool)
            if joker_cols.any():
                self._apply_joker(mask, open_lines, upper, flag, joker_cols, best)
        return best

    def _apply_joker(
        self,
        mask: int,
        open_lines: Sequence[int],
        upper: IntArray,
        flag: IntArray,
        joker_cols: npt.NDArray[np.bool_],
        best: FloatArray,
    ) -> None:
        """Overwrite the five-of-a-kind rows of joker columns with the joker's options."""
        spec = self.spec
        cols = np.flatnonzero(joker_cols)
        u, f = upper[cols], flag[cols]
        bonus = np.where(f == 1, spec.extra_kind_bonus, 0)
        for face in range(1, FACES + 1):
            row = FIVE_OF_A_KIND[face - 1]
            own_upper = self.upper_of_face[face]
            open_lower = [i for i in open_lines if not spec.lines[i].is_upper]
            joker_values = own_upper not in open_lines
            if not spec.forced_joker:
                allowed = list(open_lines)
            elif own_upper in open_lines:
                allowed = [own_upper]
            elif open_lower:
                allowed = open_lower
            else:
                allowed = list(open_lines)
            value = np.full(len(cols), -np.inf)
            for line in allowed:
                joker = int(joker_values and not spec.lines[line].is_upper)
                pts = self.points[line, row : row + 1, joker]
                value = np.maximum(value, self._line_value(mask, line, u, f, pts)[0])
            best[row, cols] = value + bonus

    def turn(self, mask: int, upper: IntArray, flag: IntArray) -> Turn:
        """Solve one turn for the given states (all with lines ``mask`` used)."""
        final = self.final_values(mask, upper, flag)
        keep2 = keep_values(final)
        hold2 = best_keep_values(keep2)
        keep1 = keep_values(hold2)
        hold1 = best_keep_values(keep1)
        start = _FIRST_ROLL @ hold1
        return Turn(final, keep2, hold2, keep1, hold1, start)

    # -- the whole table --------------------------------------------------

    def solve(self, progress: Callable[[int, int], None] | None = None) -> float:
        """Fill the table (every reachable state); return the game's expected score."""
        n = self.spec.num_lines
        full = (1 << n) - 1
        self.values[full] = 0.0
        by_used = sorted(range(full), key=lambda m: -m.bit_count())
        for done, mask in enumerate(by_used):
            upper, flag = self.columns(mask)
            self.values[mask, upper, flag] = self.turn(mask, upper, flag).start
            if progress is not None and done % 4096 == 0:
                progress(done, full)
        return self.expected_score()

    def expected_score(self) -> float:
        """The value of an empty card: the optimal expected final score."""
        return float(self.values[0, 0, 0])

    def state(
        self, used: Sequence[int], upper_total: int, kind_holds_points: bool
    ) -> tuple[int, int, int]:
        """(mask, capped upper total, flag) for a card: ``used`` are line indices."""
        mask = 0
        for i in used:
            mask |= 1 << i
        return mask, min(upper_total, self.cap), int(kind_holds_points)


# ---------------------------------------------------------------------------
# The cache


def cache_path(spec: ScorecardSpec, directory: Path) -> Path:
    """Where a spec's table lives in ``directory`` (named by the spec's digest)."""
    return directory / f"{spec.name}-{spec.key()}.npz"


def load(spec: ScorecardSpec, directory: Path) -> Solver | None:
    """The cached solver of ``spec`` from ``directory``, or ``None`` if not there."""
    path = cache_path(spec, directory)
    if not path.is_file():
        return None
    with np.load(path) as data:
        values = data["values"]
    if values.dtype != np.float64:
        raise TableError(f"{path}: values of type {values.dtype}, expected float64")
    return Solver(spec, values)


def solve_and_save(
    spec: ScorecardSpec, directory: Path, *, log: Callable[[str], None] | None = None
) -> Solver:
    """Solve ``spec`` and write its table atomically into ``directory``."""
    solver = Solver(spec)
    began = time.perf_counter()
    value = solver.solve()
    if log is not None:
        seconds = time.perf_counter() - began
        log(f"{spec.name}: expected score {value:.6f}, solved in {seconds:.1f} s")
    directory.mkdir(parents=True, exist_ok=True)
    path = cache_path(spec, directory)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".npz.tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            np.savez_compressed(out, values=solver.values)
        os.chmod(tmp, 0o644)  # a sandboxed bot runs as another user and must read it
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return solver
