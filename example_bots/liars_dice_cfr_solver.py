"""Counterfactual regret minimisation (CFR+) for small one-round Liar's Dice.

The game solved is OpenSpiel's ``liars_dice`` written in our rule options
(:data:`OPENSPIEL_OPTIONS`): two seats with ``dice`` dice each, one round, 6s wild
and kept after a wild opening, ``reset-face`` raises, no sum endgame, seat 0 opens.
The loser of the challenge gets -1 and the other seat +1.

**One implementation of the rules.** Nothing here restates a rule: :func:`build_game`
asks the engine (:mod:`referee.games.liars_dice.engine`) for the bids in raise order (the
legal actions at the opening, checked to be totally ordered by the engine's raise
rule: after bid ``b`` the legal actions are exactly the later bids and a challenge)
and plays every (bid, hands) challenge through the engine to learn who loses. It
also checks, through the engine, that the opening bid never changes the wild rule
(``wild_opening=keep``), which is what lets the outcome of a challenge depend only
on the last bid and the dice.

**The tree.** Bids only go up, so a round's bid history is a *set* of bids; we
number bids ``0..B-1`` in raise order and a history is the bitmask of its bids
(``B = 6 x dice on the table``: 12 for one die each, 24 for two). The children of
history ``n`` are ``n | 1 << a`` for every bid ``a`` above its highest bid, plus
the challenge (a terminal). So every history whose highest bid is ``a`` lives in
``[2**a, 2**(a+1))`` and its parent is ``n - 2**a``: one bid's whole layer of the
tree is a contiguous slice of an array indexed by history, and each pass of CFR is
``B`` numpy slice operations over ``(histories, hands)`` arrays, vectorised over
private hands (the public-tree form of CFR).

**Information sets.** :class:`Solver` (perfect recall): an information set is
(own hand, bid history), exact CFR+. One die each: 2**12 histories x 6 hands =
24,576 information sets. Two dice each have 2**24 histories x 21 hands (about 352
million information sets, ~8.8e9 regrets): beyond memory, so for two dice
:class:`BoundedRecallSolver` runs CFR+ on an imperfect-recall abstraction whose
information set is (seat to move, own hand, the last ``recall`` bids); its
iterations work on the small graph of those keys, not on the 2**24 histories.
The exploitability reported is always that of a **best response in the full
perfect-recall game** (:class:`Solver` evaluating the keyed strategy).

**Measures.** :meth:`Solver.best_response_value` is the exact value of a perfect-
recall best response of one seat against a fixed strategy for the other (a max
over actions at each (hand, history) of the counterfactual values). ``NashConv``
is the sum of both best-response values (zero at an equilibrium, as the game is
zero-sum); **exploitability is NashConv / 2** (OpenSpiel's ``exploitability``).
:meth:`Solver.value` is seat 0's expected payoff when both seats play a strategy;
for one die each the equilibrium value is -7/258.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

from example_bots.liars_dice_cfr_full_solver import hands_of
from sdk.liars_dice import LIARS_DICE, Bid, Challenge, GameError, State, is_raise

Array = npt.NDArray[Any]
Recall = Literal["full", "last-bid"]

OPENSPIEL_OPTIONS: Final[Mapping[str, str]] = {
    "raise_rule": "reset-face",
    "wild_face": "6",
    "wild_opening": "keep",
    "sum_endgame": "false",
    "one_round": "true",
    "roll_off": "false",
}
"""Our rule options for OpenSpiel's ``liars_dice`` (add ``dice_per_player``)."""

GAME_VALUE_ONE_DIE: Final = -7 / 258
"""Seat 0's equilibrium value with one die each (OpenSpiel's published value)."""

MAX_FULL_RECALL_CELLS: Final = 50_000_000
"""Largest histories x hands x actions table we allocate for perfect recall."""


class SolverError(GameError):
    """The solver cannot handle these rules (or was asked something impossible)."""


