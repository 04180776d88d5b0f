"""A Liar's Dice bot that plays legal random moves, then misbehaves on purpose.

    python -m tests.bots.misbehaving --mode MODE [--after N]

Modes (each starts on the bot's turn number N+1, N defaults to 1):
  crash       exit the process abruptly (os._exit)
  slow        play legal moves, the 3 after the Nth each after --sleep-s seconds (default
              0.35: a 0.4 s limit holds, barely)
  hang        never answer (sleeps), and spawn a child that ignores SIGTERM
  illegal     answer with a well-formed but illegal action
  garbage     return something that is not an action (SDK sends an empty action)
  raise       raise an exception inside act (the SDK breaks the stream)
  freeze      SIGSTOP itself (a frozen process: only SIGKILL ends it)
  wrong-turn  answer with the wrong turn number
  early       right after Ready, send an answer to turn N+1 (a legal opening bid)
              before it is asked, then skip that TurnRequest and play the rest
  twice       answer turn N+1 twice (the second answer was never asked for)
  bytes       answer turn N+1 with bytes that are not a PlayResponse
  no-ready    end the Play stream cleanly when MatchStart arrives (no Ready)
  slow-ready  play legal moves, but take 1 s to confirm MatchStart
  protocol1   play legal moves, but confirm MatchStart with a protocol 1 Ready
              (no observation deltas asked for: every observation comes whole)
  protocol2   play legal moves as the SDK did before protocol 3: Health says
              protocol 2 and answers carry no nonce
If ARENA_TEST_PIDFILE is set, every process the bot starts appends its pid there.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import grpc

from arena.v1 import bot_pb2
from referee.core.protocol import PROTOCOL_VERSION
from referee.wire.deltas import DeltaDecoder
from sdk import Bot, run
from sdk.bot import MatchInfo
from sdk.liars_dice import Action, Bid, Challenge, Observation, legal_actions
from sdk.serve import BotServicer

RAW_MODES = ("wrong-turn", "early", "twice", "bytes", "no-ready", "protocol1", "protocol2")
"""Modes served by a hand-written servicer instead of ``sdk.run``."""

MODE = "crash"
AFTER = 1
SLEEP_S = 0.35
"""How long ``--mode slow`` sleeps before each of its slow answers (``--sleep-s``)."""
THINK_S = 16.0
"""How long ``--mode think`` thinks once (the referee pings an idle stream every 5 s)."""


def note_pid(pid: int) -> None:
    path = os.environ.get("ARENA_TEST_PIDFILE")
    if path:
        with open(path, "a") as handle:
            handle.write(f"{pid}\n")


class MisbehavingBot(Bot[Observation, Action]):
    game = "liars_dice"

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        if MODE == "slow-ready":
            time.sleep(1.0)

    def act(self, observation: Observation) -> Any:
        self.turns += 1
        if self.turns <= AFTER:
            return self.rng.choice(list(legal_actions(observation)))
        if MODE == "crash":
            os._exit(3)
        if MODE == "hang":
            stubborn = "import signal as s, time; s.signal(s.SIGTERM, s.SIG_IGN); time.sleep(600)"
            child = subprocess.Popen([sys.executable, "-c", stubborn])
            note_pid(child.pid)
            time.sleep(600)
        if MODE == "illegal":
            # Repeating the standing bid is never a raise; challenging nothing is illegal.
            return observation.bids[-1].bid if observation.bids else Challenge()
        if MODE == "garbage":
            return "not an action"
        if MODE == "raise":
            raise RuntimeError("the bot's own bug")
        if MODE == "slow":
            if self.turns <= AFTER + 3:
                time.sleep(SLEEP_S)
            return self.rng.choice(list(legal_actions(observation)))
        if MODE == "think" and self.turns == AFTER + 1:
            time.sleep(THINK_S)  # within a generous limit: long enough for 3 keepalive pings
            return self.rng.choice(list(legal_actions(observation)))
        if MODE == "freeze":
            while True:  # stay frozen even if something sends SIGCONT
                os.kill(os.getpid(), signal.SIGSTOP)
        return self.rng.choice(list(legal_actions(observation)))


class WrongTurnServicer(BotServicer):
    def _turn(
        self, bot: Bot[Any, Any], turn: bot_pb2.TurnRequest, observations: DeltaDecoder
    ) -> bot_pb2.TurnResponse:
        response = super()._turn(bot, turn, observations)
        bot_turns = getattr(bot, "turns", 0)
        if bot_turns > AFTER:
            response.turn = turn.turn + 7
        return response


class RawServicer(BotServicer):
    """Play streams written by hand, to send what the SDK never would."""

    def Play(
        self, request_iterator: Iterator[bot_pb2.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[Any]:
        bot: Bot[Any, Any] | None = None
        observations = DeltaDecoder(self.codec)  # whole observations pass through unchanged
        early_turn = AFTER + 1
        for request in request_iterator:
            kind = request.WhichOneof("kind")
            if kind == "start":
                if MODE == "no-ready":
                    return
                bot = self._start(request.start, context)
                # The old SDK (protocol2) asked for deltas, as the SDK does.
                ready = bot_pb2.Ready(observation_deltas=MODE == "protocol2")
                yield self._out(bot_pb2.PlayResponse(ready=ready))
                if MODE == "early":
                    # Stream an answer ahead: a legal opening bid, guessing the number.
                    bid = self.codec.encode_action(Bid(quantity=1, face=2))
                    answer = bot_pb2.TurnResponse(turn=early_turn, action=bid)
                    yield self._out(bot_pb2.PlayResponse(turn=answer))
            elif kind == "turn":
                assert bot is not None
                if MODE == "early" and request.turn.turn == early_turn:
                    continue  # already "answered"
                if MODE == "bytes" and request.turn.turn >= early_turn:
                    yield b"\xff\xff\xff\xff not a protobuf"
                    continue
                response = self._turn(bot, request.turn, observations)
                yield self._out(bot_pb2.PlayResponse(turn=response))
                if MODE == "twice" and request.turn.turn >= early_turn:
                    yield self._out(bot_pb2.PlayResponse(turn=response))
            else:
                return

    @staticmethod
    def _out(message: bot_pb2.PlayResponse) -> bytes:
        return message.SerializeToString()


def serve_raw(servicer: BotServicer, address: str) -> grpc.Server:
    """Serve BotService with identity serializers for Play, so raw bytes go out."""
    from concurrent import futures

    handlers = {
        "Health": grpc.unary_unary_rpc_method_handler(
            servicer.Health,
            request_deserializer=bot_pb2.HealthRequest.FromString,
            response_serializer=bot_pb2.HealthResponse.SerializeToString,
        ),
        "Play": grpc.stream_stream_rpc_method_handler(
            servicer.Play,
            request_deserializer=bot_pb2.PlayRequest.FromString,
            response_serializer=lambda raw: raw,
        ),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_insecure_port(address)
    server.start()
    return server


SERVICE = "arena.v1.BotService"


def main() -> None:
    global MODE, AFTER, SLEEP_S
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--mode",
        required=True,
        choices=[
            "crash",
            "hang",
            "illegal",
            "garbage",
            "raise",
            "freeze",
            "slow",
            "slow-ready",
            "think",
            *RAW_MODES,
        ],
    )
    parser.add_argument("--after", type=int, default=1)
    parser.add_argument("--sleep-s", type=float, default=SLEEP_S)
    options, _ = parser.parse_known_args()
    MODE, AFTER, SLEEP_S = options.mode, options.after, options.sleep_s
    note_pid(os.getpid())
    if MODE not in RAW_MODES:
        run(MisbehavingBot)
        return
    if MODE != "wrong-turn":
        protocol = 2 if MODE == "protocol2" else PROTOCOL_VERSION
        servicer = RawServicer(MisbehavingBot, protocol_version=protocol)
        server = serve_raw(servicer, os.environ["ARENA_LISTEN"])
        signal.sigwait({signal.SIGTERM, signal.SIGINT})
        server.stop(0)
        return
    from concurrent import futures

    from arena.v1 import bot_pb2_grpc

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    bot_pb2_grpc.add_BotServiceServicer_to_server(WrongTurnServicer(MisbehavingBot), server)
    server.add_insecure_port(os.environ["ARENA_LISTEN"])
    server.start()
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    server.stop(0)


if __name__ == "__main__":
    main()
