"""Liar's Poker for bot authors: the types a bot sees and helpers built on the engine.

    from sdk import Bot, run
    from sdk.liars_poker import Action, Observation, legal_actions

    class MyBot(Bot[Observation, Action]):
        game = "liars_poker"

        def act(self, observation: Observation) -> Action:
            return self.rng.choice(legal_actions(observation))

The legality helpers run exactly the referee's code, so a bot that only plays
actions from :func:`legal_actions` (or checks :func:`is_legal`) never faults.

Everything here is the engine's own code (``referee.games.liars_poker.engine``, the hand
rules of ``referee.gamekit.poker_hands`` and the cards of ``referee.gamekit.cards``)
or built on it, re-exported so that a bot imports only the SDK:

* Observation and its parts: ``Observation``, ``Rules``, ``Phase``, ``Claim``,
  ``DealResult``, ``HAND_SIZE``, ``MAX_EXCHANGE``.
* Actions: ``Action``, ``Announce``, ``Accept``, ``Challenge``, ``Exchange``;
  ``exchanges(hand)`` (every distinct exchange), ``announce_actions(last)``.
* Legality: :func:`legal_actions`, :func:`is_legal`.
* Cards: ``Card``, ``Suit``, ``SUITS``, ``RANKS``, ``ACE``, ``JOKER``,
  ``STANDARD_DECK``, ``POKER_DECK`` (with two jokers), ``rank_label``,
  ``parse_card``, ``parse_cards``, ``format_cards``, ``remove_cards``,
  ``is_submultiset``.
* Announcements (the hand ranking): ``Announcement``, ``Category``,
  ``ALL_ANNOUNCEMENTS`` (lowest first, built on first use), ``all_announcements()``,
  ``LOWEST``, ``HIGHEST``, ``index_of``, ``announcements_above``, ``contains(cards,
  announcement)``, ``required_ranks``, ``best_announcement``, ``category_of``,
  ``lowest_contained_above``, ``describe_announcement``.
* Probabilities (Monte Carlo): :func:`containment_probability`,
  :func:`exchange_success_probability`.
* Simulation, for solvers and search: the engine ``LIARS_POKER``, its ``State``,
  and ``GameError`` (what the engine raises).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.gamekit.base import GameError
from referee.gamekit.cards import (
    ACE,
    JOKER,
    POKER_DECK,
    RANKS,
    STANDARD_DECK,
    SUITS,
    Card,
    Suit,
    format_cards,
    is_submultiset,
    parse_card,
    parse_cards,
    rank_label,
    remove_cards,
)
from referee.gamekit.poker_hands import (
    HIGHEST,
    LOWEST,
    Announcement,
    Category,
    all_announcements,
    announcements_above,
    best_announcement,
    category_of,
    contains,
    describe_announcement,
    index_of,
    lowest_contained_above,
    required_ranks,
)
from referee.games.liars_poker.engine import (
    HAND_SIZE,
    LIARS_POKER,
    MAX_EXCHANGE,
    Accept,
    Action,
    Announce,
    Challenge,
    Claim,
    DealResult,
    Exchange,
    Observation,
    Phase,
    Rules,
    State,
    announce_actions,
    exchanges,
)
from sdk.legality import legality

if TYPE_CHECKING:
    ALL_ANNOUNCEMENTS: tuple[Announcement, ...]


def __getattr__(name: str) -> object:
    # Built on first access, as in referee.gamekit.poker_hands: importing is cheap.
    if name == "ALL_ANNOUNCEMENTS":
        return all_announcements()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ACE",
    "ALL_ANNOUNCEMENTS",
    "HAND_SIZE",
    "HIGHEST",
    "JOKER",
    "LIARS_POKER",
    "LOWEST",
    "MAX_EXCHANGE",
    "POKER_DECK",
    "RANKS",
    "STANDARD_DECK",
    "SUITS",
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
    "GameError",
    "Observation",
    "Phase",
    "Rules",
    "State",
    "Suit",
    "all_announcements",
    "announce_actions",
    "announcements_above",
    "best_announcement",
    "category_of",
    "containment_probability",
    "contains",
    "describe_announcement",
    "exchange_success_probability",
    "exchanges",
    "format_cards",
    "index_of",
    "is_legal",
    "is_submultiset",
    "legal_actions",
    "lowest_contained_above",
    "parse_card",
    "parse_cards",
    "rank_label",
    "remove_cards",
    "required_ranks",
]


legal_actions, is_legal = legality(LIARS_POKER)
"""``legal_actions(observation)``: every legal action for the observing seat (empty when
it is not its turn); ``is_legal(observation, action)``: whether the referee would
accept ``action`` from it now (:mod:`sdk.legality`).

In the announce phase ``legal_actions`` is every announcement above the last one: up
to 8,596 actions. Use :func:`announcements_above` to walk them in order."""


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
