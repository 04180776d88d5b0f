"""A Liar's Poker bot that samples the announcer's possible hands and learns its habits.

    python -m example_bots.liars_poker_strong

What it models, and why:

* **The announcer's five cards, by sampling.** When we passed the cards on
  ourselves we know them; the announcer then exchanged a public number ``k`` of
  them. We assume it kept the ``5 - k`` cards that best support its
  announcement and draw the ``k`` new cards from the 49 cards that were not in
  the hand (``SAMPLES`` deals, fixed per decision from ``self.rng``). A starter's
  hand, or one we never held, is five cards from the whole 54-card deck.
* **What the claim says about those cards** (issue 22): a claimer is far more
  likely to name a hand it holds than one it lacks, so the posterior over its
  hand is the prior split into the hands that contain the claim (mass
  ``P(true)``) and those that do not. ``P(true)`` comes from
  :class:`~example_bots.poker_claims.ClaimModel`, a Bayesian logistic model
  of the claim's features (its strength among random hands' best announcements
  for a starter; for a claim on cards we passed, how well the kept cards and
  draws reach it; whether it is the cheapest raise), refitted on this opponent's
  claims shown true or false during the match. A claim the cards we passed rule
  out (no ``5 - k`` of them plus ``k`` wild draws hold it) is a certain lie, one
  after no exchange is known exactly. The old model sampled a starter's hand from
  the whole deck with a fixed 0.02 lie likelihood, which made every specific
  best-hand claim look like a lie (0 % against ``liars_poker_truthful``).
* **How the next seat answers**, a challenge rate per plausibility bin of our
  announcement (the share of a fixed sample of random hands containing it) and
  its challenge rates on our true and false claims, Beta-updated on every answer.
* **Decisions by one-step values.** Challenging wins with the chance the claim is
  false. Accepting is worth, over the posterior hands, the chance we can then
  announce something true above it (directly, or after an exchange) times the
  value of a true claim against this answerer, plus the rest times the value of
  a forced lie. Announcing compares the lowest and the highest true
  announcements and the smallest lies by their chance of being challenged and
  what the next seat inherits; a lie the next seat can rule out (it passed us
  the cards and saw how many we exchanged) counts as certainly challenged, and
  the two smallest lies it cannot rule out are candidates too.

Decisions take a few milliseconds (a few hundred sampled hands, cached
plausibilities).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations, islice

from example_bots.poker_claims import (
    ClaimModel,
    Context,
    features,
    hand_containing,
    reachable,
    strength,
)
from example_bots.rates import Rate
from sdk import Bot, run
from sdk.bot import MatchInfo
from sdk.liars_poker import (
    HIGHEST,
    JOKER,
    POKER_DECK,
    Accept,
    Action,
    Announce,
    Announcement,
    Card,
    Category,
    Challenge,
    Claim,
    Exchange,
    Observation,
    all_announcements,
    announcements_above,
    best_announcement,
    contains,
    exchange_success_probability,
    exchanges,
    lowest_contained_above,
    remove_cards,
    required_ranks,
)

SAMPLES = 150
"""Sampled announcer hands per answer."""
SUPPORT_SAMPLES = 24
"""Sampled draws per kept subset when guessing which cards the announcer kept."""
EXCHANGE_SAMPLES = 24
"""Sampled draws per candidate exchange."""
TRUE_SAMPLES = 30
"""Hands containing an opening claim, built when too few random ones contain it."""
SAFE_SCAN = 400
"""Announcements above the last scanned for lies the next seat cannot rule out."""
SAFE_LIES = 2
"""Such lies added to the candidates."""
PLAUSIBILITY_HANDS = 600
"""Fixed random hands that price an announcement's plausibility."""
EXCHANGE_HELP = 0.35
"""Guess of the chance an exchange lets a hand that cannot beat a claim beat it."""
CONTINUE = 0.5
"""Value of a deal that goes on past the next answer."""
FACING_TRUTH = 0.4
"""Our chance to win a deal when the next seat can make a true announcement to us."""
FACING_LIE = 0.6
"""Our chance to win a deal when the next seat has to lie to us."""
BIN_EDGES = (0.05, 0.2, 0.45)
BIN_PRIOR = (0.8, 0.6, 0.4, 0.25)


