"""A counter-strategy: accept every declaration the dice it passed do not rule out.

It challenges only a declaration the declarer could not have reached from the
dice this bot passed on with the public number of re-rolled dice (chance 0;
for an opening declaration, nothing is ruled out), and the top hand, which it
must. It declares and re-rolls like the heuristic.

    python -m example_bots.liars_poker_dice_rule_out
"""

from example_bots.liars_poker_dice_heuristic import HeuristicLiarsPokerDiceBot
from sdk import run
from sdk.liars_poker_dice import TOP_HAND, Accept, Action, Challenge, Observation, claim_probability


class RuleOutLiarsPokerDiceBot(HeuristicLiarsPokerDiceBot):
    """Challenges only impossible declarations; otherwise the heuristic."""

    name = "liars-poker-dice-rule-out"

    def _answer(self, observation: Observation) -> Action:
        declared = observation.last_declaration
        assert declared is not None
        reachable = claim_probability(self._passed, observation.last_reroll_count, declared)
        self._passed = None
        return Challenge() if declared == TOP_HAND or reachable == 0 else Accept()


if __name__ == "__main__":
    run(RuleOutLiarsPokerDiceBot)
