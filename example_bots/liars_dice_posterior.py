"""A Liar's Dice bot that infers the hidden dice from the bidding.

The probability bot treats every unseen die as uniform. But a bid says something
about the bidder's hand: players bid faces they hold. This bot keeps, for every
opponent, a posterior over that opponent's hand (its face counts) given the bids
it made this round, and decides with it.

**The bidding model.** Given a hand whose dice count ``k_g`` for face ``g`` (wilds
included when they count), an opponent names face ``f`` with probability
``exp(beta * k_f) / sum_g exp(beta * k_g)`` — a softmax whose temperature
``beta`` is the opponent's *honesty*: 0 bids faces at random, large values only
ever bid the face it holds most of. Each seat's ``beta`` is fitted by maximum a
posteriori over a small grid from every earlier round of the match, where the
challenge revealed the dice behind its bids (prior centred on 1).

**The posterior.** Hands are enumerated as face-count vectors (252 for 5 dice,
3003 for 10) with their multinomial prior; the weight of each is multiplied by
the likelihood of every bid the opponent made this round, and by the likelihood
that it *raised* each bid it could have challenged (the challenge model below,
floored at ``RAISED_FLOOR`` because not every seat reasons that way). Opponents are
independent given the bids, so the count of a face over the table is the
convolution of each opponent's posterior count distribution with our own dice.

**The decision** minimises the chance of losing a die, with one ply of lookahead
at the next seat (the only seat that can challenge our bid):

* challenge: we lose if the standing bid is true — its posterior probability;
* raise to ``b``: for each hand ``h`` the next seat might hold, it challenges
  with a probability that falls as *its own* uniform-odds estimate that ``b`` is
  true rises: a soft threshold on those odds, the usual reasoning of simple bots.
  The threshold is that seat's *challenge habit*, learned within the match from
  every answer it gave in a revealed round (``challenge_habit``:
  prior centred on 1/2; a seat that challenges only hopeless bids is bluffed,
  one that challenges anything gets bids that are likely true). If it challenges
  we lose when ``b`` is false given ``h`` (and the posterior over the rest); if it
  raises instead, we charge a continuation loss of 1/2 times the chance the round
  comes back to us (every seat in between raises too, by its learned habit:
  ``returns``; 1 with two seats), capped by the chance the bid is true when it
  comes back (we may challenge it), scaled down to 0.6 for a next seat that
  challenges rarely (``continuation_scale``): such a seat raises into bids that
  are likely false, which we then challenge.

In a sum round (two seats, one die each) the same decision runs on the six
values of the opponent's die, with a weak bidding model (a total is likelier
from a die that makes it likely). Every rule option is handled: wild faces
(including an opening bid on the wild face, which cancels wilds), every raise
rule (candidates come from the referee's own legal actions), 2..10 seats and up
to 10 dice each.

    python -m example_bots.liars_dice_posterior
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from example_bots.challenge_habit import (
    ChallengeHabit,
    challenge_curves,
    face_odds,
    sum_odds,
    tail_at,
)
from sdk import Bot, run
from sdk.liars_dice import (
    Action,
    Bid,
    Challenge,
    Observation,
    RoundResult,
    SumBid,
    legal_actions,
    next_active,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

SIDES = 6
HONESTY_GRID: FloatArray = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0])
"""Candidate honesty (softmax temperature) values fitted per opponent."""
HONESTY_PRIOR_MEAN = 1.0
HONESTY_PRIOR_SD = 0.75
"""A Gaussian prior on honesty: a few revealed rounds should not swing it to 0 or 3."""
CONTINUATION_SCALE = 1.0
"""Chance of losing a die charged when the next seat raises our bid: this over the
seats still in (the loss travels on; a deeper search would be the refinement)..."""
RARE_CHALLENGER_SCALE = 0.6
"""...for a seat that challenges at 1/2 or above. One that challenges rarely keeps
raising into bids that are likely false, which we then challenge: being raised by
it costs less, down to this scale for a threshold near 0 (linear in between)."""
RETURN_LOSS = 0.5
"""Chance of losing a die once the round comes back to us after the next seat's
raise (the loss is then ours or the next bidder's, about evenly). With two seats it
always comes back, which gives the old ``1 / seats``; with more, the seats in between
may challenge among themselves first (``PosteriorLiarsDiceBot.returns``)."""
RAISE_SPAN = 3
"""Quantities per face considered above the lowest legal one (higher ones rarely pay)."""
RAISED_FLOOR = 0.2
"""Least likelihood of "raised instead of challenging" for any hand (weak evidence)."""
SUM_BID_FLOOR = 1.0
"""Sum rounds: the likelihood of a total is ``floor + P(total | die)`` (weak evidence)."""


# ---------------------------------------------------------------------------
# Hands as face-count vectors


@lru_cache(maxsize=16)
def hand_table(dice: int) -> tuple[IntArray, FloatArray]:
    """Every hand of ``dice`` dice as face counts (rows of 6) and its log probability.

    Enumerating multisets instead of ordered rolls keeps 10 dice at 3003 rows.
    """
    rows: list[tuple[int, ...]] = []

    def fill(prefix: tuple[int, ...], left: int) -> None:
        if len(prefix) == SIDES - 1:
            rows.append((*prefix, left))
            return
        for count in range(left + 1):
            fill((*prefix, count), left - count)

    fill((), dice)
    counts = np.array(rows, dtype=np.int64).reshape(-1, SIDES)
    log_fact = [math.lgamma(k + 1) for k in range(dice + 1)]
    log_prior = np.array(
        [log_fact[dice] - sum(log_fact[c] for c in row) - dice * math.log(SIDES) for row in rows]
    )
    return counts, log_prior


def counted(counts: IntArray, wild: int | None) -> IntArray:
    """Dice that count for each face (column ``f - 1``): wild dice count for every
    other face; a bid on the wild face counts only real ones."""
    if wild is None:
        return counts
    extra = counts[..., wild - 1 : wild].copy()
    out = counts + extra
    out[..., wild - 1] = counts[..., wild - 1]
    return out


def face_log_likelihood(counting: IntArray, face: int, honesty: float) -> FloatArray:
    """Log P(an opponent names ``face`` | hand) under the softmax bidding model."""
    scaled = honesty * counting.astype(np.float64)
    top = scaled.max(axis=-1, keepdims=True)
    log_norm = np.log(np.exp(scaled - top).sum(axis=-1)) + top[..., 0]
    return np.asarray(scaled[..., face - 1] - log_norm, dtype=np.float64)


def face_posterior(
    dice: int, faces: list[int], wild: int | None, honesty: float
) -> tuple[IntArray, FloatArray]:
    """An opponent's hands (counting columns) and their posterior weights given the
    faces it bid this round."""
    counts, log_prior = hand_table(dice)
    counting = counted(counts, wild)
    log_w = log_prior.copy()
    for face in faces:
        log_w += face_log_likelihood(counting, face, honesty)
    weights = np.exp(log_w - log_w.max())
    return counting, weights / weights.sum()


def challenge_probability(
    counting: IntArray, bid: Bid, unknown: int, wild: int | None, habit: FloatArray
) -> FloatArray:
    """P(a seat challenges ``bid`` | its hand): its challenge curves in its own odds of
    the bid (every die it cannot see uniform, how simple bots decide), averaged over
    ``habit``, its posterior over ``THRESHOLD_GRID``."""
    held = counting[:, bid.face - 1]
    # The odds depend on the hand only through ``held`` (0..dice): evaluate the
    # curves once per level, not once per hand (3003 hands with 10 dice).
    levels = np.arange(int(held.max()) + 1)
    by_level = challenge_curves(face_odds(levels, bid, unknown, wild)) @ habit
    return np.asarray(by_level[held], dtype=np.float64)


def raised_likelihood(
    counting: IntArray, bid: Bid, unknown: int, wild: int | None, habit: FloatArray
) -> FloatArray:
    """P(a seat raised ``bid`` rather than challenge it | its hand), floored so a seat
    that challenges by other reasoning cannot rule hands out."""
    challenge = challenge_probability(counting, bid, unknown, wild, habit)
    return RAISED_FLOOR + (1.0 - RAISED_FLOOR) * (1.0 - challenge)


def tail_of(distribution: FloatArray) -> FloatArray:
    """The tail table of a distribution over 0..n."""
    return np.concatenate([np.cumsum(distribution[::-1])[::-1], [0.0]])


# ---------------------------------------------------------------------------
# Opponent honesty from revealed rounds


@dataclass
class Honesty:
    """Per opponent: log-likelihood of its revealed bids on each honesty grid value."""

    rounds_seen: int = 0
    log_lik: dict[int, FloatArray] = field(default_factory=dict)

    def update(self, history: tuple[RoundResult, ...], wild_face: int | None, me: int) -> None:
        for result in history[self.rounds_seen :]:
            if result.sum_round:
                continue
            wild = wild_face if result.wilds_active else None
            for placed in result.bids:
                if placed.seat == me or not isinstance(placed.bid, Bid):
                    continue
                hand = np.bincount(
                    np.asarray(result.dice[placed.seat], dtype=np.int64) - 1, minlength=SIDES
                )
                counting = counted(hand.astype(np.int64), wild)
                row = np.array(
                    [float(face_log_likelihood(counting, placed.bid.face, b)) for b in HONESTY_GRID]
                )
                self.log_lik[placed.seat] = self.log_lik.get(placed.seat, 0.0) + row
        self.rounds_seen = len(history)

    def of(self, seat: int) -> float:
        """The MAP honesty of ``seat`` (the prior mean before any revealed bid)."""
        log_prior = -((HONESTY_GRID - HONESTY_PRIOR_MEAN) ** 2) / (2 * HONESTY_PRIOR_SD**2)
        score = log_prior + self.log_lik.get(seat, np.zeros_like(HONESTY_GRID))
        return float(HONESTY_GRID[int(np.argmax(score))])


# ---------------------------------------------------------------------------
# The bot


@dataclass(frozen=True, slots=True)
class Scored:
    """An action with the chance we lose a die by it (lower is better)."""

    action: Action
    loss: float


class PosteriorLiarsDiceBot(Bot[Observation, Action]):
    """Bayesian bid reading plus one ply of lookahead at the next seat."""

    game = "liars_dice"
    name = "liars-dice-posterior"

    def __init__(self) -> None:
        super().__init__()
        self.honesty = Honesty()
        self.habit = ChallengeHabit()

    def act(self, observation: Observation) -> Action:
        legal = legal_actions(observation)
        self.honesty.update(observation.history, observation.rules.wild, observation.seat)
        self.habit.update(observation.history, observation.rules.wild, observation.seat)
        scored = (
            self.score_sum_round(observation, legal)
            if observation.sum_round
            else self.score_face_round(observation, legal)
        )
        best = min(item.loss for item in scored)
        # Near-ties go to the least aggressive action, then to the seeded rng.
        close = [item for item in scored if item.loss <= best + 1e-9]
        lowest = min(_height(item.action) for item in close)
        return self.rng.choice([item.action for item in close if _height(item.action) == lowest])

    # -- face rounds -----------------------------------------------------------

    def posteriors(self, observation: Observation) -> dict[int, tuple[IntArray, FloatArray]]:
        """Every opponent's hands (counting columns) and posterior weights."""
        wild = observation.rules.wild if observation.wilds_active else None
        out = {}
        for seat, dice in enumerate(observation.dice_counts):
            if seat == observation.seat or dice == 0:
                continue
            faces = [
                placed.bid.face
                for placed in observation.bids
                if placed.seat == seat and isinstance(placed.bid, Bid)
            ]
            counting, weights = face_posterior(dice, faces, wild, self.honesty.of(seat))
            unknown = observation.total_dice - dice
            for placed, answer in zip(observation.bids, observation.bids[1:], strict=False):
                if answer.seat == seat and isinstance(placed.bid, Bid):
                    weights = weights * raised_likelihood(
                        counting, placed.bid, unknown, wild, self.habit.weights(seat)
                    )
            out[seat] = counting, weights / weights.sum()
        return out

    def score_face_round(self, observation: Observation, legal: list[Action]) -> list[Scored]:
        wild = observation.rules.wild if observation.wilds_active else None
        own = counted(
            np.bincount(np.asarray(observation.own_dice, dtype=np.int64) - 1, minlength=SIDES),
            wild,
        )
        posts = self.posteriors(observation)
        after = next_active(observation.dice_counts, observation.seat)
        others: dict[int, FloatArray] = {}  # face -> count distribution without `after`
        table: dict[int, FloatArray] = {}  # face -> tail over every opponent
        for face in range(1, SIDES + 1):
            dist = np.ones(1)
            for seat, (counting, weights) in posts.items():
                if seat == after:
                    continue
                marginal = np.bincount(
                    counting[:, face - 1],
                    weights=weights,
                    minlength=observation.dice_counts[seat] + 1,
                )
                dist = np.convolve(dist, marginal)
            others[face] = tail_of(dist)
            counting, weights = posts[after]
            marginal = np.bincount(
                counting[:, face - 1], weights=weights, minlength=observation.dice_counts[after] + 1
            )
            table[face] = tail_of(np.convolve(dist, marginal))

        scored: list[Scored] = []
        last = observation.last_bid
        if isinstance(last, Bid):
            need = last.quantity - int(own[last.face - 1])
            scored.append(Scored(Challenge(), float(tail_at(table[last.face], need))))
        scale = continuation_scale(self.habit.mean_threshold(after))
        later = self.later_seats(observation, posts, after)
        habit = self.habit.weights(after)
        next_counting, next_weights = posts[after]
        unknown_to_next = observation.total_dice - observation.dice_counts[after]
        for bid in _candidates(legal):
            face = bid.face
            mine = int(own[face - 1])
            held = next_counting[:, face - 1]
            true_given = tail_at(others[face], bid.quantity - mine - held)
            if _is_top(bid, observation):
                challenge = np.ones(len(held))
            else:
                challenge = challenge_probability(next_counting, bid, unknown_to_next, wild, habit)
            back = RETURN_LOSS
            if later:
                # It comes back raised, and we may challenge it then: count one
                # step per seat in between (the next seat's raise is often on
                # another face; a step more measured worse against _20 and _30).
                steps = bid.quantity + len(later) - mine
                back = min(back, float(tail_at(table[face], steps)))
            continuation = scale * back * self.returns(bid, later, posts, observation, wild)
            loss = challenge * (1.0 - true_given) + (1.0 - challenge) * continuation
            scored.append(Scored(bid, float(np.dot(next_weights, loss))))
        return scored

    def later_seats(
        self,
        observation: Observation,
        posts: dict[int, tuple[IntArray, FloatArray]],
        after: int,
    ) -> list[int]:
        """The seats that answer the next seat's raise before the round comes back to
        us, in turn order (none with two seats)."""
        seats = []
        seat = next_active(observation.dice_counts, after)
        while seat != observation.seat and seat in posts:
            seats.append(seat)
            seat = next_active(observation.dice_counts, seat)
        return seats

    def returns(
        self,
        bid: Bid,
        later: list[int],
        posts: dict[int, tuple[IntArray, FloatArray]],
        observation: Observation,
        wild: int | None,
    ) -> float:
        """P(the round comes back to us once the next seat has raised ``bid``): every
        later seat raises in turn. Each faces a bid one higher than ``bid`` (the next
        seat's least raise on the same face, an approximation; capped at the dice on
        the table) and challenges by its
        learned habit in its own odds, averaged over its posterior hands. Whoever
        challenges there, the loser is not us."""
        raised = Bid(min(bid.quantity + 1, observation.total_dice), bid.face)
        survive = 1.0
        for seat in later:
            counting, weights = posts[seat]
            unknown = observation.total_dice - observation.dice_counts[seat]
            challenge = challenge_probability(
                counting, raised, unknown, wild, self.habit.weights(seat)
            )
            survive *= 1.0 - float(np.dot(weights, challenge))
        return survive

    # -- sum rounds ------------------------------------------------------------

    def score_sum_round(self, observation: Observation, legal: list[Action]) -> list[Scored]:
        mine = observation.own_dice[0] if observation.own_dice else 0
        opponent = next_active(observation.dice_counts, observation.seat)
        dice = np.arange(1, SIDES + 1)
        weights = np.ones(SIDES) / SIDES
        for placed in observation.bids:
            if placed.seat == opponent and isinstance(placed.bid, SumBid):
                weights = weights * (SUM_BID_FLOOR + sum_odds(dice, placed.bid.total))
        weights = weights / weights.sum()
        habit = self.habit.weights(opponent)
        continuation = continuation_scale(self.habit.mean_threshold(opponent)) / 2
        scored: list[Scored] = []
        last = observation.last_bid
        if isinstance(last, SumBid):
            scored.append(Scored(Challenge(), float(np.dot(weights, mine + dice >= last.total))))
        for action in legal:
            if not isinstance(action, SumBid):
                continue
            true_given = (mine + dice >= action.total).astype(np.float64)
            if action.total >= 2 * SIDES:
                challenge = np.ones(SIDES)
            else:
                challenge = challenge_curves(sum_odds(dice, action.total)) @ habit
            loss = challenge * (1.0 - true_given) + (1.0 - challenge) * continuation
            scored.append(Scored(action, float(np.dot(weights, loss))))
        return scored


def continuation_scale(threshold: float) -> float:
    """The cost scale of being raised by a seat whose challenge threshold is about
    ``threshold``: ``CONTINUATION_SCALE`` from 1/2 up, ``RARE_CHALLENGER_SCALE`` at 0."""
    share = min(1.0, max(0.0, threshold / 0.5))
    return RARE_CHALLENGER_SCALE + (CONTINUATION_SCALE - RARE_CHALLENGER_SCALE) * share


def _candidates(legal: list[Action]) -> list[Bid]:
    """Per face, the lowest ``RAISE_SPAN + 1`` legal quantities."""
    by_face: dict[int, list[Bid]] = {}
    for action in legal:
        if isinstance(action, Bid):
            by_face.setdefault(action.face, []).append(action)
    out: list[Bid] = []
    for bids in by_face.values():
        bids.sort(key=lambda bid: bid.quantity)
        out.extend(bids[: RAISE_SPAN + 1])
    return out


def _is_top(bid: Bid, observation: Observation) -> bool:
    """Whether no raise of ``bid`` exists (the next seat must challenge)."""
    return bid.quantity >= observation.total_dice and bid.face == SIDES


def _height(action: Action) -> int:
    if isinstance(action, SumBid):
        return action.total
    if isinstance(action, Bid):
        return action.quantity
    return -1


if __name__ == "__main__":
    run(PosteriorLiarsDiceBot)
