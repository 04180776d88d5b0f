"""Luck in a played match: AIVAT's chance-node corrections under a baseline per game.

A match's outcome mixes skill and luck. For each chance event ``c`` drawn in state ``s``
the *correction* for seat ``p`` is

    f_p(s, c) − E_{c' ~ chance}[ f_p(s, c') ]

where ``f_p(s, c)`` is a baseline's value for seat ``p`` of the state after ``c`` (a
number near seat ``p``'s expected score from there). Summed over a match's chance
events this is how much the dice and cards favoured ``p`` by the baseline's measure;
the luck-adjusted score is the score minus that sum (Burch, Schmid, Moravčík, Morrill,
Bowling: AIVAT, AAAI 2018; chance terms only: the bots are black boxes). Whatever the
baseline, each correction has mean zero under the true chance distribution, so the
adjusted score has the same mean as the raw one; a good baseline removes most of the
luck's variance. The luck is that sum times a coefficient ``b`` fitted per game by
least squares (:mod:`referee.analysis.luck_coefficients`): any fixed ``b`` keeps the
mean, and a fitted one stops a weak baseline from adding noise.

The expectation is exact where the outcomes can be enumerated cheaply (dice: every
sorted roll with its multinomial weight) and a seeded sample otherwise (card
shuffles: :data:`SAMPLES` draws from a stream keyed by the caller's ``salt`` and the
event's position, independent of the outcome actually drawn, so the estimate stays
unbiased).

Baselines (fitted tables in :mod:`referee.analysis.luck_tables`, refitted with
``python -m bench.luck --fit``; ``docs/ratings.md`` (luck-adjusted results) has the
details):

* ``liars_dice``: P(I win the match) = r·W(a, b − 1, 0) + (1 − r)·W(a − 1, b, 1), with
  ``r`` the fitted share of rounds won (:mod:`referee.analysis.luck_rounds`) given (my
  dice ``a``, their dice ``b``, I open, my dice and theirs counting for my best face,
  their dice and mine counting for theirs), a hand's best face being its most numerous
  (wilds added; the highest on a tie), in a sum round the two dice instead; and ``W``
  the round's mean share chained exactly through the dice counts (:func:`match_win`);
* ``liars_poker_dice``: a table over (my chips, their chips, I hold the dice, the
  dice's poker category, whether they beat the last declaration);
* ``liars_poker``: a table over (penalty points to the limit, mine and theirs capped
  at 3, I hold the cards, a fresh deal or a draw, the cards' best category, whether
  they contain the last announcement);
* ``dice_poker``: a normal model of the final margin, Φ((D + s·β·x) / (σ·√(R+1))):
  ``D`` my lead in points plus the par of my open lines minus theirs, ``x`` the
  mover's expected points above par this turn given the dice and the re-rolls left
  (exact over the re-rolls, keeping what maximises it: :func:`turn_values`; ``s`` =
  +1 when I move, −1 otherwise), ``R`` the turns left;
* ``cockroach_poker``: a constant (no correction): its only chance event is the
  first deal, which a duplicate pair already cancels.

Two-seat matches only (the pair score is what is adjusted); other seat counts and
unknown games get no correction.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Final

from referee.analysis.luck_coefficients import COEFFICIENTS
from referee.analysis.luck_rounds import ROUND_PARENTS, ROUND_WINS
from referee.analysis.luck_tables import PARENTS, TABLES
from referee.analysis.luck_turns import KEEP_INDEX, SPREAD, THROW_INDEX, THROWS, chained
from referee.core.catalogue import get_game
from referee.core.events import ChanceEvent, Event
from referee.gamekit import poker_dice, poker_hands
from referee.gamekit.base import ChanceOutcome, ChanceRequest, Game, GameError, draw_chance
from referee.gamekit.cards import POKER_DECK
from referee.gamekit.fast_chance import FastChance
from referee.games.dice_poker import engine as dice_poker
from referee.games.liars_poker import engine as liars_poker
from referee.games.liars_poker_dice import engine as liars_poker_dice

SAMPLES: Final = 16
"""Outcomes drawn per chance event where the expectation is sampled (card shuffles)."""

Key = tuple[int, ...]
Sampler = Callable[[ChanceRequest], list[ChanceOutcome]]
"""Draws :data:`SAMPLES` outcomes of a request (independent of the drawn outcome)."""


class LuckError(ValueError):
    """A match the corrections cannot be computed for (the message says why)."""


# ---------------------------------------------------------------------------
# Fitted tables


def lookup(game: str, key: Key) -> float:
    """The fitted value of ``key`` for ``game``: the full key, else its coarser parent
    (:func:`parent`), else ½."""
    table = TABLES.get(game)
    if table is not None:
        value = table.get(key)
        if value is not None:
            return value
        value = PARENTS.get(game, {}).get(parent(key))
        if value is not None:
            return value
    return 0.5


def parent(key: Key) -> Key:
    """The coarser key a missing one falls back to: the first three features."""
    return key[:3]


# ---------------------------------------------------------------------------
# Dice helpers


@cache
def sorted_rolls(count: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every sorted roll of ``count`` six-sided dice with its probability."""
    if count <= poker_dice.NUM_DICE:
        return poker_dice.roll_outcomes(count)
    total = 6**count
    out = []
    for roll in itertools.combinations_with_replacement(range(1, 7), count):
        ways = math.factorial(count)
        for face in set(roll):
            ways //= math.factorial(roll.count(face))
        out.append((roll, ways / total))
    return tuple(out)


