"""A counter-strategy that runs the strong bot's own answering code to pick its claims.

:mod:`example_bots.liars_poker_dice_strong` answers a declaration by a fixed rule
(:func:`~example_bots.liars_poker_dice_strong.challenges`) of public facts — the dice
it passed, the declarer's re-roll count, the declared and the previous hand — and of
its opponent model, which it learns only from declarations whose dice it sees and
from answers to its own declarations. This bot sees all of that too: it keeps a
mirror of the strong bot's model of *this* bot, updated on the same events, and
before each declaration asks the strong bot's rule about every legal hand:

* a true hand the strong bot would challenge: declare it (the challenge loses);
* otherwise the highest hand it would accept (its challenge threshold), true or
  not: the strong bot then holds dice that must beat the highest claim it lets pass;
* if it would challenge everything, the smallest legal hand.

It re-rolls and answers like the heuristic. Against any other opponent it still
plays legally, but its claims are tuned to the strong bot's rule.

    python -m example_bots.liars_poker_dice_strong_counter
"""

from __future__ import annotations

from example_bots.liars_poker_dice_heuristic import HeuristicLiarsPokerDiceBot
from example_bots.liars_poker_dice_strong import NUM_HANDS, OpponentModel, challenges
from sdk import run
from sdk.liars_poker_dice import (
    ALL_HANDS,
    Action,
    Declare,
    Observation,
    Phase,
    Step,
    StepKind,
    evaluate,
    rank,
)

Key = tuple[int, int]
"""(round index, step index) of a declaration."""


def previous_rank(steps: tuple[Step, ...], index: int) -> int:
    """Rank of the declaration before ``steps[index]`` (-1 if there is none)."""
    for step in reversed(steps[:index]):
        if step.kind is StepKind.DECLARE and step.hand is not None:
            return rank(step.hand)
    return -1


def threshold_claim(
    model: OpponentModel,
    passed: tuple[int, ...] | None,
    rerolled: int | None,
    true: int,
    beat: int,
    min_reroll: int,
) -> int:
    """The rank to declare against the strong bot's answering rule under ``model``."""
    accepted = []
    for candidate in range(beat + 1, NUM_HANDS - 1):  # the top hand is always challenged
        if not challenges(model, passed, rerolled, candidate, beat, min_reroll):
            accepted.append(candidate)
        elif candidate <= true:
            return candidate  # a true claim it challenges: a sure win
    return max(accepted) if accepted else beat + 1


class StrongCounterLiarsPokerDiceBot(HeuristicLiarsPokerDiceBot):
    """Declares at the strong bot's challenge threshold, from a mirror of its model."""

    name = "liars-poker-dice-strong-counter"

    def __init__(self) -> None:
        super().__init__()
        self.mirror = OpponentModel()
        """What the strong bot has learned about this bot, event by event."""
        self._my_dice: dict[Key, tuple[int, ...]] = {}
        """Our declarations: the dice we declared on."""
        self._their_dice: dict[Key, tuple[int, ...]] = {}
        """The opponent's declarations we accepted: the dice we then received."""
        self._received: tuple[int, ...] | None = None
        self._done: set[Key] = set()

    def act(self, observation: Observation) -> Action:
        self._mirror(observation)
        if observation.phase is Phase.REROLL:
            self._received = tuple(sorted(observation.dice))
            declared_at = max(
                i for i, s in enumerate(observation.steps) if s.kind is StepKind.DECLARE
            )
            self._their_dice[(len(observation.rounds), declared_at)] = self._received
        if observation.phase is not Phase.DECLARE:
            return super().act(observation)
        if len(observation.rounds) != self._round:
            self._round, self._passed = len(observation.rounds), None
        dice = tuple(sorted(observation.dice))
        steps = observation.steps
        beat = previous_rank(steps, len(steps))
        ours = any(s.kind is StepKind.ACCEPT and s.seat == observation.seat for s in steps)
        passed = self._received if ours else None
        rerolled = observation.last_reroll_count if ours else None
        claim = threshold_claim(
            self.mirror, passed, rerolled, rank(evaluate(dice)), beat, observation.min_reroll
        )
        self._my_dice[(len(observation.rounds), len(steps))] = dice
        self._passed = observation.dice
        return Declare(ALL_HANDS[claim])

    def _mirror(self, observation: Observation) -> None:
        """Update the mirror with every answered declaration not yet counted: ours as
        the strong bot sees their dice, its own with how we answered them."""
        rounds = [(record.steps, record.dice) for record in observation.rounds]
        rounds.append((observation.steps, ()))
        for index, (steps, revealed) in enumerate(rounds):
            for i in range(len(steps) - 1):
                answer = steps[i + 1].kind
                hand = steps[i].hand
                key = (index, i)
                if (
                    key in self._done
                    or hand is None
                    or answer not in (StepKind.ACCEPT, StepKind.CHALLENGE)
                ):
                    continue
                declared = rank(hand)
                if steps[i].seat == observation.seat:
                    dice = self._my_dice.get(key)
                    if dice is None:
                        continue
                    self._done.add(key)
                    self.mirror.observe_declaration(
                        declared, rank(evaluate(dice)), previous_rank(steps, i)
                    )
                    continue
                theirs = self._their_dice.get(key) if answer is StepKind.ACCEPT else revealed
                if not theirs:
                    continue
                self._done.add(key)
                truthful = declared <= rank(evaluate(theirs))
                rate = self.mirror.challenge_truth if truthful else self.mirror.challenge_lie
                rate.observe(answer is StepKind.CHALLENGE)


if __name__ == "__main__":
    run(StrongCounterLiarsPokerDiceBot)
