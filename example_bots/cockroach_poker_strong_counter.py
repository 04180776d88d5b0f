"""A counter-strategy that runs the strong bot's own answering code before each pass.

:mod:`example_bots.cockroach_poker_strong` answers a claim by a fixed rule of its
hand, the public history and what it learned from that history (every rate of its
model is learned from public events only). This bot rebuilds the target's view of
each possible claim — the public history as the target knows it, the claim
pending, a hand drawn from the cards this bot has not seen (``SAMPLES`` per claim)
— and asks a fresh copy of the strong bot for its answer. The share of drawn hands
in which it believes is then the believe rate in the strong bot's own pass
valuation (which this bot inherits), in place of its learned rate: it lies where the
strong bot's rule believes and passes the truth where it disbelieves.

The copy does not know which face-down cards the real bot believed with what
confidence, nor the kinds the real bot passed face down: those are the parts of its
view left out (an approximation). Answers are the strong bot's own.

    python -m example_bots.cockroach_poker_strong_counter
"""

from __future__ import annotations

import dataclasses
import random

from example_bots.cockroach_poker_strong import StrongCockroachPokerBot, kill_bonus, step_cost
from sdk import run
from sdk.cockroach_poker import (
    KINDS,
    Action,
    Announce,
    Believe,
    Kind,
    Observation,
    PendingView,
    turned_up,
    unseen_counts,
)

SAMPLES = 8
"""Hands of the target drawn per claim."""


def target_view(
    observation: Observation, target: int, claim: Kind, hand: tuple[int, ...]
) -> Observation:
    """What ``target`` sees when we pass it a card claimed to be ``claim``, if it holds
    ``hand`` (cards per kind): the cards we passed face down are unknown to it."""
    rules = observation.rules
    history = tuple(
        dataclasses.replace(record, card=None)
        if record.announcer == observation.seat and not turned_up(rules, record.believed)
        else record
        for record in observation.history
    )
    return dataclasses.replace(
        observation,
        seat=target,
        phase="respond",
        to_act=target,
        hand=hand,
        pending=PendingView(observation.seat, target, claim, None),
        history=history,
    )


def draw_hand(unseen: tuple[int, ...], size: int, rng: random.Random) -> tuple[int, ...]:
    """``size`` cards drawn without replacement from the ``unseen`` counts per kind."""
    pool = [kind for kind in KINDS for _ in range(unseen[kind])]
    counts = [0] * len(KINDS)
    for kind in rng.sample(pool, min(size, len(pool))):
        counts[kind] += 1
    return tuple(counts)


class StrongCounterCockroachPokerBot(StrongCockroachPokerBot):
    """The strong bot's valuation, with the strong bot's simulated answers."""

    name = "cockroach-poker-strong-counter"

    def believe_rate(self, observation: Observation, target: int, claim: Kind) -> float:
        """Share of drawn target hands in which the strong bot believes ``claim``
        (calls it true under ``call_rule=published``)."""
        unseen = unseen_counts(observation)
        size = observation.seats[target].hand_size
        believed = 0
        for _ in range(SAMPLES):
            view = target_view(observation, target, claim, draw_hand(unseen, size, self.rng))
            believed += isinstance(StrongCockroachPokerBot().act(view), Believe)
        return believed / SAMPLES

    def announce(self, observation: Observation) -> Action:
        target = self.target(observation)
        fronts = self.expected_fronts(observation)
        mine, theirs = fronts[observation.seat], fronts[target]
        published = observation.rules.published_call
        rates = {claim: self.believe_rate(observation, target, Kind(claim)) for claim in KINDS}
        best: tuple[float, float] | None = None
        choice = Announce(Kind(0), Kind(0))
        for card in KINDS:
            if not observation.hand[card]:
                continue
            gain = step_cost(theirs[card]) + kill_bonus(theirs[card], observation.hand[card])
            loss = step_cost(mine[card])
            for claim in KINDS:
                believe = rates[claim]
                if published:
                    taken = 1.0 - believe if claim == card else believe
                    value = taken * gain - (1.0 - taken) * loss
                elif claim == card:
                    value = gain
                else:
                    value = believe * gain - (1.0 - believe) * loss
                key = (value, self.rng.random())
                if best is None or key > best:
                    best, choice = key, Announce(Kind(card), Kind(claim))
        return choice


if __name__ == "__main__":
    run(StrongCounterCockroachPokerBot)
