"""An "instant" bot for benchmarks: answers every turn from a precomputed action list.

    python -m bench.instant_bot [--sleep-ms 20]      (address from ARENA_LISTEN)

No SDK and no observation decoding: a raw gRPC server (generic handlers, bytes in
and out). The match id it is sent (``MatchSpec.bot_match_id``) must be ``bench-<seed>``
and the match played with that seed: at MatchStart (before answering Ready, so outside
any decision timing) the bot replays the match in-process with the engine — same seed,
so the same chance —
and pre-encodes the TurnResponse of each of its turns. Turn ``k`` is then answered
with the k-th prepared message, looking only at the first byte of the request
(the protobuf tag of its ``oneof``) — a TurnRequest is never parsed.

``--sleep-ms`` makes the bot sleep that long before every answer (a "thinking" bot
for league throughput). ``--prepare GAME:FIRST-LAST`` plans the matches with those
seeds (default rules, two seats) before the bot starts serving, so MatchStart costs
it a lookup: the per-match overhead rows then measure the referee, not the bot's
replay of the match (about 3 ms for a Liar's Dice match).

The bot asks for observation deltas in its Ready, as SDK bots do, so the referee
sends what it sends to real bots (it never reads them). It announces protocol 2:
protocol 3 answers must echo each request's nonce, which a bot that never parses
its requests cannot do (the referee still draws no nonces for it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from concurrent import futures
from typing import Any

import grpc
import grpc.aio

from arena.v1 import bot_pb2
from referee.core.catalogue import game_names, get_codec, get_game
from referee.core.playout import match_rng
from referee.gamekit.base import CHANCE, draw_chance

SERVICE = "arena.v1.BotService"
# First byte of a serialized PlayRequest: field number << 3 | wire type 2.
TAG_START, TAG_TURN, TAG_END = 0x0A, 0x12, 0x1A


def match_id_for(seed: int) -> str:
    return f"bench-{seed}"


def plan(game_name: str, rules: Mapping[str, str], seed: int, num_seats: int = 2) -> list[int]:
    """The acting seat of every decision of the benchmark match ``seed``, in order.

    Actions are chosen uniformly among the legal ones by ``random.Random(seed)``;
    :func:`plan_actions` replays the same choices.
    """
    return [seat for seat, _ in _play(game_name, rules, seed, num_seats)]


def plan_actions(
    game_name: str, rules: Mapping[str, str], seed: int, seat: int, num_seats: int = 2
) -> list[bytes]:
    """Serialized PlayResponse of each of ``seat``'s turns, in order."""
    codec = get_codec(game_name)
    answers: list[bytes] = []
    for turn, (actor, action) in enumerate(_play(game_name, rules, seed, num_seats), start=1):
        if actor != seat:
            continue
        response = bot_pb2.PlayResponse(
            turn=bot_pb2.TurnResponse(turn=turn, action=codec.encode_action(action))
        )
        answers.append(response.SerializeToString())
    return answers


def _play(
    game_name: str, rules: Mapping[str, str], seed: int, num_seats: int
) -> Iterator[tuple[int, Any]]:
    game = get_game(game_name)
    state = game.new_game(game.parse_rules(dict(rules)), num_seats)
    chance = match_rng(seed)
    chooser = random.Random(seed)
    while (actor := game.to_act(state)) is not None:
        if actor == CHANCE:
            state = game.apply_chance(state, draw_chance(game.chance_request(state), chance))
            continue
        action = chooser.choice(list(game.legal_actions(game.observe(state, actor))))
        yield actor, action
        state = game.transition(state, actor, action)


READY = bot_pb2.PlayResponse(ready=bot_pb2.Ready(observation_deltas=True)).SerializeToString()
PROTOCOL_VERSION = 2
"""Before nonces (see the module docstring)."""
HEALTH = bot_pb2.HealthResponse(
    name="instant", games=sorted(game_names()), protocol_version=PROTOCOL_VERSION
).SerializeToString()


def _identity(data: bytes) -> bytes:
    return data


Prepared = dict[tuple[str, int, int], list[bytes]]
"""(game, seed, seat) -> that seat's answers, for default rules and two seats."""