@dataclass(frozen=True, slots=True)
class SmallGame:
    """The abstract one-round game, everything learnt from the engine."""

    dice: int
    """Dice per seat."""
    bids: tuple[Bid, ...]
    """Every bid, in raise order (bid index = position)."""
    hands: tuple[tuple[int, ...], ...]
    """Every possible hand as a sorted multiset of dice."""
    weights: Array
    """Chance probability of each hand, shape (H,)."""
    bidder_wins: Array
    """``bidder_wins[b, x0, x1]``: 1 if bid ``b`` (made by either seat) survives a
    challenge when seat 0 holds ``hands[x0]`` and seat 1 ``hands[x1]``, else 0."""

    @property
    def num_bids(self) -> int:
        return len(self.bids)


def openspiel_rules(dice: int) -> dict[str, str]:
    """The rule options (canonical text) of the OpenSpiel configuration."""
    return {**OPENSPIEL_OPTIONS, "dice_per_player": str(dice)}


def build_game(dice: int) -> SmallGame:
    """Enumerate the game for ``dice`` dice each from the engine's own rules."""
    if dice not in (1, 2):
        raise SolverError(f"dice={dice!r}: the CFR solver handles 1 or 2 dice each")
    game = LIARS_DICE
    rules = game.parse_rules(openspiel_rules(dice))
    start = game.new_game(rules, 2)
    hands, weights = hands_of(dice)

    def rolled(x0: tuple[int, ...], x1: tuple[int, ...]) -> State:
        return game.apply_chance(start, [*x0, *x1])

    opening = rolled(hands[0], hands[0])
    bids = tuple(a for a in game.legal_actions(game.observe(opening, 0)) if isinstance(a, Bid))
    # The tree shape assumed above: after bid i the legal moves are exactly the
    # later bids (in this order) and a challenge.
    for index, bid in enumerate(bids):
        after = game.apply_action(opening, 0, bid)
        legal = list(game.legal_actions(game.observe(after, 1)))
        if legal != [*bids[index + 1 :], Challenge()]:
            raise SolverError(f"after {bid!r} the engine allows {legal!r}: not a total raise order")
        if index and not is_raise(rules.raise_rule, bids[index - 1], bid):
            raise SolverError(f"{bid!r} does not raise {bids[index - 1]!r}")
        if after.wilds_active != opening.wilds_active:
            raise SolverError(f"opening {bid!r} changes the wild rule: need wild_opening=keep")
    table = np.zeros((len(bids), len(hands), len(hands)))
    for x0, hand0 in enumerate(hands):
        for x1, hand1 in enumerate(hands):
            state = rolled(hand0, hand1)
            for b, bid in enumerate(bids):
                over = game.apply_action(game.apply_action(state, 0, bid), 1, Challenge())
                result = over.history[-1]
                table[b, x0, x1] = 1.0 if result.loser == 1 else 0.0
                if game.outcome(over).places[result.loser] != 2:
                    raise SolverError(f"the loser of {bid!r} does not place last")
    return SmallGame(dice, bids, tuple(hands), weights, table)


@dataclass(frozen=True, slots=True)
class Measure:
    """Quality of a strategy profile."""

    iterations: int
    value: float
    """Seat 0's expected payoff when both seats play the profile."""
    best_response: tuple[float, float]
    """Each seat's best-response value against the other seat's strategy."""

    @property
    def nash_conv(self) -> float:
        return self.best_response[0] + self.best_response[1]

    @property
    def exploitability(self) -> float:
        """NashConv / 2: the average gain of a best response over the equilibrium."""
        return self.nash_conv / 2


