"""A Cockroach Poker bot that counts cards, tracks every card in front and learns the opponent.

    python -m example_bots.cockroach_poker_strong

What it models, and why:

* **Where the cards are.** Every face-up card is public; every face-down card it
  passed itself and was believed it knows; the other face-down cards (in front
  of any seat) and the other hands are drawn from the *unseen* cards (8 per kind
  minus everything placed). For a face-down card the opponent passed it and it
  believed, it keeps the chance it had the claimed kind. That gives, for every
  seat and kind, the expected number of cards of the kind in front of the seat.
* **A position value.** A seat's danger is a convex score of those counts
  (``DANGER``: 0, 1, 2.5, 6 for 0..3 cards, a large penalty at 4, which puts it
  out); in two-seat play every card also counts towards the "fewest cards"
  ranking. Each decision maximises the target's danger minus its own.
* **The announcer's honesty.** The chance that a claim is true is a Beta-updated
  truth rate of this opponent (learned from every claim it disbelieved, when the
  card is turned face up), split by whether the claim names a kind the
  answerer already shows at least twice (liars aim there), and capped by card
  counting: a claim of a kind the announcer cannot hold is false.
* **The answerer's credulity.** When passing, it needs the chance the target
  believes: a Beta-updated believe rate per number of face-up cards the target
  shows of the claimed kind, learned from every answer the target gives. It
  then picks the card and claim with the best expected value over believe,
  disbelieve-true and disbelieve-false.

Under ``call_rule=published`` (read from ``observation.rules``) ``Believe`` calls
the claim true and ``Disbelieve`` false, every answered card is turned up, and a
right call sends it back to its passer. The same models then decide: it calls
"true" exactly when its estimate of the claim's truth (learned truth rate, capped
by card counting) makes that the better bet for the danger each side would take;
the honesty model learns from every claim (all are turned up); and a true claim is
no longer a sure hit: it passes the truth when the target is likely to call
"false" (the learned call-true rate) and lies when it is likely to call "true".

Decisions are 64 candidate passes or two answers, each a handful of arithmetic
operations: well under a millisecond.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from example_bots.rates import Rate
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
    PassView,
    Rules,
    turned_up,
    unseen_counts,
)

DANGER = (0.0, 1.0, 2.5, 6.0)
"""A seat's danger for 0..3 cards of one kind in front of it."""
OUT = 60.0
"""Danger of four of a kind (the seat is out)."""
KILL_BONUS = 2.0
"""Value per pass saved on a sure path to the target's four of a kind."""
PRIOR_WEIGHT = 3.0
"""Pseudo-observations behind each prior rate."""


@dataclass(slots=True)
class OpponentModel:
    """Honesty of announcers and credulity of answerers, as observed so far."""

    truth: list[Rate] = field(default_factory=lambda: [Rate(p, PRIOR_WEIGHT) for p in (0.6, 0.5)])
    """Truth rate of claims; index 1 when the claim names a kind the answerer shows twice."""
    # Under call_rule=published "believe" is the call "true": the same rates apply.
    believe: list[Rate] = field(
        default_factory=lambda: [Rate(p, PRIOR_WEIGHT) for p in (0.25, 0.25, 0.35, 0.5)]
    )
    """Believe rate by the number (0..3) of face-up cards of the claimed kind at the target."""


def danger(count: float) -> float:
    """Danger of ``count`` (possibly fractional, an expectation) cards of one kind."""
    if count >= LOSING_COUNT:
        return OUT
    low = int(count)
    high_value = OUT if low + 1 >= LOSING_COUNT else DANGER[low + 1]
    return DANGER[low] + (count - low) * (high_value - DANGER[low])


def step_cost(count: float) -> float:
    """Extra danger of one more card of a kind that a seat holds ``count`` of."""
    return danger(count + 1.0) - danger(count)


def kill_bonus(theirs: float, held: int) -> float:
    """Extra value of passing a kind we can finish: we hold enough to reach four.

    The bonus grows as fewer passes are needed (``KILL_BONUS`` per pass saved),
    so the bot races down the shortest sure path to the target's four of a kind
    instead of spreading its cards over kinds it cannot complete.
    """
    needed = LOSING_COUNT - theirs
    if held + 1e-9 < needed:
        return 0.0
    return KILL_BONUS * (LOSING_COUNT + 1 - needed)


