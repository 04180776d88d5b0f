"""A Liar's Dice bot, submitted as a tree, that records everything it could use to
tell a pre-entry check from a ladder match (issue 28, item 3).

    python bot.py          (the file of an unpacked upload; see test_check_vs_ladder)

It imports nothing but the SDK (it runs from its own submitted tree) and plays
random legal moves everywhere: it only watches. At start-up and on its first turn
of every match it reads

- the metadata of every entry of its own tree: modification, change and access
  times (as ages, seconds before now, with the clock it read), inode numbers,
  link counts, sizes, device;
- its start-up timing: seconds from its start to the MatchStart, to the turn;
- how many matches this process has seen, and how many streams are open at once;
- the context fields the context sniffer compares (:mod:`tests.security.context_sniffer`):
  the shapes of the match id and nonce, game, rules, seats, protocol version,
  turn fields, time limit, dice counts, environment, argv, working directory;

and prints them as one ``TREESNIFF {json}`` line on stderr (the referee keeps it
in the seat's log).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc

from arena.v1 import bot_pb2, bot_pb2_grpc
from referee.wire.deltas import DeltaDecoder
from sdk import Bot
from sdk.liars_dice import Action, Observation, legal_actions
from sdk.serve import BotServicer

STARTED_WALL = time.time()
STARTED = time.monotonic()
ROOT = os.path.dirname(os.path.abspath(__file__))
STATE = {"matches": 0, "streams": 0, "max_streams": 0}
LOCK = threading.Lock()


def tree_stat() -> dict[str, float]:
    """Every entry of the tree: its metadata, ages in seconds before now."""
    now = time.time()
    out: dict[str, float] = {"clock": now}
    for directory, dirs, names in os.walk(ROOT):
        dirs.sort()
        for name in [".", *sorted(names)]:
            path = os.path.join(directory, name)
            st = os.lstat(path)
            key = os.path.relpath(path, ROOT)
            out[f"{key}:mtime_age"] = now - st.st_mtime
            out[f"{key}:ctime_age"] = now - st.st_ctime
            out[f"{key}:atime_age"] = now - st.st_atime
            out[f"{key}:ino"] = st.st_ino
            out[f"{key}:nlink"] = st.st_nlink
            out[f"{key}:size"] = st.st_size
            out[f"{key}:dev"] = st.st_dev
    return out


AT_START = tree_stat()


def shape(text: str) -> str:
    alphabet = "urlsafe" if re.fullmatch(r"[A-Za-z0-9_-]*", text) else "other"
    return f"{alphabet}{len(text)}"


class TreeSniffer(Bot[Observation, Action]):
    game = "liars_dice"

    def __init__(self) -> None:
        super().__init__()
        self.hello: bot_pb2.MatchStart | None = None
        self.hello_at = 0.0
        self.request: bot_pb2.TurnRequest | None = None
        self.reported = False

    def act(self, observation: Observation) -> Action:
        if not self.reported:
            self.reported = True
            self.report(observation)
        return self.rng.choice(list(legal_actions(observation)))

    def report(self, observation: Observation) -> None:
        assert self.hello is not None and self.request is not None
        hello, request = self.hello, self.request
        with LOCK:
            matches, streams, most = STATE["matches"], STATE["streams"], STATE["max_streams"]
        seen = {
            "at_start": AT_START,
            "at_turn": tree_stat(),
            "startup": {
                "to_match_s": self.hello_at - STARTED,
                "to_turn_s": time.monotonic() - STARTED,
                "process_age_s": time.time() - STARTED_WALL,
            },
            "process": {"matches": matches, "streams": streams, "max_streams": most},
            "context": {
                "id_shape": shape(hello.match_id),
                "game": hello.game,
                "rules": dict(sorted(hello.rules.items())),
                "num_seats": hello.num_seats,
                "protocol_version": hello.protocol_version,
                "turn_fields": sorted(
                    f.name for f, _ in request.ListFields() if f.name != "observation"
                ),
                "time_limit_ms": request.time_limit_ms,
                "nonce_shape": shape(request.nonce),
                "dice_counts": list(observation.dice_counts),
                "env": dict(sorted(os.environ.items())),
                "argv": len(sys.argv),
                "cwd": os.getcwd(),
            },
        }
        print("TREESNIFF " + json.dumps(seen, sort_keys=True), file=sys.stderr, flush=True)


class CountingServicer(BotServicer):
    """Counts this process's matches and open streams, and hands the bot the raw
    MatchStart and TurnRequest."""

    def Play(
        self, request_iterator: Iterator[bot_pb2.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[bot_pb2.PlayResponse]:
        with LOCK:
            STATE["streams"] += 1
            STATE["max_streams"] = max(STATE["max_streams"], STATE["streams"])
        try:
            yield from super().Play(request_iterator, context)
        finally:
            with LOCK:
                STATE["streams"] -= 1

    def _start(self, start: bot_pb2.MatchStart, context: grpc.ServicerContext) -> Bot[Any, Any]:
        with LOCK:
            STATE["matches"] += 1
        bot = super()._start(start, context)
        if isinstance(bot, TreeSniffer):
            bot.hello = start
            bot.hello_at = time.monotonic()
        return bot

    def _turn(
        self, bot: Bot[Any, Any], turn: bot_pb2.TurnRequest, observations: DeltaDecoder
    ) -> bot_pb2.TurnResponse:
        if isinstance(bot, TreeSniffer):
            bot.request = turn
        return super()._turn(bot, turn, observations)


def sniffs(log: bytes) -> list[dict[str, Any]]:
    """Every ``TREESNIFF {json}`` line in a bot's captured output."""
    return [
        json.loads(line[len(b"TREESNIFF ") :])
        for line in log.splitlines()
        if line.startswith(b"TREESNIFF ")
    ]


def main() -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    bot_pb2_grpc.add_BotServiceServicer_to_server(CountingServicer(TreeSniffer), server)
    server.add_insecure_port(os.environ["ARENA_LISTEN"])
    server.start()
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    server.stop(0)


if __name__ == "__main__":
    main()
