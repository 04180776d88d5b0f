"""A Liar's Dice bot that plays legal random moves, then misbehaves on purpose.

    python -m tests.bots.misbehaving --mode MODE [--after N]

Modes (each starts on the bot's turn number N+1, N defaults to 1):
  crash       exit the process abruptly (os._exit)
  hang        never answer (sleeps), and spawn a child that ignores SIGTERM
  illegal     answer with a well-formed but illegal action
  garbage     return something that is not an action (SDK sends an empty action)
  raise       raise an exception inside act (the SDK breaks the stream)
  freeze      SIGSTOP itself (a frozen process: only SIGKILL ends it)
  wrong-turn  answer with the wrong turn number
If ARENA_TEST_PIDFILE is set, every process the bot starts appends its pid there.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from typing import Any

import grpc

from arena.v1 import bot_pb2
from sdk import Bot, run
from sdk.liars_dice import Action, Challenge, Observation, legal_actions
from sdk.serve import BotServicer

MODE = "crash"
AFTER = 1


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
        if MODE == "freeze":
            while True:  # stay frozen even if something sends SIGCONT
                os.kill(os.getpid(), signal.SIGSTOP)
        return self.rng.choice(list(legal_actions(observation)))


class WrongTurnServicer(BotServicer):
    def _turn(self, bot: Bot[Any, Any], turn: bot_pb2.TurnRequest) -> bot_pb2.TurnResponse:
        response = super()._turn(bot, turn)
        bot_turns = getattr(bot, "turns", 0)
        if bot_turns > AFTER:
            response.turn = turn.turn + 7
        return response


def main() -> None:
    global MODE, AFTER
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--mode",
        required=True,
        choices=["crash", "hang", "illegal", "garbage", "raise", "freeze", "wrong-turn"],
    )
    parser.add_argument("--after", type=int, default=1)
    options, _ = parser.parse_known_args()
    MODE, AFTER = options.mode, options.after
    note_pid(os.getpid())
    if MODE != "wrong-turn":
        run(MisbehavingBot)
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