def kind_shares(unseen: tuple[int, ...]) -> list[float]:
    """Each kind's share of the unseen cards (uniform if none are unseen)."""
    total = sum(unseen)
    if total == 0:
        return [1.0 / len(KINDS)] * len(KINDS)
    return [count / total for count in unseen]


def holds_probability(unseen_of_kind: int, unseen_total: int, hand_size: int) -> float:
    """Chance that ``hand_size`` cards drawn from the unseen include the kind at least once.

    Hypergeometric: 1 - C(U - u, h) / C(U, h), computed as a product.
    """
    if unseen_of_kind <= 0 or hand_size <= 0:
        return 0.0
    if hand_size > unseen_total - unseen_of_kind:
        return 1.0
    miss = 1.0
    for i in range(hand_size):
        miss *= (unseen_total - unseen_of_kind - i) / (unseen_total - i)
    return 1.0 - miss


def claim_truth_probability(
    truth_rate: float, unseen_of_kind: int, unseen_total: int, hand_size: int
) -> float:
    """P(a claim is true): the opponent's truth rate, when it can hold the kind at all.

    A truthful announcer needs a card of the kind, so the truth rate is weighed
    by the chance it holds one: ``t·H / (t·H + 1 - t)``.
    """
    held = holds_probability(unseen_of_kind, unseen_total, hand_size)
    truthful = truth_rate * held
    denominator = truthful + (1.0 - truth_rate)
    return truthful / denominator if denominator > 0 else 0.0


