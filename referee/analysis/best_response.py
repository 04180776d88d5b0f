"""Exact best response and exploitability for two-seat games small enough to enumerate.

A bot's strength against a fixed field says little about how much it can lose; the
exploitability of its policy does: how much a best response wins against it. For a
tiny variant (Liar's Dice with one die each: 24,576 information sets) the whole game
tree fits in memory, so the best response is computed exactly, as OpenSpiel's
``best_response`` does, instead of being trained.

The tree is built once from the engine (``new_game``, ``chance_request``,
``apply_chance``, ``observe``, ``legal_actions``, ``transition``): pure, no process.
An information set is the acting seat's observation (engines give every seat the
whole public history and its own private values, i.e. perfect recall). Payoffs are
OpenSpiel's: +1 to the better-placed seat, -1 to the other, 0 on a tie; the
exploitability is the mean over seats of the best response's value.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Final

from referee.gamekit.base import CHANCE, DiceRoll, Game

MAX_NODES: Final = 1_000_000
"""Largest tree built (a few hundred MB of lists); a bigger variant is refused."""
TERMINAL: Final = -2
"""The kind of a terminal node (:data:`CHANCE` is -1, seats are 0 and 1)."""
MAX_CHANCE_DEPTH: Final = 4
"""Most chance events on one path: a repeated roll-off would make the tree infinite."""

Distribution = Sequence[float]
"""Probabilities over an information set's legal actions, in the engine's order."""


class TreeTooLargeError(Exception):
    """The variant's game tree is too large (or unbounded) to enumerate."""


class UnsupportedGameError(Exception):
    """The game cannot be enumerated: not two seats, or a chance event that is not dice."""


@dataclass(frozen=True, slots=True)
class InfoSet:
    """One decision point of one seat, as that seat sees it."""

    seat: int
    observation: Any
    actions: tuple[Any, ...]
    """The legal actions, in the engine's ``legal_actions`` order."""
    turn: int = 1
    """The turn number a match sends here: decisions before it on its histories, plus
    one (the observation holds the whole public history, so every history agrees)."""

    @property
    def key(self) -> str:
        """Stable short name of the observation (:func:`infoset_key`)."""
        return infoset_key(self.observation)


def infoset_key(observation: Any) -> str:
    """A short, stable name for an observation: a digest of its fields but the rules
    and seat count (the same for every information set of one variant), so a saved
    strategy table and the bot reading it agree without sharing Python objects."""
    parts = tuple(
        (item.name, getattr(observation, item.name))
        for item in fields(observation)
        if item.name not in ("rules", "num_seats")
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:20]


