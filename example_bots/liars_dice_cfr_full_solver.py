"""CFR+ for full-size Liar's Dice: our default rules, two seats, up to five dice each.

The default rules (``same-face-or-same-quantity`` raises, no wilds, the sum endgame,
rounds until one seat has no dice) make a match a chain of **rounds**. A round starts
from a public state — the dice each seat holds and who opens — and its dice are
fresh, so nothing hidden carries over from one round to the next. A round's
challenge ends it with one seat a die down, and the loser opens the next round. So
the match decomposes exactly: with ``V(a, b)`` the opener's chance of winning the
match from a round where the opener holds ``a`` dice and the responder ``b``,

* the opener loses a die: it opens the next round, worth ``V(a - 1, b)`` to it
  (``V(0, b) = 0``: it is out);
* the responder loses a die: it opens the next round, worth ``1 - V(b - 1, a)`` to
  the opener (``V(0, a) = 0``, so the opener has won).

We solve the rounds in order of the dice on the table (``a + b`` = 2, 3, …, 10),
each as a zero-sum game whose terminal payoffs are those continuation values, and
record each round's value ``V(a, b)`` for the larger ones. A match of five dice each
needs the 25 rounds ``1 <= a, b <= 5``; ``(1, 1)`` is the sum round.

**The abstraction.** An information set of a round is (the mover's dice, the bid to
beat, which seat made it) — the last bid only (recall 1), with the round's public
state (``a``, ``b``, opener or responder) implied by the table it belongs to. A
5-dice hand is a face-count multiset (252 of them); a round of ten dice has 60 bids,
so there are 121 keys (the opening, and each bid made by either seat). Since both
seats' play depends on the history only through the key, the payoff from a key on
does not depend on how it was reached, and CFR+ runs on the small key graph (as
:class:`example_bots.liars_dice_cfr_solver.BoundedRecallSolver` does for OpenSpiel's
rules), here with the continuation table ``W[key, x0, x1]`` built bid by bid in
raise order, and the opponent's reach summed over every history of a key.

**Off the path.** A key no equilibrium reaches (an opponent's odd bid) would get no
regret at all, and so a uniform strategy. The opponent's reach used to weight
regrets is therefore that of its strategy mixed with ``tremble`` of the uniform one
(a trembling opponent, as in a perturbed game); the continuation values and the
averaging use the strategies themselves.

**One implementation of the rules.** The bids, which bid raises which, and how many
dice count for a bid all come from the engine (:mod:`referee.games.liars_dice.engine`
through :mod:`sdk.liars_dice`); :func:`build_round` checks that the raise graph is
acyclic in the engine's bid order.

    python -m example_bots.liars_dice_cfr_full_solver --dice 5 --iterations 400 \\
        --out example_bots/data/liars_dice_cfr_full.npz
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from sdk.liars_dice import (
    LIARS_DICE,
    Bid,
    Challenge,
    GameError,
    SumBid,
    bid_is_true,
    counts_for,
)

Array = npt.NDArray[Any]
AnyBid = Bid | SumBid

DEFAULT_TREMBLE: Final = 0.01
"""Share of the uniform strategy in the opponent's reach when weighting regrets."""
DEFAULT_RECALL: Final = 2
"""Bids an information set remembers: the bid to beat and the one before it."""
MAX_DICE: Final = 5
"""Largest dice count per seat the table covers."""


class FullSolverError(GameError):
    """The solver cannot handle these rules or this round."""


def default_rules(dice: int) -> dict[str, str]:
    """Our default rule options with ``dice`` dice each and no roll-off."""
    return {"dice_per_player": str(dice), "roll_off": "false"}


def hands_of(dice: int) -> tuple[list[tuple[int, ...]], Array]:
    """Every hand of ``dice`` dice as a sorted tuple, and its chance probability."""
    hands = list(itertools.combinations_with_replacement(range(1, 7), dice))
    weights = []
    for hand in hands:
        arrangements = math.factorial(dice)
        for face in set(hand):
            arrangements //= math.factorial(hand.count(face))
        weights.append(arrangements / 6**dice)
    return hands, np.array(weights)


