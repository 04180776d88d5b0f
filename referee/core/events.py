"""A match as a list of events, and replaying it.

A match is fully described by its game, rules, seat count and event list: every
chance outcome the referee drew and every action a seat took, in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from referee.gamekit.base import ChanceOutcome, Game


@dataclass(frozen=True, slots=True)
class ChanceEvent:
    """The referee drew ``outcome`` at a chance node."""

    outcome: ChanceOutcome


@dataclass(frozen=True, slots=True)
class ActionEvent:
    """Seat ``seat`` took ``action``."""

    seat: int
    action: Any
    policy: Any = field(default=None, compare=False)
    """The :class:`referee.core.mixed.Distribution` ``action`` was drawn from when the
    seat answered with a mixed move (in-process play; luck's action terms), else
    None. Not part of the event's identity: a replay of the record has no policies."""


Event = ChanceEvent | ActionEvent


def apply_event(game: Game[Any, Any, Any, Any], state: Any, event: Event) -> Any:
    """Apply one event with full validation."""
    if isinstance(event, ChanceEvent):
        return game.apply_chance(state, event.outcome)
    return game.apply_action(state, event.seat, event.action)


def describe_event(
    game: Game[Any, Any, Any, Any], before: Any, event: Event, *, who: str | None = None
) -> str:
    """One line for an event: ``seat N: <action>`` or ``chance: <outcome>``.

    ``before`` is the state the event applies to; ``who`` replaces ``seat N``.
    """
    if isinstance(event, ActionEvent):
        return f"{who or f'seat {event.seat}'}: {game.describe_action(event.action)}"
    return f"chance: {game.describe_chance(before, event.outcome)}"


def replay(
    game: Game[Any, Any, Any, Any], rules: Any, num_seats: int, events: Iterable[Event]
) -> list[Any]:
    """Every state from the initial one through the last event (validated)."""
    states = [game.new_game(rules, num_seats)]
    for event in events:
        states.append(apply_event(game, states[-1], event))
    return states
