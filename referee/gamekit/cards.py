"""Card value types shared by the card games.

Two decks live here:

* the **Cockroach Poker** deck: 8 kinds of critter (:class:`Kind`), 8 cards of each,
  64 cards; cards of one kind are interchangeable, so a card *is* its kind;
* the **poker** deck: 52 cards (:class:`Card` with a rank 2..14 and a
  :class:`Suit`) plus two jokers. The two jokers are interchangeable and both
  equal :data:`JOKER`.

Standard library only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

# ---------------------------------------------------------------------------
# Cockroach Poker


class Kind(IntEnum):
    """One of the eight critters of Cockroach Poker."""

    COCKROACH = 0
    SCORPION = 1
    TOAD = 2
    SPIDER = 3
    RAT = 4
    BAT = 5
    CENTIPEDE = 6
    FLY = 7

    @property
    def label(self) -> str:
        """Lower-case English name, e.g. ``"cockroach"``."""
        return self.name.lower()


KINDS: Final = tuple(Kind)
"""The eight kinds in order."""
CARDS_PER_KIND: Final = 8
COCKROACH_DECK: Final[tuple[Kind, ...]] = tuple(
    kind for kind in KINDS for _ in range(CARDS_PER_KIND)
)
"""The 64 Cockroach Poker cards in kind order (the order a shuffle permutes)."""


def kind_counts(kinds: Iterable[Kind]) -> tuple[int, ...]:
    """How many cards of each kind, indexed by :class:`Kind` value (8 entries)."""
    counts = [0] * len(KINDS)
    for kind in kinds:
        counts[kind] += 1
    return tuple(counts)


def kinds_from_counts(counts: Sequence[int]) -> tuple[Kind, ...]:
    """The inverse of :func:`kind_counts`: the cards, sorted by kind."""
    return tuple(kind for kind, count in zip(KINDS, counts, strict=True) for _ in range(count))


# ---------------------------------------------------------------------------
# Poker deck


class Suit(IntEnum):
    """A suit of the 52-card deck. Jokers carry :attr:`NONE`."""

    NONE = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3
    SPADES = 4

    @property
    def symbol(self) -> str:
        return "*cdhs"[self]


SUITS: Final = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
RANKS: Final = tuple(range(2, 15))
"""Ranks 2..14; 11 = jack, 12 = queen, 13 = king, 14 = ace."""
ACE: Final = 14
JOKER_RANK: Final = 0
RANK_LABELS: Final = {
    **{rank: str(rank) for rank in range(2, 11)},
    11: "J",
    12: "Q",
    13: "K",
    14: "A",
}


def rank_label(rank: int) -> str:
    """``"9"``, ``"10"``, ``"J"``, ..., ``"A"``."""
    return RANK_LABELS.get(rank, f"?{rank}")


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A playing card: ``rank`` 2..14 and a suit, or the joker (rank 0, no suit)."""

    rank: int
    """2..14 (11 jack, 12 queen, 13 king, 14 ace); 0 for the joker."""
    suit: Suit
    """The suit; `Suit.NONE` for the joker."""

    @property
    def is_joker(self) -> bool:
        """Whether this is a joker (wild)."""
        return self.rank == JOKER_RANK

    def __str__(self) -> str:
        if self.is_joker:
            return "Jk"
        return f"{rank_label(self.rank)}{self.suit.symbol}"

    def is_valid(self) -> bool:
        """Whether this is one of the 54 cards of the deck."""
        if self.rank == JOKER_RANK:
            return self.suit is Suit.NONE
        return self.rank in RANKS and self.suit in SUITS


JOKER: Final = Card(JOKER_RANK, Suit.NONE)
STANDARD_DECK: Final[tuple[Card, ...]] = tuple(Card(rank, suit) for rank in RANKS for suit in SUITS)
"""The 52 cards without jokers, rank-major."""
POKER_DECK: Final[tuple[Card, ...]] = (*STANDARD_DECK, JOKER, JOKER)
"""The 54 cards of Liar's Poker (the order a shuffle permutes)."""


def parse_card(text: str) -> Card:
    """``"Ah"``, ``"10s"``, ``"2c"``, ``"Jk"`` (joker) → :class:`Card`; ``ValueError``."""
    text = text.strip()
    if text.lower() in ("jk", "joker", "*"):
        return JOKER
    by_label = {label.lower(): rank for rank, label in RANK_LABELS.items()}
    by_symbol = {suit.symbol: suit for suit in SUITS}
    rank = by_label.get(text[:-1].lower())
    suit = by_symbol.get(text[-1:].lower())
    if rank is None or suit is None:
        raise ValueError(f"not a card: {text!r}")
    return Card(rank, suit)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Space-separated cards, e.g. ``"Ah Kh Jk 2c 2d"``."""
    return tuple(parse_card(part) for part in text.split())


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards)


def is_submultiset(part: Iterable[Card], whole: Iterable[Card]) -> bool:
    """Whether every card of ``part`` can be taken from ``whole`` (with repeats)."""
    return not Counter(part) - Counter(whole)


def remove_cards(whole: Sequence[Card], part: Iterable[Card]) -> tuple[Card, ...]:
    """``whole`` without one copy of each card of ``part`` (which must be in it)."""
    remaining = list(whole)
    for card in part:
        remaining.remove(card)
    return tuple(remaining)
