"""A counter-strategy: the heuristic, but every declaration is above its true hand.

It declares the hand one step above the higher of its true hand and the last
declaration (a lie, unless it holds the top hand). A bot that believes
declarations because they are plausible is lied to every time.

    python -m example_bots.liars_poker_dice_always_bluff
"""

from example_bots.liars_poker_dice_heuristic import HeuristicLiarsPokerDiceBot
from sdk import run
from sdk.liars_poker_dice import TOP_HAND, Hand, evaluate, hands_above, rank


class AlwaysBluffLiarsPokerDiceBot(HeuristicLiarsPokerDiceBot):
    """Lies in every declaration it can; answers and re-rolls like the heuristic."""

    name = "liars-poker-dice-always-bluff"

    def _declaration(self, dice: tuple[int, ...], beat: Hand | None) -> Hand:
        true = evaluate(dice)
        if true == TOP_HAND:
            return true
        floor = true if beat is None or rank(true) > rank(beat) else beat
        return hands_above(floor)[0]


if __name__ == "__main__":
    run(AlwaysBluffLiarsPokerDiceBot)
