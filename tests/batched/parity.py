"""Replay batched Liar's Dice games in the scalar engine and compare at every decision.

:func:`check_parity` steps a batch with random legal actions and follows every slot
in :data:`referee.games.liars_dice.engine.LIARS_DICE`, fed the batch's own dice through
``apply_chance``. At every decision, for every game: the actor, the legal set (mask ↔
``legal_actions`` through the action universe), every seat's observation (the tensor
decoded ↔ the scalar Observation's fields), and, when a game ends, its rewards
(↔ the scalar standings). Any difference raises :class:`ParityError`.

``python -m tests.batched.parity --games 100000`` is the long run (docs/training.md).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.batched.liars_dice import BatchState, LiarsDiceBatch
from referee.gamekit.base import CHANCE
from referee.games.liars_dice.engine import LIARS_DICE, Observation, Rules, State

G = LIARS_DICE


class ParityError(AssertionError):
    """The batched and the scalar engine disagree."""


@dataclass
class Tally:
    games: int = 0
    """Games played to their end."""
    decisions: int = 0
    """Decisions compared (one per game per step)."""


def _fail(slot: int, what: str, batched: Any, scalar: Any) -> None:
    raise ParityError(f"game slot {slot}: {what}: batched {batched!r} vs scalar {scalar!r}")


def _round_dice(state: BatchState, slot: int) -> tuple[int, ...]:
    counts = state.dice_counts[slot]
    return tuple(
        int(die) for seat, count in enumerate(counts) for die in state.hands[slot, seat, :count]
    )


def _start(env: LiarsDiceBatch, state: BatchState, slot: int) -> State:
    """A scalar game dealt like the batch's new game in ``slot``."""
    scalar = G.new_game(env.rules, env.num_seats)
    for thrown, rolled in state.roll_offs:
        if rolled[slot].any():
            scalar = G.apply_chance(scalar, tuple(int(d) for d in thrown[slot][rolled[slot]].flat))
    return G.apply_chance(scalar, _round_dice(state, slot))


def expected_view(observation: Observation) -> dict[str, Any]:
    """The scalar observation in the terms of :meth:`LiarsDiceBatch.decode`."""
    last = observation.bids[-1] if observation.bids else None
    return {
        "own_faces": dict(Counter(observation.own_dice)),
        "dice_counts": observation.dice_counts,
        "to_act": observation.to_act,
        "opener": observation.opener,
        "last_bidder": last.seat if last else None,
        "last_bid": last.bid if last else None,
        "made": frozenset(placed.bid for placed in observation.bids),
        "wilds_active": observation.wilds_active,
        "sum_round": observation.sum_round,
        "round_number": observation.round_number,
    }


def _compare(env: LiarsDiceBatch, state: BatchState, views: Any, slot: int, scalar: State) -> None:
    actor = G.to_act(scalar)
    if actor is None or actor != int(state.current_player[slot]):
        _fail(slot, "actor", int(state.current_player[slot]), actor)
    assert actor is not None
    legal = {env.index[action] for action in G.legal_actions(G.observe(scalar, actor))}
    mask = set(np.flatnonzero(state.legal_action_mask[slot]).tolist())
    if mask != legal:
        _fail(slot, "legal set", sorted(mask), sorted(legal))
    for seat in range(env.num_seats):
        decoded = env.decode(views[slot, seat], seat)
        expected = expected_view(G.observe(scalar, seat))
        if decoded != expected:
            _fail(slot, f"seat {seat}'s observation", decoded, expected)


def _rewards(env: LiarsDiceBatch, scalar: State) -> list[float]:
    """The scalar standings as rewards, in the batch's float32."""
    places = G.standings(scalar).places
    rewards = [1.0 - 2.0 * (place - 1) / (env.num_seats - 1) for place in places]
    return np.array(rewards, np.float32).tolist()  # type: ignore[no-any-return]