class StrongCockroachPokerBot(Bot[Observation, Action]):
    """Card counting plus a learned model of the opponents' honesty and credulity."""

    game = "cockroach_poker"
    name = "cockroach-poker-strong"

    def __init__(self) -> None:
        super().__init__()
        self.model = OpponentModel()
        self._learned = 0
        """History entries already used for learning."""
        self._believed: dict[int, tuple[Kind, float]] = {}
        """History index of a pass we believed -> (claim, chance it was true)."""

    # -- learning -----------------------------------------------------------------

    def _learn(self, observation: Observation) -> None:
        history = observation.history
        rules = observation.rules
        for index in range(self._learned, len(history)):
            record = history[index]
            target_view = self._front_before(rules, history, index, record.target)
            claim_shown = target_view[record.claim]
            if (
                record.announcer != observation.seat
                and turned_up(rules, record.believed)
                and record.card is not None
            ):
                self.model.truth[int(claim_shown >= 2)].observe(record.card == record.claim)
            if record.target != observation.seat:
                self.model.believe[min(claim_shown, LOSING_COUNT - 1)].observe(record.believed)
        self._learned = len(history)

    @staticmethod
    def _front_before(
        rules: Rules, history: tuple[PassView, ...], index: int, seat: int
    ) -> list[int]:
        """Face-up cards per kind in front of ``seat`` before pass ``index`` (from history)."""
        counts = [0] * len(KINDS)
        for record in history[:index]:
            face_up = turned_up(rules, record.believed)
            if face_up and record.card is not None and record.taker == seat:
                counts[record.card] += 1
        return counts

    # -- the position ---------------------------------------------------------------

    def expected_fronts(self, observation: Observation) -> list[list[float]]:
        """Expected cards of each kind in front of every seat."""
        shares = kind_shares(unseen_counts(observation))
        fronts = [[float(c) for c in view.face_up] for view in observation.seats]
        known_down = [0] * observation.num_seats
        for index, record in enumerate(observation.history):
            if turned_up(observation.rules, record.believed):
                continue  # face up: already in the seat's face-up counts
            if record.announcer == observation.seat and record.card is not None:
                fronts[record.target][record.card] += 1.0
                known_down[record.target] += 1
            elif record.target == observation.seat and index in self._believed:
                claim, p_true = self._believed[index]
                for kind in KINDS:
                    fronts[record.target][kind] += (1.0 - p_true) * shares[kind]
                fronts[record.target][claim] += p_true
                known_down[record.target] += 1
        for seat, view in enumerate(observation.seats):
            unknown = view.face_down - known_down[seat]
            if unknown > 0:
                for kind in KINDS:
                    fronts[seat][kind] += unknown * shares[kind]
        return fronts

    # -- acting ---------------------------------------------------------------------

    def act(self, observation: Observation) -> Action:
        self._learn(observation)
        if observation.phase == "respond":
            return self.answer(observation)
        return self.announce(observation)

    def claim_truth(self, observation: Observation) -> float:
        """P(the pending claim is true): the learned truth rate, capped by card counting."""
        pending = observation.pending
        assert pending is not None
        unseen = unseen_counts(observation)
        mine_shown = observation.seats[observation.seat].face_up[pending.claim]
        truth_rate = self.model.truth[int(mine_shown >= 2)].mean
        # The card in transit is no longer in the announcer's hand: it held hand+1.
        hand_size = observation.seats[pending.announcer].hand_size + 1
        return claim_truth_probability(truth_rate, unseen[pending.claim], sum(unseen), hand_size)

    def call(self, observation: Observation) -> Action:
        """``call_rule=published``: call "true" (Believe) or "false" (Disbelieve).

        A right call sends the card face up to the announcer, a wrong one to us. With
        ``p`` the chance the claim is true: calling "true" gains the claimed kind's
        danger at the announcer with chance ``p`` and costs us a card of another kind
        (by unseen share) otherwise; calling "false" is the mirror image.
        """
        pending = observation.pending
        assert pending is not None
        claim = pending.claim
        p_true = self.claim_truth(observation)
        fronts = self.expected_fronts(observation)
        mine, theirs = fronts[observation.seat], fronts[pending.announcer]
        unseen = unseen_counts(observation)
        other_shares = kind_shares(tuple(unseen[k] if k != claim else 0 for k in KINDS))
        other_mine = sum(other_shares[k] * step_cost(mine[k]) for k in KINDS)
        other_theirs = sum(other_shares[k] * step_cost(theirs[k]) for k in KINDS)
        call_true = p_true * step_cost(theirs[claim]) - (1.0 - p_true) * other_mine
        call_false = (1.0 - p_true) * other_theirs - p_true * step_cost(mine[claim])
        return Believe() if call_true > call_false else Disbelieve()

    def answer(self, observation: Observation) -> Action:
        if observation.rules.published_call:
            return self.call(observation)
        pending = observation.pending
        assert pending is not None
        claim = pending.claim
        unseen = unseen_counts(observation)
        p_true = self.claim_truth(observation)
        fronts = self.expected_fronts(observation)
        mine = fronts[observation.seat]
        theirs = fronts[pending.announcer]
        # What the card is if the claim is false: another kind, by unseen share.
        others = [unseen[k] if k != claim else 0 for k in KINDS]
        other_shares = kind_shares(tuple(others))
        believe_cost = p_true * step_cost(mine[claim]) + (1.0 - p_true) * sum(
            other_shares[k] * step_cost(mine[k]) for k in KINDS
        )
        disbelieve_cost = p_true * step_cost(mine[claim]) - (1.0 - p_true) * sum(
            other_shares[k] * step_cost(theirs[k]) for k in KINDS
        )
        if believe_cost < disbelieve_cost:
            self._believed[len(observation.history)] = (claim, p_true)
            return Believe()
        return Disbelieve()

    def announce(self, observation: Observation) -> Action:
        target = self.target(observation)
        fronts = self.expected_fronts(observation)
        mine, theirs = fronts[observation.seat], fronts[target]
        shown = observation.seats[target].face_up
        published = observation.rules.published_call
        best: tuple[float, float] | None = None
        choice = Announce(Kind(0), Kind(0))
        for card in KINDS:
            if not observation.hand[card]:
                continue
            gain_if_taken = step_cost(theirs[card]) + kill_bonus(
                theirs[card], observation.hand[card]
            )
            loss_if_back = step_cost(mine[card])
            for claim in KINDS:
                believe = self.model.believe[min(shown[claim], LOSING_COUNT - 1)].mean
                if published:
                    # "true" is right on a true claim: the card comes back to us.
                    taken = 1.0 - believe if claim == card else believe
                    value = taken * gain_if_taken - (1.0 - taken) * loss_if_back
                elif claim == card:
                    value = gain_if_taken  # believed or disbelieved, the target takes it
                else:
                    value = believe * gain_if_taken - (1.0 - believe) * loss_if_back
                key = (value, self.rng.random())
                if best is None or key > best:
                    best, choice = key, Announce(Kind(card), Kind(claim))
        return choice

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
    run(StrongCockroachPokerBot)