class GameTree:
    """The whole tree of a two-seat game, as flat lists indexed by node (preorder)."""

    def __init__(
        self, game: Game[Any, Any, Any, Any], rules: Any, *, max_nodes: int = MAX_NODES
    ) -> None:
        if game.max_seats < 2 or game.min_seats > 2:
            raise UnsupportedGameError(f"{game.name}: best responses need a two-seat game")
        self.game = game
        self.rules = rules
        self.max_nodes = max_nodes
        self.kind: list[int] = []
        """:data:`TERMINAL`, :data:`CHANCE`, or the acting seat (0 or 1)."""
        self.children: list[tuple[int, ...]] = []
        self.chance_p: list[float] = []
        """Each chance node's outcome probability (uniform dice)."""
        self.infoset: list[int] = []
        """A decision node's index into :attr:`infosets` (-1 otherwise)."""
        self.payoff: list[float] = []
        """A terminal node's payoff to seat 0 (seat 1 gets minus that)."""
        self.infosets: list[InfoSet] = []
        self._index: dict[Any, int] = {}
        self._members: dict[int, dict[int, list[int]]] = {}
        self._seat_infosets: dict[int, list[int]] = {}
        self._build(game.new_game(rules, 2), 0, 1)

    def _new(self, kind: int) -> int:
        if len(self.kind) >= self.max_nodes:
            raise TreeTooLargeError(
                f"{self.game.name}: more than {self.max_nodes:,} nodes; choose a smaller"
                " variant (e.g. --rule dice_per_player=1)"
            )
        self.kind.append(kind)
        self.children.append(())
        self.chance_p.append(0.0)
        self.infoset.append(-1)
        self.payoff.append(0.0)
        return len(self.kind) - 1

    def _build(self, state: Any, chance_depth: int, turn: int) -> int:
        actor = self.game.to_act(state)
        if actor is None:
            node = self._new(TERMINAL)
            places = self.game.outcome(state).places
            self.payoff[node] = float((places[0] < places[1]) - (places[0] > places[1]))
            return node
        if actor == CHANCE:
            return self._build_chance(state, chance_depth, turn)
        node = self._new(actor)
        observation = self.game.observe(state, actor)
        index = self._index.get(observation)
        if index is None:
            index = len(self.infosets)
            actions = tuple(self.game.legal_actions(observation))
            self.infosets.append(InfoSet(actor, observation, actions, turn))
            self._index[observation] = index
        self.infoset[node] = index
        self.children[node] = tuple(
            self._build(self.game.transition(state, actor, action), chance_depth, turn + 1)
            for action in self.infosets[index].actions
        )
        return node

    def _build_chance(self, state: Any, chance_depth: int, turn: int) -> int:
        request = self.game.chance_request(state)
        if not isinstance(request, DiceRoll):
            raise UnsupportedGameError(
                f"{self.game.name}: chance event {request!r} is not a dice roll"
            )
        if chance_depth >= MAX_CHANCE_DEPTH:
            raise TreeTooLargeError(
                f"{self.game.name}: more than {MAX_CHANCE_DEPTH} chance events on one path"
                " (a roll-off that can repeat?); use --rule roll_off=false"
            )
        node = self._new(CHANCE)
        outcomes = list(itertools.product(range(1, request.sides + 1), repeat=request.count))
        self.chance_p[node] = 1.0 / len(outcomes)
        self.children[node] = tuple(
            self._build(self.game.apply_chance(state, outcome), chance_depth + 1, turn)
            for outcome in outcomes
        )
        return node

    def members(self, seat: int) -> dict[int, list[int]]:
        """``seat``'s information sets -> their nodes (histories), built once."""
        known = self._members.get(seat)
        if known is None:
            known = {}
            for node, kind in enumerate(self.kind):
                if kind == seat:
                    known.setdefault(self.infoset[node], []).append(node)
            self._members[seat] = known
        return known

    def seat_infosets(self, seat: int) -> list[int]:
        """Indices of ``seat``'s information sets (a new list; found once)."""
        known = self._seat_infosets.get(seat)
        if known is None:
            known = [i for i, infoset in enumerate(self.infosets) if infoset.seat == seat]
            self._seat_infosets[seat] = known
        return list(known)


Policy = Mapping[int, Distribution]
"""A seat's (estimated) policy: information-set index -> action probabilities."""


@dataclass(frozen=True, slots=True)
class BestResponse:
    """The best response of ``seat`` against a fixed policy of the other seat."""

    seat: int
    value: float
    """Expected payoff to ``seat`` (over chance and the other seat's policy)."""
    actions: dict[int, int]
    """Information-set index -> index of the chosen action in its legal actions."""