@dataclass(frozen=True, slots=True)
class Round:
    """One round's abstract game, learnt from the engine.

    Seat 0 is the opener (``a`` dice), seat 1 the responder (``b`` dice).
    """

    a: int
    b: int
    bids: tuple[AnyBid, ...]
    """Every bid of the round, in the engine's order (a raise comes later)."""
    raises: tuple[tuple[int, ...], ...]
    """``raises[i]``: indices of the bids that raise bid ``i``."""
    hands: tuple[list[tuple[int, ...]], list[tuple[int, ...]]]
    weights: tuple[Array, Array]
    true: Array
    """``true[i, x0, x1]``: bid ``i`` survives a challenge with these hands."""

    @property
    def num_bids(self) -> int:
        return len(self.bids)


def build_round(a: int, b: int) -> Round:
    """The round with ``a`` dice for the opener and ``b`` for the responder."""
    if not (1 <= a <= MAX_DICE and 1 <= b <= MAX_DICE):
        raise FullSolverError(f"a round of {a} and {b} dice: each must be 1..{MAX_DICE}")
    game = LIARS_DICE
    state = _round_state(a, b)
    hands0, weights0 = hands_of(a)
    hands1, weights1 = hands_of(b)
    rolled = game.apply_chance(state, [*hands0[0], *hands1[0]])
    opening = [act for act in game.legal_actions(game.observe(rolled, 0)) if act != Challenge()]
    bids: tuple[AnyBid, ...] = tuple(act for act in opening if isinstance(act, Bid | SumBid))
    index = {bid: position for position, bid in enumerate(bids)}
    raises: list[tuple[int, ...]] = []
    for position, bid in enumerate(bids):
        after = game.apply_action(rolled, 0, bid)
        legal = [act for act in game.legal_actions(game.observe(after, 1)) if act != Challenge()]
        children = tuple(sorted(index[act] for act in legal if isinstance(act, Bid | SumBid)))
        if any(child <= position for child in children):
            raise FullSolverError(f"{bid!r} is raised by an earlier bid: no order to solve in")
        raises.append(children)
    true = np.zeros((len(bids), len(hands0), len(hands1)), dtype=bool)
    for position, bid in enumerate(bids):
        # Dice that count for a bid add up over hands (no wilds in these rules).
        wilds = (rolled.wilds_active, rolled.rules.wild)
        count0 = np.array([counts_for(bid, [hand], *wilds) for hand in hands0])
        count1 = np.array([counts_for(bid, [hand], *wilds) for hand in hands1])
        totals = count0[:, None] + count1[None, :]
        true[position] = np.vectorize(lambda total, bid=bid: bid_is_true(bid, int(total)))(totals)
    return Round(a, b, bids, tuple(raises), (hands0, hands1), (weights0, weights1), true)


def _round_state(a: int, b: int) -> Any:
    """A state at the roll of a round where seat 0 opens with ``a`` dice and seat 1
    holds ``b``, reached through the engine: from ``max(a, b) + 1`` dice each, seat 1
    and then seat 0 lose challenges (a false bid called) until the counts match, so
    seat 0 lost last and opens."""
    game = LIARS_DICE
    start = max(a, b) + 1
    state = game.new_game(game.parse_rules(default_rules(start)), 2)
    losses = [1] * (start - b) + [0] * (start - a)
    for loser in losses:
        state = game.apply_chance(state, [1] * sum(state.dice_counts))  # no 2s anywhere
        opener = 1 - loser if state.to_move != loser else loser
        if opener == loser:
            state = game.apply_action(state, loser, Bid(1, 2))
        else:
            state = game.apply_action(state, opener, Bid(1, 1))
            state = game.apply_action(state, loser, Bid(1, 2))
        state = game.apply_action(state, 1 - loser, Challenge())
    if state.dice_counts != (a, b) or state.opener != 0 or state.phase != "roll":
        raise FullSolverError(f"could not set up round ({a}, {b}): reached {state.dice_counts}")
    return state


@dataclass(frozen=True, slots=True)
class Group:
    """The keys whose last bid is ``last`` (-1: the opening) and whose mover is
    ``mover``: a slice of every key and a slice of the mover's own keys."""

    last: int
    mover: int
    keys: slice
    own: slice
    raises: list[int]
    """Bids that raise ``last`` (every bid at the opening)."""


