"""A counter-strategy that runs the posterior bot's own code to find its challenge threshold.

:mod:`example_bots.liars_dice_posterior` decides from its own dice and public facts
only: the bids of the round, and what it learned (its opponents' honesty and
challenge habits) from the revealed rounds in ``observation.history``. A fresh copy
of it, shown the same public facts, learns exactly the same. So with two seats this
bot can ask the posterior bot's code itself whether it would challenge a raise: for
each candidate bid it builds the observation the posterior bot would see after it,
with a hand drawn from this bot's own posterior over the posterior bot's dice
(``SAMPLES`` hands per decision), and calls its ``act``. A raise then loses when it
is challenged and false (exact, given the drawn hand and our dice) and, when raised
instead, ``RETURN_LOSS`` (the round comes back to us): the raise it picks is about
the highest bid the posterior bot lets pass with the hand it probably holds.

Challenging, sum rounds and tables of more than two seats are the posterior bot's
own decisions (it inherits them).

    python -m example_bots.liars_dice_posterior_counter
"""

from __future__ import annotations

import dataclasses

import numpy as np

from example_bots.liars_dice_posterior import (
    RETURN_LOSS,
    SIDES,
    PosteriorLiarsDiceBot,
    Scored,
    _candidates,
    counted,
    hand_table,
)
from sdk import run
from sdk.liars_dice import Action, Bid, Challenge, Observation, PlacedBid

SAMPLES = 6
"""Hands of the posterior bot drawn per decision (each is one call of its ``act`` per
candidate bid: about 24 candidates, so ~150 calls per decision)."""


def simulated_view(observation: Observation, bid: Bid, hand: tuple[int, ...]) -> Observation:
    """What the other seat of a two-seat table sees right after we bid ``bid``, if it
    holds ``hand``."""
    opponent = 1 - observation.seat
    rules = observation.rules
    wilds = observation.wilds_active and not (
        not observation.bids and bid.face == rules.wild and rules.wild_opening == "cancel"
    )
    return dataclasses.replace(
        observation,
        seat=opponent,
        to_act=opponent,
        own_dice=hand,
        wilds_active=wilds,
        bids=(*observation.bids, PlacedBid(observation.seat, bid)),
    )


def hand_of(counts: np.ndarray) -> tuple[int, ...]:
    """Dice (sorted) from a row of face counts."""
    return tuple(face + 1 for face in range(SIDES) for _ in range(int(counts[face])))


class PosteriorCounterLiarsDiceBot(PosteriorLiarsDiceBot):
    """Raises at the posterior bot's simulated challenge threshold."""

    name = "liars-dice-posterior-counter"

    def __init__(self) -> None:
        super().__init__()
        self.shadow = PosteriorLiarsDiceBot()
        """The posterior bot's code, shown the public facts (and a drawn hand)."""

    def score_face_round(self, observation: Observation, legal: list[Action]) -> list[Scored]:
        scored = super().score_face_round(observation, legal)
        if observation.num_seats != 2 or 0 in observation.dice_counts:
            return scored
        opponent = 1 - observation.seat
        dice = observation.dice_counts[opponent]
        counts, _ = hand_table(dice)
        _counting, weights = self.posteriors(observation)[opponent]
        rows = np.random.default_rng(self.rng.getrandbits(32)).choice(
            len(weights), size=SAMPLES, p=weights
        )
        wild = observation.rules.wild if observation.wilds_active else None
        own = np.bincount(np.asarray(observation.own_dice, dtype=np.int64) - 1, minlength=SIDES)
        out = [item for item in scored if isinstance(item.action, Challenge)]
        for bid in _candidates(legal):
            loss = 0.0
            for row in rows:
                hand = hand_of(counts[row])
                view = simulated_view(observation, bid, hand)
                answer = self.shadow.act(view)
                if isinstance(answer, Challenge):
                    counting = counted(own + counts[row], wild if view.wilds_active else None)
                    loss += 0.0 if int(counting[bid.face - 1]) >= bid.quantity else 1.0
                else:
                    loss += RETURN_LOSS
            out.append(Scored(bid, loss / SAMPLES))
        return out


if __name__ == "__main__":
    run(PosteriorCounterLiarsDiceBot)