def _rerolled(
    dice: Sequence[int], pending: Sequence[int], outcome: Sequence[int]
) -> tuple[int, ...]:
    """The dice after a (re-)roll: the outcome fills ``pending`` in order, or is the
    whole throw when nothing is pending."""
    if not pending:
        return tuple(outcome)
    new = list(dice)
    for position, value in zip(pending, outcome, strict=True):
        new[position] = value
    return tuple(new)


def _kept(dice: Sequence[int], pending: Sequence[int]) -> tuple[int, ...]:
    if not pending:
        return ()
    return tuple(sorted(d for i, d in enumerate(dice) if i not in pending))


# ---------------------------------------------------------------------------
# Baselines


class Baseline:
    """A baseline for one game: ``value(s, c, p)`` and its expectation over ``c``."""

    game: str = ""

    def value(self, state: Any, outcome: ChanceOutcome, seat: int) -> float:
        return 0.5

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        return 0.5

    def keys(self, state: Any, outcome: ChanceOutcome) -> tuple[Key, Key] | None:
        """Both seats' table keys after ``outcome`` (for fitting); None: not tabular."""
        return None

    def pair(
        self, state: Any, outcome: ChanceOutcome, request: ChanceRequest, sample: Sampler
    ) -> tuple[float, float]:
        """Both seats' corrections ``f_p(s, c) − E[f_p(s, c')]`` for this event."""
        return (
            self.value(state, outcome, 0) - self.expected(state, request, 0, sample),
            self.value(state, outcome, 1) - self.expected(state, request, 1, sample),
        )


class ConstantBaseline(Baseline):
    """No correction at all (``cockroach_poker``, and games without a baseline)."""


class TableBaseline(Baseline):
    """A fitted table over a key of the state after the chance event."""

    def key(self, state: Any, outcome: ChanceOutcome, seat: int) -> Key | None:
        raise NotImplementedError

    def keys(self, state: Any, outcome: ChanceOutcome) -> tuple[Key, Key] | None:
        first, second = self.key(state, outcome, 0), self.key(state, outcome, 1)
        if first is None or second is None:
            return None
        return first, second

    def value(self, state: Any, outcome: ChanceOutcome, seat: int) -> float:
        key = self.key(state, outcome, seat)
        return 0.5 if key is None else lookup(self.game, key)

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        outcomes = sample(request)
        return math.fsum(self.value(state, o, seat) for o in outcomes) / len(outcomes)


# -- Liar's Dice ---------------------------------------------------------------


