"""A Liar's Dice bot that answers one of its turns blind, before reading the request.

    python -m tests.security.blind_answerer --protocol 3 --delay 0.3

It plays random legal moves, but after its first bid (turn ``t``) it guesses that
its next request will be turn ``t + 2`` (the opponent raises, then it is this
seat's turn again) and, ``--delay`` seconds later, streams a challenge for that turn
from a timer thread: an answer written without looking at the request it answers
(which has usually been sent by then: the example opponent answers in
milliseconds). It never answers turn ``t + 2`` otherwise. The nonce it sends with
the blind answer is the one of turn ``t`` (a protocol 3 referee drew a fresh one
for the new request, so it cannot match).

``--protocol`` is what its Health announces: 2 reproduces a bot of the old
protocol, whose answers carry no nonce, so the referee cannot tell a blind answer
that arrives after its request from a real one; 3 is the current protocol.

It reports on stderr, as ``ATTACK {json}`` lines (tests.security.support.reports):
``{"blind_turn": N, "request_seen": bool}`` when it sends the blind answer, where
``request_seen`` says whether the request for turn N had reached the bot by then.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

import grpc

from arena.v1 import bot_pb2
from referee.wire.deltas import DeltaDecoder
from sdk import Bot
from sdk.liars_dice import Action, Bid, Challenge, Observation, legal_actions
from sdk.serve import BotServicer
from tests.bots.misbehaving import serve_raw


class RandomBot(Bot[Observation, Action]):
    game = "liars_dice"

    def act(self, observation: Observation) -> Action:
        return self.rng.choice(list(legal_actions(observation)))


def report(result: dict[str, Any]) -> None:
    result.setdefault("attack", "blind")
    print("ATTACK " + json.dumps(result, sort_keys=True), file=sys.stderr, flush=True)


class BlindServicer(BotServicer):
    """Reads requests on one thread and writes answers from a queue, so a timer
    can write an answer the reader never saw a request for."""

    def __init__(self, delay_s: float, protocol_version: int) -> None:
        super().__init__(RandomBot, protocol_version=protocol_version)
        self.delay_s = delay_s

    def Play(
        self, request_iterator: Iterator[bot_pb2.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[Any]:
        out: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        state: dict[str, Any] = {"blind_turn": 0, "seen": set()}
        lock = threading.Lock()

        def blind_answer(turn: int, nonce: str) -> None:
            with lock:
                seen = turn in state["seen"]
            answer = bot_pb2.TurnResponse(
                turn=turn, action=self.codec.encode_action(Challenge()), nonce=nonce
            )
            # Report first: the referee may fault and kill this process as soon as
            # the answer arrives, before a report written after it is flushed.
            report({"blind_turn": turn, "request_seen": seen})
            out.put(bot_pb2.PlayResponse(turn=answer).SerializeToString())

        def read() -> None:
            bot: Bot[Any, Any] | None = None
            observations = DeltaDecoder(self.codec)
            try:
                for request in request_iterator:
                    kind = request.WhichOneof("kind")
                    if kind == "start":
                        bot = self._start(request.start, context)
                        ready = bot_pb2.PlayResponse(ready=bot_pb2.Ready(observation_deltas=True))
                        out.put(ready.SerializeToString())
                    elif kind == "turn" and bot is not None:
                        turn = request.turn.turn
                        with lock:
                            state["seen"].add(turn)
                        if turn == state["blind_turn"]:
                            continue  # answered (or about to be) by the timer, blind
                        response = self._turn(bot, request.turn, observations)
                        out.put(bot_pb2.PlayResponse(turn=response).SerializeToString())
                        action = self.codec.decode_action(response.action)
                        if not state["blind_turn"] and isinstance(action, Bid):
                            state["blind_turn"] = turn + 2
                            timer = threading.Timer(
                                self.delay_s, blind_answer, (turn + 2, request.turn.nonce)
                            )
                            timer.daemon = True
                            timer.start()
                    else:
                        break
            finally:
                out.put(None)

        threading.Thread(target=read, daemon=True, name="blind-reader").start()
        while (item := out.get()) is not None:
            yield item


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--protocol", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.3)
    options, _ = parser.parse_known_args()
    servicer = BlindServicer(options.delay, options.protocol)
    server = serve_raw(servicer, os.environ["ARENA_LISTEN"])
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    server.stop(0)


if __name__ == "__main__":
    main()