@dataclass(slots=True)
class OpponentModel:
    """The other seats' habits: how true their claims are, and how they answer ours."""

    claims: ClaimModel = field(default_factory=ClaimModel)
    challenge_by_bin: list[Rate] = field(default_factory=lambda: [Rate(p) for p in BIN_PRIOR])
    challenge_truth: Rate = field(default_factory=lambda: Rate(0.3))
    challenge_lie: Rate = field(default_factory=lambda: Rate(0.5))

    def challenge_rate(self, plausibility: float) -> float:
        return self.challenge_by_bin[_bin(plausibility)].mean


@dataclass(frozen=True, slots=True)
class Summary:
    """What containment depends on: rank counts, jokers, and whether one suit."""

    have: dict[int, int]
    jokers: int
    one_suit: bool

    @staticmethod
    def of(cards: Sequence[Card]) -> Summary:
        have: dict[int, int] = {}
        suits = set()
        jokers = 0
        for card in cards:
            if card.rank == 0:
                jokers += 1
            else:
                have[card.rank] = have.get(card.rank, 0) + 1
                suits.add(card.suit)
        return Summary(have, jokers, len(suits) <= 1)


@cache
def _needs(announcement: Announcement) -> tuple[tuple[int, int], ...]:
    return tuple(required_ranks(announcement).items())


def fast_contains(summary: Summary, announcement: Announcement) -> bool:
    """``contains`` on a precomputed :class:`Summary` (same answer, several times cheaper)."""
    category = announcement.category
    if category is Category.FLUSH or category is Category.STRAIGHT_FLUSH:
        if not summary.one_suit:
            return False
        top = announcement.ranks[0]
        if category is Category.STRAIGHT_FLUSH:
            allowed = set(required_ranks(announcement))
            return all(rank in allowed for rank in summary.have)
        return all(rank <= top for rank in summary.have) and (
            top in summary.have or summary.jokers > 0
        )
    missing = 0
    have = summary.have
    for rank, need in _needs(announcement):
        short = need - have.get(rank, 0)
        if short > 0:
            missing += short
    return missing <= summary.jokers


def _bin(plausibility: float) -> int:
    return sum(plausibility >= edge for edge in BIN_EDGES)


@cache
def _plausibility_hands() -> tuple[Summary, ...]:
    rng = random.Random(20_26)
    return tuple(Summary.of(rng.sample(POKER_DECK, 5)) for _ in range(PLAUSIBILITY_HANDS))


@cache
def plausibility(announcement: Announcement) -> float:
    """Share of a fixed sample of random five-card hands that contain ``announcement``."""
    hands = _plausibility_hands()
    return sum(fast_contains(hand, announcement) for hand in hands) / len(hands)


def sample_hands(
    passed: tuple[Card, ...] | None,
    exchanged: int | None,
    claim: Announcement,
    rng: random.Random,
    samples: int = SAMPLES,
) -> list[list[Card]]:
    """Possible announcer hands: the best-supporting kept cards plus random draws."""
    if passed is None or exchanged is None:
        return [rng.sample(POKER_DECK, 5) for _ in range(samples)]
    stock = list(remove_cards(POKER_DECK, passed))  # one copy each: jokers are equal
    if exchanged == 0:
        return [list(passed)] * samples
    best_kept: tuple[Card, ...] = passed[: 5 - exchanged]
    best_score = -1.0
    for kept in combinations(passed, 5 - exchanged):
        score = sum(
            fast_contains(Summary.of(kept + tuple(rng.sample(stock, exchanged))), claim)
            for _ in range(SUPPORT_SAMPLES)
        )
        if score > best_score:
            best_kept, best_score = kept, score
    return [list(best_kept) + rng.sample(stock, exchanged) for _ in range(samples)]


@cache
def warm_caches() -> None:
    """Build the 8,596 announcements and the plausibility hands once (~0.2 s).

    Called from :meth:`StrongLiarsPokerBot.start`, which the referee times against
    the start-up limit (seconds), so no decision pays for a cold cache.
    """
    all_announcements()
    _plausibility_hands()
    strength(HIGHEST)


