"""A counter-strategy: when it must lie, it lies just past a fixed lie spread.

Until issue 31 the strong bot (:mod:`example_bots.liars_poker_dice_strong`) modelled
a forced liar as naming the smallest legal hand or one of the next five, and gave
any lie further above the smallest legal hand a likelihood of 0: it believed such a
claim whenever a true hand could explain it. This bot aims exactly there. With dice
that beat the hand to beat it declares its true hand; with dice that do not, it
declares ``GAP`` ranks above the smallest legal hand (the first rank the old model
ruled out; below the top hand, which must be challenged). It answers and re-rolls
like the heuristic.

    python -m example_bots.liars_poker_dice_past_cutoff
"""

from example_bots.liars_poker_dice_heuristic import HeuristicLiarsPokerDiceBot
from sdk import run
from sdk.liars_poker_dice import ALL_HANDS, Hand, evaluate, rank

GAP = 6
"""Ranks above the smallest legal hand: the old model allowed gaps 0..5 for a forced lie."""


def past_cutoff(beat: Hand, gap: int = GAP) -> Hand:
    """The hand ``gap`` ranks above the smallest hand that beats ``beat``: at most the
    hand just below the top one, unless only the top hand beats ``beat``."""
    least = rank(beat) + 1
    return ALL_HANDS[min(least + gap, max(least, len(ALL_HANDS) - 2))]


class PastCutoffLiarsPokerDiceBot(HeuristicLiarsPokerDiceBot):
    """Truthful when it can be; otherwise lies ``GAP`` ranks above the minimum."""

    name = "liars-poker-dice-past-cutoff"

    def _declaration(self, dice: tuple[int, ...], beat: Hand | None) -> Hand:
        true = evaluate(dice)
        if beat is None or rank(true) > rank(beat):
            return true
        return past_cutoff(beat)


if __name__ == "__main__":
    run(PastCutoffLiarsPokerDiceBot)
