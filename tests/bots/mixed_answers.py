"""A Liar's Dice bot that answers every turn with a mixed move, and can get it wrong.

    python -m tests.bots.mixed_answers --mode MODE [--after N]

Its own turns 1..N-1 are answered with a sound mixed move (``planted``'s); turn N on
(N defaults to 1) as ``MODE`` says:
  planted     sound: weight PLANTED on the first legal action, the rest spread evenly
              over the others (a number the tests look for in every public place)
  negative    a probability below 0 (and one above 1 to keep the sum at 1)
  above-one   one action at 1.5, nothing else
  sum         uniform weights scaled to sum to 0.9
  nan         one probability NaN
  illegal     the sound move plus weight 0.1 on a bid of 99 twos (scaled to sum to 1)
  zero-illegal  the sound move plus weight 0 on that illegal bid (allowed)
  duplicate   the sound move with its first entry sent twice
  both        the sound move and an action in the same answer
  protocol3   Health says protocol 3 (no mixed moves), and it answers mixed anyway
  empty-one   every probability on one action except an empty action message with 0
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from arena.v1 import bot_pb2
from sdk import Bot, Mixed, run
from sdk.liars_dice import Action, Bid, Observation, legal_actions
from sdk.serve import BotServicer

PLANTED = 0.2718281828459045
"""The planted first probability: no public byte may carry it."""
MODE = "planted"
AFTER = 1


def sound(observation: Observation) -> dict[Action, float]:
    actions = legal_actions(observation)
    if len(actions) == 1:
        return {actions[0]: 1.0}
    rest = (1.0 - PLANTED) / (len(actions) - 1)
    return {a: (PLANTED if i == 0 else rest) for i, a in enumerate(actions)}


class MixedAnswersBot(Bot[Observation, Action]):
    game = "liars_dice"
    name = "mixed-answers"

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0

    def act(self, observation: Observation) -> Mixed:
        self.turns += 1
        stated = sound(observation)
        if self.turns < AFTER:
            return Mixed(stated)
        first, *others = stated
        if MODE == "negative":
            return Mixed({first: -0.5, **{a: 1.5 / len(others) for a in others}})
        if MODE == "above-one":
            return Mixed({first: 1.5})
        if MODE == "sum":
            return Mixed({a: 0.9 / len(stated) for a in stated})
        if MODE == "nan":
            return Mixed({first: math.nan, **{a: 1.0 / len(others) for a in others}})
        if MODE == "illegal":
            return Mixed({**{a: p / 1.1 for a, p in stated.items()}, Bid(99, 2): 0.1 / 1.1})
        if MODE == "zero-illegal":
            return Mixed({**stated, Bid(99, 2): 0.0})
        return Mixed(stated)


class Servicer(BotServicer):
    """The SDK's servicer, with the wire-level mistakes of some modes."""

    def Health(self, request: Any, context: Any) -> bot_pb2.HealthResponse:
        answer: bot_pb2.HealthResponse = super().Health(request, context)
        if MODE == "protocol3":  # says 3, and answers mixed all the same
            answer.protocol_version = 3
        return answer

    def _turn(self, bot: Bot[Any, Any], turn: bot_pb2.TurnRequest, observations: Any) -> Any:
        answer: bot_pb2.TurnResponse = super()._turn(bot, turn, observations)
        late = getattr(bot, "turns", 0) >= AFTER
        if late and MODE == "duplicate" and answer.mixed:
            answer.mixed.append(answer.mixed[0])
        elif late and MODE == "both" and answer.mixed:
            answer.action.CopyFrom(answer.mixed[0].action)
        elif late and MODE == "empty-one" and answer.mixed:
            first = answer.mixed[0].action
            del answer.mixed[:]
            answer.mixed.add(action=first, probability=1.0)
            answer.mixed.add(action=bot_pb2.Action(), probability=0.0)
        return answer


def main() -> None:
    global MODE, AFTER
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="planted")
    parser.add_argument("--after", type=int, default=1)
    options, _ = parser.parse_known_args()
    MODE, AFTER = options.mode, options.after
    if MODE in ("duplicate", "both", "empty-one", "protocol3"):
        import os
        import signal
        from concurrent import futures

        import grpc

        from arena.v1 import bot_pb2_grpc

        servicer = Servicer(MixedAnswersBot)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        bot_pb2_grpc.add_BotServiceServicer_to_server(servicer, server)
        server.add_insecure_port(os.environ["ARENA_LISTEN"])
        server.start()
        signal.sigwait({signal.SIGTERM, signal.SIGINT})
        server.stop(0)
        return
    run(MixedAnswersBot)


if __name__ == "__main__":
    main()
