"""Dice Poker's luck baseline (:mod:`referee.gamekit.luck_baseline`): a normal model of
the final margin, Φ((D + s·β·x) / (σ·√(R+1))): ``D`` my lead in points plus the par of
my open lines minus theirs, ``x`` the mover's expected points above par this turn given
the dice and the re-rolls left (exact over the re-rolls, keeping what maximises it:
:func:`turn_values`; ``s`` = +1 when I move, −1 otherwise), ``R`` the turns left. σ, β
and the par are constants here; ``baseline.json`` beside this module holds the fitted
coefficient ``b`` of its luck term (``python -m bench.luck --fit``, or
``--fit-coefficients``; ``--fit-dice-poker N`` searches σ and β).

A turn is a roll of five dice and up to two re-rolls of any of them. Given what each
sorted throw is worth once no re-roll is left, :func:`chained` gives what it is worth
with one and two re-rolls left when the mover keeps, each time, the dice whose
re-rolled expectation is largest (exact: every sorted outcome with its probability).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import cache
from typing import Any, Final

from referee.gamekit.base import ChanceOutcome, ChanceRequest
from referee.gamekit.luck_baseline import Baseline, Fitted, Sampler, kept_dice, rerolled
from referee.gamekit.poker_dice import NUM_DICE, roll_outcomes
from referee.games.dice_poker import engine as dice_poker

# ---------------------------------------------------------------------------
# Exact expectations over a turn's re-rolls

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


# ---------------------------------------------------------------------------
# The baseline

DICE_POKER_SIGMA: Final = 5.0
"""σ: the spread of the final margin per turn left (points), fitted by ``bench.luck``."""
DICE_POKER_BETA: Final = 1.2
"""β: how much of the turn's expected points above par count towards the margin (σ 5
and β 1.2: the best of σ 3–5 × β 0.6–1.2 on 120 optimal-vs-heuristic matches)."""
DICE_POKER_PAR: Final = (2, 5, 8, 11, 15, 18, 21, 22, 24, 17, 23, 30, 36, 18, 22)
"""Par per line (Aces .. Chance): the mean points written there by the heuristic and
optimal bots (40 matches, rounded)."""


def _normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@cache
def turn_values(lines: tuple[int | None, ...]) -> tuple[tuple[float, ...], ...]:
    """Per re-rolls left (0, 1, 2), each throw's expected points above par this turn
    when the mover keeps the dice that maximise that expectation and scores the best
    line at the end (exact over the re-rolls; ``lines`` as :func:`_open_lines`)."""
    card = dice_poker.Scorecard(lines, 0)
    return chained(tuple(float(_best_points(card, throw)) for throw in THROWS), 2)


def _open_lines(lines: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """What the best points of a throw depend on: which lines are open, and whether
    Poker holds 50 (the joker rule); every other written line as 0."""
    poker = dice_poker.Line.POKER - 1
    return tuple(None if v is None else v if i == poker else 0 for i, v in enumerate(lines))


def _best_points(card: Any, dice: tuple[int, ...]) -> int:
    """The most points above par the dice would score now in an open line."""
    options = dice_poker.score_options(card, dice)
    if not options:
        return 0
    return max(points - DICE_POKER_PAR[line - 1] for line, points in options.items())


def _open_par(card: Any) -> int:
    return sum(DICE_POKER_PAR[i] for i, v in enumerate(card.lines) if v is None)


class DicePokerBaseline(Baseline):
    game = "dice_poker"
    data = f"{__package__}:baseline.json"

    def __init__(
        self,
        sigma: float = DICE_POKER_SIGMA,
        beta: float = DICE_POKER_BETA,
        fitted: Fitted | None = None,
    ) -> None:
        super().__init__(fitted)
        self.sigma, self.beta = sigma, beta

    def _value(self, state: Any, seat: int, x: float) -> float:
        inclusive = state.rules.upper_bonus_inclusive
        mine, theirs = state.cards[seat], state.cards[1 - seat]
        lead = mine.total(inclusive) + _open_par(mine) - theirs.total(inclusive) - _open_par(theirs)
        mover = state.current
        sign = 1.0 if mover == seat else -1.0
        left = 2 * (dice_poker.NUM_TURNS - state.turn) + (1 if mover == 0 else 0)
        return _normal_cdf((lead + sign * self.beta * x) / (self.sigma * math.sqrt(left + 1)))

    def _turn(self, state: Any) -> tuple[float, ...]:
        """The mover's expected points above par per throw, with the re-rolls left."""
        left = dice_poker.MAX_ROLLS - 1 - state.rolls
        return turn_values(_open_lines(state.cards[state.current].lines))[left]

    def value(self, state: Any, outcome: ChanceOutcome, seat: int) -> float:
        dice = tuple(sorted(rerolled(state.dice, state.pending, outcome)))
        return self._value(state, seat, self._turn(state)[THROW_INDEX[dice]])

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        turn = self._turn(state)
        spread = SPREAD[KEEP_INDEX[kept_dice(state.dice, state.pending)]]
        return math.fsum(p * self._value(state, seat, turn[i]) for i, p in spread)


BASELINE = DicePokerBaseline()
"""The game's baseline (its registration's ``baseline``)."""
