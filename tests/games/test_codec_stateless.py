"""Codecs keep no state between seats (or between calls at all).

The referee encodes every seat's observation with one shared codec instance per
game. If a codec remembered anything from encoding seat A (a cache, a reused
message, a field left set), seat B's bytes could carry A's secrets. For every game:
the bytes a seat gets from the shared codec, in any order and interleaving of
seats and steps, equal the bytes a brand-new codec produces for that observation
alone; decoding round-trips the same way. A guard plants a stateful codec and
requires the check to fail.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from arena.v1 import bot_pb2
from referee.core.catalogue import get_codec, get_game
from referee.core.playout import random_playout
from referee.wire.base import Codec
from tests.game_plugins import registered_games

GAME_NAMES = registered_games()


def _samples(name: str, seed: int) -> list[tuple[int, int, Any]]:
    """``(step, seat, observation)`` for every seat at up to 30 steps of a random match."""
    game = get_game(name)
    rules = game.default_rules()
    num_seats = min(game.max_seats, max(game.min_seats, 3))
    playout = random_playout(game, rules, num_seats, random.Random(seed))
    step = max(1, len(playout.states) // 30)
    picked = [*range(0, len(playout.states), step), len(playout.states) - 1]
    return [
        (index, seat, game.observe(playout.states[index], seat))
        for index in picked
        for seat in range(num_seats)
    ]


def stateless_problems(
    name: str, shared: Codec[Any, Any], fresh: Callable[[], Codec[Any, Any]], seed: int
) -> list[str]:
    """Where the shared codec's bytes or decodings differ from a fresh codec's."""
    samples = _samples(name, seed)
    alone = [fresh().observation_bytes(observation) for _, _, observation in samples]
    problems: list[str] = []
    rng = random.Random(seed)
    for order_name in ("seat order", "reversed", "shuffled", "shuffled again"):
        order = list(range(len(samples)))
        if order_name == "reversed":
            order.reverse()
        elif order_name != "seat order":
            rng.shuffle(order)
        for i in order:
            step, seat, observation = samples[i]
            data = shared.observation_bytes(observation)
            if data != alone[i]:
                problems.append(f"{name} step {step} seat {seat} ({order_name}): bytes differ")
            message = bot_pb2.Observation()
            message.ParseFromString(data)
            if shared.decode_observation(message) != observation:
                problems.append(f"{name} step {step} seat {seat} ({order_name}): decode differs")
    # Decoding with a fresh codec, and the shared one interleaving seats.
    for i in rng.sample(range(len(samples)), len(samples)):
        step, seat, observation = samples[i]
        message = bot_pb2.Observation()
        message.ParseFromString(alone[i])
        if fresh().decode_observation(message) != observation:
            problems.append(f"{name} step {step} seat {seat}: fresh decode differs")
    return problems


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_codecs_keep_no_state_between_seats(name: str, seed: int) -> None:
    codec = get_codec(name)
    problems = stateless_problems(name, codec, type(codec), seed)
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_action_codecs_keep_no_state(name: str) -> None:
    game, codec = get_game(name), get_codec(name)
    rules = game.default_rules()
    num_seats = min(game.max_seats, max(game.min_seats, 3))
    playout = random_playout(game, rules, num_seats, random.Random(5))
    actions = [e.action for e in playout.events if hasattr(e, "action")][:200]
    alone = [type(codec)().encode_action(a).SerializeToString(deterministic=True) for a in actions]
    order = list(range(len(actions)))
    random.Random(5).shuffle(order)
    for i in order:
        data = codec.encode_action(actions[i]).SerializeToString(deterministic=True)
        assert data == alone[i]
        message = bot_pb2.Action()
        message.ParseFromString(data)
        assert codec.decode_action(message) == actions[i]


def test_a_stateful_codec_is_caught() -> None:
    """Guard: a codec that carries the previous observation's hidden part into the
    next encoding (here: Liar's Dice dice) must fail the check above."""
    real = type(get_codec("liars_dice"))

    class Remembering(real):  # type: ignore[valid-type,misc]
        def __init__(self) -> None:
            super().__init__()
            self.last: tuple[int, ...] = ()

        def encode_observation(self, observation: Any) -> bot_pb2.Observation:
            message: bot_pb2.Observation = super().encode_observation(observation)
            if self.last:
                message.liars_dice.own_dice.extend(self.last[:1])
            self.last = tuple(observation.own_dice)
            return message

    problems = stateless_problems("liars_dice", Remembering(), real, seed=1)
    assert problems
