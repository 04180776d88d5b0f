"""Train a tabular Liar's Dice policy by self-play: batched in numpy, or in PettingZoo.

python -m example_bots.rl_selfplay.train [--engine batched|pettingzoo] [--episodes N] [--seed 0]

Monte-Carlo control: both seats share one table of action values indexed by
(information key, action index), play epsilon-greedy over the action mask, and
every visited pair moves towards the episode's final reward (+1 win, -1 loss): the
mean of the rewards that followed it.

``--engine batched`` (the default) plays ``--batch`` games at once on the batched
engine (``sdk.batched``, the referee's rules vectorised; 1,000,000 episodes by
default, seconds); ``--engine pettingzoo`` plays one game at a time in the
PettingZoo environment (4,000 episodes by default). The greedy policy is written to
policy.json next to this file.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

import numpy as np

from example_bots.rl_selfplay.policy import (
    POLICY_PATH,
    RULES,
    TRAINED_SEATS,
    action_text,
    info_key,
)
from sdk.batched import LiarsDiceBatch
from sdk.liars_dice import Bid
from sdk.pettingzoo_env import ArenaEnv, env

EPISODES = {"batched": 1_000_000, "pettingzoo": 4000}
"""Default episodes per engine."""


def train(episodes: int, seed: int, epsilon: float = 0.2) -> tuple[ArenaEnv, dict[str, str]]:
    rng = random.Random(seed)
    arena = env("liars_dice", rules=RULES, num_seats=2, seed=seed)
    value: dict[tuple[str, int], float] = defaultdict(float)
    visits: dict[tuple[str, int], int] = defaultdict(int)
    for _ in range(episodes):
        arena.reset()
        trail: dict[str, list[tuple[str, int]]] = {agent: [] for agent in arena.possible_agents}
        final: dict[str, float] = {}
        for agent in arena.agent_iter():
            observation, reward, done, truncated, _ = arena.last()
            if done or truncated:
                final[agent] = reward
                arena.step(None)
                continue
            key = info_key(arena.typed_observation(agent))
            legal = [int(i) for i in observation["action_mask"].nonzero()[0]]
            if rng.random() < epsilon:
                choice = rng.choice(legal)
            else:
                choice = max(legal, key=lambda a: (value[key, a], -a))
            trail[agent].append((key, choice))
            arena.step(choice)
        for agent, pairs in trail.items():
            for pair in pairs:
                visits[pair] += 1
                value[pair] += (final[agent] - value[pair]) / visits[pair]
    best: dict[str, tuple[float, int]] = {}
    for (key, action), v in value.items():
        if key not in best or v > best[key][0]:
            best[key] = (v, action)
    policy = {key: action_text(arena.action_keys[a]) for key, (_, a) in sorted(best.items())}
    return arena, policy


def train_batched(
    episodes: int, seed: int, epsilon: float = 0.2, batch: int = 1024
) -> dict[str, str]:
    """The same Monte-Carlo control on the batched engine, ``batch`` games at a time
    (at least ``episodes`` finished games); one die per seat (the key is the die)."""
    engine = LiarsDiceBatch(RULES, TRAINED_SEATS)
    assert engine.dice == 1, "the table's key is one die"
    actions, rows = engine.num_actions, np.arange(batch)
    rng = np.random.default_rng(seed)
    state = engine.reset(np.arange(batch) + seed * batch)
    keys = 6 * (actions + 1)  # own die x (last bid or none)
    total = np.zeros(keys * actions)
    visits = np.zeros(keys * actions)
    longest = actions + 1  # a bid is never repeated in a round
    trail = np.zeros((batch, longest), np.int64)  # key * actions + action, per decision
    seats = np.zeros((batch, longest), np.int64)
    length = np.zeros(batch, np.int64)
    finished = 0
    while finished < episodes:
        seat = state.current_player
        key = (state.hands[rows, seat, 0] - 1) * (actions + 1) + state.last_bid + 1
        pairs = key[:, None] * actions + np.arange(actions)[None, :]
        value = np.divide(
            total[pairs], visits[pairs], out=np.zeros(pairs.shape), where=visits[pairs] > 0
        )
        greedy = np.where(state.legal_action_mask, value, -np.inf).argmax(axis=1)
        explore = rng.random(batch) < epsilon
        chosen = np.where(explore, engine.random_actions(state, rng), greedy)
        trail[rows, length] = key * actions + chosen
        seats[rows, length] = seat
        length += 1
        state = engine.step(state, chosen)
        ended = np.flatnonzero(state.terminated)
        if ended.size:
            played = np.arange(longest)[None, :] < length[ended, None]
            rewards = np.take_along_axis(state.rewards[ended], seats[ended], axis=1)
            total += np.bincount(trail[ended][played], rewards[played], minlength=keys * actions)
            visits += np.bincount(trail[ended][played], minlength=keys * actions)
            length[ended] = 0
            finished += len(ended)
    return _greedy_policy(engine, total, visits)


def _greedy_policy(engine: LiarsDiceBatch, total: np.ndarray, visits: np.ndarray) -> dict[str, str]:
    """Info key -> the visited action of the highest mean reward (lowest id on ties)."""
    actions = engine.num_actions
    seen = visits.reshape(-1, actions) > 0
    value = np.divide(total, visits, out=np.zeros_like(total), where=visits > 0)
    value = np.where(seen, value.reshape(-1, actions), -np.inf)
    policy = {}
    for key in np.flatnonzero(seen.any(axis=1)):
        die, last = divmod(int(key), actions + 1)
        bid = engine.universe[last - 1] if last else None
        shown = f"{bid.quantity}x{bid.face}" if isinstance(bid, Bid) else "-"
        policy[f"{die + 1}|{shown}"] = action_text(engine.universe[int(value[key].argmax())])
    return dict(sorted(policy.items()))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=sorted(EPISODES), default="batched")
    parser.add_argument("--episodes", type=int, help="default: 1,000,000 batched, 4,000 pettingzoo")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=1024, help="games at once (batched)")
    parser.add_argument("--out", type=Path, default=POLICY_PATH)
    args = parser.parse_args(argv)
    episodes = args.episodes or EPISODES[args.engine]
    if args.engine == "batched":
        policy = train_batched(episodes, args.seed, batch=args.batch)
    else:
        _, policy = train(episodes, args.seed)
    args.out.write_text(json.dumps(policy, indent=0, sort_keys=True) + "\n")
    print(f"{len(policy)} information states -> {args.out}")


if __name__ == "__main__":
    main()
