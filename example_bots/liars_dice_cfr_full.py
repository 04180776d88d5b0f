"""A Liar's Dice bot for the full default game: a CFR+ strategy of every round.

Supported: two seats, our default rules (``same-face-or-same-quantity`` raises, no
wilds, the sum endgame, play until one seat has no dice) with 1 to 5 dice each;
``roll_off`` may be on or off. There the bot samples its move from the average
strategy that :mod:`example_bots.liars_dice_cfr_full_solver` computed for the
round it is in: an information set is (the dice each seat holds, whether it opened,
its own dice, the bid to beat and who made it). The table ships with the project
(``example_bots/data/liars_dice_cfr_full.npz``, probabilities in 1/255 steps).

Any other rules or seat count: the bot says so once on stderr and plays the
posterior bot (:mod:`example_bots.liars_dice_posterior`), so it never makes an
illegal move in a league.

    python -m example_bots.liars_dice_cfr_full
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from example_bots.liars_dice_cfr_full_solver import (
    MAX_DICE,
    Array,
    FullSolverError,
    bid_text,
    hands_of,
)
from example_bots.liars_dice_posterior import PosteriorLiarsDiceBot
from sdk import Mixed, run
from sdk.bot import MatchInfo
from sdk.liars_dice import Action, Bid, Challenge, Observation, SumBid, is_legal

TABLE: Final = Path(
    os.environ.get("LIARS_DICE_CFR_FULL_TABLE")
    or Path(__file__).resolve().parent / "data" / "liars_dice_cfr_full.npz"
)
DEFAULTS: Final = {
    "raise_rule": "same-face-or-same-quantity",
    "wild_face": "none",
    "sum_endgame": "true",
    "one_round": "false",
}
"""The rule options the table was solved for (besides dice and roll-off)."""


@dataclass(frozen=True, slots=True)
class RoundTable:
    """One round's strategies: ``seats[role][key, hand, action]`` in 1/255 steps."""

    seats: tuple[Array, Array]
    keys: tuple[dict[tuple[int, ...], int], dict[tuple[int, ...], int]]
    """Per role: the last ``recall`` bid indices (left-padded with -1) -> key row."""
    recall: int
    bids: dict[Bid | SumBid, int]
    actions: tuple[Action, ...]
    """Bids in the table's order, then the challenge."""


class FullTable:
    """Every round of a match of up to five dice each."""

    def __init__(self, path: Path = TABLE) -> None:
        self.rounds: dict[tuple[int, int], RoundTable] = {}
        with np.load(path) as data:
            for name in data.files:
                if not name.startswith("bids"):
                    continue
                a, b = int(name[4]), int(name[5])
                bids = [_parse_bid(str(text)) for text in data[name]]
                tails = (data[f"k{a}{b}s0"], data[f"k{a}{b}s1"])
                self.rounds[(a, b)] = RoundTable(
                    (data[f"p{a}{b}s0"], data[f"p{a}{b}s1"]),
                    tuple(
                        {tuple(int(i) for i in row): key for key, row in enumerate(rows)}
                        for rows in tails
                    ),  # type: ignore[arg-type]
                    int(tails[0].shape[1]),
                    {bid: i for i, bid in enumerate(bids)},
                    (*bids, Challenge()),
                )
        self.hand_index = {
            dice: {hand: i for i, hand in enumerate(hands_of(dice)[0])}
            for dice in range(1, MAX_DICE + 1)
        }

    def locate(self, observation: Observation) -> tuple[RoundTable, int, int]:
        """The round's table, the observer's role (0 opener, 1 responder) and the key
        of the bid to beat, for the seat to act."""
        opener = observation.opener
        if opener is None:
            raise FullSolverError("no round in progress")
        mover = observation.to_act
        if mover is None:
            raise FullSolverError("nobody is to act")
        counts = observation.dice_counts
        table = self.rounds[(counts[opener], counts[1 - opener])]
        role = 0 if mover == opener else 1
        if observation.bids and observation.bids[-1].seat == mover:
            raise FullSolverError(f"seat {mover} asked to act after its own bid")
        tail = tuple(table.bids[placed.bid] for placed in observation.bids[-table.recall :])
        padded = (-1,) * (table.recall - len(tail)) + tail
        key = table.keys[role].get(padded)
        if key is None:
            raise FullSolverError(f"no key for bids {observation.bids!r} as role {role}")
        return table, role, key

    def rows(self, observation: Observation) -> tuple[RoundTable, Array]:
        """The mover's strategy ``[hand, action]`` (probabilities) at this key, for
        every hand it might hold, and the round's table."""
        table, role, key = self.locate(observation)
        rows = table.seats[role][key].astype(np.float64)
        return table, rows / rows.sum(axis=1, keepdims=True).clip(1e-12)

    def probabilities(self, observation: Observation) -> dict[Action, float]:
        """The strategy's legal actions and their probabilities for ``observation``."""
        table, role, key = self.locate(observation)
        seat = observation.seat
        hand = self.hand_index[observation.dice_counts[seat]][tuple(sorted(observation.own_dice))]
        row = table.seats[role][key, hand].astype(np.float64)
        legal = {
            action: float(weight)
            for action, weight in zip(table.actions, row, strict=True)
            if weight > 0 and is_legal(observation, action)
        }
        total = sum(legal.values())
        if total <= 0:
            raise FullSolverError(f"no legal action has weight at key {key} for {observation!r}")
        return {action: weight / total for action, weight in legal.items()}