class KeyGraph:
    """The information-set keys of a round: (mover, the last ``recall`` bids).

    Keys are sorted by (last bid, mover, tail), so each :class:`Group` is contiguous
    and a key's children (which end in a later bid) come after it.
    """

    def __init__(self, game: Round, recall: int) -> None:
        if recall < 1:
            raise FullSolverError(f"recall={recall!r}: must be at least 1 bid")
        self.recall = recall
        every = list(range(game.num_bids))
        root: tuple[int, tuple[int, ...]] = (0, ())
        seen = {root}
        pending = [root]
        while pending:
            mover, tail = pending.pop()
            for bid in game.raises[tail[-1]] if tail else every:
                child = (1 - mover, (*tail, bid)[-recall:])
                if child not in seen:
                    seen.add(child)
                    pending.append(child)

        def order(key: tuple[int, tuple[int, ...]]) -> tuple[int, int, tuple[int, ...]]:
            return (key[1][-1] if key[1] else -1, key[0], key[1])

        self.keys = sorted(seen, key=order)
        index = {key: i for i, key in enumerate(self.keys)}
        self.mover = np.array([mover for mover, _ in self.keys])
        self.own_index = np.zeros(len(self.keys), dtype=np.intp)
        counts = [0, 0]
        for i, (mover, _) in enumerate(self.keys):
            self.own_index[i] = counts[mover]
            counts[mover] += 1
        self.sizes = (counts[0], counts[1])
        self.groups: list[Group] = []
        self.children: list[Array] = []
        """Per group: ``[key in group, raise]`` -> the child key."""
        start = 0
        while start < len(self.keys):
            last, mover, _ = order(self.keys[start])
            stop = start
            while stop < len(self.keys) and order(self.keys[stop])[:2] == (last, mover):
                stop += 1
            raises = every if last < 0 else list(game.raises[last])
            own = int(self.own_index[start])
            self.groups.append(
                Group(last, mover, slice(start, stop), slice(own, own + stop - start), raises)
            )
            self.children.append(
                np.array(
                    [
                        [index[(1 - mover, (*self.keys[k][1], bid)[-recall:])] for bid in raises]
                        for k in range(start, stop)
                    ],
                    dtype=np.intp,
                ).reshape(stop - start, len(raises))
            )
            start = stop

    def tails(self, seat: int) -> Array:
        """Seat ``seat``'s keys as their last ``recall`` bids, left-padded with -1."""
        rows = [
            (-1,) * (self.recall - len(tail)) + tail for mover, tail in self.keys if mover == seat
        ]
        return np.array(rows, dtype=np.int16).reshape(len(rows), self.recall)


