"""A Cockroach Poker bot that counts cards and watches its own four-of-a-kind risk.

* **Answering** a claim: it counts the cards whose kind it cannot place (8 of each
  kind, minus its hand, every face-up card and the cards it passed itself) and
  takes the chance that the passed card really is the claimed kind to be that
  kind's share of the unseen cards. Believing always costs a card (face down, of
  unknown kind); disbelieving costs a card only when the claim is true, and then
  the card is face up in front of it — deadly if it already shows three of that
  kind, and a third face-up card of a kind invites everyone to send that kind.
  A face-down card is priced by the chance it completes a four of a kind with
  what already lies face up. It picks the cheaper answer (mostly: disbelieve).
* **Announcing**: it passes the kind the target already shows most face up (to
  push the target towards four of a kind), preferring kinds it holds many of.
  It tells the truth ``TRUTH_RATE`` of the time (a true claim always ends in
  front of the target); when it lies it claims a kind the target fears, which
  it itself is safe from if the card comes back.
* **Under** ``call_rule=published`` (read from ``observation.rules``) ``Believe``
  calls the claim true and ``Disbelieve`` false, and a right call sends the card
  back to its passer, so a true claim is no sure hit. It then tells the truth
  half the time (``PUBLISHED_TRUTH_RATE``: neither "always call true" nor "always
  call false" beats it), and calls by the announcer's record: the share of its
  turned-up claims so far that were true (a claim of a kind with no unseen card
  is a lie), each call weighed by what the card would cost it face up.

    python -m example_bots.cockroach_poker_heuristic
"""

from __future__ import annotations

from sdk import Bot, run
from sdk.cockroach_poker import (
    KINDS,
    LOSING_COUNT,
    Action,
    Announce,
    Believe,
    Disbelieve,
    Kind,
    Observation,
    claim_probability,
    unseen_counts,
)

TRUTH_RATE = 0.7
"""Share of announcements that name the card's true kind."""
PUBLISHED_TRUTH_RATE = 0.5
"""The same under ``call_rule=published``, where a true claim can come back."""
ELIMINATION_COST = 20.0
"""How many cards in front being put out is worth, for weighing answers."""
EXPOSURE_COST = 1.5
"""Extra cost of a third face-up card of a kind: every announcer will aim that kind at us."""


class HeuristicCockroachPokerBot(Bot[Observation, Action]):
    """Card counting for answers; pressure on the target's face-up kinds when passing."""

    game = "cockroach_poker"
    name = "cockroach-poker-heuristic"

    def act(self, observation: Observation) -> Action:
        if observation.phase == "respond":
            return self.answer(observation)
        return self.announce(observation)

    def answer(self, observation: Observation) -> Action:
        if observation.rules.published_call:
            return self.call(observation)
        pending = observation.pending
        assert pending is not None
        mine = observation.seats[observation.seat].face_up
        p_true = float(claim_probability(observation, pending.claim))
        unseen = unseen_counts(observation)
        total = sum(unseen) or 1
        # Believing: a card of unknown kind (drawn from the unseen cards) goes face
        # down; it puts us out if it makes four with our face-up cards of its kind.
        p_out_believe = sum(
            unseen[kind] / total for kind in KINDS if mine[kind] >= LOSING_COUNT - 1
        )
        believe_cost = 1.0 + p_out_believe * ELIMINATION_COST
        # Disbelieving: we take the card only if the claim is true, face up, where
        # everyone sees how close it brings us to four.
        disbelieve_cost = p_true * (1.0 + self.face_up_cost(mine[pending.claim] + 1))
        return Believe() if believe_cost < disbelieve_cost else Disbelieve()

    def call(self, observation: Observation) -> Action:
        """``call_rule=published``: call true (Believe) or false (Disbelieve).

        A wrong call puts the card face up in front of us: calling "true" risks a
        card of another kind (by unseen share), calling "false" one of the claimed
        kind. Pick the call with the smaller expected cost.
        """
        pending = observation.pending
        assert pending is not None
        mine = observation.seats[observation.seat].face_up
        unseen = unseen_counts(observation)
        p_true = self.announcer_truth_rate(observation, pending.announcer)
        if unseen[pending.claim] == 0:
            p_true = 0.0  # the announcer cannot hold the kind it names
        others = sum(unseen) - unseen[pending.claim]
        cost_other = sum(
            unseen[kind] / others * (1.0 + self.face_up_cost(mine[kind] + 1))
            for kind in KINDS
            if kind != pending.claim and others
        )
        call_true_cost = (1.0 - p_true) * (cost_other if others else 1.0)
        call_false_cost = p_true * (1.0 + self.face_up_cost(mine[pending.claim] + 1))
        return Believe() if call_true_cost < call_false_cost else Disbelieve()

    @staticmethod
    def announcer_truth_rate(observation: Observation, announcer: int) -> float:
        """Share of ``announcer``'s revealed claims that were true (one true, one false
        pseudo-claim to start: 0.5 before any is seen)."""
        shown = [
            r.card == r.claim
            for r in observation.history
            if r.announcer == announcer and r.card is not None
        ]
        return (sum(shown) + 1.0) / (len(shown) + 2.0)

    @staticmethod
    def face_up_cost(count: int) -> float:
        """Extra cost of showing ``count`` face-up cards of one kind."""
        if count >= LOSING_COUNT:
            return ELIMINATION_COST
        return EXPOSURE_COST if count == LOSING_COUNT - 1 else 0.0

    def announce(self, observation: Observation) -> Action:
        hand = observation.hand
        target = self.target(observation)
        theirs = observation.seats[target].face_up
        mine = observation.seats[observation.seat].face_up
        held = [kind for kind in KINDS if hand[kind]]
        card = max(held, key=lambda kind: (theirs[kind], hand[kind], self.rng.random()))
        truth_rate = PUBLISHED_TRUTH_RATE if observation.rules.published_call else TRUTH_RATE
        if self.rng.random() < truth_rate:
            return Announce(card, card)
        # A lie comes back to us if disbelieved: pass a kind we are safe from.
        safe = [kind for kind in held if mine[kind] < LOSING_COUNT - 1] or held
        card = max(safe, key=lambda kind: (theirs[kind], hand[kind], self.rng.random()))
        claims = [kind for kind in KINDS if kind != card]
        claim = max(claims, key=lambda kind: (theirs[kind], self.rng.random()))
        return Announce(card, Kind(claim))

    @staticmethod
    def target(observation: Observation) -> int:
        """The next seat clockwise still in the game (who receives our card)."""
        n = observation.num_seats
        for step in range(1, n):
            seat = (observation.seat + step) % n
            if not observation.seats[seat].eliminated:
                return seat
        return observation.seat


if __name__ == "__main__":
    run(HeuristicCockroachPokerBot)
