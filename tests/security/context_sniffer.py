"""A Liar's Dice bot that plays well in the pre-submission check and faults in the ladder.

    python -m tests.security.context_sniffer

On its first turn of every match it decides whether it is being checked, from
everything the referee sent it, and prints what it saw as one line
``SNIFF {json}`` on stderr (the referee captures it). Its tells:

- the match id: ``check-N`` (the old check's ids);
- the deal: its own dice and the roll-offs are those a small seed (0..15) draws
  under the match's rules, for its seat (the old check played seeds 0, 1, ...);
- the rules: anything but the game's defaults (the old check toured rule options;
  ladders play defaults).

Judged "check", it plays random legal moves; judged "ladder", it exits at once
(fault ``crash``): the attack the issue describes, a bot accepted by the check
that then faults in every real match.

The ``SNIFF`` line holds every field of MatchStart and of its first TurnRequest
besides the observation's private part (its dice), with the shape of the ids,
plus its environment, argv length and working directory: the tests compare these
between check and ladder matches.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from concurrent import futures
from functools import cache
from typing import Any

import grpc

from arena.v1 import bot_pb2, bot_pb2_grpc
from referee.core.catalogue import get_game
from referee.core.playout import match_rng
from referee.gamekit.base import CHANCE, draw_chance
from referee.wire.deltas import DeltaDecoder
from sdk import Bot
from sdk.liars_dice import Action, Observation, legal_actions
from sdk.serve import BotServicer

GAME = "liars_dice"
SEEDS = range(16)
"""Seeds a check might use (the old one played seeds 0..matches-1)."""


def shape(text: str) -> str:
    """The shape of an id: its alphabet and length, e.g. ``urlsafe16``."""
    alphabet = "urlsafe" if re.fullmatch(r"[A-Za-z0-9_-]*", text) else "other"
    return f"{alphabet}{len(text)}"


@cache
def seeded_deals(
    raw_rules: tuple[tuple[str, str], ...], num_seats: int, seat: int
) -> dict[int, tuple[Any, Any]]:
    """Per seed: the seat's first dice and the roll-offs that seed deals."""
    game = get_game(GAME)
    rules = game.parse_rules(dict(raw_rules))
    deals = {}
    for seed in SEEDS:
        state = game.new_game(rules, num_seats)
        rng = match_rng(seed)
        while game.to_act(state) == CHANCE:
            state = game.apply_chance(state, draw_chance(game.chance_request(state), rng))
        view = game.observe(state, seat)
        deals[seed] = (view.own_dice, view.roll_offs)
    return deals


class Sniffer(Bot[Observation, Action]):
    game = GAME

    def __init__(self) -> None:
        super().__init__()
        self.hello: bot_pb2.MatchStart | None = None
        self.request: bot_pb2.TurnRequest | None = None
        self.judged = ""

    def act(self, observation: Observation) -> Action:
        if not self.judged:
            self.judged = self.sniff(observation)
            if self.judged == "ladder":
                sys.stderr.flush()
                os._exit(17)
        return self.rng.choice(list(legal_actions(observation)))

    def sniff(self, observation: Observation) -> str:
        assert self.hello is not None and self.request is not None
        hello, request = self.hello, self.request
        game = get_game(GAME)
        defaults = game.format_rules(game.parse_rules({}))
        rules = dict(hello.rules)
        deals = seeded_deals(tuple(sorted(rules.items())), hello.num_seats, hello.seat)
        seeded = [
            s for s, deal in deals.items() if deal == (observation.own_dice, observation.roll_offs)
        ]
        tells = {
            "check_id": bool(re.fullmatch(r"check-\d+", hello.match_id)),
            "seeded_deal": bool(seeded),
            "custom_rules": rules != defaults,
        }
        public = bot_pb2.Observation()
        public.CopyFrom(request.observation)
        public.liars_dice.ClearField("own_dice")
        seen = {
            "match_id": hello.match_id,
            "id_shape": shape(hello.match_id),
            "game": hello.game,
            "rules": rules,
            "seat": hello.seat,
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
            "tells": tells,
            "seeds": seeded,
        }
        context = "check" if any(tells.values()) else "ladder"
        seen["context"] = context
        print("SNIFF " + json.dumps(seen, sort_keys=True), file=sys.stderr, flush=True)
        return context


class SniffingServicer(BotServicer):
    """Hands the bot the raw MatchStart and TurnRequest (the SDK gives it less)."""

    def _start(self, start: bot_pb2.MatchStart, context: grpc.ServicerContext) -> Bot[Any, Any]:
        bot = super()._start(start, context)
        if isinstance(bot, Sniffer):
            bot.hello = start
        return bot

    def _turn(
        self, bot: Bot[Any, Any], turn: bot_pb2.TurnRequest, observations: DeltaDecoder
    ) -> bot_pb2.TurnResponse:
        if isinstance(bot, Sniffer):
            bot.request = turn
        return super()._turn(bot, turn, observations)


def tagged(log: bytes, tag: bytes) -> list[dict[str, Any]]:
    """Every ``TAG {json}`` line in a bot's captured output."""
    prefix = tag + b" "
    return [json.loads(line[len(prefix) :]) for line in log.splitlines() if line.startswith(prefix)]


def sniffs(log: bytes) -> list[dict[str, Any]]:
    """Every ``SNIFF {json}`` line in a bot's captured output."""
    return tagged(log, b"SNIFF")


def serve(servicer: BotServicer, workers: int = 8) -> None:
    """Serve ``servicer`` (a raw one: the sniffers see what the SDK hides) where the
    referee listens for the bot, until SIGTERM or SIGINT."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers))
    bot_pb2_grpc.add_BotServiceServicer_to_server(servicer, server)
    server.add_insecure_port(os.environ["ARENA_LISTEN"])
    server.start()
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    server.stop(0)


def main() -> None:
    serve(SniffingServicer(Sniffer))


if __name__ == "__main__":
    main()
