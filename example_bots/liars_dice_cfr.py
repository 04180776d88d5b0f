"""A Liar's Dice bot that plays a CFR+ equilibrium strategy in small games.

Supported: two seats, one round, ``dice_per_player`` 1 or 2, and OpenSpiel's
rules (``raise_rule=reset-face, wild_face=6, wild_opening=keep,
sum_endgame=false``); ``roll_off`` may be on or off (the solved strategy is for
"the opener" and "the responder", whichever seat that is). There the bot samples
its move from the average strategy of :mod:`example_bots.liars_dice_cfr_solver`:

* one die each: perfect-recall CFR+, information set (own die, every bid so far);
* two dice each: bounded-recall CFR+, information set (own dice, whose turn, the
  last two bids) — perfect recall there has ~352 million information sets.

The tables are cached in ``example_bots/data/`` (written by
``python -m example_bots.liars_dice_cfr_solver write-table``), so start-up
loads them in well under the 15 s budget; a cache whose bid list does not match
the engine's is ignored and the game is solved at start-up with
:data:`STARTUP_ITERATIONS` iterations instead.

Any other rules: the bot says so once on stderr and plays the probability bot's
policy (:mod:`example_bots.liars_dice_probability`), so it still never makes an
illegal move in a league — a refusal would only forfeit matches.

    python -m example_bots.liars_dice_cfr
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from example_bots.liars_dice_cfr_solver import (
    OPENSPIEL_OPTIONS,
    Array,
    BoundedRecallSolver,
    SmallGame,
    Solver,
    SolverError,
    build_game,
    history_of,
)
from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from sdk import Mixed, run
from sdk.bot import MatchInfo
from sdk.liars_dice import Action, Bid, Challenge, Observation, is_legal

DATA: Final = Path(__file__).resolve().parent / "data"
RECALL: Final = {1: 0, 2: 2}
"""Bids remembered per dice count; 0 = perfect recall."""
STARTUP_ITERATIONS: Final = {1: 100, 2: 15}
"""CFR+ iterations when no cached table fits (a few seconds each)."""


def table_path(dice: int) -> Path:
    """Where the cached average strategy for ``dice`` dice each lives."""
    return DATA / f"liars_dice_cfr_{dice}dice.npz"


@dataclass(frozen=True, slots=True)
class Policy:
    """An average strategy and how to find its row for an observation."""

    game: SmallGame
    recall: int
    table: Array
    """``[key, own hand, action]``; actions are the bids in raise order, then challenge."""
    keys: dict[tuple[int, tuple[int, ...]], int]
    """(seat to move, last ``recall`` bids) -> key; empty for perfect recall."""

    def key(self, bids: tuple[Bid, ...]) -> int:
        history = history_of(self.game, bids)
        if self.recall == 0:
            return history
        index = {bid: position for position, bid in enumerate(self.game.bids)}
        tail = tuple(index[bid] for bid in bids)[-self.recall :]
        return self.keys[(len(bids) % 2, tail)]

    def probabilities(self, hand: tuple[int, ...], bids: tuple[Bid, ...]) -> Array:
        row: Array = self.table[self.key(bids), self.game.hands.index(hand)]
        return row


def supported_dice(info: MatchInfo) -> int | None:
    """The dice count if the match is one the solver covers, else ``None``."""
    raw = dict(info.raw_rules)
    raw.pop("roll_off", None)
    dice = raw.pop("dice_per_player", None)
    expected = {k: v for k, v in OPENSPIEL_OPTIONS.items() if k != "roll_off"}
    if info.num_seats != 2 or raw != expected or dice not in ("1", "2"):
        return None
    return int(dice)


def load_policy(dice: int) -> tuple[Policy, str]:
    """The cached policy for ``dice`` dice each, or a fresh solve; and where it came from."""
    game = build_game(dice)
    recall = RECALL[dice]
    keys: dict[tuple[int, tuple[int, ...]], int] = {}
    bounded = BoundedRecallSolver(game, recall) if recall else None
    if bounded is not None:
        keys = bounded.key_index
    path = table_path(dice)
    if path.exists():
        with np.load(path) as cached:
            names = [str(name) for name in cached["bids"]]
            if (
                names == [f"{bid.quantity}x{bid.face}" for bid in game.bids]
                and int(cached["recall"]) == recall
            ):
                table = cached["average"].astype(np.float64)
                return Policy(game, recall, table, keys), f"cached table {path.name}"
    iterations = STARTUP_ITERATIONS[dice]
    if bounded is not None:
        bounded.iterate(iterations)
        return Policy(game, recall, bounded.average(), keys), f"{iterations} iterations"
    solver = Solver(game)
    solver.iterate(iterations)
    return Policy(game, recall, solver.average(), keys), f"{iterations} iterations"


class CfrLiarsDiceBot(ProbabilityLiarsDiceBot):
    """Samples from a CFR+ average strategy; the probability bot's play otherwise."""

    name = "liars-dice-cfr"

    def __init__(self) -> None:
        super().__init__()
        self.table: Policy | None = None

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        dice = supported_dice(match)
        self.table = None
        if dice is None:
            print(
                f"liars-dice-cfr: no equilibrium table for rules {dict(match.raw_rules)} with"
                f" {match.num_seats} seats (needs 2 seats, dice_per_player 1 or 2 and"
                f" {dict(OPENSPIEL_OPTIONS)}); playing the probability bot's policy",
                file=sys.stderr,
            )
            return
        self.table = _POLICIES.get(dice)
        if self.table is None:
            self.table, source = load_policy(dice)
            _POLICIES[dice] = self.table
            print(f"liars-dice-cfr: {dice} dice each, strategy from {source}", file=sys.stderr)

    def policy(self, observation: Observation) -> dict[Action, float] | None:
        """The table's probabilities here (what ``act`` samples from); ``None`` when
        the match is not one the table covers (the probability bot's play)."""
        policy = self.table
        if policy is None:
            return None
        bids = tuple(placed.bid for placed in observation.bids)
        face_bids = tuple(bid for bid in bids if isinstance(bid, Bid))
        if len(face_bids) != len(bids):
            return None
        probabilities = policy.probabilities(tuple(sorted(observation.own_dice)), face_bids)
        actions: list[Action] = [*policy.game.bids, Challenge()]
        stated = {a: float(p) for a, p in zip(actions, probabilities, strict=True) if p > 0}
        legal = {a: p for a, p in stated.items() if is_legal(observation, a)}
        total = sum(legal.values())
        return {a: p / total for a, p in legal.items()} if total > 0 else None

    def act(self, observation: Observation) -> Action | Mixed:  # type: ignore[override]
        # (the base bot answers with one action; this one answers mixed where it can)
        """A mixed move from the table (the referee draws the action); the probability
        bot's action where the table does not cover the match."""
        if self.table is None:
            return super().act(observation)
        bids = tuple(placed.bid for placed in observation.bids)
        if not all(isinstance(bid, Bid) for bid in bids):
            raise SolverError(f"face bids expected in this configuration, got {bids!r}")
        stated = self.policy(observation)
        if stated is None:
            raise SolverError(f"the table has no legal action after {bids!r}")
        return Mixed(stated)


_POLICIES: dict[int, Policy] = {}
"""Policies already loaded in this process (matches of a league share them)."""


if __name__ == "__main__":
    run(CfrLiarsDiceBot)