def prepare(spec: str) -> Prepared:
    """Plan every match of ``GAME:FIRST-LAST`` (seeds inclusive) for both seats."""
    game, _, seeds = spec.partition(":")
    first, _, last = seeds.partition("-")
    return {
        (game, seed, seat): plan_actions(game, {}, seed, seat)
        for seed in range(int(first), int(last) + 1)
        for seat in (0, 1)
    }


class InstantBot:
    def __init__(self, sleep_s: float = 0.0, prepared: Prepared | None = None) -> None:
        self.sleep_s = sleep_s
        self.prepared = prepared or {}

    def health(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        return HEALTH

    def play(self, requests: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[bytes]:
        answers: Iterator[bytes] = iter(())
        for request in requests:
            tag = request[0] if request else 0
            if tag == TAG_TURN:
                if self.sleep_s:
                    time.sleep(self.sleep_s)
                yield next(answers, b"")
            elif tag == TAG_START:
                answers = iter(self._plan(bot_pb2.PlayRequest.FromString(request).start))
                yield READY
            else:
                return

    def _plan(self, start: bot_pb2.MatchStart) -> list[bytes]:
        seed = int(start.match_id.removeprefix("bench-"))
        ready = self.prepared.get((start.game, seed, start.seat))
        if ready is None or start.num_seats != 2 or _custom(start):
            ready = plan_actions(start.game, dict(start.rules), seed, start.seat, start.num_seats)
        return ready

    def handler(self) -> grpc.GenericRpcHandler:
        return _handler(self.health, self.play)


class AioInstantBot(InstantBot):
    """The same answers from a grpc.aio server: one thread, no thread pool."""

    async def aio_health(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return HEALTH

    async def aio_play(
        self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[bytes]:
        answers: Iterator[bytes] = iter(())
        async for request in requests:
            tag = request[0] if request else 0
            if tag == TAG_TURN:
                if self.sleep_s:
                    await asyncio.sleep(self.sleep_s)
                yield next(answers, b"")
            elif tag == TAG_START:
                answers = iter(self._plan(bot_pb2.PlayRequest.FromString(request).start))
                yield READY
            else:
                return

    def handler(self) -> grpc.GenericRpcHandler:
        return _handler(self.aio_health, self.aio_play)


async def serve_aio(address: str, sleep_s: float, prepared: Prepared) -> None:
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((AioInstantBot(sleep_s, prepared).handler(),))
    server.add_insecure_port(address)
    await server.start()
    parent = os.getppid()
    while os.getppid() == parent:  # the referee is gone: do not linger
        await asyncio.sleep(0.5)
    await server.stop(0)


def _handler(health: Any, play: Any) -> grpc.GenericRpcHandler:
    """``arena.v1.BotService`` with bytes in and out (sync or grpc.aio behaviours)."""
    return grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Health": grpc.unary_unary_rpc_method_handler(
                health, request_deserializer=_identity, response_serializer=_identity
            ),
            "Play": grpc.stream_stream_rpc_method_handler(
                play, request_deserializer=_identity, response_serializer=_identity
            ),
        },
    )


def _custom(start: bot_pb2.MatchStart) -> bool:
    """Rules other than the game's defaults (prepared plans assume the defaults)."""
    game = get_game(start.game)
    return dict(start.rules) != game.format_rules(game.default_rules())


def serve(address: str, sleep_s: float = 0.0, prepared: Prepared | None = None) -> grpc.Server:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((InstantBot(sleep_s, prepared).handler(),))
    server.add_insecure_port(address)
    server.start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", default=os.environ.get("ARENA_LISTEN"))
    parser.add_argument("--sleep-ms", type=float, default=0.0)
    parser.add_argument("--prepare", metavar="GAME:FIRST-LAST", action="append", default=[])
    parser.add_argument("--aio", action="store_true", help="serve with grpc.aio (one thread)")
    options = parser.parse_args()
    if not options.listen:
        sys.exit("instant_bot: no address (--listen or ARENA_LISTEN)")
    prepared: Prepared = {}
    for spec in options.prepare:
        prepared.update(prepare(spec))
    if options.aio:
        asyncio.run(serve_aio(options.listen, options.sleep_ms / 1000, prepared))
        return
    server = serve(options.listen, options.sleep_ms / 1000, prepared)
    parent = os.getppid()
    while server.wait_for_termination(timeout=0.5):  # True: timed out, still serving
        if os.getppid() != parent:  # the referee is gone: do not linger
            server.stop(0)
            return


if __name__ == "__main__":
    main()
