"""A counter-strategy: declare the true hand; challenge only what the passed dice rule out.

It lies only when it must (its hand does not beat the last declaration: then the
smallest legal lie) and answers like :mod:`example_bots.liars_poker_dice_rule_out`.

    python -m example_bots.liars_poker_dice_truthful
"""

from example_bots.liars_poker_dice_rule_out import RuleOutLiarsPokerDiceBot
from sdk import run
from sdk.liars_poker_dice import Hand, evaluate, hands_above, rank


class TruthfulLiarsPokerDiceBot(RuleOutLiarsPokerDiceBot):
    """Never bluffs by choice; challenges only impossible declarations."""

    name = "liars-poker-dice-truthful"

    def _declaration(self, dice: tuple[int, ...], beat: Hand | None) -> Hand:
        true = evaluate(dice)
        if beat is not None and rank(true) <= rank(beat):
            return hands_above(beat)[0]
        return true


if __name__ == "__main__":
    run(TruthfulLiarsPokerDiceBot)
