"""A Liar's Poker Dice bot that enumerates the opponent's dice and learns its habits.

    python -m example_bots.liars_poker_dice_strong

What it models, and why:

* **The opponent's dice, exactly.** After it accepts our declaration the opponent
  holds the dice we passed and re-rolls a public number ``k`` of them. We assume it
  re-rolled the ``k`` dice that gave it the best chance to beat our declaration
  and enumerate every result of those ``k`` dice (at most 6^5 sorted outcomes:
  252 weighted tuples). An opening declaration is made on a fresh throw.
* **How the opponent declares**, a small generative model whose parameters are
  Beta-distributed and updated on every declaration whose dice we get to see (we
  see them when we accept, and when a challenge reveals them): with dice that
  beat the hand to beat it names its true hand, inflates it by one to three
  steps (rate ``inflate``) or understates it; with dice that do not beat it, it
  must lie, and names the smallest legal hand (rate ``minimal``) or one higher.
  *How far* it inflates, and how far above the smallest legal hand it lies, are
  learned too (:class:`GapModel`: pseudo-counts per gap in ranks, a prior that
  expects small gaps — 1..3 steps of inflation, 1..5 ranks of lying — but gives
  every gap up to the top hand a nonzero likelihood, plus one count per gap seen).
  Until issue 31 lies above those spreads had likelihood 0, and a bot that lied
  just past them was believed whenever a true hand could explain its claim.
  Bayes' rule over the enumerated dice then gives the chance the claim is
  true — much sharper than "could it have been reached", which is all the
  heuristic asks.
* **How the opponent answers**, a challenge rate per bin of the claim's
  plausibility *from the opponent's side* (the chance, seen from the dice it
  passed us and our public re-roll count, that our claim was reachable), again
  Beta-updated on each of its answers; plus its challenge rate on our true and
  our false claims.
* **Decisions by one-step values.** Challenging wins with the chance the claim is
  false; accepting is valued over the posterior dice: the best re-roll's chance
  to beat the claim, times what a true or a forced-false declaration of ours is
  worth against this opponent. Declaring weighs every legal hand: the chance it is
  challenged (true hands then win) against the value of the opponent inheriting
  our dice and having to beat it.

Every decision is a few thousand lookups in cached exact distributions: well
under 50 ms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from itertools import combinations_with_replacement

from example_bots.rates import Rate
from sdk import Bot, run
from sdk.bot import MatchInfo
from sdk.liars_poker_dice import (
    ALL_HANDS,
    ALL_POSITION_SETS,
    TOP_HAND,
    Accept,
    Action,
    Challenge,
    Declare,
    Observation,
    Phase,
    Reroll,
    Step,
    StepKind,
    best_reroll,
    evaluate,
    rank,
    rank_distribution,
    roll_outcomes,
)

NUM_HANDS = len(ALL_HANDS)
MAX_GAP = NUM_HANDS - 1
"""The largest gap in ranks a claim can have above anything (the bottom hand to the top)."""
INFLATE_STEPS = 3
"""The prior expects a truthful declarer that inflates to add 1..3 steps."""
LIE_SPREAD = 5
"""The prior expects a forced liar that does not name the minimal hand to name one of
the next 5."""
TAIL_WEIGHT = 0.05
"""Pseudo-counts the prior spreads over every gap beyond its spread, all together
(the gaps within it get 1 each): about 1 % of the prior's mass, so a truthful
opponent changes nothing, while one gap seen beyond the spread weighs as much as
a gap within it."""
CONTINUE = 0.5
"""Value of a round that goes on past the next answer (no better estimate at hand)."""
FACING_TRUTH = 0.4
"""Our chance to win a round when the opponent makes a true declaration to us."""
FACING_LIE = 0.65
"""Our chance to win a round when the opponent is forced to lie to us."""
BIN_EDGES = (0.3, 0.5, 0.7)
"""Plausibility bins (from the opponent's side) for its challenge rate."""
BIN_PRIOR = (0.85, 0.6, 0.3, 0.1)
"""Prior challenge rate per bin: a sensible opponent challenges implausible claims."""


class GapError(ValueError):
    """A gap or spread outside 1..``MAX_GAP``."""


@dataclass(slots=True)
class GapModel:
    """How far above a base rank a declarer goes, learned: Dirichlet pseudo-counts
    per gap ``1..MAX_GAP``.

    The prior gives each gap ``1..spread`` one count and spreads ``TAIL_WEIGHT``
    evenly over the rest, so no gap ever has likelihood 0; every gap seen adds one.
    """

    counts: list[float]
    _prefix: list[float] | None = None

    @classmethod
    def prior(cls, spread: int, tail: float = TAIL_WEIGHT) -> GapModel:
        if not 1 <= spread < MAX_GAP:
            raise GapError(f"spread must be in 1..{MAX_GAP - 1}, got {spread}")
        share = tail / (MAX_GAP - spread)
        return cls([0.0] + [1.0 if gap <= spread else share for gap in range(1, MAX_GAP + 1)])

    def probability(self, gap: int, largest: int) -> float:
        """P(gap | the gap is one of ``1..largest``), the legal ones."""
        if not 1 <= gap <= largest:
            return 0.0
        prefix = self._prefix
        if prefix is None:
            prefix = [0.0]
            for count in self.counts[1:]:
                prefix.append(prefix[-1] + count)
            self._prefix = prefix
        return self.counts[gap] / prefix[min(largest, MAX_GAP)]

    def observe(self, gap: int) -> None:
        if not 1 <= gap <= MAX_GAP:
            raise GapError(f"gap must be in 1..{MAX_GAP}, got {gap}")
        self.counts[gap] += 1.0
        self._prefix = None


@dataclass(slots=True)
class OpponentModel:
    """What we believe about the opponent's declaring and answering habits."""

    inflate: Rate = field(default_factory=lambda: Rate(0.2))
    understate: Rate = field(default_factory=lambda: Rate(0.1))
    minimal: Rate = field(default_factory=lambda: Rate(0.6))
    inflate_gap: GapModel = field(default_factory=lambda: GapModel.prior(INFLATE_STEPS))
    """Steps above its true hand when it inflates."""
    lie_gap: GapModel = field(default_factory=lambda: GapModel.prior(LIE_SPREAD))
    """Ranks above the smallest legal hand when it is forced to lie and does not name it."""
    challenge_by_bin: list[Rate] = field(default_factory=lambda: [Rate(p) for p in BIN_PRIOR])
    challenge_truth: Rate = field(default_factory=lambda: Rate(0.25))
    challenge_lie: Rate = field(default_factory=lambda: Rate(0.5))

    def declare_likelihood(self, declared: int, true: int, beat: int) -> float:
        """P(the opponent declares rank ``declared`` | its dice show rank ``true``).

        ``beat`` is the rank it had to beat (-1 for an opening declaration).
        """
        if true > beat:
            inflate, understate = self.inflate.mean, self.understate.mean
            below = true - beat - 1
            if declared == true:
                return 1.0 - inflate - (understate if below else 0.0)
            if declared > true:
                return inflate * self.inflate_gap.probability(declared - true, MAX_GAP - true)
            if beat < declared < true:
                return understate / below
            return 0.0
        minimal = self.minimal.mean
        if declared == beat + 1:
            return minimal
        if declared > beat + 1:
            return (1.0 - minimal) * self.lie_gap.probability(
                declared - beat - 1, MAX_GAP - beat - 1
            )
        return 0.0

    def observe_declaration(self, declared: int, true: int, beat: int) -> None:
        """Update the declaring habits from one declaration whose dice we saw."""
        if true > beat:
            self.inflate.observe(declared > true)
            if declared > true:
                self.inflate_gap.observe(declared - true)
            if true - beat > 1:
                self.understate.observe(declared < true)
        else:
            self.minimal.observe(declared == beat + 1)
            if declared > beat + 1:
                self.lie_gap.observe(declared - beat - 1)

    def challenge_rate(self, plausibility: float) -> float:
        return self.challenge_by_bin[_bin(plausibility)].mean


def _bin(plausibility: float) -> int:
    return sum(plausibility >= edge for edge in BIN_EDGES)


@cache
def _tail(kept: tuple[int, ...]) -> tuple[float, ...]:
    """``tail[r]`` = P(final rank >= r) keeping sorted ``kept``; ``tail[72] = 0``."""
    dist = rank_distribution(kept)
    tail = [0.0] * (NUM_HANDS + 1)
    for r in range(NUM_HANDS - 1, -1, -1):
        tail[r] = tail[r + 1] + dist[r]
    return tuple(tail)


def _kept(dice: tuple[int, ...], positions: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(v for i, v in enumerate(dice) if i not in positions))


@cache
def _best_tail(dice: tuple[int, ...], min_reroll: int) -> tuple[float, ...]:
    """``best[r]`` = the largest P(final rank >= r) over every re-roll of at least
    ``min_reroll`` of ``dice``: one pass per hand, then every ``beat`` is a lookup."""
    kept = {
        _kept(dice, positions) for positions in ALL_POSITION_SETS if len(positions) >= min_reroll
    }
    return tuple(map(max, zip(*(_tail(k) for k in kept), strict=True)))


def beat_chance(dice: tuple[int, ...], beat: int, min_reroll: int) -> float:
    """Chance that the best re-roll (of at least ``min_reroll`` dice) ends above rank ``beat``."""
    return _best_tail(dice, min_reroll)[beat + 1]


@cache
def opponent_outcomes(
    passed: tuple[int, ...] | None, rerolled: int, beat: int
) -> tuple[tuple[tuple[int, ...], int, float], ...]:
    """Every (dice, rank, probability) the opponent can hold when it declares.

    ``passed`` are the dice we passed it (``None`` for a fresh throw); it re-rolled
    ``rerolled`` of them, assumed to be the ones that best beat rank ``beat``.
    """
    if passed is None:
        kept: tuple[int, ...] = ()
        rolled = 5
    else:
        choices = [p for p in ALL_POSITION_SETS if len(p) == rerolled]
        best = max(choices, key=lambda p: _tail(_kept(passed, p))[beat + 1])
        kept = _kept(passed, best)
        rolled = rerolled
    result = []
    for roll, p in roll_outcomes(rolled):
        dice = tuple(sorted(kept + roll))
        result.append((dice, rank(evaluate(dice)), p))
    return tuple(result)


def plausibility(passed: tuple[int, ...] | None, rerolled: int | None, declared: int) -> float:
    """The chance a declaration of rank ``declared`` was reachable, as its answerer sees it.

    The same quantity the heuristic bot challenges on: the best choice of
    ``rerolled`` dice from ``passed`` (a fresh throw when unknown).
    """
    if passed is None or rerolled is None:
        return _tail(())[declared]
    return max(_tail(_kept(passed, p))[declared] for p in ALL_POSITION_SETS if len(p) == rerolled)


def truth_probability(
    outcomes: tuple[tuple[tuple[int, ...], int, float], ...],
    declared: int,
    beat: int,
    model: OpponentModel,
) -> float:
    """P(the declaration of rank ``declared`` is true | the declarer's policy model)."""
    true_mass = total = 0.0
    for _dice, r, p in outcomes:
        weight = p * model.declare_likelihood(declared, r, beat)
        total += weight
        if r >= declared:
            true_mass += weight
    if total <= 0.0:
        # The model rules the claim out entirely: fall back to the raw odds.
        total = sum(p for _d, _r, p in outcomes)
        true_mass = sum(p for _d, r, p in outcomes if r >= declared)
    return true_mass / total if total else 0.0


@cache
def warm_caches() -> None:
    """Fill the exact rank tails of every set of kept dice (462 of them, ~0.2 s, once).

    Called from :meth:`StrongLiarsPokerDiceBot.start`, which the referee times
    against the start-up limit (seconds), so no decision pays for a cold cache.
    """
    for count in range(6):
        for kept in combinations_with_replacement(range(1, 7), count):
            _tail(kept)


class StrongLiarsPokerDiceBot(Bot[Observation, Action]):
    """Exact enumeration of the opponent's dice plus a learned model of its habits."""

    game = "liars_poker_dice"
    name = "liars-poker-dice-strong"

    def __init__(self) -> None:
        super().__init__()
        self.model = OpponentModel()
        self._received: tuple[int, ...] | None = None
        """Dice we held right after accepting (what we know the opponent passed us)."""
        self._passed: dict[tuple[int, int], tuple[int, ...]] = {}
        """(round, step index of our declaration) -> the dice we declared on."""
        self._declared_bins: dict[tuple[int, int], tuple[int, bool]] = {}
        """(round, step index) -> (plausibility bin, whether our claim was true)."""
        self._counted: set[tuple[int, int]] = set()
        self._seen_rounds = 0

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        warm_caches()

    # -- learning ----------------------------------------------------------------

    def _learn(self, observation: Observation) -> None:
        """Update the opponent model from every public event not yet counted."""
        for index in range(self._seen_rounds, len(observation.rounds)):
            record = observation.rounds[index]
            self._learn_steps(observation, index, record.steps)
            last = record.steps[-2] if len(record.steps) >= 2 else None
            if (
                last is not None
                and last.kind is StepKind.DECLARE
                and last.seat != observation.seat
                and last.hand is not None
            ):
                beat = _previous_rank(record.steps, len(record.steps) - 2)
                true = rank(evaluate(record.dice))
                self.model.observe_declaration(rank(last.hand), true, beat)
        self._seen_rounds = len(observation.rounds)
        self._learn_steps(observation, len(observation.rounds), observation.steps)

    def _learn_steps(self, observation: Observation, index: int, steps: tuple[Step, ...]) -> None:
        for i in range(len(steps) - 1):
            key = (index, i)
            if key in self._counted or key not in self._declared_bins:
                continue
            kind = steps[i + 1].kind
            if kind not in (StepKind.ACCEPT, StepKind.CHALLENGE):
                continue
            self._counted.add(key)
            challenged = kind is StepKind.CHALLENGE
            bin_index, truthful = self._declared_bins[key]
            self.model.challenge_by_bin[bin_index].observe(challenged)
            (self.model.challenge_truth if truthful else self.model.challenge_lie).observe(
                challenged
            )

    # -- acting -------------------------------------------------------------------

    def act(self, observation: Observation) -> Action:
        self._learn(observation)
        if observation.phase is Phase.REROLL:
            return self._reroll(observation)
        if observation.phase is Phase.DECLARE:
            return self._declare(observation)
        return self._answer(observation)

    def _reroll(self, observation: Observation) -> Action:
        dice = observation.dice
        self._received = tuple(sorted(dice))
        # The dice we now hold are the ones the opponent declared on: learn.
        steps = observation.steps
        declared_at = max(i for i, s in enumerate(steps) if s.kind is StepKind.DECLARE)
        declared = steps[declared_at].hand
        assert declared is not None
        beat = _previous_rank(steps, declared_at)
        self.model.observe_declaration(rank(declared), rank(evaluate(dice)), beat)
        return Reroll(best_reroll(dice, observation.last_declaration, observation.min_reroll))

    def _round_received(self, observation: Observation) -> tuple[int, ...] | None:
        """Dice we received this round (None if we opened it with a fresh throw)."""
        return (
            self._received
            if any(
                s.kind is StepKind.ACCEPT and s.seat == observation.seat for s in observation.steps
            )
            else None
        )

    def _declare(self, observation: Observation) -> Action:
        dice = tuple(sorted(observation.dice))
        last = observation.last_declaration
        beat = -1 if last is None else rank(last)
        true = rank(evaluate(dice))
        received = self._round_received(observation)
        rerolled = observation.last_reroll_count if received is not None else None
        model = self.model
        best_value, best_rank = -1.0, beat + 1
        for candidate in range(beat + 1, NUM_HANDS):
            seen = plausibility(received, rerolled, candidate)
            challenge = model.challenge_rate(seen)
            if candidate == NUM_HANDS - 1:
                after_accept = 0.0  # nobody may accept five 6s
                challenge = 1.0
            else:
                inherit = beat_chance(dice, candidate, observation.min_reroll)
                after_accept = inherit * FACING_TRUTH + (1.0 - inherit) * FACING_LIE
            if candidate <= true:
                value = challenge + (1.0 - challenge) * after_accept
            else:
                value = (1.0 - challenge) * after_accept
            if value > best_value + 1e-9:
                best_value, best_rank = value, candidate
        key = (len(observation.rounds), len(observation.steps))
        self._declared_bins[key] = (
            _bin(plausibility(received, rerolled, best_rank)),
            best_rank <= true,
        )
        self._remember_passed(observation)
        return Declare(ALL_HANDS[best_rank])

    def _answer(self, observation: Observation) -> Action:
        declared_hand = observation.last_declaration
        assert declared_hand is not None
        if declared_hand == TOP_HAND:
            return Challenge()
        steps = observation.steps
        declared_at = max(i for i, s in enumerate(steps) if s.kind is StepKind.DECLARE)
        declared = rank(declared_hand)
        beat = _previous_rank(steps, declared_at)
        passed = self._passed_dice(observation, declared_at)
        rerolled = observation.last_reroll_count
        challenge = challenges(self.model, passed, rerolled, declared, beat, observation.min_reroll)
        return Challenge() if challenge else Accept()

    def _passed_dice(self, observation: Observation, declared_at: int) -> tuple[int, ...] | None:
        """The dice we passed before the opponent's declaration at ``declared_at``."""
        steps = observation.steps
        for i in range(declared_at - 1, -1, -1):
            if steps[i].kind is StepKind.DECLARE:
                return self._passed.get((len(observation.rounds), i))
        return None

    def _remember_passed(self, observation: Observation) -> None:
        self._passed[(len(observation.rounds), len(observation.steps))] = tuple(
            sorted(observation.dice)
        )


def challenges(
    model: OpponentModel,
    passed: tuple[int, ...] | None,
    rerolled: int | None,
    declared: int,
    beat: int,
    min_reroll: int,
) -> bool:
    """Whether the bot challenges a declaration of rank ``declared`` (not the top hand,
    which it always challenges) over rank ``beat``.

    ``passed`` are the sorted dice it declared on and passed to the declarer (``None``
    when the declarer opened the round on a fresh throw); ``rerolled`` the declarer's
    public re-roll count. Everything here is public to the declarer too, except
    ``model``, which it can mirror from the rounds it sees: a counter bot may call
    this to find the claims the bot accepts.
    """
    outcomes = opponent_outcomes(
        passed, rerolled if rerolled is not None else 5, beat if passed is not None else -1
    )
    p_true = truth_probability(outcomes, declared, beat, model)
    win_truthful = model.challenge_truth.mean + (1 - model.challenge_truth.mean) * CONTINUE
    win_lying = (1.0 - model.challenge_lie.mean) * CONTINUE
    total = accept_value = 0.0
    for dice, r, p in outcomes:
        weight = p * model.declare_likelihood(declared, r, beat)
        if weight <= 0.0:
            continue
        chance = beat_chance(dice, declared, min_reroll)
        total += weight
        accept_value += weight * (chance * win_truthful + (1.0 - chance) * win_lying)
    accept_value = accept_value / total if total else 0.0
    return 1.0 - p_true > accept_value


def _previous_rank(steps: tuple[Step, ...], index: int) -> int:
    """Rank of the declaration before ``steps[index]`` (-1 if there is none)."""
    for i in range(index - 1, -1, -1):
        hand = steps[i].hand
        if steps[i].kind is StepKind.DECLARE and hand is not None:
            return rank(hand)
    return -1


if __name__ == "__main__":
    run(StrongLiarsPokerDiceBot)
