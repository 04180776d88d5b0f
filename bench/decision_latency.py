"""Where the time of one decision goes: engine, referee bookkeeping, gRPC transport.

    python -m bench.decision_latency [--matches 20] [--game liars_dice]

Prints measured medians (never hard-coded numbers) from one run, so the ratios
compare like with like on this machine:

1. engine only: ``sdk.local.play_local`` with random bots (observe, legal moves,
   apply) — no encoding, no transport;
2. referee work without transport: observe, encode, decode, apply, digests and the
   record entry, per decision;
3. raw gRPC floor: one blocking bidirectional stream, one TurnRequest/TurnResponse
   round trip per decision, no trio;
4. full referee: real matches between random-bot processes over gRPC (``run_match``),
   per decision, startup excluded.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import trio
from google.protobuf import json_format

from arena.v1 import bot_pb2, bot_pb2_grpc
from referee.core.catalogue import entries, get_codec, get_game
from referee.core.digests import observation_digest, state_digest
from referee.core.playout import match_rng
from referee.gamekit.base import CHANCE, draw_chance
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec

RANDOM_BOTS = {e.name: e.roster.random for e in entries() if e.roster is not None}
"""Per game with example bots: its random bot (from the catalogue's rosters)."""


def engine_and_referee_work(game_name: str, matches: int) -> tuple[float, float, int]:
    """Median µs per decision: (engine only, engine + referee bookkeeping)."""
    game = get_game(game_name)
    codec = get_codec(game_name)
    rules = game.default_rules()
    engine_times: list[float] = []
    referee_times: list[float] = []
    decisions = 0
    for seed in range(matches):
        chooser = random.Random(seed)
        rng = match_rng(seed)
        state = game.new_game(rules, 2)
        while (actor := game.to_act(state)) is not None:
            if actor == CHANCE:
                state = game.apply_chance(state, draw_chance(game.chance_request(state), rng))
                continue
            started = time.perf_counter()
            observation = game.observe(state, actor)
            action = chooser.choice(list(game.legal_actions(observation)))
            middle = time.perf_counter()
            encoded = codec.encode_observation(observation)
            wire = encoded.SerializeToString(deterministic=True)
            reply = bot_pb2.Action.FromString(codec.encode_action(action).SerializeToString())
            decoded = codec.decode_action(reply)
            state = game.apply_action(state, actor, decoded)
            json_format.MessageToDict(reply, preserving_proto_field_name=True)
            observation_digest(wire)
            state_digest(state)
            ended = time.perf_counter()
            # The random choice is the bot's work; count observe+apply as the engine.
            engine_times.append((middle - started) * 1e6)
            referee_times.append((ended - middle) * 1e6)
            decisions += 1
    return statistics.median(engine_times), statistics.median(referee_times), decisions


class _EchoBot(bot_pb2_grpc.BotServiceServicer):
    """Answers every TurnRequest at once with an empty action (transport floor)."""

    def Health(
        self, request: bot_pb2.HealthRequest, context: grpc.ServicerContext
    ) -> bot_pb2.HealthResponse:
        return bot_pb2.HealthResponse(name="echo")

    def Play(
        self, request_iterator: Iterator[bot_pb2.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[bot_pb2.PlayResponse]:
        for request in request_iterator:
            yield bot_pb2.PlayResponse(turn=bot_pb2.TurnResponse(turn=request.turn.turn))


def grpc_floor(observation: bot_pb2.Observation, rounds: int) -> float:
    """Median µs of one blocking bidi round trip on a unix socket, same payload size."""
    with tempfile.TemporaryDirectory() as tmp:
        address = f"unix:{Path(tmp) / 'echo.sock'}"
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        bot_pb2_grpc.add_BotServiceServicer_to_server(_EchoBot(), server)
        server.add_insecure_port(address)
        server.start()
        channel = grpc.insecure_channel(address)
        outbox: list[bot_pb2.PlayRequest] = []
        ready = threading.Semaphore(0)

        def requests() -> Iterator[bot_pb2.PlayRequest]:
            while True:
                ready.acquire()
                if not outbox:
                    return
                yield outbox.pop()

        stub = bot_pb2_grpc.BotServiceStub(channel)
        responses = stub.Play(requests())
        times = []
        for turn in range(1, rounds + 1):
            started = time.perf_counter()
            outbox.append(
                bot_pb2.PlayRequest(
                    turn=bot_pb2.TurnRequest(turn=turn, observation=observation, time_limit_ms=1)
                )
            )
            ready.release()
            next(responses)
            times.append((time.perf_counter() - started) * 1e6)
        ready.release()
        channel.close()
        server.stop(None)
    return statistics.median(times[10:])


def full_referee(game_name: str, matches: int) -> tuple[float, int]:
    """Median µs per decision in real matches over gRPC (startup excluded)."""
    module = RANDOM_BOTS[game_name]
    bot = BotSpec(module, command=(sys.executable, "-m", f"example_bots.{module}"))
    per_decision: list[float] = []
    decisions = 0

    async def play_all() -> None:
        nonlocal decisions
        for seed in range(matches):
            record = await run_match(MatchSpec(game_name, (bot, bot), seed=seed), Limits())
            actions = [e for e in record.events if e.seat is not None]
            for previous, event in zip(record.events, record.events[1:], strict=False):
                if event.seat is not None and previous.at_ms is not None and event.at_ms:
                    per_decision.append((event.at_ms - previous.at_ms) * 1000)
            decisions += len(actions)

    trio.run(play_all)
    return statistics.median(per_decision), decisions


def sample_observation(game_name: str) -> bot_pb2.Observation:
    game = get_game(game_name)
    codec = get_codec(game_name)
    state = game.new_game(game.default_rules(), 2)
    rng = match_rng(0)
    while (actor := game.to_act(state)) == CHANCE:
        state = game.apply_chance(state, draw_chance(game.chance_request(state), rng))
    assert actor is not None
    observation: Any = codec.encode_observation(game.observe(state, actor))
    return observation  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="liars_dice", choices=sorted(RANDOM_BOTS))
    parser.add_argument("--matches", type=int, default=20)
    options = parser.parse_args()
    engine, referee, local_decisions = engine_and_referee_work(options.game, options.matches * 5)
    floor = grpc_floor(sample_observation(options.game), 2000)
    full, decisions = full_referee(options.game, options.matches)
    print(f"game {options.game}; medians per decision")
    print(f"  engine (observe + legal moves) : {engine:8.1f} µs   ({local_decisions} decisions)")
    print(f"  referee work without transport : {referee:8.1f} µs")
    print(f"  raw gRPC bidi round trip       : {floor:8.1f} µs   (2000 round trips)")
    print(f"  full referee over gRPC         : {full:8.1f} µs   ({decisions} decisions)")
    print(f"  full / raw gRPC floor          : {full / floor:8.2f} x")
    print(f"  referee work / full decision   : {referee / full:8.1%}")


if __name__ == "__main__":
    main()
