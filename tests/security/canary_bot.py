"""A Liar's Dice bot that writes a canary everywhere it can, then fails at one phase.

    python SCRIPT --phase PHASE

``tests/security/test_canary.py`` copies this file into a fresh script with a new
canary in its source (every ``CANARY_PLACEHOLDER`` replaced: the constant below and
the comment on the line that raises at start-up, which a traceback quotes), so no
command line carries it. The bot writes the canary:

- on stdout and stderr, when it starts and at every message it gets;
- in its exception's text, and in the line of its source that raises (``start-exit``);
- in every field of the protocol it fills: Health's name and games, an unknown field
  of every message it sends (and of every action), a policy action packed in an
  ``Any`` with the canary as type URL and bytes, the nonce where a phase lies;
- in the details of every gRPC status it ends a call with, and in bytes that are not
  a message.

Phases (each fails the way it says; ``play`` and ``end-abort`` play legal random
moves to the end of the match):

  start-exit        raise before serving (a traceback whose source line holds it)
  start-hang        print, never serve (not ready within the start-up budget)
  health-refuse     Health aborts UNAUTHENTICATED with the canary
  health-fail       Health aborts INTERNAL with the canary, every time
  ready-abort       MatchStart: abort UNAVAILABLE with the canary
  ready-raise       MatchStart: raise (the server says UNKNOWN "Exception iterating ...")
  ready-wrong       MatchStart answered with a TurnResponse whose nonce is the canary
  ready-bytes       MatchStart answered with bytes that are not a PlayResponse
  turn-abort-CODE   first TurnRequest: abort with status CODE (INTERNAL, UNAVAILABLE,
                    RESOURCE_EXHAUSTED, DATA_LOSS, ...) and the canary
  turn-raise        first TurnRequest: raise
  turn-crash        first TurnRequest: print the canary and exit at once (code 3)
  turn-bytes        first TurnRequest: answer with bytes holding the canary
  turn-nonce        first TurnRequest: a legal action, the canary as its nonce
  turn-illegal      first TurnRequest: an illegal action (a repeated bid, or a challenge
                    of nothing), with the canary beside it
  turn-foreign      first TurnRequest: an action packed in an Any named after the canary
  turn-timeout      first TurnRequest: print the canary, never answer
  turn-early        right after Ready: an answer nobody asked for, canary as its nonce
  end-abort         play to the end; at MatchEnd abort INTERNAL with the canary
  play              play to the end
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc

from arena.v1 import bot_pb2
from referee.core.catalogue import get_codec
from sdk.liars_dice import Challenge, legal_actions
from sdk.serve import SERVER_OPTIONS

CANARY = "CANARY_PLACEHOLDER"
SERVICE = "arena.v1.BotService"
CODEC = get_codec("liars_dice")
PHASE = "play"


def shout(where: str) -> None:
    """The canary on stdout and stderr (the author's log)."""
    print(f"{where}: {CANARY}", flush=True)
    print(f"{where}: {CANARY}", file=sys.stderr, flush=True)


def unknown_field(payload: bytes, number: int = 9999) -> bytes:
    """A length-delimited field no message of the protocol declares."""

    def varint(value: int) -> bytes:
        out = b""
        while True:
            low, value = value & 0x7F, value >> 7
            if not value:
                return out + bytes([low])
            out += bytes([low | 0x80])

    return varint(number << 3 | 2) + varint(len(payload)) + payload


def out(message: bot_pb2.PlayResponse) -> bytes:
    """The message's bytes with the canary in an unknown field."""
    return message.SerializeToString() + unknown_field(CANARY.encode())


def canary_any() -> bot_pb2.Action:
    action = bot_pb2.Action()
    action.extension.type_url = f"type.googleapis.com/{CANARY}"
    action.extension.value = unknown_field(CANARY.encode())
    return action


def answer(turn: bot_pb2.TurnRequest, action: Any, *, nonce: str | None = None) -> bytes:
    """A TurnResponse: ``action`` (an engine action) with the canary in an unknown
    field of its message, a canary policy, the request's nonce unless given."""
    encoded = CODEC.encode_action(action)
    encoded.liars_dice.MergeFromString(unknown_field(CANARY.encode()))
    policy = [bot_pb2.ActionProbability(action=canary_any(), probability=1.0)]
    response = bot_pb2.TurnResponse(
        turn=turn.turn, action=encoded, nonce=turn.nonce if nonce is None else nonce, policy=policy
    )
    return out(bot_pb2.PlayResponse(turn=response))


def illegal(observation: Any) -> Any:
    """Repeating the standing bid is never a raise; challenging nothing is illegal."""
    return observation.bids[-1].bid if observation.bids else Challenge()


class Servicer:
    def __init__(self) -> None:
        self.rng = random.Random()

    def Health(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        shout("health")
        if PHASE == "health-refuse":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, f"go away {CANARY}")
        if PHASE == "health-fail":
            context.abort(grpc.StatusCode.INTERNAL, f"health broke {CANARY}")
        health = bot_pb2.HealthResponse(
            name=CANARY, games=["liars_dice", CANARY], protocol_version=3
        )
        return health.SerializeToString() + unknown_field(CANARY.encode())

    def Play(self, requests: Iterator[bot_pb2.PlayRequest], context: grpc.ServicerContext) -> Any:
        asked = False
        for request in requests:
            kind = request.WhichOneof("kind")
            shout(f"got {kind}")
            if kind == "start":
                yield from self._start(context)
            elif kind == "turn":
                first, asked = not asked, True
                yield from self._turn(request.turn, first, context)
            else:
                if PHASE == "end-abort":
                    context.abort(grpc.StatusCode.INTERNAL, f"the end {CANARY}")
                return

    def _start(self, context: grpc.ServicerContext) -> Iterator[bytes]:
        if PHASE == "ready-abort":
            context.abort(grpc.StatusCode.UNAVAILABLE, f"not now {CANARY}")
        if PHASE == "ready-raise":
            raise RuntimeError(f"cannot start the match {CANARY}")
        if PHASE == "ready-wrong":
            wrong = bot_pb2.TurnResponse(turn=1, nonce=CANARY, action=canary_any())
            yield out(bot_pb2.PlayResponse(turn=wrong))
            return
        if PHASE == "ready-bytes":
            yield b"\xff\xff\xff\xff" + CANARY.encode()
            return
        yield out(bot_pb2.PlayResponse(ready=bot_pb2.Ready(observation_deltas=False)))
        if PHASE == "turn-early":
            early = bot_pb2.TurnResponse(turn=1, nonce=CANARY, action=canary_any())
            yield out(bot_pb2.PlayResponse(turn=early))

    def _turn(
        self, turn: bot_pb2.TurnRequest, first: bool, context: grpc.ServicerContext
    ) -> Iterator[bytes]:
        observation = CODEC.decode_observation(turn.observation)
        legal = list(legal_actions(observation))
        chosen = self.rng.choice(legal)
        if first and PHASE.startswith("turn-abort-"):
            code = grpc.StatusCode[PHASE.removeprefix("turn-abort-")]
            context.abort(code, f"aborted {CANARY}")
        if first and PHASE == "turn-raise":
            raise RuntimeError(f"a bug {CANARY}")
        if first and PHASE == "turn-crash":
            shout("crash")
            os._exit(3)
        if first and PHASE == "turn-bytes":
            yield b"\xff\xff\xff\xff" + CANARY.encode()
            return
        if first and PHASE == "turn-nonce":
            yield answer(turn, chosen, nonce=CANARY)
            return
        if first and PHASE == "turn-illegal":
            yield answer(turn, illegal(observation))
            return
        if first and PHASE == "turn-foreign":
            foreign = bot_pb2.TurnResponse(turn=turn.turn, action=canary_any(), nonce=turn.nonce)
            yield out(bot_pb2.PlayResponse(turn=foreign))
            return
        if first and PHASE == "turn-timeout":
            shout("thinking forever")
            time.sleep(turn.time_limit_ms / 1000 * 3 + 5)
        yield answer(turn, chosen)


def identity(data: bytes) -> bytes:
    return data


def serve(address: str) -> grpc.Server:
    servicer = Servicer()
    handlers = {
        "Health": grpc.unary_unary_rpc_method_handler(
            servicer.Health, request_deserializer=identity, response_serializer=identity
        ),
        "Play": grpc.stream_stream_rpc_method_handler(
            servicer.Play,
            request_deserializer=bot_pb2.PlayRequest.FromString,
            response_serializer=identity,
        ),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=SERVER_OPTIONS)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_insecure_port(address)
    server.start()
    return server


def main() -> None:
    global PHASE
    parser = argparse.ArgumentParser()
    parser.add_argument("--phase", required=True)
    options, _ = parser.parse_known_args()
    PHASE = options.phase
    shout(f"starting {PHASE}")
    if PHASE == "start-exit":
        raise RuntimeError(f"the canary bot dies before serving: {CANARY}")  # CANARY_PLACEHOLDER
    if PHASE == "start-hang":
        time.sleep(600)
    server = serve(os.environ["ARENA_LISTEN"])
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    server.stop(0)


if __name__ == "__main__":
    main()
