"""Train a tabular Liar's Dice policy by self-play in the PettingZoo environment.

python -m example_bots.rl_selfplay.train [--episodes 4000] [--seed 0]

Monte-Carlo control: both seats share one table of action values indexed by
(information key, action index), play epsilon-greedy over the action mask, and
every visited pair moves towards the episode's final reward (+1 win, -1 loss).
The greedy policy is written to policy.json next to this file.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

from example_bots.rl_selfplay.policy import POLICY_PATH, RULES, action_text, info_key
from sdk.pettingzoo_env import ArenaEnv, env


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=POLICY_PATH)
    args = parser.parse_args(argv)
    _, policy = train(args.episodes, args.seed)
    args.out.write_text(json.dumps(policy, indent=0, sort_keys=True) + "\n")
    print(f"{len(policy)} information states -> {args.out}")


if __name__ == "__main__":
    main()