class Solver:
    """The public tree of a :class:`SmallGame` (every history, vectorised over
    hands): exact values and best responses for any strategy given per
    information-set key, and CFR+ with perfect recall.

    ``history_key`` maps each history bitmask to the row of the strategy table
    used there; ``None`` means perfect recall (row = history). CFR+ here is
    regret matching+, alternating updates and linear averaging.
    """

    def __init__(self, game: SmallGame, history_key: Array | None = None) -> None:
        self.game = game
        bids = game.num_bids
        self.num_actions = bids + 1
        """Bid indices, then the challenge (index ``bids``)."""
        self.challenge = bids
        self.num_hands = len(game.hands)
        self.size = 1 << bids
        self.history_key = history_key
        self.dtype: type[np.floating[Any]] = np.float32 if bids > 16 else np.float64
        count = np.zeros(self.size, dtype=np.int8)
        highest = np.full(self.size, -1, dtype=np.int8)
        for a in range(bids):
            count[1 << a : 2 << a] = count[: 1 << a] + 1
            highest[1 << a : 2 << a] = a
        self.mover = (count % 2).astype(np.int8)
        """Seat to move at each history (seat 0 opens)."""
        self.highest = highest
        """Index of each history's last bid (-1 for the empty history)."""
        self.iterations = 0
        if history_key is None:
            cells = self.size * self.num_hands * self.num_actions
            if cells > MAX_FULL_RECALL_CELLS:
                raise SolverError(
                    f"perfect recall with {game.dice} dice each needs {cells:,} table cells"
                    f" (limit {MAX_FULL_RECALL_CELLS:,}); use BoundedRecallSolver"
                )
            legal = np.arange(self.num_actions)[None, :] > highest[:, None]
            legal[:, self.challenge] = highest >= 0
            self._legal3 = legal[:, None, :]
            self._uniform = (self._legal3 / legal.sum(axis=1).clip(1)[:, None, None]).astype(
                self.dtype
            )
            shape = (self.size, self.num_hands, self.num_actions)
            self.regrets = np.zeros(shape, dtype=self.dtype)
            self.strategy_sum = np.zeros(shape, dtype=self.dtype)
            self.current = self._matching(self.regrets)
        # +1/-1 for "the bidder wins", oriented [bid, own hand, opponent hand] per seat.
        wins = (2.0 * game.bidder_wins - 1.0).astype(self.dtype)
        self._bidder_payoff = (wins, wins.transpose(0, 2, 1).copy())

    # -- perfect-recall CFR+ ----------------------------------------------------

    def _matching(self, regrets: Array) -> Array:
        """Regret matching: play legal actions in proportion to positive regret."""
        positive = np.where(self._legal3, np.maximum(regrets, 0), 0)
        total = positive.sum(axis=2, keepdims=True)
        safe = np.where(total > 0, total, 1)
        return np.where(total > 0, positive / safe, self._uniform).astype(self.dtype)

    def average(self) -> Array:
        """The average strategy ``[history, hand, action]`` (the one that converges)."""
        total = self.strategy_sum.sum(axis=2, keepdims=True)
        safe = np.where(total > 0, total, 1)
        return np.where(total > 0, self.strategy_sum / safe, self._uniform)

    def iterate(self, count: int = 1) -> None:
        """Run ``count`` perfect-recall CFR+ iterations (seat 0 updates, then seat 1)."""
        if self.history_key is not None:
            raise SolverError("CFR+ on the public tree needs perfect recall (history_key=None)")
        for _ in range(count):
            self.iterations += 1
            for seat in (0, 1):
                opponent_reach = self.reach(1 - seat, self.current)
                values, action_values = self._values(seat, self.current, opponent_reach, False)
                assert action_values is not None
                mine = (self.mover == seat)[:, None, None] & self._legal3
                regrets = self.regrets + (action_values - values[:, :, None])
                self.regrets = np.where(mine, np.maximum(regrets, 0), self.regrets)
                weight = self.reach(seat, self.current)[:, :, None] * self.iterations
                self.strategy_sum += np.where(mine, weight * self.current, 0)
                self.current = self._matching(self.regrets)

    # -- passes over the tree -------------------------------------------------

    def _at(self, strategy: Array, stop: int, action: int) -> Array:
        """``strategy`` at histories ``[0, stop)`` for ``action``: shape (stop, H)."""
        if self.history_key is None:
            return strategy[:stop, :, action]
        return strategy[self.history_key[:stop], :, action]

    def reach(self, seat: int, strategy: Array) -> Array:
        """``seat``'s own reach probability of every history, times its chance
        weight: shape (histories, H)."""
        out = np.empty((self.size, self.num_hands), dtype=self.dtype)
        out[0] = self.game.weights
        for a in range(self.game.num_bids):
            stop = 1 << a
            own = (self.mover[:stop] == seat)[:, None]
            factor = np.where(own, self._at(strategy, stop, a), 1)
            np.multiply(out[:stop], factor, out=out[stop : 2 * stop])
        return out

    def _terminal(self, seat: int, strategy: Array, opponent_reach: Array) -> Array:
        """Counterfactual value for ``seat`` of a challenge after each history."""
        out = np.zeros((self.size, self.num_hands), dtype=self.dtype)
        payoff = self._bidder_payoff[seat]
        challenge = self._at(strategy, self.size, self.challenge)
        for b in range(self.game.num_bids):
            block = slice(1 << b, 2 << b)
            mover = self.mover[block]
            theirs = (mover != seat)[:, None]
            reach = np.where(
                theirs, opponent_reach[block] * challenge[block], opponent_reach[block]
            )
            # The challenger is the mover; the bidder is the other seat.
            sign = np.where(mover == seat, -1, 1).astype(self.dtype)[:, None]
            out[block] = sign * (reach @ payoff[b].T)
        return out

    def _values(
        self, seat: int, strategy: Array, opponent_reach: Array, best: bool
    ) -> tuple[Array, Array | None]:
        """Counterfactual values for ``seat`` at every (history, hand).

        ``best``: ``seat`` plays a perfect-recall best response (max over legal
        actions at each (history, own hand)); otherwise it plays ``strategy`` and
        the value of every action at every history is returned too (for CFR, only
        with perfect recall).
        """
        terminal = self._terminal(seat, strategy, opponent_reach)
        own_rows = self.mover == seat
        action_values = None
        if not best and self.history_key is None:
            action_values = np.zeros(
                (self.size, self.num_hands, self.num_actions), dtype=self.dtype
            )
            action_values[:, :, self.challenge] = terminal
        if best:
            values = terminal
            # No challenge at the root: a best-responding opener must bid.
            values[0] = -np.inf if self.mover[0] == seat else 0
        else:
            chal = self._at(strategy, self.size, self.challenge)
            values = np.where(own_rows[:, None], terminal * chal, terminal)
        for a in reversed(range(self.game.num_bids)):
            stop = 1 << a
            child = values[stop : 2 * stop]
            own = own_rows[:stop][:, None]
            if best:
                values[:stop] = np.where(
                    own, np.maximum(values[:stop], child), values[:stop] + child
                )
            else:
                if action_values is not None:
                    action_values[:stop, :, a] = child
                values[:stop] += np.where(own, child * self._at(strategy, stop, a), child)
        return values, action_values

    def value(self, strategy: Array) -> float:
        """Seat 0's expected payoff when both seats play ``strategy``."""
        values, _ = self._values(0, strategy, self.reach(1, strategy), False)
        return float(np.dot(self.game.weights, values[0]))

    def best_response_value(self, seat: int, strategy: Array) -> float:
        """The value to ``seat`` of a perfect-recall best response to the other
        seat's part of ``strategy``."""
        values, _ = self._values(seat, strategy, self.reach(1 - seat, strategy), True)
        return float(np.dot(self.game.weights, values[0]))

    def measure(self, strategy: Array | None = None, iterations: int | None = None) -> Measure:
        """Value and both best responses of ``strategy`` (default: the average)."""
        profile = self.average() if strategy is None else strategy
        return Measure(
            self.iterations if iterations is None else iterations,
            self.value(profile),
            (self.best_response_value(0, profile), self.best_response_value(1, profile)),
        )


