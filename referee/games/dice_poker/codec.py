"""Codec for Dice Poker (``arena.v1.DicePoker*`` messages).

Derived from the engine's types (:mod:`referee.wire.derived`), except the scorecard:
the engine keeps one slot per line (``None`` while open), the wire only the written
lines, as ``(line, points)`` entries in line order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from arena.v1 import dice_poker_pb2 as pb
from referee.games.dice_poker.engine import (
    DICE_POKER,
    NUM_DICE,
    Action,
    Line,
    Observation,
    Reroll,
    Scorecard,
)
from referee.wire.derived import Checks, DerivedCodec, Field, Fields, Wire


@dataclass(frozen=True, slots=True)
class Entry:
    """One filled line of a scorecard (its wire form only)."""

    line: Line
    """The line."""
    points: int
    """Points written in it (0 when the dice did not fit)."""


ENTRIES: Final = "The filled lines, in card order; a line not listed is still empty."


def _entries(lines: tuple[int | None, ...]) -> dict[str, Any]:
    return {
        "entries": [
            pb.DicePokerEntry(line=pb.DicePokerLine.ValueType(line), points=points)
            for line, points in enumerate(lines, start=1)
            if points is not None
        ]
    }


def _lines(message: pb.DicePokerScorecard) -> tuple[int | None, ...]:
    lines: list[int | None] = [None] * len(Line)
    for entry in message.entries:
        if not 1 <= entry.line <= len(Line) or lines[entry.line - 1] is not None:
            raise ValueError(f"bad scorecard entry {entry!r}")
        lines[entry.line - 1] = entry.points
    return tuple(lines)


def _reroll_error(reroll: Reroll) -> str | None:
    positions = list(reroll.positions)
    if (
        not positions
        or any(p >= NUM_DICE for p in positions)
        or positions != sorted(set(positions))
    ):
        return f"re-roll positions {positions}: expected 1..5 distinct increasing 0..4"
    return None


class DicePokerCodec(DerivedCodec[Observation, Action]):
    """Observations and actions of ``dice_poker``."""

    engine = DICE_POKER
    observation_message = pb.DicePokerObservation
    action_message = pb.DicePokerAction
    fields: ClassVar[Fields] = {
        (Observation, "cards"): Field(wire="scorecards"),
        (Scorecard, "lines"): Field(  # only the written lines travel
            encode=_entries, decode=_lines, writes=(Wire("entries", tuple[Entry, ...], ENTRIES),)
        ),
    }
    action_oneof = "kind"
    checks: ClassVar[Checks] = {Reroll: _reroll_error}


CODEC: Final = DicePokerCodec()
"""The codec instance the registry (:func:`referee.core.catalogue.get_codec`) hands out."""