def _dice_strength(hand: Sequence[int], wild: int | None, sum_round: bool) -> int:
    """A Liar's Dice hand's strength: its largest count of one face (wilds added to
    every other face), or its die in a sum round; 0 for no dice."""
    if not hand:
        return 0
    if sum_round:
        return sum(hand)
    wilds = hand.count(wild) if wild is not None else 0
    return max(hand.count(face) + (wilds if face != wild else 0) for face in range(1, 7))


class LiarsDiceBaseline(TableBaseline):
    game = "liars_dice"

    def table(self, key: Key) -> float:
        """The value of a key (the fitted table's)."""
        return lookup(self.game, key)

    def value(self, state: Any, outcome: ChanceOutcome, seat: int) -> float:
        key = self.key(state, outcome, seat)
        return 0.5 if key is None else self.table(key)

    def _context(self, state: Any, seat: int) -> tuple[int, int, int, int | None, bool]:
        other = 1 - seat
        wild = state.rules.wild if state.wilds_active else None
        return (
            state.dice_counts[seat],
            state.dice_counts[other],
            int(state.opener == seat),
            wild,
            state.sum_round,
        )

    def key(self, state: Any, outcome: ChanceOutcome, seat: int) -> Key | None:
        if state.phase != "roll":
            return None  # a roll-off: the opener's luck is left uncorrected
        mine, theirs, opens, wild, sum_round = self._context(state, seat)
        first = outcome[: state.dice_counts[0]]
        second = outcome[state.dice_counts[0] :]
        hands = (first, second) if seat == 0 else (second, first)
        return (mine, theirs, opens, *_hand_pair(hands[0], hands[1], wild, sum_round))

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        if state.phase != "roll":
            return 0.5
        mine, theirs, opens, wild, sum_round = self._context(state, seat)
        return math.fsum(
            p * self.table((mine, theirs, opens, *cell))
            for cell, p in _hand_pair_distribution(mine, theirs, wild, sum_round)
        )


def round_win(key: Key) -> float:
    """P(the key's seat wins this round): the fitted share, else its parent's, else ½."""
    value = ROUND_WINS.get(key)
    if value is None:
        value = ROUND_PARENTS.get(key[:3], 0.5)
    return value


@cache
def match_win(mine: int, theirs: int, opens: int) -> float:
    """P(I win the match) at the start of a round with ``mine`` and ``theirs`` dice: the
    round's fitted mean win share ``R`` chained exactly through the dice counts (the
    round's loser loses a die and opens the next round)::

        W(a, b, o) = R(a, b, o)·W(a, b − 1, 0) + (1 − R(a, b, o))·W(a − 1, b, 1)
    """
    if theirs <= 0:
        return 1.0
    if mine <= 0:
        return 0.0
    share = ROUND_PARENTS.get((mine, theirs, opens), 0.5)
    return share * match_win(mine, theirs - 1, 0) + (1 - share) * match_win(mine - 1, theirs, 1)


class LiarsDiceRoundBaseline(LiarsDiceBaseline):
    """Liar's Dice's value after a roll as P(win the match): the round's fitted win
    probability given both hands' features, chained through the dice counts by
    :func:`match_win`."""

    def table(self, key: Key) -> float:
        mine, theirs = key[0], key[1]
        won = round_win(key)
        return won * match_win(mine, theirs - 1, 0) + (1 - won) * match_win(mine - 1, theirs, 1)


@cache
def _face_counts(hand: tuple[int, ...], wild: int | None) -> tuple[tuple[int, ...], int]:
    """Per face 1..6 the dice that count for it (wilds added to the other faces), and
    the hand's best face (most dice, the highest face on a tie). Remembered: a
    distribution meets each hand once per hand of the other seat (252 × 252 pairs)."""
    wilds = hand.count(wild) if wild is not None else 0
    counts = tuple(hand.count(face) + (wilds if face != wild else 0) for face in range(1, 7))
    best = max(range(1, 7), key=lambda face: (counts[face - 1], face))
    return counts, best


