"""A hostile Liar's Dice bot that remembers deals (the duplicate-deal attack).

Seat rotations of one deal group get the same deal. This bot writes down every
reveal it sees — keyed by its seat and the dice it was dealt — in its memory and
in a file (``$ARENA_MEMORY_FILE``, default ``/tmp/arena-deal-memory.json``). When
a later match deals it dice it has seen revealed before, it knows every seat's
dice and plays perfectly: the biggest true raise, or a challenge of a false bid.
Otherwise it plays like the probability bot. Each decision it prints on stderr
whether it recognised the deal, so tests can count.

    python -m tests.security.deal_rememberer
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

from example_bots.liars_dice_probability import ProbabilityLiarsDiceBot
from referee.games.liars_dice.engine import bid_is_true, counts_for
from sdk import run
from sdk.bot import MatchResult
from sdk.liars_dice import Action, Bid, Challenge, Observation, SumBid, legal_actions

MEMORY_FILE = Path(os.environ.get("ARENA_MEMORY_FILE", "/tmp/arena-deal-memory.json"))
MEMORY: dict[str, list[list[int]]] = {}
"""(public roll-off, seat, round, own dice) -> every seat's dice, as revealed."""


def key(observation: Observation, seat: int, round_number: int, own: tuple[int, ...]) -> str:
    roll_off = [[list(roll.dice) for roll in rolls] for rolls in observation.roll_offs]
    return f"{roll_off}:{seat}:{round_number}:{','.join(map(str, own))}"


def recall() -> dict[str, list[list[int]]]:
    known = dict(MEMORY)
    with contextlib.suppress(OSError, ValueError):
        known.update(json.loads(MEMORY_FILE.read_text()))
    return known


def remember(observation: Observation) -> None:
    for result in observation.history:
        for seat, dice in enumerate(result.dice):
            if dice:
                recalled = [list(d) for d in result.dice]
                MEMORY[key(observation, seat, result.round_number, tuple(dice))] = recalled
    with contextlib.suppress(OSError):
        merged = recall()
        merged.update(MEMORY)
        MEMORY_FILE.write_text(json.dumps(merged))


class DealRememberer(ProbabilityLiarsDiceBot):
    name = "deal-rememberer"

    def act(self, observation: Observation) -> Action:
        remember(observation)
        hands = recall().get(
            key(observation, observation.seat, observation.round_number, observation.own_dice)
        )
        print(f"rememberer recognised={hands is not None}", file=sys.stderr, flush=True)
        if hands is None:
            return super().act(observation)

        def true(bid: Bid | SumBid) -> bool:
            actual = counts_for(bid, hands, observation.wilds_active, observation.rules.wild)
            return bid_is_true(bid, actual)

        last = observation.last_bid
        if last is not None and not true(last):
            return Challenge()
        raises = [a for a in legal_actions(observation) if isinstance(a, Bid | SumBid) and true(a)]
        if not raises:
            return Challenge()
        return max(
            raises, key=lambda a: (a.total, 0) if isinstance(a, SumBid) else (a.quantity, a.face)
        )

    def end(self, result: MatchResult) -> None:
        remember(result.observation)


if __name__ == "__main__":
    run(DealRememberer)
