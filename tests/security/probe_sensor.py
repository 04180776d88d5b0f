"""A Liar's Dice bot that records everything that could tell ``arena exploit`` from a match.

    python -m tests.security.probe_sensor OUT.jsonl

A real SDK bot process (the SDK's servicer, wrapped). For every stream (match) it
appends one JSON line to OUT.jsonl when the stream ends, however it ends:

- ``concurrent``, ``max_concurrent``: streams open on this process when it opened,
  and the most while it was open;
- ``first_turn``: the turn number of its first TurnRequest (a match's first turn
  of a seat is 1 or 2), ``turns``: TurnRequests on it;
- ``match_end``: whether a MatchEnd came;
- ``time_limit_ms``, ``id_shape`` (alphabet and length of the match id),
  ``rules_full`` (every rule option spelled, as ``format_rules`` sends them),
  ``rules``: the rules text;
- ``seat``, ``same_seat``: whether its seat is the one of the previous stream on
  this process (the order of matches); ``own_die``: its dice (the deal);
- timing: ``gap_ms`` (since the previous stream on this process ended),
  ``ready_ms`` (its Ready to its first TurnRequest), ``opp_ms`` (mean time from its
  answer to its next TurnRequest: the opponent's thinking as it sees it).

It plays a fixed policy of its observation (a hash of it picks among the challenge
and the three cheapest bids), so the probe's answers are deterministic.
``tests/security/test_probe_sensing.py`` trains classifiers on these lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from typing import Any

import grpc

from arena.v1 import bot_pb2
from referee.core.catalogue import get_codec, get_game
from sdk import Bot
from sdk.liars_dice import Action, Challenge, Observation, legal_actions
from sdk.serve import BotServicer
from tests.security.context_sniffer import serve

GAME = "liars_dice"
CODEC = get_codec(GAME)
LOCK = threading.Lock()
STATE: dict[str, Any] = {"open": 0, "last_end": None, "last_seat": None}


def shape(text: str) -> str:
    alphabet = "urlsafe" if re.fullmatch(r"[A-Za-z0-9_-]*", text) else "other"
    return f"{alphabet}{len(text)}"


class SensorBot(Bot[Observation, Action]):
    game = GAME

    def act(self, observation: Observation) -> Action:
        actions = legal_actions(observation)
        digest = hashlib.sha256(repr(observation).encode()).digest()
        bids = [a for a in actions if a != Challenge()][:3]
        if not bids or (Challenge() in actions and digest[0] % 2 == 0):
            return Challenge()
        return bids[digest[1] % len(bids)]


@dataclass
class StreamSeen:
    pid: int
    opened: float
    concurrent: int
    max_concurrent: int = 0
    first_turn: int = -1
    turns: int = 0
    match_end: bool = False
    time_limit_ms: int = -1
    id_shape: str = ""
    rules: str = ""
    rules_full: bool = False
    seat: int = -1
    same_seat: bool = False
    own_die: int = -1
    gap_ms: float = -1.0
    ready_ms: float = -1.0
    opp_ms: float = -1.0
    _ready_at: float = 0.0
    _answered_at: float = 0.0
    _opp: float = 0.0
    _opp_n: int = 0
    _written: bool = False

    def on_request(self, request: bot_pb2.PlayRequest) -> None:
        now = time.perf_counter()
        kind = request.WhichOneof("kind")
        if kind == "start":
            start = request.start
            game = get_game(start.game)
            every = set(game.format_rules(game.parse_rules(dict(start.rules))))
            self.id_shape = shape(start.match_id)
            self.rules = json.dumps(dict(sorted(start.rules.items())))
            self.rules_full = set(start.rules) == every
            self.seat = start.seat
            with LOCK:
                self.same_seat = STATE["last_seat"] == start.seat
                STATE["last_seat"] = start.seat
        elif kind == "turn":
            if self.turns == 0:  # the first observation comes whole
                self.own_die = sum(CODEC.decode_observation(request.turn.observation).own_dice)
                self.first_turn = request.turn.turn
                self.time_limit_ms = request.turn.time_limit_ms
                if self._ready_at:
                    self.ready_ms = (now - self._ready_at) * 1000
            elif self._answered_at:
                self._opp += now - self._answered_at
                self._opp_n += 1
            self.turns += 1
        elif kind == "end":
            self.match_end = True

    def on_response(self, response: bot_pb2.PlayResponse) -> None:
        now = time.perf_counter()
        if response.WhichOneof("kind") == "ready":
            self._ready_at = now
        else:
            self._answered_at = now

    def line(self) -> str:
        self.opp_ms = self._opp / self._opp_n * 1000 if self._opp_n else -1.0
        public = {k: v for k, v in asdict(self).items() if not k.startswith("_")}
        return json.dumps(public, sort_keys=True)


FEATURES = tuple(
    f.name for f in fields(StreamSeen) if not f.name.startswith("_") and f.name not in ("pid",)
)


class SensingServicer(BotServicer):
    def __init__(self, out: str) -> None:
        super().__init__(SensorBot)
        self.out = out

    def Play(
        self, request_iterator: Iterator[bot_pb2.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[bot_pb2.PlayResponse]:
        now = time.perf_counter()
        with LOCK:
            STATE["open"] += 1
            seen = StreamSeen(os.getpid(), now, STATE["open"])
            seen.max_concurrent = STATE["open"]
            STATE["max_now"] = max(STATE.get("max_now", 0), STATE["open"])
            if STATE["last_end"] is not None:
                seen.gap_ms = (now - STATE["last_end"]) * 1000
        context.add_callback(lambda: self.finish(seen))

        def requests() -> Iterator[bot_pb2.PlayRequest]:
            for request in request_iterator:
                with LOCK:
                    seen.max_concurrent = max(seen.max_concurrent, STATE["open"])
                seen.on_request(request)
                yield request

        for response in super().Play(requests(), context):
            seen.on_response(response)
            yield response

    def finish(self, seen: StreamSeen) -> None:
        with LOCK:
            if seen._written:
                return
            seen._written = True
            STATE["open"] -= 1
            STATE["last_end"] = time.perf_counter()
            with open(self.out, "a", encoding="utf-8") as out:
                out.write(seen.line() + "\n")


def read_seen(path: str) -> list[dict[str, Any]]:
    """Every stream's line written to ``path``."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def main() -> None:
    serve(SensingServicer(sys.argv[1]), workers=16)


if __name__ == "__main__":
    main()