class BoundedRecallSolver:
    """CFR+ on an imperfect-recall abstraction: an information set is (seat to
    move, own hand, the last ``recall`` bids of the round).

    Both seats' strategies depend on the history only through its key, so the
    play from a key onwards does not depend on how it was reached: the
    continuation payoff ``W[key, x0, x1]`` and the opponent's reach summed over
    all histories of a key satisfy recursions over the small key graph (keys are
    ordered by their last bid). A CFR+ iteration therefore costs
    O(keys x actions x hands^2) instead of a walk over all 2**B histories; the
    exploitability is still measured exactly on the full tree (:meth:`measure`).
    """

    def __init__(self, game: SmallGame, recall: int = 1) -> None:
        if recall < 1:
            raise SolverError(f"recall={recall!r}: must be at least 1 bid")
        self.game = game
        self.recall = recall
        bids = game.num_bids
        self.num_actions = bids + 1
        self.challenge = bids
        self.num_hands = len(game.hands)
        keys: list[tuple[int, tuple[int, ...]]] = [(0, ())]
        index = {keys[0]: 0}
        children: list[list[int]] = []
        position = 0
        while position < len(keys):
            mover, tail = keys[position]
            last = tail[-1] if tail else -1
            row = [-1] * self.num_actions
            for a in range(last + 1, bids):
                child = (1 - mover, (*tail, a)[-recall:])
                if child not in index:
                    index[child] = len(keys)
                    keys.append(child)
                row[a] = index[child]
            children.append(row)
            position += 1
        self.keys = keys
        self.key_index = index
        self.children = np.array(children, dtype=np.intp)
        """``children[key, bid]``: the key after that bid, -1 if illegal."""
        self.key_mover = np.array([mover for mover, _ in keys], dtype=np.int8)
        self.key_last = np.array([tail[-1] if tail else -1 for _, tail in keys], dtype=np.intp)
        legal = self.children >= 0
        legal[:, self.challenge] = self.key_last >= 0
        self.legal = legal
        self._legal3 = legal[:, None, :]
        self._uniform = self._legal3 / legal.sum(axis=1)[:, None, None]
        shape = (len(keys), self.num_hands, self.num_actions)
        self.regrets = np.zeros(shape)
        self.strategy_sum = np.zeros(shape)
        self.current = self._matching(self.regrets)
        self.iterations = 0
        wins = 2.0 * game.bidder_wins - 1.0
        # Seat 0's payoff when the mover of a key challenges its last bid.
        sign = np.where(self.key_mover == 0, -1.0, 1.0)
        self._terminal0 = sign[:, None, None] * wins[self.key_last.clip(0)]
        self._terminal0[self.key_last < 0] = 0
        self._by_last = [np.flatnonzero(self.key_last == b) for b in range(-1, bids)]

    def _matching(self, regrets: Array) -> Array:
        positive = np.where(self._legal3, np.maximum(regrets, 0), 0)
        total = positive.sum(axis=2, keepdims=True)
        safe = np.where(total > 0, total, 1)
        return np.where(total > 0, positive / safe, self._uniform)

    def average(self) -> Array:
        """The average strategy ``[key, hand, action]``."""
        total = self.strategy_sum.sum(axis=2, keepdims=True)
        safe = np.where(total > 0, total, 1)
        return np.where(total > 0, self.strategy_sum / safe, self._uniform)

    def _own(self, strategy: Array, keys: Array, action: int | slice) -> tuple[Array, Array]:
        """The mover's probabilities at ``keys`` shaped to broadcast over
        ``[key, x0, x1]`` (seat 0's hand on axis 1, seat 1's on axis 2)."""
        probs = strategy[keys, :, action]
        zero = self.key_mover[keys] == 0
        return zero, np.where(zero[:, None, None], probs[:, :, None], probs[:, None, :])

    def continuation(self, strategy: Array) -> Array:
        """Seat 0's expected payoff ``W[key, x0, x1]`` from each key on."""
        table = np.zeros((len(self.keys), self.num_hands, self.num_hands))
        for group in reversed(self._by_last):
            _, challenge = self._own(strategy, group, self.challenge)
            total = challenge * self._terminal0[group]
            for a in range(self.game.num_bids):
                child = self.children[group, a]
                live = child >= 0
                if live.any():
                    _, bid = self._own(strategy, group[live], a)
                    total[live] += bid * table[child[live]]
            table[group] = total
        return table

    def reach(self, seat: int, strategy: Array) -> Array:
        """``seat``'s chance-weighted reach summed over every history of each key."""
        out = np.zeros((len(self.keys), self.num_hands))
        out[0] = self.game.weights
        for group in self._by_last:
            mine = (self.key_mover[group] == seat)[:, None]
            for a in range(self.game.num_bids):
                child = self.children[group, a]
                live = child >= 0
                if live.any():
                    factor = np.where(mine[live], strategy[group[live], :, a], 1)
                    np.add.at(out, child[live], out[group[live]] * factor)
        return out

    def iterate(self, count: int = 1) -> None:
        """Run ``count`` CFR+ iterations (seat 0 updates, then seat 1)."""
        for _ in range(count):
            self.iterations += 1
            for seat in (0, 1):
                table = self.continuation(self.current)
                if seat == 1:
                    table = -table.transpose(0, 2, 1)
                    terminal = -self._terminal0.transpose(0, 2, 1)
                else:
                    terminal = self._terminal0
                # table[key, own, opp]; counterfactual action values at each key:
                child_tables = np.where(
                    (self.children >= 0)[:, :, None, None], table[self.children.clip(0)], 0
                )
                opponent = self.reach(1 - seat, self.current)
                action_values = np.einsum("kaxy,ky->kxa", child_tables, opponent)
                action_values[:, :, self.challenge] = np.einsum("kxy,ky->kx", terminal, opponent)
                here = (self.current * action_values).sum(axis=2, keepdims=True)
                mine = (self.key_mover == seat)[:, None, None] & self._legal3
                regrets = self.regrets + action_values - here
                self.regrets = np.where(mine, np.maximum(regrets, 0), self.regrets)
                own = self.reach(seat, self.current)[:, :, None] * self.iterations
                self.strategy_sum += np.where(mine, own * self.current, 0)
                self.current = self._matching(self.regrets)

    def value(self, strategy: Array) -> float:
        """Seat 0's expected payoff when both seats play ``strategy``."""
        table = self.continuation(strategy)
        weights = self.game.weights
        return float(weights @ table[0] @ weights)

    def history_keys(self, tree: Solver) -> Array:
        """The key of every history of ``tree`` (for exact evaluation there)."""
        lookup = np.full((2,) + (self.game.num_bids + 1,) * self.recall, -1, dtype=np.int32)
        for (mover, tail), key in self.key_index.items():
            padded = (-1,) * (self.recall - len(tail)) + tail
            lookup[(mover, *(b + 1 for b in padded))] = key
        columns: list[Array] = []
        rest = np.arange(tree.size, dtype=np.int64)
        for _ in range(self.recall):
            top = tree.highest[rest]
            columns.insert(0, top.astype(np.intp) + 1)
            rest = np.where(top >= 0, rest - (np.int64(1) << top.clip(0).astype(np.int64)), 0)
        keys: Array = lookup[(tree.mover.astype(np.intp), *columns)]
        if (keys < 0).any():
            raise SolverError("a history has no key: the key graph is incomplete")
        return keys

    def tree(self) -> Solver:
        """The full public tree, evaluating strategies through this solver's keys."""
        tree = Solver(self.game, history_key=np.zeros(1, dtype=np.intp))
        tree.history_key = self.history_keys(tree)
        return tree

    def measure(self, tree: Solver | None = None, strategy: Array | None = None) -> Measure:
        """Exact value and perfect-recall best responses on the full tree."""
        profile = self.average() if strategy is None else strategy
        tree = self.tree() if tree is None else tree
        table = profile.astype(tree.dtype)
        return Measure(
            self.iterations,
            self.value(profile),
            (tree.best_response_value(0, table), tree.best_response_value(1, table)),
        )