def best_response(tree: GameTree, seat: int, policy: Policy) -> BestResponse:
    """Seat ``seat``'s exact best response to the other seat playing ``policy``.

    OpenSpiel's algorithm: an information set picks the action with the highest
    sum, over its histories, of (chance x opponent) reach times the child's value;
    a history's value then follows that choice. ``policy`` must cover every
    information set of the other seat that chance and its own play reach
    (:class:`KeyError` otherwise).
    """
    reach = _opponent_reach(tree, seat, policy)
    members = tree.members(seat)
    sign = 1.0 if seat == 0 else -1.0
    value: list[float | None] = [None] * len(tree.kind)
    chosen: dict[int, int] = {}

    def choose(infoset: int) -> int:
        if infoset not in chosen:
            nodes = members[infoset]
            reached = [h for h in nodes if reach[h]]  # unreached histories add nothing
            if not reached:  # every total is 0: the first action, as max picks it
                chosen[infoset] = 0
                return 0
            width = len(tree.children[nodes[0]])
            totals = [
                sum(reach[h] * node_value(tree.children[h][a]) for h in reached)
                for a in range(width)
            ]
            chosen[infoset] = max(range(width), key=totals.__getitem__)  # first among ties
        return chosen[infoset]

    def node_value(node: int) -> float:
        known = value[node]
        if known is not None:
            return known
        kind, children = tree.kind[node], tree.children[node]
        if kind == TERMINAL:
            result = sign * tree.payoff[node]
        elif kind == CHANCE:
            result = tree.chance_p[node] * sum(node_value(c) for c in children)
        elif kind == seat:
            result = node_value(children[choose(tree.infoset[node])])
        else:
            probs = policy[tree.infoset[node]]
            result = sum(p * node_value(c) for p, c in zip(probs, children, strict=True) if p)
        value[node] = result
        return result

    total = node_value(0)
    for infoset in members:  # information sets no history reaches still get an action
        choose(infoset)
    return BestResponse(seat=seat, value=total, actions=chosen)


def _opponent_reach(tree: GameTree, seat: int, policy: Policy) -> list[float]:
    """Each node's reach probability from chance and the other seat.

    Only nodes with a nonzero reach are visited (depth first): every node below a
    zero reach has reach 0 as well, which the list already holds, so the values are
    those of a pass over the whole tree. A sampled policy reaches a small part of it."""
    kinds, children_of, chance_p, infoset_of = tree.kind, tree.children, tree.chance_p, tree.infoset
    reach = [0.0] * len(kinds)
    reach[0] = 1.0
    stack = [0]
    while stack:
        node = stack.pop()
        children = children_of[node]
        if not children:
            continue
        here = reach[node]
        kind = kinds[node]
        if kind == CHANCE:
            share = here * chance_p[node]
            if share:
                for child in children:
                    reach[child] = share
                stack.extend(children)
        elif kind == seat:
            for child in children:
                reach[child] = here
            stack.extend(children)
        else:
            for p, child in zip(policy[infoset_of[node]], children, strict=True):
                if p and (child_reach := here * p):
                    reach[child] = child_reach
                    stack.append(child)
    return reach


def exploitability(tree: GameTree, policies: Sequence[Policy]) -> tuple[float, list[BestResponse]]:
    """OpenSpiel's ``exploitability``: the mean over seats of the best response's
    value against the other seat's policy (``policies[seat]`` is seat ``seat``'s).
    0 for a Nash equilibrium of a zero-sum game; in payoff units (+1 win, -1 loss)."""
    responses = [best_response(tree, seat, policies[1 - seat]) for seat in (0, 1)]
    return sum(r.value for r in responses) / 2, responses


def uniform_policy(tree: GameTree, seat: int) -> dict[int, list[float]]:
    """Every legal action with equal probability, at every information set of ``seat``."""
    return {
        i: [1.0 / len(tree.infosets[i].actions)] * len(tree.infosets[i].actions)
        for i in tree.seat_infosets(seat)
    }


def policy_from(
    tree: GameTree, seat: int, choose: Callable[[Any, tuple[Any, ...]], Distribution]
) -> dict[int, list[float]]:
    """``seat``'s policy from a function of (observation, legal actions)."""
    result: dict[int, list[float]] = {}
    for i in tree.seat_infosets(seat):
        infoset = tree.infosets[i]
        result[i] = list(choose(infoset.observation, infoset.actions))
    return result


