"""The exact Dice Poker / Yahtzee solver: the published optimum, hand-checkable
end games, and agreement with the engine's scoring and joker rule."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from example_bots.dice_poker_optimal import Policy
from example_bots.dice_poker_solver import (
    THROW_INDEX,
    THROWS,
    Solver,
    SpecError,
    TableError,
    dice_poker_spec,
    load,
    yahtzee_spec,
)
from referee.gamekit.poker_dice import roll_outcomes
from referee.games.dice_poker.engine import (
    Line,
    Rules,
    Scorecard,
    is_joker,
    line_points,
    score_options,
)
from sdk.dice_poker import TurnPlanner

OURS = dice_poker_spec()


def _turn_value(value: Callable[[tuple[int, ...]], float]) -> float:
    """The expected value of a whole turn (three rolls) by the SDK's brute force."""
    planner = TurnPlanner(value)
    return sum(p * planner.expected(throw, 2) for throw, p in roll_outcomes(5))


def _one_left(solver: Solver, line: int, upper: int, flag: int) -> float:
    """The solver's value of a card with only ``line`` (index) open."""
    full = (1 << solver.spec.num_lines) - 1
    turn = solver.turn(full & ~(1 << line), np.array([upper]), np.array([flag]))
    return float(turn.start[0])


@pytest.mark.slow
def test_standard_yahtzee_reproduces_the_published_optimum() -> None:
    solver = Solver(yahtzee_spec())
    assert solver.solve() == pytest.approx(254.5896, abs=1e-4)


def test_engine_and_solver_score_every_throw_alike() -> None:
    table = OURS.points_table()
    for t, throw in enumerate(THROWS):
        for line in Line:
            for joker in (False, True):
                expected = line_points(line, throw[::-1], joker=joker)
                assert table[line - 1, t, int(joker)] == expected, (throw, line, joker)
    assert [spec.face for spec in OURS.lines] == [
        int(line) if line.is_upper else None for line in Line
    ]
    assert OURS.kind_line == Line.POKER - 1


def test_chance_alone_is_the_best_expected_sum() -> None:
    value = _one_left(Solver(OURS), Line.CHANCE - 1, upper=0, flag=0)
    assert value == pytest.approx(_turn_value(lambda t: float(sum(t))), abs=1e-9)
    assert value == pytest.approx(23.33, abs=0.01)  # the known Chance-only value


@pytest.mark.parametrize(("inclusive", "bonus_from"), [(True, 2), (False, 3)])
def test_sixes_alone_with_the_upper_bonus(inclusive: bool, bonus_from: int) -> None:
    # 51 in the upper lines: two sixes reach 63 (bonus only if inclusive), three 69.
    solver = Solver(dice_poker_spec(Rules(upper_bonus_inclusive=inclusive)))
    value = _one_left(solver, Line.SIXES - 1, upper=51, flag=0)

    def sixes(throw: tuple[int, ...]) -> float:
        n = throw.count(6)
        return 6.0 * n + (35 if n >= bonus_from else 0)

    assert value == pytest.approx(_turn_value(sixes), abs=1e-9)


def test_full_house_alone_takes_a_joker_with_the_extra_bonus() -> None:
    def full_house(throw: tuple[int, ...]) -> float:
        shape = sorted(throw.count(f) for f in set(throw))
        return 125.0 if shape == [5] else 25.0 if shape == [2, 3] else 0.0

    ours = _one_left(Solver(OURS), Line.FULL_HOUSE - 1, upper=63, flag=1)
    assert ours == pytest.approx(_turn_value(full_house), abs=1e-9)
    yahtzee = _one_left(Solver(yahtzee_spec()), 8, upper=63, flag=1)  # Full House
    assert yahtzee == pytest.approx(_turn_value(full_house), abs=1e-9)
    # Poker filled with 0: five of a kind is no full house and earns nothing.
    no_joker = _one_left(Solver(OURS), Line.FULL_HOUSE - 1, upper=63, flag=0)
    assert no_joker == pytest.approx(
        _turn_value(lambda t: 25.0 if sorted(t.count(f) for f in set(t)) == [2, 3] else 0.0),
        abs=1e-9,
    )


def _random_card(rng: random.Random) -> Scorecard:
    lines: list[int | None] = [None] * len(Line)
    for line in rng.sample(list(Line), rng.randrange(0, len(Line))):
        if line.is_upper:
            lines[line - 1] = int(line) * rng.randrange(0, 6)
        elif line == Line.POKER:
            lines[line - 1] = rng.choice((0, 50))
        else:
            lines[line - 1] = rng.randrange(0, 31)
    return Scorecard(lines=tuple(lines))


@pytest.mark.parametrize("seed", range(2))
def test_turn_end_values_follow_the_engines_options(seed: int) -> None:
    """With any table, the solver's best write-in equals the best over the engine's
    legal options (joker rule included) of points + bonuses + table value."""
    rng = random.Random(seed)
    solver = Solver(OURS, np.random.default_rng(seed).uniform(0, 300, size=(1 << 15, 64, 2)))
    policy = Policy(solver)
    special = [
        # Poker 50: the joker's three cases (own upper open / lower open / only upper)
        Scorecard(lines=(None, 4, 9, 12, None, 18, *([None] * 7), 50, None)),
        Scorecard(lines=(3, 4, 9, 12, 15, 18, *([None] * 7), 50, 20)),
        Scorecard(lines=(None, None, 9, 12, 15, 18, *([5] * 7), 50, 20)),
        Scorecard(lines=(None, 4, 9, 12, 15, 18, *([5] * 7), 0, 20)),
    ]
    for card in special + [_random_card(rng) for _ in range(12)]:
        if not card.open_lines:
            continue
        state = mask, upper, flag = policy.state(card)
        final = solver.final_values(mask, np.array([upper]), np.array([flag]))[:, 0]
        for throw in THROWS:
            options = score_options(card, throw)
            joker = is_joker(card, throw)
            best = max(policy.line_worth(state, joker, ln, pts) for ln, pts in options.items())
            assert final[THROW_INDEX[throw]] == pytest.approx(best, abs=1e-9), (card, throw)


def test_a_missing_or_misshapen_table_is_refused(tmp_path: Path) -> None:
    assert load(OURS, tmp_path) is None
    with pytest.raises(TableError, match=r"shape \(3, 3, 2\)"):
        Solver(yahtzee_spec(), np.zeros((3, 3, 2)))


def test_bad_specs_are_refused() -> None:
    with pytest.raises(SpecError, match="kind_line 0"):
        dataclasses.replace(OURS, kind_line=0)
    with pytest.raises(SpecError, match="faces"):
        dataclasses.replace(OURS, lines=OURS.lines[1:])