def _hand_pair(
    mine: Sequence[int], theirs: Sequence[int], wild: int | None, sum_round: bool
) -> tuple[int, ...]:
    """The features of a roll for the seat holding ``mine``: in a sum round both dice;
    otherwise how many of my dice count for my best face and how many of theirs, then
    how many of their dice count for their best face and how many of mine (what each
    seat sees of its best face, and what the table truly holds of it)."""
    if sum_round:
        return _dice_strength(mine, wild, True), _dice_strength(theirs, wild, True)
    if not mine or not theirs:
        return _dice_strength(mine, wild, False), _dice_strength(theirs, wild, False)
    my_counts, my_best = _face_counts(tuple(mine), wild)
    their_counts, their_best = _face_counts(tuple(theirs), wild)
    return (
        my_counts[my_best - 1],
        their_counts[my_best - 1],
        their_counts[their_best - 1],
        my_counts[their_best - 1],
    )


@cache
def _hand_pair_distribution(
    mine: int, theirs: int, wild: int | None, sum_round: bool
) -> tuple[tuple[tuple[int, ...], float], ...]:
    """P(features) of :func:`_hand_pair` over both seats' fresh rolls (every sorted hand
    of each seat with its weight: both hands are independent)."""
    out: dict[tuple[int, ...], float] = {}
    for first, p in sorted_rolls(mine):
        for second, q in sorted_rolls(theirs):
            cell = _hand_pair(first, second, wild, sum_round)
            out[cell] = out.get(cell, 0.0) + p * q
    return tuple(sorted(out.items()))


# -- Liar's Poker Dice -----------------------------------------------------------


class LiarsPokerDiceBaseline(TableBaseline):
    game = "liars_poker_dice"

    def _key(self, state: Any, dice: Sequence[int], seat: int) -> Key:
        hand = poker_dice.evaluate(dice)
        last = liars_poker_dice.last_declaration(state.steps)
        beats = -1 if last is None else int(poker_dice.rank(hand) > poker_dice.rank(last))
        return (
            state.chips[seat],
            state.chips[1 - seat],
            int(state.holder == seat),
            int(hand.category),
            beats,
        )

    def key(self, state: Any, outcome: ChanceOutcome, seat: int) -> Key | None:
        if state.phase is liars_poker_dice.Phase.ROLL_OFF:
            return None
        return self._key(state, _rerolled(state.dice, state.pending, outcome), seat)

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        if state.phase is liars_poker_dice.Phase.ROLL_OFF:
            return 0.5
        last = liars_poker_dice.last_declaration(state.steps)
        prefix = (state.chips[seat], state.chips[1 - seat], int(state.holder == seat))
        return math.fsum(
            p * lookup(self.game, (*prefix, category, beats))
            for (category, beats), p in _poker_dice_distribution(
                _kept(state.dice, state.pending), -1 if last is None else poker_dice.rank(last)
            )
        )


@cache
def _poker_dice_distribution(
    kept: tuple[int, ...], last_rank: int
) -> tuple[tuple[tuple[int, int], float], ...]:
    """P(category, beats the last declaration) of the dice after rolling all but ``kept``."""
    out: dict[tuple[int, int], float] = {}
    for roll, p in sorted_rolls(poker_dice.NUM_DICE - len(kept)):
        hand = poker_dice.evaluate(kept + roll)
        beats = -1 if last_rank < 0 else int(poker_dice.rank(hand) > last_rank)
        cell = (int(hand.category), beats)
        out[cell] = out.get(cell, 0.0) + p
    return tuple(sorted(out.items()))


# -- Liar's Poker (cards) ---------------------------------------------------------