def response_value(tree: GameTree, seat: int, actions: Mapping[int, int], policy: Policy) -> float:
    """What the pure strategy ``actions`` (information set -> action index) of ``seat``
    wins against the other seat playing ``policy``: no maximisation, so evaluating a
    best response chosen on one sample against another sample's policy estimate is
    unbiased for a value at most the true best response's (docs/exploitability.md).
    Information sets the nodes reach but ``policy`` lacks must have no reach.

    Only the nodes the value reads are evaluated: below chance every outcome, below
    ``seat`` the chosen action, below the other seat the actions ``policy`` plays."""
    sign = 1.0 if seat == 0 else -1.0
    kinds, children_of, chance_p = tree.kind, tree.children, tree.chance_p
    infoset_of, payoff = tree.infoset, tree.payoff
    order: list[int] = []  # depth first: a node before its children
    stack = [0]
    while stack:
        node = stack.pop()
        order.append(node)
        kind = kinds[node]
        if kind == TERMINAL:
            continue
        children = children_of[node]
        if kind == CHANCE:
            stack.extend(children)
        elif kind == seat:
            stack.append(children[actions[infoset_of[node]]])
        else:
            probs = policy.get(infoset_of[node])
            if probs is not None:
                stack.extend(c for p, c in zip(probs, children, strict=True) if p)
    value = [0.0] * len(kinds)
    for node in reversed(order):  # children first
        kind, children = kinds[node], children_of[node]
        if kind == TERMINAL:
            value[node] = sign * payoff[node]
        elif kind == CHANCE:
            value[node] = chance_p[node] * sum(value[c] for c in children)
        elif kind == seat:
            value[node] = value[children[actions[infoset_of[node]]]]
        else:
            probs = policy.get(infoset_of[node])
            if probs is not None:
                value[node] = sum(p * value[c] for p, c in zip(probs, children, strict=True) if p)
    return value[0]


def unanswered_reachable(
    tree: GameTree, seat: int, answers: Mapping[int, Sequence[int]]
) -> set[int]:
    """``seat``'s information sets that some history reaches through actions ``seat``
    already answered (``answers``: information set -> sampled action indices) but
    that are not answered yet: the next questions when a bot is asked only where its
    sampled play can lead. An information set no sample leads to has no reach under
    the estimated policy, so its answer could not change any estimate. Asking wave
    by wave, :class:`Frontier` gives the same sets without walking the tree again."""
    frontier: set[int] = set()
    stack = [0]
    while stack:
        node = stack.pop()
        children = tree.children[node]
        if tree.kind[node] != seat:
            stack.extend(children)
            continue
        infoset = tree.infoset[node]
        taken = answers.get(infoset)
        if taken is None:
            frontier.add(infoset)
        else:
            stack.extend(children[a] for a in set(taken))
    return frontier


class Frontier:
    """:func:`unanswered_reachable` for answers that only grow, wave by wave.

    :meth:`advance` returns what :func:`unanswered_reachable` would for the answers
    given, but walks on only from the histories where the previous call stopped (at
    an information set without answers): everything above them was answered
    already and, as a row once given never changes, leads where it led before. So a
    whole probe walks the reachable tree once instead of once per wave."""

    def __init__(self, tree: GameTree, seat: int) -> None:
        self.tree = tree
        self.seat = seat
        self._stopped: list[int] = [0]
        """Where the last walk stopped: ``seat``'s nodes at unanswered information
        sets (before the first call: the root)."""

    def advance(self, answers: Mapping[int, Sequence[int]]) -> set[int]:
        """The information sets now reachable and unanswered. Rows given to an
        earlier call must not have changed since (new rows may be added)."""
        kinds, children_of, infoset_of, seat = (
            self.tree.kind,
            self.tree.children,
            self.tree.infoset,
            self.seat,
        )
        frontier: set[int] = set()
        stopped: list[int] = []
        stack = self._stopped
        while stack:
            node = stack.pop()
            children = children_of[node]
            if kinds[node] != seat:
                stack.extend(children)
                continue
            infoset = infoset_of[node]
            taken = answers.get(infoset)
            if taken is None:
                frontier.add(infoset)
                stopped.append(node)
            else:
                stack.extend(children[a] for a in set(taken))
        self._stopped = stopped
        return frontier
