"""Local best response (Lisý & Bowling 2017): a lower bound on exploitability where
the game tree is too large to enumerate (Liar's Dice with 2 or more dice each).

The exact best response (:mod:`referee.analysis.best_response`) needs the bot's policy at
every information set. Local best response (LBR) needs it only along the histories it
actually plays: at each of its decisions it

1. computes the **range**, the posterior over the other seat's private dice given the
   public history since they were dealt: for every possible hand, the prior of the
   hand times the probability that the target, holding it, would have taken each of
   the actions it took (the target is asked at the counterfactual observation);
2. scores every candidate action against that range, one move deep: a challenge wins
   the round exactly when the standing claim is false (``Game.claim_truth``); a raise
   is scored by the target's asked answer to it — a challenge wins when the raise is
   true, and to a raise of the target's the **stated continuation** is that LBR then
   challenges it (wins when that raise is false);
3. plays the best-scoring action (the first among ties).

Whatever the quality of these estimates, LBR is *a* strategy, and no strategy wins
more against the bot than its best response: LBR's mean payoff is a lower bound on
what a best response wins, i.e. on the exploitability. Smoothing, the cap on
candidate raises and the one-move continuation can only make the bound looser,
never wrong.

This module is pure (the engine, no process): it says which observations it needs
answers for (:meth:`LocalBestResponse.questions`) and decides once they are known
(:meth:`LocalBestResponse.decide`); ``league/execution/lbr_against_bot.py`` asks the bot.
Hands are dealt by the engine: the positions of the chance outcome hidden from LBR
are found by changing one die at a time and watching whether its observation
changes (LBR never reads the real values there), and a hand is the multiset of
those dice (weighted by its multinomial count; a bot that reads the order of its
own dice sees them sorted).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from referee.gamekit.base import DiceRoll, Game, GameError

DEFAULT_MAX_RAISES: Final = 8
"""Candidate raises scored per decision: the first ones in the engine's legal order
(for Liar's Dice the cheapest claims). Fewer questions; only loosens the bound."""
DEFAULT_SMOOTHING: Final = 0.1
"""Pseudo-count added to every legal action of an asked answer in the range, so an
action the bot was never seen to take at a hand does not rule the hand out."""

SUPPORTED_GAMES: Final = frozenset({"liars_dice"})
"""Games whose hidden information fits the model: each round one chance event deals
every seat its own dice and every action after it is public. (Liar's Poker Dice
passes the dice and re-rolls them in secret mid-round: not handled.)"""

Answers = Mapping[Hashable, Counter[Any]]
"""Observation -> how often the bot chose each action there (over its samples)."""


class LocalBestResponseError(Exception):
    """The game or the chance event cannot be handled by local best response."""


@dataclass(frozen=True, slots=True)
class Deal:
    """The chance event that dealt the hidden dice of the current round."""

    before: Any
    """The engine state at the chance node."""
    outcome: tuple[int, ...]
    """What chance drew."""


@dataclass(slots=True)
class Line:
    """One hypothesis about the other seat's hand, replayed through the engine."""

    weight: float
    """Prior weight: ordered outcomes giving this multiset of dice."""
    states: list[Any] = field(default_factory=list)
    """The states after the deal and after each action since (the last one is now)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """What LBR chose and why (for reports and tests)."""

    action: Any
    values: dict[Any, float]
    """Candidate action -> its expected value against the range (round units)."""
    range_mass: float
    """Total posterior weight before normalising (0: the range fell back to the prior)."""


class LocalBestResponse:
    """The LBR player of seat ``seat`` against the bot in the other seat."""

    def __init__(
        self,
        game: Game[Any, Any, Any, Any],
        seat: int,
        *,
        max_raises: int = DEFAULT_MAX_RAISES,
        smoothing: float = DEFAULT_SMOOTHING,
    ) -> None:
        check_supported(game)
        self.game = game
        self.seat = seat
        self.other = 1 - seat
        self.max_raises = max_raises
        self.smoothing = smoothing
        self._lines: list[Line] = []
        self._actions: list[tuple[int, Any]] = []

    # -- following the match -------------------------------------------------

    def dealt(self, deal: Deal) -> None:
        """A chance event happened: one line per hand the other seat may now hold."""
        self._actions = []
        self._lines = [
            Line(weight, [self.game.apply_chance(deal.before, outcome)])
            for outcome, weight in self._hypotheses(deal)
        ]

    def acted(self, seat: int, action: Any) -> None:
        """A seat acted in the real match: every line follows (a line the action is
        illegal in is dropped)."""
        self._actions.append((seat, action))
        kept = []
        for line in self._lines:
            try:
                line.states.append(self.game.transition(line.states[-1], seat, action))
            except GameError:
                continue
            kept.append(line)
        self._lines = kept

    def _hypotheses(self, deal: Deal) -> list[tuple[tuple[int, ...], float]]:
        """Outcomes that keep this seat's view and vary the other seat's private dice
        (one per multiset of values, with its multinomial weight)."""
        request = self.game.chance_request(deal.before)
        if not isinstance(request, DiceRoll):
            raise LocalBestResponseError(f"{self.game.name}: chance event {request!r} is not dice")
        positions = self._private_positions(deal, request.sides)
        if not positions:
            return [(deal.outcome, 1.0)]
        result = []
        for hand in itertools.combinations_with_replacement(
            range(1, request.sides + 1), len(positions)
        ):
            outcome = list(deal.outcome)
            for position, value in zip(positions, hand, strict=True):
                outcome[position] = value
            counts = Counter(hand).values()
            weight = math.factorial(len(hand)) / math.prod(math.factorial(c) for c in counts)
            result.append((tuple(outcome), weight))
        return result

    def _private_positions(self, deal: Deal, sides: int) -> list[int]:
        """Positions of the outcome this seat's observation does not show (changing
        the die leaves it unchanged): the other seat's hidden dice, as the engine
        deals them. LBR never reads the real values there."""
        game, before = self.game, deal.before
        mine = game.observe(game.apply_chance(before, deal.outcome), self.seat)
        positions = []
        for position, value in enumerate(deal.outcome):
            changed = list(deal.outcome)
            changed[position] = value % sides + 1
            if game.observe(game.apply_chance(before, tuple(changed)), self.seat) == mine:
                positions.append(position)
        return positions

    # -- deciding ------------------------------------------------------------

    def candidates(self, observation: Any) -> list[Any]:
        """The challenge (when legal) and the first :attr:`max_raises` other actions."""
        legal = list(self.game.legal_actions(observation))
        challenge = self.game.challenge_action
        others = [a for a in legal if a != challenge][: self.max_raises]
        return ([challenge] if challenge in legal else []) + others

    def _target_observations(self, line: Line) -> list[tuple[Any, Any]]:
        """(the other seat's observation, the action it took) at its decisions so far."""
        return [
            (self.game.observe(state, seat), action)
            for state, (seat, action) in zip(line.states, self._actions, strict=False)
            if seat == self.other
        ]

    def _replies(self, line: Line, action: Any) -> Any | None:
        """The state after ``action`` on this line if the other seat answers it there."""
        after = self.game.transition(line.states[-1], self.seat, action)
        return after if self.game.to_act(after) == self.other else None

    def questions(self, observation: Any) -> list[Any]:
        """Every observation of the other seat whose answers :meth:`decide` needs."""
        wanted: dict[Any, None] = {}
        for line in self._lines:
            for asked, _ in self._target_observations(line):
                wanted[asked] = None
            for action in self.candidates(observation):
                if action == self.game.challenge_action:
                    continue
                after = self._replies(line, action)
                if after is not None:
                    wanted[self.game.observe(after, self.other)] = None
        return list(wanted)

    def range(self, answers: Answers) -> tuple[list[float], float]:
        """Each line's posterior probability (normalised) and the total mass before
        normalising; the prior if no line is consistent with the answers."""
        posterior = []
        for line in self._lines:
            p = line.weight
            for asked, action in self._target_observations(line):
                counts = answers[asked]
                width = len(self.game.legal_actions(asked))
                p *= (counts[action] + self.smoothing) / (
                    sum(counts.values()) + self.smoothing * width
                )
            posterior.append(p)
        mass = sum(posterior)
        if mass <= 0:
            prior = [line.weight for line in self._lines]
            return [w / sum(prior) for w in prior], 0.0
        return [p / mass for p in posterior], mass

    def decide(self, observation: Any, answers: Answers) -> Decision:
        """The candidate with the best expected value against the range."""
        weights, mass = self.range(answers)
        values: dict[Any, float] = {}
        for action in self.candidates(observation):
            values[action] = sum(
                w * self._value(line, action, answers)
                for w, line in zip(weights, self._lines, strict=True)
                if w > 0
            )
        best = max(values, key=values.__getitem__)
        return Decision(action=best, values=values, range_mass=mass)

    def _value(self, line: Line, action: Any, answers: Answers) -> float:
        """Round value (+1 / -1) of ``action`` on one line, one move deep."""
        game = self.game
        if action == game.challenge_action:
            before = line.states[-2]
            return _won(game.claim_truth(before, self._actions[-1][1]) is False)
        after = self._replies(line, action)
        if after is None:
            return 0.0
        counts = answers[game.observe(after, self.other)]
        total = sum(counts.values())
        value = 0.0
        for reply, count in counts.items():
            if reply == game.challenge_action:
                won = game.claim_truth(line.states[-1], action) is True
            else:  # the stated continuation: LBR challenges the raise
                won = game.claim_truth(after, reply) is False
            value += count / total * _won(won)
        return value


def check_supported(game: Game[Any, Any, Any, Any]) -> None:
    """:class:`LocalBestResponseError` unless ``game`` is in :data:`SUPPORTED_GAMES`."""
    if game.name not in SUPPORTED_GAMES:
        raise LocalBestResponseError(
            f"{game.name}: local best response supports {', '.join(sorted(SUPPORTED_GAMES))}"
            " only (hidden dice dealt once per round, public claims)"
        )


def _won(won: bool) -> float:
    return 1.0 if won else -1.0


def seat_payoff(game: Game[Any, Any, Any, Any], state: Any, seat: int) -> float:
    """+1 if ``seat`` placed better than the other seat, -1 if worse, 0 on a tie."""
    places = game.outcome(state).places
    return float((places[seat] < places[1 - seat]) - (places[seat] > places[1 - seat]))
