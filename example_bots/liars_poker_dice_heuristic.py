"""A Liar's Poker Dice bot that declares from its true hand and challenges by probability.

python -m example_bots.liars_poker_dice_heuristic

* Declaring: if its true hand beats the hand to beat, it declares it, but now and
  then (``BLUFF_RATE``) it inflates the claim by one to three steps, only to hands a
  fresh throw still reaches at least ``BLUFF_FLOOR`` of the time. If its hand does
  not beat the last declaration it makes the smallest legal lie.
* Re-rolling: picks the dice that maximise the exact chance of ending strictly
  above the hand to beat.
* Answering: remembers the dice it passed on; the claim's probability is the
  chance that the declared hand was reachable from those dice with the public
  number of re-rolled dice (for an opening claim: from a fresh throw). It
  challenges when that is below ``CHALLENGE_BELOW``.
"""

from __future__ import annotations

from sdk import Bot, run
from sdk.liars_poker_dice import (
    TOP_HAND,
    Accept,
    Action,
    Challenge,
    Declare,
    Hand,
    Observation,
    Phase,
    Reroll,
    best_reroll,
    claim_probability,
    evaluate,
    hands_above,
    probability_at_least,
    rank,
)

BLUFF_RATE = 0.2
BLUFF_FLOOR = 0.25
CHALLENGE_BELOW = 0.5


class HeuristicLiarsPokerDiceBot(Bot[Observation, Action]):
    """Truthful-by-default declarer with calibrated bluffs and a probability challenger."""

    game = "liars_poker_dice"
    name = "liars-poker-dice-heuristic"

    def __init__(self) -> None:
        super().__init__()
        self._round = -1
        self._passed: tuple[int, ...] | None = None

    def act(self, observation: Observation) -> Action:
        if len(observation.rounds) != self._round:
            self._round = len(observation.rounds)
            self._passed = None
        if observation.phase is Phase.REROLL:
            return Reroll(
                best_reroll(observation.dice, observation.last_declaration, observation.min_reroll)
            )
        if observation.phase is Phase.DECLARE:
            hand = self._declaration(observation.dice, observation.last_declaration)
            self._passed = observation.dice
            return Declare(hand)
        return self._answer(observation)

    def _declaration(self, dice: tuple[int, ...], beat: Hand | None) -> Hand:
        true = evaluate(dice)
        if beat is not None and rank(true) <= rank(beat):
            return hands_above(beat)[0]
        if self.rng.random() < BLUFF_RATE:
            bluffs = [
                hand
                for hand in hands_above(true)[:3]
                if hand != TOP_HAND and probability_at_least((), hand) >= BLUFF_FLOOR
            ]
            if bluffs:
                return self.rng.choice(bluffs)
        return true

    def _answer(self, observation: Observation) -> Action:
        declared = observation.last_declaration
        assert declared is not None
        if declared == TOP_HAND:
            return Challenge()
        p_true = claim_probability(self._passed, observation.last_reroll_count, declared)
        self._passed = None
        return Challenge() if p_true < CHALLENGE_BELOW else Accept()


if __name__ == "__main__":
    run(HeuristicLiarsPokerDiceBot)