def history_of(game: SmallGame, bids: Sequence[Bid]) -> int:
    """The bitmask of a round's bids; :class:`SolverError` if one is unknown."""
    index = {bid: position for position, bid in enumerate(game.bids)}
    history = 0
    for bid in bids:
        if bid not in index:
            raise SolverError(f"{bid!r} is not a bid of the {game.dice}-dice game")
        history |= 1 << index[bid]
    return history


def convergence(
    dice: int, checkpoints: Sequence[int], recall: int = 0
) -> list[tuple[Measure, float]]:
    """CFR+ measured at each checkpoint (iterations): (measure, seconds of CFR so far).

    ``recall`` 0 is perfect recall; otherwise the bounded-recall abstraction.
    """
    game = build_game(dice)
    rows: list[tuple[Measure, float]] = []
    seconds = 0.0
    if recall == 0:
        solver = Solver(game)
        for target in checkpoints:
            began = time.perf_counter()
            solver.iterate(target - solver.iterations)
            seconds += time.perf_counter() - began
            rows.append((solver.measure(), seconds))
        return rows
    bounded = BoundedRecallSolver(game, recall)
    tree = bounded.tree()
    for target in checkpoints:
        began = time.perf_counter()
        bounded.iterate(target - bounded.iterations)
        seconds += time.perf_counter() - began
        rows.append((bounded.measure(tree), seconds))
    return rows