def supported(info: MatchInfo) -> bool:
    """Whether the table covers this match."""
    raw = dict(info.raw_rules)
    raw.pop("roll_off", None)
    dice = raw.pop("dice_per_player", "5")
    rules = {**DEFAULTS, **raw}
    return (
        info.num_seats == 2 and rules == DEFAULTS and dice.isdigit() and 1 <= int(dice) <= MAX_DICE
    )


class FullCfrLiarsDiceBot(PosteriorLiarsDiceBot):
    """Samples from the full-game CFR+ table; the posterior bot's play otherwise."""

    name = "liars-dice-cfr-full"

    def __init__(self) -> None:
        super().__init__()
        self.table: FullTable | None = None

    def start(self, match: MatchInfo) -> None:
        super().start(match)
        self.table = None
        if not supported(match):
            print(
                f"liars-dice-cfr-full: no table for rules {dict(match.raw_rules)} with"
                f" {match.num_seats} seats (needs 2 seats, 1..{MAX_DICE} dice each and"
                f" {DEFAULTS}); playing the posterior bot",
                file=sys.stderr,
            )
            return
        global _TABLE
        if _TABLE is None:
            _TABLE = FullTable()
        self.table = _TABLE

    def policy(self, observation: Observation) -> dict[Action, float] | None:
        """The table's probabilities here (what ``act`` samples from); ``None`` when
        the match is not one the table covers."""
        if self.table is None:
            return None
        return self.table.probabilities(observation)

    def act(self, observation: Observation) -> Action | Mixed:  # type: ignore[override]
        # (the base bot answers with one action; this one answers mixed where it can)
        """A mixed move from the table (the referee draws the action); the fallback
        bot's action where the table does not cover the match."""
        if self.table is None:
            return super().act(observation)
        return Mixed(self.table.probabilities(observation))


def _parse_bid(text: str) -> Bid | SumBid:
    if text.startswith("sum"):
        return SumBid(int(text[3:]))
    quantity, face = text.split("x")
    bid = Bid(int(quantity), int(face))
    if bid_text(bid) != text:
        raise FullSolverError(f"bad bid {text!r} in the table")
    return bid


_TABLE: FullTable | None = None
"""The table, loaded once per process (matches of a league share it)."""


if __name__ == "__main__":
    run(FullCfrLiarsDiceBot)
