"""What a Liar's Poker claim says about the claimer's cards: the strong bot's opponent model.

A claim is evidence about the hand behind it. A starter that names "a pair of kings
with Q, 9 and 4" almost always holds it: a truthful announcer names what it holds,
and even a liar names something near what it holds. Sampling the starter's hand from
the whole deck and giving a lie a fixed likelihood (what the strong bot did before
issue 22) ignores that, and calls every such claim a near-certain lie.

The model here: the claimer names ``c`` with likelihood ``a(c)`` when its cards
contain ``c`` and ``b(c)`` when they do not. The posterior over its hand is then the
prior over hands (five cards from the deck, or the cards we passed on plus the
exchanged draws) restricted to hands that contain ``c``, with mass ``P(true)``, and
to hands that do not, with mass ``1 - P(true)``, where

    logit P(true) = logit P(c in hand) + log(a(c) / b(c)).

The log likelihood ratio depends on the claim and on this opponent, so
:class:`ClaimModel` fits ``logit P(true)`` as a logistic regression on the claim's
features with a Gaussian prior (a Bayesian logistic model, refitted by Newton's
method), updated with this opponent's record of claims shown true or false within the
match (in a two-seat game every claim we answer is shown to us: we see the cards when
we accept, and everyone sees them at a challenge). Features per context:

* ``OPENING``: the claimer's hand is five unknown cards (a starter's opening claim,
  or a claim by a seat we did not pass to). The feature is the claim's *strength*,
  the share of random hands whose best announcement is at least the claim. An
  announcer that names its best hand produces strengths spread evenly over 0..1; a
  liar reaching for a high claim produces strengths near 0.
* ``PASSED``: we passed the cards on and the claimer exchanged ``k`` of them. The
  features are the chance that its best announcement reaches the claim and
  ``P(c in hand)``, both over the kept cards plus random draws (the prior term of
  the formula above, whose weight is learned too).

In both contexts a claim that is the cheapest raise over the last one is flagged:
that is where forced liars go, and rarely what an honest hand's best is.

:func:`hand_containing` draws hands that contain a claim (for the accept value when a
claim is true but rare in random hands, where rejection sampling finds none).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from itertools import combinations

from sdk.liars_poker import (
    JOKER,
    POKER_DECK,
    Announcement,
    Card,
    Category,
    best_announcement,
    contains,
    index_of,
    required_ranks,
)

STRENGTH_HANDS = 3000
"""Fixed random hands whose best announcements price a claim's strength."""
CLIP = 1e-3
"""Probabilities are clipped to ``[CLIP, 1 - CLIP]`` before taking logits."""
NEWTON_STEPS = 8
"""Newton iterations per refit (the fit starts from the last one)."""
CONSTRUCT_TRIES = 6
"""Attempts per hand in :func:`hand_containing` before it gives up."""


class Context(Enum):
    """What we know of the claimer's cards, which decides the claim's features."""

    OPENING = "opening"
    PASSED = "passed"


@dataclass(frozen=True, slots=True)
class Prior:
    """Gaussian prior of a context's weights: means and a shared standard deviation."""

    means: tuple[float, ...]
    sd: float


PRIORS: dict[Context, Prior] = {
    # P(true) = σ(2.6 + 0.55 logit(strength) - minimal): strength 0.5 → 0.93,
    # 0.1 → 0.80, 0.02 → 0.61, 0.001 → 0.28. Before issue 22 the bot's implied
    # value for a starter's claim was about 0.2 whatever it was.
    Context.OPENING: Prior((2.6, 0.55, -1.0), 1.5),
    # A claim after an exchange: believed unless it is the cheapest raise, and the
    # less so the less the kept cards and draws reach it.
    Context.PASSED: Prior((1.5, 0.3, -2.5, 0.3), 1.5),
}


def logit(p: float) -> float:
    p = min(max(p, CLIP), 1.0 - CLIP)
    return math.log(p / (1.0 - p))


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


@cache
def _best_indices() -> tuple[int, ...]:
    rng = random.Random(22_05)
    return tuple(
        sorted(
            index_of(best_announcement(rng.sample(POKER_DECK, 5))) for _ in range(STRENGTH_HANDS)
        )
    )


@cache
def strength(claim: Announcement) -> float:
    """Share of random five-card hands whose best announcement is at least ``claim``.

    Half a hand is added so that no claim has strength 0 (five aces is possible).
    """
    bests = _best_indices()
    at_least = len(bests) - bisect_left(bests, index_of(claim))
    return (at_least + 0.5) / (len(bests) + 1)


def features(
    context: Context, claim: Announcement, minimal: bool, reach: float, containment: float
) -> tuple[float, ...]:
    """The regression inputs of a claim (a leading 1 for the intercept).

    ``minimal``: the claim is the lowest announcement above the last one (the
    cheapest lie, and rarely what a hand that beats the last one holds at best).
    ``reach``: P(the claimer's best announcement is at least the claim) under the
    prior over its hand. ``containment``: P(its hand contains the claim), the same.
    """
    flag = 1.0 if minimal else 0.0
    if context is Context.OPENING:
        return (1.0, logit(strength(claim)), flag)
    return (1.0, logit(reach), flag, logit(containment))