class RoundSolver:
    """CFR+ on one round's key graph (see the module docstring).

    Strategies are per seat, ``[own key, own hand, action]``; actions are the bid
    indices, then the challenge (index ``num_bids``).
    """

    def __init__(
        self,
        game: Round,
        lose_value: tuple[float, float],
        tremble: float = DEFAULT_TREMBLE,
        recall: int = 1,
    ) -> None:
        self.game = game
        self.tremble = tremble
        self.graph = KeyGraph(game, recall)
        bids = game.num_bids
        self.challenge = bids
        actions = bids + 1
        self.legal = [np.zeros((size, actions), dtype=bool) for size in self.graph.sizes]
        for group in self.graph.groups:
            rows = self.legal[group.mover][group.own]
            rows[:, group.raises] = True
            rows[:, self.challenge] = group.last >= 0
        self.regrets = [
            np.zeros((self.graph.sizes[s], len(game.hands[s]), actions)) for s in (0, 1)
        ]
        self.strategy_sum = [np.zeros_like(r) for r in self.regrets]
        self.current = [self._matching(s, self.regrets[s]) for s in (0, 1)]
        self.iterations = 0
        # Seat 0's payoff when bid i, made by `bidder`, is challenged.
        lose0, lose1 = lose_value
        true = game.true
        self.terminal = (
            np.where(true, lose1, lose0).astype(np.float32),  # bidder 0: true -> 1 loses
            np.where(true, lose0, lose1).astype(np.float32),  # bidder seat 1
        )

    # -- strategies ---------------------------------------------------------

    def _uniform(self, seat: int) -> Array:
        legal = self.legal[seat][:, None, :]
        return np.broadcast_to(legal / legal.sum(axis=2, keepdims=True), self.regrets[seat].shape)

    def _matching(self, seat: int, regrets: Array) -> Array:
        legal = self.legal[seat][:, None, :]
        positive = np.where(legal, np.maximum(regrets, 0), 0)
        total = positive.sum(axis=2, keepdims=True)
        safe = np.where(total > 0, total, 1)
        return np.where(total > 0, positive / safe, self._uniform(seat))

    def average(self) -> tuple[Array, Array]:
        """Each seat's average strategy ``[key, hand, action]``; the current one where
        a key was never reached by its own seat."""
        out = []
        for seat in (0, 1):
            total = self.strategy_sum[seat].sum(axis=2, keepdims=True)
            safe = np.where(total > 0, total, 1)
            out.append(np.where(total > 0, self.strategy_sum[seat] / safe, self.current[seat]))
        return out[0], out[1]

    # -- passes over the key graph ------------------------------------------

    def continuation(self, strategy: Sequence[Array]) -> Array:
        """Seat 0's expected payoff ``W[key, x0, x1]`` from each key on."""
        game = self.game
        graph = self.graph
        table = np.zeros((len(graph.keys), len(game.hands[0]), len(game.hands[1])), np.float32)
        for group, children in zip(reversed(graph.groups), reversed(graph.children), strict=True):
            own = strategy[group.mover][group.own]
            if group.mover == 0:
                total = np.einsum("gxc,gcxy->gxy", own[:, :, group.raises], table[children])
                if group.last >= 0:
                    total += own[:, :, None, self.challenge] * self.terminal[1][group.last]
            else:
                total = np.einsum("gyc,gcxy->gxy", own[:, :, group.raises], table[children])
                if group.last >= 0:
                    total += own[:, None, :, self.challenge] * self.terminal[0][group.last]
            table[group.keys] = total
        return table

    def reach(self, seat: int, strategy: Sequence[Array]) -> Array:
        """``seat``'s chance-weighted reach of each key, summed over every history."""
        graph = self.graph
        weights = self.game.weights[seat]
        out = np.zeros((len(graph.keys), len(weights)))
        out[0] = weights
        for group, children in zip(graph.groups, graph.children, strict=True):
            here = out[group.keys][:, None, :]  # (g, 1, hands)
            if group.mover == seat:
                step = strategy[seat][group.own][:, :, group.raises].transpose(0, 2, 1) * here
            else:
                step = np.broadcast_to(here, (*children.shape, len(weights)))
            np.add.at(out, children, step)
        return out

    def _trembling(self, strategy: Sequence[Array]) -> list[Array]:
        return [(1 - self.tremble) * strategy[s] + self.tremble * self._uniform(s) for s in (0, 1)]

    def action_values(self, seat: int, strategy: Sequence[Array]) -> Array:
        """Counterfactual values ``[own key, own hand, action]`` for ``seat``, the
        opponent's reach trembling."""
        table = self.continuation(strategy)
        opponent = self.reach(1 - seat, self._trembling(strategy))
        out = np.zeros_like(self.regrets[seat])
        for group, children in zip(self.graph.groups, self.graph.children, strict=True):
            if group.mover != seat:
                continue
            theirs = opponent[group.keys]
            rows = out[group.own]
            if seat == 0:
                rows[:, :, group.raises] = np.einsum("gcxy,gy->gxc", table[children], theirs)
                if group.last >= 0:
                    rows[:, :, self.challenge] = theirs @ self.terminal[1][group.last].T
            else:
                rows[:, :, group.raises] = -np.einsum("gcxy,gx->gyc", table[children], theirs)
                if group.last >= 0:
                    rows[:, :, self.challenge] = -(theirs @ self.terminal[0][group.last])
            out[group.own] = rows
        return out

    def iterate(self, count: int = 1) -> None:
        """``count`` CFR+ iterations: seat 0 updates, then seat 1; linear averaging."""
        for _ in range(count):
            self.iterations += 1
            for seat in (0, 1):
                values = self.action_values(seat, self.current)
                here = (self.current[seat] * values).sum(axis=2, keepdims=True)
                legal = self.legal[seat][:, None, :]
                self.regrets[seat] = np.where(
                    legal, np.maximum(self.regrets[seat] + values - here, 0), 0
                )
                own = self.reach(seat, self.current)[self.graph.mover == seat][:, :, None]
                self.strategy_sum[seat] += own * self.current[seat] * self.iterations
                self.current[seat] = self._matching(seat, self.regrets[seat])

    def value(self, strategy: Sequence[Array]) -> float:
        """Seat 0's expected payoff when both seats play ``strategy``."""
        table = self.continuation(strategy)
        weights0, weights1 = self.game.weights
        return float(weights0 @ table[0] @ weights1)