def write_table(path: Path, dice: int, iterations: int, recall: int) -> Measure:
    """Solve and save an average strategy for the bot (``recall`` 0 = perfect)."""
    game = build_game(dice)
    if recall == 0:
        solver = Solver(game)
        solver.iterate(iterations)
        average, measure = solver.average(), solver.measure()
    else:
        bounded = BoundedRecallSolver(game, recall)
        bounded.iterate(iterations)
        average, measure = bounded.average(), bounded.measure()
    save_table(path, game, average, recall, measure)
    return measure


def save_table(path: Path, game: SmallGame, average: Array, recall: int, measure: Measure) -> None:
    """Write an average strategy with what the bot checks before trusting it."""
    np.savez_compressed(
        path,
        average=average.astype(np.float32),
        bids=np.array([f"{bid.quantity}x{bid.face}" for bid in game.bids]),
        recall=recall,
        iterations=measure.iterations,
        exploitability=measure.exploitability,
        value=measure.value,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """``convergence``: print a Markdown table; ``write-table``: cache a strategy."""
    parser = argparse.ArgumentParser(prog="python -m example_bots.liars_dice_cfr_solver")
    parser.add_argument("command", choices=("convergence", "write-table"))
    parser.add_argument("--dice", type=int, default=1)
    parser.add_argument("--recall", type=int, default=0, help="bids remembered; 0 = all")
    parser.add_argument("--checkpoints", default="10,100,1000")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write-table":
        if args.out is None:
            parser.error("write-table needs --out")
        began = time.perf_counter()
        measure = write_table(args.out, args.dice, args.iterations, args.recall)
        print(
            f"{args.out}: {args.iterations} iterations in {time.perf_counter() - began:.1f} s,"
            f" value {measure.value:.6f}, exploitability {measure.exploitability:.6f}"
        )
        return
    checkpoints = [int(text) for text in args.checkpoints.split(",")]
    print("| iterations | CFR+ time (s) | exploitability | value (seat 0) | value + 7/258 |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for measure, seconds in convergence(args.dice, checkpoints, args.recall):
        print(
            f"| {measure.iterations} | {seconds:.1f} | {measure.exploitability:.6f}"
            f" | {measure.value:.6f} | {measure.value - GAME_VALUE_ONE_DIE:+.6f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
