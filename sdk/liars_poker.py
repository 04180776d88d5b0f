"""Liar's Poker for bot authors: the types a bot sees and helpers built on the engine.

    from sdk import Bot, run
    from sdk.liars_poker import Action, Observation, legal_actions

    class MyBot(Bot[Observation, Action]):
        game = "liars_poker"

        def act(self, observation: Observation) -> Action:
            return self.rng.choice(legal_actions(observation))

The legality helpers run exactly the referee's code, so a bot that only plays
actions from :func:`legal_actions` (or checks :func:`is_legal`) never faults.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.games.base import GameError
from referee.games.cards import (
    JOKER,
    POKER_DECK,
    Card,
    Suit,
    format_cards,
    parse_card,
    parse_cards,
    remove_cards,
)
from referee.games.liars_poker import (
    LIARS_POKER,
    Accept,
    Action,
    Announce,
    Challenge,
    Claim,
    DealResult,
    Exchange,
    Observation,
    Rules,
    exchanges,
)
from referee.games.poker_hands import (
    HIGHEST,
    Announcement,
    Category,
    all_announcements,
    announcements_above,
    best_announcement,
    contains,
    describe_announcement,
    lowest_contained_above,
)

if TYPE_CHECKING:
    ALL_ANNOUNCEMENTS: tuple[Announcement, ...]


def __getattr__(name: str) -> object:
    # Built on first access, as in referee.games.poker_hands: importing is cheap.
    if name == "ALL_ANNOUNCEMENTS":
        return all_announcements()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ALL_ANNOUNCEMENTS",
    "HIGHEST",
    "JOKER",
    "POKER_DECK",
    "Accept",
    "Action",
    "Announce",
    "Announcement",
    "Card",
    "Category",
    "Challenge",
    "Claim",
    "DealResult",
    "Exchange",
    "Observation",
    "Rules",
    "Suit",
    "all_announcements",
    "announcements_above",
    "best_announcement",
    "containment_probability",
    "contains",
    "describe_announcement",
    "exchange_success_probability",
    "exchanges",
    "format_cards",
    "is_legal",
    "legal_actions",
    "lowest_contained_above",
    "parse_card",
    "parse_cards",
]


def legal_actions(observation: Observation) -> list[Action]:
    """Every legal action for the observing seat (empty when it is not its turn).

    In the announce phase this is every announcement above the last one: up to
    8,596 actions. Use :func:`announcements_above` to walk them in order.
    """
    return list(LIARS_POKER.legal_actions(observation))


def is_legal(observation: Observation, action: object) -> bool:
    """Whether the referee would accept ``action`` from the observing seat now."""
    try:
        LIARS_POKER.check_action(observation, action)
    except GameError:
        return False
    return True


def containment_probability(
    announcement: Announcement,
    rng: random.Random,
    *,
    samples: int = 400,
    excluded: Sequence[Card] = (),
) -> float:
    """Monte Carlo chance that five random cards contain ``announcement``.

    The five cards are drawn from the 54-card deck without ``excluded`` (cards the
    caller knows are elsewhere).
    """
    pool = list(remove_cards(POKER_DECK, excluded)) if excluded else list(POKER_DECK)
    hits = sum(contains(rng.sample(pool, 5), announcement) for _ in range(samples))
    return hits / samples


def exchange_success_probability(
    hand: Sequence[Card],
    discards: Sequence[Card],
    last: Announcement | None,
    rng: random.Random,
    *,
    samples: int = 60,
) -> float:
    """Monte Carlo chance that exchanging ``discards`` leaves a hand that beats ``last``.

    "Beats" means the new hand contains some announcement strictly above ``last``
    (any hand does if ``last`` is ``None``). Replacements come from the 49 cards
    that are not in ``hand``.
    """
    kept = list(remove_cards(hand, discards))
    if last is None:
        return 1.0
    if not discards:
        return 1.0 if best_announcement(kept) > last else 0.0
    stock = list(remove_cards(POKER_DECK, hand))
    count = len(discards)
    wins = sum(best_announcement(kept + rng.sample(stock, count)) > last for _ in range(samples))
    return wins / samples
