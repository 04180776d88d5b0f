"""Every action each built-in game can ever take: the action universe for RL.

A registration's ``action_universe`` names one of these functions
(:attr:`referee.core.catalogue.GameEntry.action_universe`); :mod:`sdk.pettingzoo_env`
numbers the keys to build a fixed ``Discrete`` space per (game, rules, seats).

A key is the action itself, except for actions that name cards by value (Liar's
Poker exchanges): those are ``(EXCHANGE, positions)``, positions in the hand, so
Liar's Poker stays at 8,596 announcements + 34 other actions.

Imported only when an environment is built (the catalogue names it as a string),
so its engine imports cost nothing to a bot or the CLI.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from typing import Any

from referee.games import cockroach_poker as cp
from referee.games import dice_poker as dp
from referee.games import liars_dice as ld
from referee.games import liars_poker as lp
from referee.games import liars_poker_dice as lpd
from referee.games.cards import KINDS
from referee.games.dice import FACES
from referee.games.poker_dice import ALL_HANDS
from referee.games.poker_hands import all_announcements

EXCHANGE = "exchange"
"""The first element of an exchange's key: ``(EXCHANGE, positions)``."""

POSITION_SUBSETS = tuple(
    subset for size in range(6) for subset in itertools.combinations(range(5), size)
)
"""Every set of positions in a five-die or five-card hand (32 of them)."""


def liars_dice(rules: Any, num_seats: int) -> list[Hashable]:
    bids: list[Hashable] = [
        ld.Bid(quantity, face)
        for quantity in range(1, rules.dice_per_player * num_seats + 1)
        for face in FACES
    ]
    sums: list[Hashable] = [ld.SumBid(t) for t in range(ld.MIN_TOTAL, ld.MAX_TOTAL + 1)]
    return [ld.Challenge(), *bids, *sums]


def liars_poker_dice(rules: Any, num_seats: int) -> list[Hashable]:
    return [
        lpd.Challenge(),
        lpd.Accept(),
        *(lpd.Declare(hand) for hand in ALL_HANDS),
        *(lpd.Reroll(positions) for positions in POSITION_SUBSETS),
    ]


def dice_poker(rules: Any, num_seats: int) -> list[Hashable]:
    return [
        *(dp.Reroll(positions) for positions in POSITION_SUBSETS),
        *(dp.Score(line) for line in dp.Line),
    ]


def cockroach_poker(rules: Any, num_seats: int) -> list[Hashable]:
    return [
        cp.Believe(),
        cp.Disbelieve(),
        *(cp.Announce(card, claim) for card in KINDS for claim in KINDS),
    ]


def liars_poker(rules: Any, num_seats: int) -> list[Hashable]:
    return [
        lp.Challenge(),
        lp.Accept(),
        *((EXCHANGE, positions) for positions in POSITION_SUBSETS),
        *(lp.Announce(a) for a in all_announcements()),
    ]
