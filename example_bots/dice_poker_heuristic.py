"""A Dice Poker bot that keeps dice by exact expected value over the rest of the turn.

python -m example_bots.dice_poker_heuristic

Each final throw is worth its best open line: the points the line would score
(plus the 100 extra-Poker bonus when it applies) minus that line's *baseline*, a
rough value of keeping the line open for later. Upper lines use three of the face
as their baseline and get a small bonus for reaching it (the route to the 35-point
upper bonus). The re-roll decision maximises the exact expected worth of the final
throw over every re-roll outcome (:class:`sdk.dice_poker.TurnPlanner`).
"""

from __future__ import annotations

from sdk import Bot, run
from sdk.dice_poker import (
    MAX_ROLLS,
    Action,
    Line,
    Observation,
    Reroll,
    Score,
    Scorecard,
    TurnPlanner,
    is_joker,
    score_options,
)

BASELINE: dict[Line, float] = {
    Line.ACES: 3,
    Line.TWOS: 6,
    Line.THREES: 9,
    Line.FOURS: 12,
    Line.FIVES: 15,
    Line.SIXES: 18,
    Line.PAIR: 19,
    Line.TWO_PAIR: 17,
    Line.THREE_OF_A_KIND: 15,
    Line.FOUR_OF_A_KIND: 8,
    Line.FULL_HOUSE: 16,
    Line.SMALL_STRAIGHT: 19,
    Line.LARGE_STRAIGHT: 16,
    Line.POKER: 12,
    Line.CHANCE: 21,
}
"""What keeping each line open is roughly worth (points it tends to score later)."""

UPPER_PAR_BONUS = 6.0
"""Extra worth of three or more of a face in its upper line (progress to the bonus)."""


def line_worth(line: Line, points: int) -> float:
    """How good writing ``points`` into ``line`` is, relative to keeping it open."""
    worth = points - BASELINE[line]
    if line.is_upper and points >= 3 * int(line):
        worth += UPPER_PAR_BONUS
    return worth


def best_line(card: Scorecard, dice: tuple[int, ...]) -> tuple[Line, float]:
    """The line to write ``dice`` into and its worth (bonus included)."""
    bonus = 100 if is_joker(card, dice) else 0
    options = score_options(card, dice)
    line = max(options, key=lambda ln: (line_worth(ln, options[ln]), -int(ln)))
    return line, line_worth(line, options[line]) + bonus


class HeuristicDicePokerBot(Bot[Observation, Action]):
    """Re-rolls toward the best open line by exact expectation, then scores it."""

    game = "dice_poker"
    name = "dice-poker-heuristic"

    def __init__(self) -> None:
        super().__init__()
        self._planner: TurnPlanner | None = None
        self._planner_card: Scorecard | None = None

    def _planner_for(self, card: Scorecard) -> TurnPlanner:
        if self._planner is None or self._planner_card != card:
            self._planner = TurnPlanner(lambda throw: best_line(card, throw)[1])
            self._planner_card = card
        return self._planner

    def act(self, observation: Observation) -> Action:
        card = observation.my_card
        dice = observation.dice
        positions, _ = self._planner_for(card).best_reroll(dice, MAX_ROLLS - observation.rolls)
        if positions:
            return Reroll(positions)
        return Score(best_line(card, dice)[0])


if __name__ == "__main__":
    run(HeuristicDicePokerBot)