@dataclass(frozen=True, slots=True)
class Solved:
    """One solved round: its average strategies and value."""

    game: Round
    strategy: tuple[Array, Array]
    tails: tuple[Array, Array]
    """Each seat's keys: the last ``recall`` bid indices, left-padded with -1."""
    value: float
    """The opener's chance of winning the match from this round."""
    iterations: int
    seconds: float


def solve_all(
    dice: int,
    iterations: int,
    tremble: float = DEFAULT_TREMBLE,
    report: Callable[[Solved], None] | None = None,
    recall: int = DEFAULT_RECALL,
) -> dict[tuple[int, int], Solved]:
    """Every round of a match of ``dice`` dice each, smallest first."""
    solved: dict[tuple[int, int], Solved] = {}
    values: dict[tuple[int, int], float] = {}

    def win(opener: int, responder: int) -> float:
        return 0.0 if opener == 0 else values[(opener, responder)]

    for total in range(2, 2 * dice + 1):
        for a in range(max(1, total - dice), min(dice, total - 1) + 1):
            b = total - a
            began = time.perf_counter()
            game = build_round(a, b)
            # Payoff to the opener (+1 win, -1 loss) when it / the responder loses a die.
            lose0 = 2 * win(a - 1, b) - 1 if a > 1 else -1.0
            lose1 = 1 - 2 * win(b - 1, a) if b > 1 else 1.0
            solver = RoundSolver(game, (lose0, lose1), tremble, recall)
            solver.iterate(iterations)
            average = solver.average()
            value = (1 + solver.value(average)) / 2
            values[(a, b)] = value
            solved[(a, b)] = Solved(
                game,
                average,
                (solver.graph.tails(0), solver.graph.tails(1)),
                value,
                iterations,
                time.perf_counter() - began,
            )
            if report is not None:
                report(solved[(a, b)])
    return solved


def save(path: Path, solved: Mapping[tuple[int, int], Solved], tremble: float) -> None:
    """The tables the bot reads: per round, each seat's strategy on its legal actions
    only, as bytes (probability x 255, rounded, so each row sums to about 255)."""
    arrays: dict[str, Array] = {}
    for (a, b), item in solved.items():
        for seat in (0, 1):
            table = item.strategy[seat]
            arrays[f"p{a}{b}s{seat}"] = np.rint(table * 255).astype(np.uint8)
            arrays[f"k{a}{b}s{seat}"] = item.tails[seat]
        arrays[f"v{a}{b}"] = np.array(item.value)
        arrays[f"bids{a}{b}"] = np.array([bid_text(bid) for bid in item.game.bids])
    arrays["iterations"] = np.array(next(iter(solved.values())).iterations)
    arrays["tremble"] = np.array(tremble)
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]  # a str key is no flag


def bid_text(bid: AnyBid) -> str:
    return f"{bid.quantity}x{bid.face}" if isinstance(bid, Bid) else f"sum{bid.total}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m example_bots.liars_dice_cfr_full_solver")
    parser.add_argument("--dice", type=int, default=MAX_DICE)
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--tremble", type=float, default=DEFAULT_TREMBLE)
    parser.add_argument("--recall", type=int, default=DEFAULT_RECALL, help="bids in a key")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    def report(item: Solved) -> None:
        print(
            f"round ({item.game.a}, {item.game.b}): {item.game.num_bids} bids,"
            f" opener wins {item.value:.4f}, {item.iterations} iterations in"
            f" {item.seconds:.1f} s",
            flush=True,
        )

    solved = solve_all(args.dice, args.iterations, args.tremble, report, args.recall)
    save(args.out, solved, args.tremble)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
