"""How often each Liar's Dice opponent challenges, learned within the match.

A helper of ``liars_dice_posterior``, not a bot: hence no ``liars_dice_`` prefix,
which marks the runnable bots that ``tests/test_cli_bot_scaffold.py`` starts.

The posterior bot's lookahead asks: if I raise to ``b``, will the next seat
challenge? A fixed answer ("it challenges when its own odds of ``b`` fall below
1/2", the probability bot's rule) is right against one opponent and wrong against
every other: an opponent that challenges only hopeless bids lets us bluff, one
that challenges anything makes every bid we place a bet on its truth.

**The model.** A seat holding a hand sees a bid with *its own* odds ``x`` (every
die it cannot see uniform, the simple bots' estimate). It challenges with
probability ``noise + (1 - 2 noise) * logistic(SLOPE * (logit t - logit x))``: a
soft threshold ``t`` on its odds, in logit space so that a threshold of 5 % is as
sharp as one of 50 %. ``t`` is the seat's habit, one of ``THRESHOLD_GRID``
(0.005 never challenges a possible bid, 0.995 challenges nearly everything).

**The evidence.** A challenge reveals every die, so after each round every answer
the seat gave to a bid (a raise, or the final challenge) is a labelled example
with its exact ``x``. The posterior over the grid starts from a prior centred on
1/2 (the old fixed assumption) and is updated by every revealed answer, whoever
made the bid it answered; the lookahead then averages the challenge
probability over that posterior, so it moves from the prior to the opponent's
real habit as the rounds come in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from sdk.liars_dice import Bid, RoundResult, SumBid

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

SIDES = 6
THRESHOLD_GRID: FloatArray = np.array(
    [0.005, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 0.995]
)
"""Candidate challenge thresholds (on the seat's own odds of the bid)."""
THRESHOLD_PRIOR_MEAN = 0.0
THRESHOLD_PRIOR_SD = 1.5
"""A Gaussian prior on ``logit t``: centred on 1/2, wide enough that a handful of
revealed answers can move it to 5 % or 95 %."""
SLOPE = 4.0
"""Steepness of the challenge curve in logit space (the old fixed model's slope at 1/2)."""
NOISE = 0.03
"""Least probability of either answer: no seat is modelled as fully deterministic,
so one surprising answer cannot rule a threshold out."""
ODDS_CLIP = 1e-4


@lru_cache(maxsize=256)
def binomial_tail(n: int, p: float) -> FloatArray:
    """``tail[k] = P(Binomial(n, p) >= k)`` for k in 0..n+1."""
    pmf = np.array([math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)])
    tail = np.concatenate([np.cumsum(pmf[::-1])[::-1], [0.0]])
    return np.asarray(np.minimum(tail, 1.0), dtype=np.float64)


def tail_at(tail: FloatArray, need: IntArray | int) -> FloatArray:
    """``P(X >= need)`` from a tail table, for needs below 0 or above its end too."""
    index = np.clip(np.asarray(need), 0, len(tail) - 1)
    result = tail[index]
    return np.where(np.asarray(need) <= 0, 1.0, result)


def logistic(x: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-x)), dtype=np.float64)


def _logit(p: FloatArray) -> FloatArray:
    clipped = np.clip(p, ODDS_CLIP, 1.0 - ODDS_CLIP)
    return np.asarray(np.log(clipped / (1.0 - clipped)), dtype=np.float64)


_LOGIT_GRID = _logit(THRESHOLD_GRID)


def challenge_curves(odds: FloatArray) -> FloatArray:
    """P(challenge | own odds, threshold): shape ``odds.shape + (len(grid),)``."""
    x = _logit(np.asarray(odds, dtype=np.float64))[..., None]
    return NOISE + (1.0 - 2.0 * NOISE) * logistic(SLOPE * (_LOGIT_GRID - x))


def face_odds(held: IntArray | int, bid: Bid, unknown: int, wild: int | None) -> FloatArray:
    """A seat's own odds that ``bid`` is true, holding ``held`` dice that count for it
    and treating its ``unknown`` unseen dice as uniform."""
    p = 1.0 / 3.0 if wild is not None and bid.face != wild else 1.0 / 6.0
    return tail_at(binomial_tail(unknown, p), bid.quantity - np.asarray(held))


def sum_odds(die: IntArray | int, total: int) -> FloatArray:
    """A seat's own odds that its ``die`` plus one uniform die reach ``total``."""
    need = total - np.asarray(die)
    return np.asarray(np.clip((SIDES + 1 - need) / SIDES, 0.0, 1.0), dtype=np.float64)


@dataclass
class ChallengeHabit:
    """Per opponent: the log-likelihood of its revealed answers on each threshold."""

    rounds_seen: int = 0
    log_lik: dict[int, FloatArray] = field(default_factory=dict)

    def update(self, history: tuple[RoundResult, ...], wild_face: int | None, me: int) -> None:
        """Take in every round revealed since the last call."""
        for result in history[self.rounds_seen :]:
            wild = wild_face if result.wilds_active else None
            total = sum(len(dice) for dice in result.dice)
            answers = [placed.seat for placed in result.bids[1:]] + [result.challenger]
            for placed, seat in zip(result.bids, answers, strict=True):
                if seat == me or placed.seat == seat:
                    continue
                odds = _answer_odds(placed.bid, result.dice[seat], total, wild)
                if odds is None:
                    continue
                challenged = seat == result.challenger and placed is result.bids[-1]
                curve = challenge_curves(np.array([odds]))[0]
                row = np.log(curve if challenged else 1.0 - curve)
                self.log_lik[seat] = self.log_lik.get(seat, np.zeros_like(THRESHOLD_GRID)) + row
        self.rounds_seen = len(history)

    def weights(self, seat: int) -> FloatArray:
        """The posterior over ``THRESHOLD_GRID`` for ``seat``."""
        log_prior = -((_LOGIT_GRID - THRESHOLD_PRIOR_MEAN) ** 2) / (2 * THRESHOLD_PRIOR_SD**2)
        score = log_prior + self.log_lik.get(seat, np.zeros_like(THRESHOLD_GRID))
        w = np.exp(score - score.max())
        return np.asarray(w / w.sum(), dtype=np.float64)

    def mean_threshold(self, seat: int) -> float:
        """The posterior mean of ``seat``'s challenge threshold."""
        return float(np.dot(self.weights(seat), THRESHOLD_GRID))

    def challenge(self, seat: int, odds: FloatArray) -> FloatArray:
        """P(``seat`` challenges | its own odds), averaged over its threshold posterior."""
        return np.asarray(challenge_curves(odds) @ self.weights(seat), dtype=np.float64)


def _answer_odds(
    bid: Bid | SumBid, hand: tuple[int, ...], total: int, wild: int | None
) -> float | None:
    """The answering seat's own odds of ``bid``, from its revealed hand (None if it had none)."""
    if not hand:
        return None
    if isinstance(bid, SumBid):
        return float(sum_odds(hand[0], bid.total)) if len(hand) == 1 else None
    held = sum(1 for die in hand if die == bid.face or (wild is not None and die == wild))
    return float(face_odds(held, bid, total - len(hand), wild))