class LiarsPokerBaseline(TableBaseline):
    game = "liars_poker"

    def _hand(self, state: Any, outcome: ChanceOutcome) -> tuple[int, int]:
        """The five cards' best category, and whether they contain the last claim."""
        if state.phase == "deal":
            hand = tuple(POKER_DECK[i] for i in outcome[: liars_poker.HAND_SIZE])
        else:
            drawn = tuple(state.stock[i] for i in outcome[: len(state.discards)])
            hand = state.hand + drawn
        last = state.claims[-1].announcement if state.claims else None
        contains = -1 if last is None else int(poker_hands.contains(hand, last))
        return int(poker_hands.category_of(hand)), contains

    def _prefix(self, state: Any, seat: int) -> Key:
        limit = state.rules.penalty_limit
        return (
            min(limit - state.penalties[seat], 3),
            min(limit - state.penalties[1 - seat], 3),
            int(state.holder == seat),
            int(state.phase == "deal"),
        )

    def key(self, state: Any, outcome: ChanceOutcome, seat: int) -> Key | None:
        if state.num_seats != 2:
            return None
        return (*self._prefix(state, seat), *self._hand(state, outcome))

    def pair(
        self, state: Any, outcome: ChanceOutcome, request: ChanceRequest, sample: Sampler
    ) -> tuple[float, float]:
        hands = [self._hand(state, o) for o in sample(request)]
        actual = self._hand(state, outcome)
        out = []
        for seat in (0, 1):
            prefix = self._prefix(state, seat)
            expected = math.fsum(lookup(self.game, (*prefix, *h)) for h in hands) / len(hands)
            out.append(lookup(self.game, (*prefix, *actual)) - expected)
        return out[0], out[1]


# -- Dice Poker -------------------------------------------------------------------

DICE_POKER_SIGMA: Final = 5.0
"""σ: the spread of the final margin per turn left (points), fitted by ``bench.luck``."""
DICE_POKER_BETA: Final = 1.2
"""β: how much of the turn's expected points above par count towards the margin (σ 5
and β 1.2: the best of σ 3–5 × β 0.6–1.2 on 120 optimal-vs-heuristic matches)."""
DICE_POKER_PAR: Final = (2, 5, 8, 11, 15, 18, 21, 22, 24, 17, 23, 30, 36, 18, 22)
"""Par per line (Aces .. Chance): the mean points written there by the heuristic and
optimal bots (40 matches, rounded)."""


def _normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@cache
def turn_values(lines: tuple[int | None, ...]) -> tuple[tuple[float, ...], ...]:
    """Per re-rolls left (0, 1, 2), each throw's expected points above par this turn
    when the mover keeps the dice that maximise that expectation and scores the best
    line at the end (exact over the re-rolls; ``lines`` as :func:`_open_lines`)."""
    card = dice_poker.Scorecard(lines, 0)
    return chained(tuple(float(_best_points(card, throw)) for throw in THROWS), 2)