class StrongLiarsPokerBot(Bot[Observation, Action]):
    """A posterior over the claimer's cards given its claim, plus its answering habits."""

    game = "liars_poker"
    name = "liars-poker-strong"

    def __init__(self) -> None:
        super().__init__()
        self.model = OpponentModel()
        self._passed: dict[tuple[int, int], tuple[Card, ...]] = {}
        """(deal, claim index of our announcement) -> the cards we announced on."""
        self._received: dict[int, tuple[Card, ...]] = {}
        """deal -> the cards we last accepted in it, before our exchange."""
        self._ours: dict[tuple[int, int], tuple[int, bool]] = {}
        """(deal, claim index) -> (plausibility bin, whether our claim was true)."""
        self._pending: dict[tuple[int, int], tuple[Context, tuple[float, ...]]] = {}
        """(deal, claim index) -> the features of a claim we answered, until shown."""
        self._counted: set[tuple[int, int]] = set()
        self._seen_results = 0

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        warm_caches()

    # -- learning -------------------------------------------------------------------

    def _learn(self, observation: Observation) -> None:
        for result in observation.results[self._seen_results :]:
            self._learn_answers(result.deal, result.claims, challenged_last=True)
            self._shown((result.deal, len(result.claims) - 1), result.truthful)
        self._seen_results = len(observation.results)
        self._learn_answers(observation.deal, observation.claims, challenged_last=False)

    def _shown(self, key: tuple[int, int], truthful: bool) -> None:
        """A claim we answered was shown true or false: one more record for the model."""
        pending = self._pending.pop(key, None)
        if pending is not None:
            self.model.claims.observe(pending[0], pending[1], truthful)

    def _learn_answers(
        self, deal: int, claims: tuple[Claim, ...], *, challenged_last: bool
    ) -> None:
        """Count the answers to our claims: accepted if a later claim exists."""
        for index in range(len(claims)):
            key = (deal, index)
            if key in self._counted or key not in self._ours:
                continue
            if index + 1 < len(claims):
                challenged = False
            elif challenged_last:
                challenged = True
            else:
                continue
            self._counted.add(key)
            bin_index, truthful = self._ours[key]
            self.model.challenge_by_bin[bin_index].observe(challenged)
            rate = self.model.challenge_truth if truthful else self.model.challenge_lie
            rate.observe(challenged)

    # -- acting ---------------------------------------------------------------------

    def act(self, observation: Observation) -> Action:
        self._learn(observation)
        if observation.phase == "respond":
            return self._answer(observation)
        hand = observation.hand
        assert hand is not None
        if observation.phase == "exchange":
            claims = observation.claims
            if claims:
                self._shown(
                    (observation.deal, len(claims) - 1), contains(hand, claims[-1].announcement)
                )
            self._received[observation.deal] = tuple(hand)
            return self._exchange(observation, hand)
        return self._announce(observation, hand)

    def _answer(self, observation: Observation) -> Action:
        claims = observation.claims
        claim = claims[-1].announcement
        if claim == HIGHEST:
            return Challenge()
        p_true, hands = self._posterior(observation)
        model = self.model
        win_true = model.challenge_truth.mean + (1.0 - model.challenge_truth.mean) * CONTINUE
        win_lie = (1.0 - model.challenge_lie.mean) * CONTINUE
        true_hands, false_hands = hands
        accept_value = p_true * _accept_value(true_hands, claim, win_true, win_lie) + (
            1.0 - p_true
        ) * _accept_value(false_hands, claim, win_true, win_lie)
        return Challenge() if 1.0 - p_true > accept_value else Accept()

    def _posterior(
        self, observation: Observation
    ) -> tuple[float, tuple[list[list[Card]], list[list[Card]]]]:
        """P(the standing claim is true), and sampled claimer hands with and without it.

        The posterior over the claimer's hand is the prior split by containment and
        weighted by P(true) (see :mod:`example_bots.poker_claims`).
        """
        claims = observation.claims
        claim = claims[-1].announcement
        key = (observation.deal, len(claims) - 1)
        passed = self._passed.get((observation.deal, len(claims) - 2))
        exchanged = claims[-1].exchanged
        if passed is not None and exchanged is not None:
            context = Context.PASSED
            hands = sample_hands(passed, exchanged, claim, self.rng)
        else:
            context = Context.OPENING
            hands = [self.rng.sample(POKER_DECK, 5) for _ in range(SAMPLES)]
        bests = [best_announcement(hand) for hand in hands]
        true_hands: list[list[Card]] = []
        false_hands: list[list[Card]] = []
        for hand in hands:
            (true_hands if fast_contains(Summary.of(hand), claim) else false_hands).append(hand)
        if context is Context.PASSED and (
            exchanged == 0 or not reachable(passed or (), exchanged or 0, claim)
        ):
            return (1.0 if true_hands else 0.0), (true_hands, false_hands)
        containment = (len(true_hands) + 0.5) / (len(hands) + 1.0)
        reach = (sum(best >= claim for best in bests) + 0.5) / (len(hands) + 1.0)
        if context is Context.OPENING and len(true_hands) < TRUE_SAMPLES:
            built = (hand_containing(claim, POKER_DECK, self.rng) for _ in range(TRUE_SAMPLES))
            true_hands += [hand for hand in built if hand is not None]
        before = claims[-2].announcement if len(claims) > 1 else None
        minimal = claim == announcements_above(before)[0]
        x = features(context, claim, minimal, reach, containment)
        self._pending[key] = (context, x)
        return self.model.claims.p_true(context, x), (true_hands, false_hands)

    def _exchange(self, observation: Observation, hand: tuple[Card, ...]) -> Action:
        last = observation.last
        if last is None or best_announcement(hand) > last:
            return Exchange(())
        best: tuple[float, int] | None = None
        choice = Exchange(())
        for option in exchanges(hand):
            odds = exchange_success_probability(
                hand, option.discards, last, self.rng, samples=EXCHANGE_SAMPLES
            )
            key = (odds, -len(option.discards))
            if best is None or key > best:
                best, choice = key, option
        return choice

    def _known_to_next(self, observation: Observation) -> list[Summary] | None:
        """What the next seat knows of our cards, if it is the seat that passed them:
        every ``5 - k`` of those cards plus ``k`` jokers (``k`` our exchange count).
        An announcement none of them contains is a certain lie to it."""
        claims = observation.claims
        received = self._received.get(observation.deal)
        k = observation.exchanged
        if not claims or received is None or k is None:
            return None
        if claims[-1].seat != (observation.seat + 1) % observation.num_seats:
            return None
        jokers = (JOKER,) * k
        return [Summary.of((*kept, *jokers)) for kept in combinations(received, 5 - k)]

    def _announce(self, observation: Observation, hand: tuple[Card, ...]) -> Action:
        last = observation.last
        candidates: list[Announcement] = []
        lowest = lowest_contained_above(hand, last)
        top = best_announcement(hand)
        if lowest is not None:
            candidates += [lowest, top]
        above = announcements_above(last)
        known = self._known_to_next(observation)
        lies = [a for a in above[:3] if a not in candidates]
        if known is not None:
            safe = (a for a in above[:SAFE_SCAN] if _reaches(known, a))
            lies += [a for a in islice(safe, SAFE_LIES) if a not in candidates + lies]
        candidates += lies
        model = self.model
        best_value = -1.0
        choice = candidates[0]
        for candidate in candidates:
            truthful = contains(hand, candidate)
            challenge = model.challenge_rate(plausibility(candidate))
            if candidate == HIGHEST or (known is not None and not _reaches(known, candidate)):
                challenge = 1.0  # a certain lie to the seat that passed us the cards
            # What the next seat inherits: our cards, and a claim to beat.
            inherit = 1.0 if top > candidate else EXCHANGE_HELP
            after_accept = inherit * FACING_TRUTH + (1.0 - inherit) * FACING_LIE
            if truthful:
                value = challenge + (1.0 - challenge) * after_accept
            else:
                value = (1.0 - challenge) * after_accept
            if value > best_value + 1e-9:
                best_value, choice = value, candidate
        key = (observation.deal, len(observation.claims))
        self._passed[key] = tuple(hand)
        self._ours[key] = (_bin(plausibility(choice)), contains(hand, choice))
        return Announce(choice)


def _reaches(summaries: Sequence[Summary], announcement: Announcement) -> bool:
    return any(fast_contains(summary, announcement) for summary in summaries)


def _accept_value(
    hands: Sequence[Sequence[Card]], claim: Announcement, win_true: float, win_lie: float
) -> float:
    """Our chance to win the deal after accepting, over the claimer's possible hands:
    we can then announce truthfully above the claim (directly, or with ``EXCHANGE_HELP``
    after an exchange) or must lie."""
    if not hands:
        return EXCHANGE_HELP * win_true + (1.0 - EXCHANGE_HELP) * win_lie
    total = 0.0
    for hand in hands:
        beatable = 1.0 if best_announcement(hand) > claim else EXCHANGE_HELP
        total += beatable * win_true + (1.0 - beatable) * win_lie
    return total / len(hands)


if __name__ == "__main__":
    run(StrongLiarsPokerBot)
