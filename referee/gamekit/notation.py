"""What the games share in their written notation: how a person types a move and
reads one (:meth:`referee.gamekit.base.Game.parse_move` and its neighbours).

Each game writes its own moves (``3 4s``, ``full house``, ``bat as fly``, ``pair of
9s and 6``, ``reroll a c``) next to its rules in its engine; here are the pieces
they have in common: the error a move that cannot be read raises, number words,
plural faces, ranges of numbers, and dice named by value or by position letter.

Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from referee.gamekit.errors import NotAMove

__all__ = [
    "DICE_LETTERS",
    "NUMBER_WORDS",
    "NotAMove",
    "dice_positions",
    "face_plural",
    "lettered_dice",
    "letters",
    "number_ranges",
    "number_word",
    "parse_count",
    "words",
]


NUMBER_WORDS: Final[dict[str, int]] = {
    word: number
    for number, word in enumerate(
        (
            *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight"),
            *("nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen"),
            *("sixteen", "seventeen", "eighteen", "nineteen", "twenty"),
        )
    )
}
"""``"three"`` → 3, up to twenty (larger counts are written in digits)."""
_WORD_OF: Final = {number: word for word, number in NUMBER_WORDS.items()}

DICE_LETTERS: Final = "abcdefghij"
"""Dice are named by position with these letters (``a`` the first die) where their
values would be ambiguous: ``reroll a c``."""

_SEPARATORS: Final = re.compile(r"[\s,;:/+&]+")


def words(text: str) -> list[str]:
    """``text`` in lower case, split at blanks and punctuation (``,;:/+&``)."""
    return [w for w in _SEPARATORS.split(text.strip().lower()) if w]


def number_word(number: int) -> str:
    """``3`` → ``"three"`` (zero to twenty), larger numbers in digits."""
    return _WORD_OF.get(number, str(number))


def face_plural(face: int, count: int = 2) -> str:
    """``"4s"`` (``"4"`` for one die): a face as the games write it."""
    return f"{face}" if count == 1 else f"{face}s"


def parse_count(word: str) -> int | None:
    """A count written in digits or words (``"3"``, ``"three"``), else None."""
    if word.isdigit():
        return int(word)
    return NUMBER_WORDS.get(word)


def number_ranges(numbers: Iterable[int]) -> str:
    """``[2, 4, 5, 6]`` → ``"2, 4-6"``: sorted, runs joined."""
    values = sorted(set(numbers))
    parts: list[str] = []
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and values[end + 1] == values[end] + 1:
            end += 1
        if end > start:
            parts.append(f"{values[start]}-{values[end]}")
        else:
            parts.append(str(values[start]))
        start = end + 1
    return ", ".join(parts)


def letters(positions: Sequence[int]) -> str:
    """Positions 0, 2 → ``"a c"``."""
    return " ".join(DICE_LETTERS[p] for p in positions)


def lettered_dice(dice: Sequence[int]) -> str:
    """``(3, 3, 5)`` → ``"a3 b3 c5"``: each die after its position letter."""
    return " ".join(f"{DICE_LETTERS[i]}{value}" for i, value in enumerate(dice))


def dice_positions(
    tokens: Sequence[str], dice: Sequence[int], *, keep: bool = False
) -> tuple[int, ...] | None:
    """The positions ``tokens`` name among ``dice``, increasing; None if they name none.

    A token is a position letter (``a``..), a lettered die as :func:`lettered_dice`
    writes it (``c5``), or a value (``5``): the leftmost die of that value not named
    yet. ``keep``: the tokens name the dice to keep, and the positions returned are
    the others. Raises :class:`NotAMove` for a letter past the dice or a value no
    die left shows."""
    named: list[int] = []
    for token in tokens:
        letter_first = re.fullmatch(r"([a-j])([1-9]?)", token)
        if letter_first:
            position = DICE_LETTERS.index(letter_first.group(1))
            if position >= len(dice):
                raise NotAMove(
                    f"there is no die {letter_first.group(1)!r}: the dice are {lettered_dice(dice)}"
                )
            value = letter_first.group(2)
            if value and dice[position] != int(value):
                raise NotAMove(
                    f"die {letter_first.group(1)} shows {dice[position]}, not {value}"
                    f" (the dice are {lettered_dice(dice)})"
                )
            if position in named:
                raise NotAMove(f"die {letter_first.group(1)} is named twice")
            named.append(position)
            continue
        if token.isdigit():
            value_wanted = int(token)
            free = [i for i, v in enumerate(dice) if v == value_wanted and i not in named]
            if not free:
                shown = "no" if value_wanted not in dice else "no other"
                raise NotAMove(
                    f"{shown} die shows {value_wanted} (the dice are {lettered_dice(dice)})"
                )
            named.append(free[0])
            continue
        return None
    if keep:
        return tuple(p for p in range(len(dice)) if p not in named)
    return tuple(sorted(named))