@dataclass(slots=True)
class ClaimModel:
    """``P(claim true)`` per context, learned from the claims shown true or false.

    One Bayesian logistic regression per :class:`Context` (MAP weights, refitted by
    Newton's method whenever new evidence arrived).
    """

    weights: dict[Context, list[float]] = field(
        default_factory=lambda: {c: list(p.means) for c, p in PRIORS.items()}
    )
    data: dict[Context, list[tuple[tuple[float, ...], bool]]] = field(
        default_factory=lambda: {c: [] for c in PRIORS}
    )
    _stale: set[Context] = field(default_factory=set)

    def p_true(self, context: Context, x: Sequence[float]) -> float:
        """The posterior chance that a claim with features ``x`` is true."""
        if context in self._stale:
            self._fit(context)
        w = self.weights[context]
        return sigmoid(sum(wi * xi for wi, xi in zip(w, x, strict=True)))

    def observe(self, context: Context, x: tuple[float, ...], truthful: bool) -> None:
        """Record a claim with features ``x`` that was shown true or false."""
        self.data[context].append((x, truthful))
        self._stale.add(context)

    def _fit(self, context: Context) -> None:
        prior = PRIORS[context]
        w = self.weights[context]
        n = len(w)
        precision = 1.0 / (prior.sd * prior.sd)
        for _ in range(NEWTON_STEPS):
            grad = [-(wi - mi) * precision for wi, mi in zip(w, prior.means, strict=True)]
            hess = [[precision if i == j else 0.0 for j in range(n)] for i in range(n)]
            for x, truthful in self.data[context]:
                p = sigmoid(sum(wi * xi for wi, xi in zip(w, x, strict=True)))
                residual = (1.0 if truthful else 0.0) - p
                curvature = p * (1.0 - p)
                for i in range(n):
                    grad[i] += residual * x[i]
                    for j in range(n):
                        hess[i][j] += curvature * x[i] * x[j]
            step = _solve(hess, grad)
            w = [wi + si for wi, si in zip(w, step, strict=True)]
            if max(abs(s) for s in step) < 1e-6:
                break
        self.weights[context] = w
        self._stale.discard(context)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix⁻¹ · vector`` by Gaussian elimination (the Hessian is positive definite)."""
    n = len(vector)
    rows = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                for c in range(col, n + 1):
                    rows[r][c] -= factor * rows[col][c]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def reachable(passed: Sequence[Card], exchanged: int, claim: Announcement) -> bool:
    """Whether some ``5 - exchanged`` of the ``passed`` cards plus ``exchanged`` draws
    can contain ``claim`` (the draws taken as jokers, the best they could be).

    What the seat that passed the cards can rule out: a claim that is not reachable
    is a certain lie to it.
    """
    jokers = (JOKER,) * exchanged
    return any(
        contains((*kept, *jokers), claim) for kept in combinations(passed, len(passed) - exchanged)
    )


def hand_containing(
    claim: Announcement, stock: Sequence[Card], rng: random.Random
) -> list[Card] | None:
    """Five cards of ``stock`` that contain ``claim``, or ``None`` if none were found.

    The claim's named cards (random suits; jokers where the stock runs short of a
    rank), then random other cards of the stock. Not exactly uniform over the hands
    containing the claim, but close where it matters: which other cards come along.
    """
    for _ in range(CONSTRUCT_TRIES):
        free = list(range(len(stock)))
        rng.shuffle(free)
        chosen = _named_cards(claim, stock, free, rng)
        if chosen is None:
            continue
        rest = [i for i in free if i not in chosen]
        hand = [stock[i] for i in chosen + rest[: 5 - len(chosen)]]
        if len(hand) == 5 and contains(hand, claim):
            return hand
    return None


def _named_cards(
    claim: Announcement, stock: Sequence[Card], order: list[int], rng: random.Random
) -> list[int] | None:
    """Stock positions (in ``order``'s random order) showing the claim's named cards."""
    jokers = [i for i in order if stock[i].rank == 0]
    category = claim.category
    if category is Category.FLUSH or category is Category.STRAIGHT_FLUSH:
        suit = rng.choice([1, 2, 3, 4])
        top = claim.ranks[0]
        if category is Category.STRAIGHT_FLUSH:
            wanted = set(required_ranks(claim))
        else:
            lower = rng.sample(range(2, top), 4)
            wanted = {top, *lower}
        chosen = [i for i in order if stock[i].suit == suit and stock[i].rank in wanted]
        missing = len(wanted) - len(chosen)
        if missing > len(jokers):
            return None
        return chosen + jokers[:missing]
    chosen = []
    short = 0
    for rank, need in required_ranks(claim).items():
        cards = [i for i in order if stock[i].rank == rank][:need]
        chosen += cards
        short += need - len(cards)
    if short > len(jokers):
        return None
    return chosen + jokers[:short]