def _open_lines(lines: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """What the best points of a throw depend on: which lines are open, and whether
    Poker holds 50 (the joker rule); every other written line as 0."""
    poker = dice_poker.Line.POKER - 1
    return tuple(None if v is None else v if i == poker else 0 for i, v in enumerate(lines))


def _best_points(card: Any, dice: tuple[int, ...]) -> int:
    """The most points above par the dice would score now in an open line."""
    options = dice_poker.score_options(card, dice)
    if not options:
        return 0
    return max(points - DICE_POKER_PAR[line - 1] for line, points in options.items())


def _open_par(card: Any) -> int:
    return sum(DICE_POKER_PAR[i] for i, v in enumerate(card.lines) if v is None)


class DicePokerBaseline(Baseline):
    game = "dice_poker"

    def __init__(self, sigma: float = DICE_POKER_SIGMA, beta: float = DICE_POKER_BETA) -> None:
        self.sigma, self.beta = sigma, beta

    def _value(self, state: Any, seat: int, x: float) -> float:
        inclusive = state.rules.upper_bonus_inclusive
        mine, theirs = state.cards[seat], state.cards[1 - seat]
        lead = mine.total(inclusive) + _open_par(mine) - theirs.total(inclusive) - _open_par(theirs)
        mover = state.current
        sign = 1.0 if mover == seat else -1.0
        left = 2 * (dice_poker.NUM_TURNS - state.turn) + (1 if mover == 0 else 0)
        return _normal_cdf((lead + sign * self.beta * x) / (self.sigma * math.sqrt(left + 1)))

    def _turn(self, state: Any) -> tuple[float, ...]:
        """The mover's expected points above par per throw, with the re-rolls left."""
        left = dice_poker.MAX_ROLLS - 1 - state.rolls
        return turn_values(_open_lines(state.cards[state.current].lines))[left]

    def value(self, state: Any, outcome: ChanceOutcome, seat: int) -> float:
        dice = tuple(sorted(_rerolled(state.dice, state.pending, outcome)))
        return self._value(state, seat, self._turn(state)[THROW_INDEX[dice]])

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        turn = self._turn(state)
        spread = SPREAD[KEEP_INDEX[_kept(state.dice, state.pending)]]
        return math.fsum(p * self._value(state, seat, turn[i]) for i, p in spread)


BASELINES: Final[dict[str, Baseline]] = {
    "liars_dice": LiarsDiceRoundBaseline() if ROUND_WINS else LiarsDiceBaseline(),
    "liars_poker_dice": LiarsPokerDiceBaseline(),
    "liars_poker": LiarsPokerBaseline(),
    "dice_poker": DicePokerBaseline(),
    "cockroach_poker": ConstantBaseline(),
}


def baseline_for(game: str) -> Baseline:
    """The game's baseline (a constant one for a game without its own)."""
    return BASELINES.get(game, ConstantBaseline())


# ---------------------------------------------------------------------------
# A match's luck


def _sampler(salt: bytes, index: int) -> Sampler:
    def sample(request: ChanceRequest) -> list[ChanceOutcome]:
        rng = FastChance(b"bluff-arena/luck:" + salt + b":" + str(index).encode())
        return [draw_chance(request, rng) for _ in range(SAMPLES)]

    return sample


def chance_corrections(
    game_name: str,
    rules: Any,
    num_seats: int,
    events: Sequence[Event],
    *,
    salt: bytes = b"",
    baseline: Baseline | None = None,
) -> list[tuple[float, float]]:
    """Per chance event of a two-seat match, both seats' corrections
    ``f_p(s, c) − E[f_p(s, c')]`` (an empty list for other seat counts).

    ``rules`` are the parsed rules; ``salt`` keys the samples of sampled expectations
    (use something fixed per match that does not depend on its chance, such as its
    id or the deal's seed). Raises :class:`LuckError` when the events do not replay.
    """
    if num_seats != 2:
        return []
    game: Game[Any, Any, Any, Any] = get_game(game_name)
    chosen = baseline if baseline is not None else baseline_for(game_name)
    state = game.new_game(rules, num_seats)
    out: list[tuple[float, float]] = []
    try:
        for index, event in enumerate(events):
            if isinstance(event, ChanceEvent):
                request = game.chance_request(state)
                if isinstance(chosen, ConstantBaseline):
                    out.append((0.0, 0.0))
                else:
                    out.append(chosen.pair(state, event.outcome, request, _sampler(salt, index)))
                state = game.apply_chance(state, event.outcome)
            else:
                state = game.apply_action(state, event.seat, event.action)
    except GameError as error:  # the engine's own error names what is wrong
        raise LuckError(f"{game_name}: event {index + 1} does not replay: {error}") from error
    return out


def coefficient_for(game: str) -> float:
    """The game's fitted coefficient ``b`` of the luck term (1 when none is fitted)."""
    return COEFFICIENTS.get(game, 1.0)


def luck(
    game_name: str,
    rules: Any,
    num_seats: int,
    events: Sequence[Event],
    *,
    salt: bytes = b"",
    baseline: Baseline | None = None,
    coefficient: float | None = None,
) -> tuple[float, float]:
    """Both seats' total luck in a two-seat match: ``b`` times the sum of their
    corrections; ``(0, 0)`` for other seat counts. The luck-adjusted score of seat
    ``p`` is its score minus ``luck(...)[p]``.

    ``b`` is ``coefficient`` when given, else 1 with a caller's own ``baseline``, else
    the game's fitted coefficient (:func:`coefficient_for`)."""
    if coefficient is not None:
        b = coefficient
    else:
        b = 1.0 if baseline is not None else coefficient_for(game_name)
    if not math.isfinite(b):
        raise LuckError(f"{game_name}: the luck coefficient must be finite, got {b}")
    rows = chance_corrections(game_name, rules, num_seats, events, salt=salt, baseline=baseline)
    return b * math.fsum(a for a, _ in rows), b * math.fsum(c for _, c in rows)
