"""PettingZoo AEC environments for every Bluff Arena game (the ``bluff-arena[rl]`` extra).

``env("liars_dice", rules={"dice_per_player": "2"}, num_seats=2, seed=0)`` returns an
:class:`ArenaEnv`: a :class:`pettingzoo.AECEnv` over the very engine the referee runs.
Agents are ``"seat_0" .. "seat_{n-1}"``; chance (rolls, shuffles) is drawn inside the
environment from the referee's chance stream, so episode ``k`` after
``reset(seed=s)`` deals exactly what ``arena match --seed s+k`` / ``play_local(seed=s+k)``
deals.

Actions
    A fixed :class:`gymnasium.spaces.Discrete` space per (game, rules, seats): the
    list :attr:`ArenaEnv.action_keys` enumerates every action the game can ever
    take (see :func:`action_universe`). Exchanges and rerolls are encoded by the
    *positions* in the seat's hand/dice, not by card values, so Liar's Poker stays
    at 8,596 announcements + 34 other actions. ``action_mask`` marks exactly the
    engine's ``legal_actions`` for the acting seat's observation.

Observations
    ``{"observation": float32 vector of length obs_size, "action_mask": int8 vector}``.
    The vector is :func:`flatten_observation` of the engine's typed observation:
    a generic, documented, lossy encoding (see its docstring). The typed object
    itself is :meth:`ArenaEnv.typed_observation`.

Rewards
    Zero until the game ends; then seat ``i`` gets ``1 - 2 * (place - 1) / (n - 1)``
    (+1 first, -1 last, linear in between; ties share a place). Solo games reward 0.
"""

from __future__ import annotations

import enum
import zlib
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from referee.core import catalogue
from referee.core.catalogue import get_game
from referee.core.chance import chance_stream
from referee.gamekit.base import CHANCE, Game, draw_chance
from referee.gamekit.universe import EXCHANGE

DEFAULT_OBS_SIZE = 256
"""Length of the flat observation vector (longer encodings are truncated)."""
DEFAULT_SEQUENCE_CAP = 16
"""At most this many elements of any tuple, the most recent first."""
SKIPPED_FIELDS = frozenset({"rules", "history", "results", "rounds", "roll_offs", "roll_off"})
"""Observation fields left out of the flat vector (constant, or past rounds)."""

# ---------------------------------------------------------------------------
# Actions


def action_universe(game: Game[Any, Any, Any, Any], rules: Any, num_seats: int) -> list[Hashable]:
    """Every action key the game can produce under ``rules`` with ``num_seats``.

    The game's catalogue registration names the function
    (:attr:`referee.core.catalogue.GameEntry.action_universe`). A key is the action
    itself, except for actions that name cards or dice by value (Liar's Poker
    exchanges): those are ``("exchange", positions)``.
    """
    return catalogue.action_universe(game.name)(rules, num_seats)


def action_key(action: Any, observation: Any) -> Hashable:
    """The key of ``action`` in :func:`action_universe` (positions for exchanges)."""
    discards = getattr(action, "discards", None)
    if discards is None:
        return action  # type: ignore[no-any-return]
    hand = list(observation.hand or ())
    used: set[int] = set()
    for card in discards:
        index = next(i for i, held in enumerate(hand) if held == card and i not in used)
        used.add(index)
    return (EXCHANGE, tuple(sorted(used)))


# ---------------------------------------------------------------------------
# Observations


def _scalar(value: Any) -> float:
    if value is None:
        return -1.0
    if isinstance(value, enum.Enum) and not isinstance(value.value, int | float):
        return float(list(type(value)).index(value))
    if isinstance(value, bool | int | float | enum.Enum):
        return float(value.value if isinstance(value, enum.Enum) else value)
    if isinstance(value, str):
        return float(zlib.crc32(value.encode()) % 1024)
    raise TypeError(f"cannot encode {value!r}")


def _flatten(value: Any, out: list[float], cap: int) -> None:
    if is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            if f.name not in SKIPPED_FIELDS:
                _flatten(getattr(value, f.name), out, cap)
    elif isinstance(value, tuple | list):
        out.append(float(len(value)))
        for item in list(value)[-cap:][::-1]:
            _flatten(item, out, cap)
    else:
        out.append(_scalar(value))


def flatten_observation(
    observation: Any, size: int = DEFAULT_OBS_SIZE, cap: int = DEFAULT_SEQUENCE_CAP
) -> np.ndarray[Any, np.dtype[np.float32]]:
    """A fixed-length float32 vector for a typed observation (generic, lossy).

    Walks the observation dataclass depth-first in field order, leaving out
    :data:`SKIPPED_FIELDS`: a number, bool or int enum is its value; another enum
    is its index; ``None`` is -1; a string is its CRC-32 mod 1024; a tuple is its
    length followed by its last ``cap`` elements, most recent first; a nested
    dataclass is its fields. The result is cut or zero-padded to ``size``.
    """
    out: list[float] = []
    _flatten(observation, out, cap)
    vector = np.zeros(size, dtype=np.float32)
    vector[: min(size, len(out))] = out[:size]
    return vector