def check_parity(
    env: LiarsDiceBatch, games: int, *, seed: int = 0, batch: int = 64, observe: bool = True
) -> Tally:
    """Play at least ``games`` batched games (``batch`` slots, random legal actions,
    seeds ``seed..seed+batch-1``) and replay each in the scalar engine (module doc)."""
    rng = np.random.default_rng(seed)
    state = env.reset(np.arange(seed, seed + batch))
    scalars = [_start(env, state, slot) for slot in range(batch)]
    tally = Tally()
    while tally.games < games:
        views = env.observe_all(state) if observe else None
        for slot, scalar in enumerate(scalars):
            if views is not None:
                _compare(env, state, views, slot, scalar)
            elif G.to_act(scalar) != int(state.current_player[slot]):
                _fail(slot, "actor", int(state.current_player[slot]), G.to_act(scalar))
        tally.decisions += batch
        actions = random_legal(rng, state.legal_action_mask)
        after = env.step(state, actions)
        for slot in range(batch):
            scalar = G.apply_action(
                scalars[slot], int(state.current_player[slot]), env.universe[actions[slot]]
            )
            if after.terminated[slot]:
                if G.to_act(scalar) is not None:
                    _fail(slot, "game over", True, G.to_act(scalar))
                if after.rewards[slot].tolist() != _rewards(env, scalar):
                    _fail(slot, "rewards", after.rewards[slot].tolist(), _rewards(env, scalar))
                tally.games += 1
                scalar = _start(env, after, slot)
            elif G.to_act(scalar) == CHANCE:
                scalar = G.apply_chance(scalar, _round_dice(after, slot))
            elif after.rewards[slot].any():
                _fail(slot, "rewards before the end", after.rewards[slot].tolist(), 0)
            scalars[slot] = scalar
        state = after
    return tally


def random_legal(rng: np.random.Generator, mask: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """One uniformly random legal action per row of ``mask``."""
    scores = rng.random(mask.shape) * mask
    return scores.argmax(axis=1)  # type: ignore[no-any-return]


LONG_RUN: Sequence[tuple[dict[str, str], int]] = (
    ({}, 2),
    ({"dice_per_player": "2"}, 3),
    ({"dice_per_player": "1", "raise_rule": "quantity-or-face", "wild_face": "1"}, 4),
    (
        {
            "dice_per_player": "5",
            "one_round": "true",
            "roll_off": "false",
            "wild_face": "6",
            "raise_rule": "reset-face",
            "sum_endgame": "false",
        },
        2,
    ),
    ({"dice_per_player": "3", "wild_face": "6", "wild_opening": "keep"}, 2),
    ({"dice_per_player": "2", "raise_rule": "reset-face", "one_round": "true"}, 5),
)
"""The long run's configurations: the defaults, OpenSpiel's, and a spread of the rest."""


def long_run(games: int, batch: int = 256) -> Iterator[tuple[dict[str, str], int, Tally, float]]:
    """``games`` games split evenly over :data:`LONG_RUN`: (rules, seats, tally, seconds)."""
    for index, (rules, seats) in enumerate(LONG_RUN):
        began = time.perf_counter()
        env = LiarsDiceBatch(G.parse_rules(rules), seats)
        tally = check_parity(env, -(-games // len(LONG_RUN)), seed=index * 1_000_000, batch=batch)
        yield rules, seats, tally, time.perf_counter() - began


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the long batched ↔ scalar parity run")
    parser.add_argument("--games", type=int, default=100_000)
    options = parser.parse_args(argv)
    total = Tally()
    began = time.perf_counter()
    for rules, seats, tally, seconds in long_run(options.games):
        total.games += tally.games
        total.decisions += tally.decisions
        done = f"{tally.games} games, {tally.decisions} decisions, {seconds:.0f} s"
        print(f"{seats} seats {rules}: {done}")
    seconds = time.perf_counter() - began
    print(f"parity: {total.games} games, {total.decisions} decisions, {seconds:.0f} s")


if __name__ == "__main__":
    main()


__all__ = ["ParityError", "Rules", "Tally", "check_parity", "expected_view", "long_run"]