# ---------------------------------------------------------------------------
# The environment


class ArenaEnv(AECEnv):  # type: ignore[misc]
    """One Bluff Arena game as a PettingZoo AEC environment (see the module doc)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo's own convention
        "name": "bluff_arena_v0",
        "render_modes": [],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str,
        *,
        rules: Mapping[str, str | bool | int] | None = None,
        num_seats: int = 2,
        seed: int | None = None,
        obs_size: int = DEFAULT_OBS_SIZE,
        sequence_cap: int = DEFAULT_SEQUENCE_CAP,
    ) -> None:
        super().__init__()
        self.game: Game[Any, Any, Any, Any] = get_game(game)
        self.rules: Any = self.game.parse_rules(dict(rules or {}))
        self.game.check_seats(self.rules, num_seats)
        self.num_seats = num_seats
        self.obs_size = obs_size
        self.sequence_cap = sequence_cap
        self.metadata = {**self.metadata, "name": f"bluff_arena_{game}_v0"}
        self.possible_agents = [f"seat_{seat}" for seat in range(num_seats)]
        self.action_keys = action_universe(self.game, self.rules, num_seats)
        self._index = {key: i for i, key in enumerate(self.action_keys)}
        size = len(self.action_keys)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (size,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {agent: spaces.Discrete(size) for agent in self.possible_agents}
        self._seed = seed
        self._episode = 0
        self.state: Any = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def action_index(self, action: Any, observation: Any) -> int:
        """The Discrete index of an engine ``action`` taken with ``observation``."""
        return self._index[action_key(action, observation)]

    # -- typed views -----------------------------------------------------------

    def typed_observation(self, agent: str) -> Any:
        """The engine's own observation for ``agent`` (what an SDK bot is sent)."""
        return self.game.observe(self.state, self.possible_agents.index(agent))

    def legal_actions(self, agent: str) -> dict[int, Any]:
        """Action index -> engine action, for every legal action of ``agent`` now."""
        view = self.typed_observation(agent)
        return {
            self._index[action_key(action, view)]: action
            for action in self.game.legal_actions(view)
        }

    def action_mask(self, agent: str) -> np.ndarray[Any, np.dtype[np.int8]]:
        mask = np.zeros(len(self.action_keys), dtype=np.int8)
        if self.agents and agent == self.agent_selection and not self.terminations[agent]:
            mask[list(self.legal_actions(agent))] = 1
        return mask

    def observe(self, agent: str) -> dict[str, Any]:
        return {
            "observation": flatten_observation(
                self.typed_observation(agent), self.obs_size, self.sequence_cap
            ),
            "action_mask": self.action_mask(agent),
        }

    # -- the AEC loop --------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed, self._episode = seed, 0
        if self._seed is None:
            self._chance = chance_stream()
        else:
            self._chance = chance_stream(seed=self._seed + self._episode)
        self._episode += 1
        self.state = self.game.new_game(self.rules, self.num_seats)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]
        self._advance()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self.legal_actions(agent)
        if action is None or int(action) not in legal:
            raise ValueError(f"{agent}: action {action!r} is not legal (see the action mask)")
        self._cumulative_rewards[agent] = 0.0
        seat = self.possible_agents.index(agent)
        self.state = self.game.apply_action(self.state, seat, legal[int(action)])
        self._advance()
        self._accumulate_rewards()

    def _advance(self) -> None:
        """Draw chance until a seat must act; at the end, hand out the rewards."""
        self.rewards = dict.fromkeys(self.agents, 0.0)
        while (actor := self.game.to_act(self.state)) == CHANCE:
            outcome = self._chance_draw()
            self.state = self.game.apply_chance(self.state, outcome)
        if actor is not None:
            self.agent_selection = self.possible_agents[actor]
            return
        places = self.game.outcome(self.state).places
        n = self.num_seats
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = 0.0 if n == 1 else 1.0 - 2.0 * (places[seat] - 1) / (n - 1)
            self.terminations[agent] = True
            self.infos[agent] = {"place": places[seat]}

    def _chance_draw(self) -> Sequence[int]:
        return draw_chance(self.game.chance_request(self.state), self._chance)

    def render(self) -> None:
        """No rendering: use ``arena`` replays or :meth:`typed_observation`."""

    def close(self) -> None:
        pass


def env(
    game: str,
    *,
    rules: Mapping[str, str | bool | int] | None = None,
    num_seats: int = 2,
    seed: int | None = None,
    obs_size: int = DEFAULT_OBS_SIZE,
) -> ArenaEnv:
    """A PettingZoo AEC environment for ``game`` (see :class:`ArenaEnv`)."""
    return ArenaEnv(game, rules=rules, num_seats=num_seats, seed=seed, obs_size=obs_size)
