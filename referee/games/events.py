"""A match as a list of events, and replaying it.

A match is fully described by its game, rules, seat count and event list: every
chance outcome the referee drew and every action a seat took, in order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.chance import ChanceStream, key_from_seed
from referee.games.base import CHANCE, ChanceOutcome, Game, GameError


@dataclass(frozen=True, slots=True)
class ChanceEvent:
    """The referee drew ``outcome`` at a chance node."""

    outcome: ChanceOutcome


@dataclass(frozen=True, slots=True)
class ActionEvent:
    """Seat ``seat`` took ``action``."""

    seat: int
    action: Any


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


@dataclass(frozen=True, slots=True)
class Playout:
    events: tuple[Event, ...]
    states: tuple[Any, ...]

    @property
    def final(self) -> Any:
        return self.states[-1]


def random_playout(
    game: Game[Any, Any, Any, Any],
    rules: Any,
    num_seats: int,
    rng: random.Random,
    *,
    max_events: int = 200_000,
) -> Playout:
    """Play uniformly random legal actions (and fair chance) to the end."""
    from referee.driver import MatchDriver  # the driver builds on this module's events

    driver = MatchDriver(game, rules, num_seats)
    states: list[Any] = [driver.state]
    events: list[Event] = []
    while (actor := driver.to_act()) is not None:
        if len(events) >= max_events:
            raise GameError(f"{game.name}: no end after {max_events} events")
        event: Event
        if actor == CHANCE:
            event = ChanceEvent(driver.draw(rng))
            driver.apply_chance(event.outcome)
        else:
            decision = driver.decision()
            legal: Sequence[Any] = game.legal_actions(decision.view)
            if not legal:
                raise GameError(f"{game.name}: seat {actor} to act with no legal action")
            event = ActionEvent(actor, rng.choice(list(legal)))
            driver.act(decision, event.action)
        events.append(event)
        states.append(driver.state)
    return Playout(tuple(events), tuple(states))


def match_rng(seed: int) -> ChanceStream:
    """The chance stream of a reproducible match with ``seed`` (``--seed N``).

    The referee and the in-process runner (``sdk.local``) both use it, so a seed
    deals the same dice and cards whichever of them runs the match. Guessable by
    design: a match without a seed draws from a fresh secret instead
    (:func:`referee.chance.chance_stream`).
    """
    return ChanceStream(key_from_seed(seed))


def legacy_match_rng(seed: int) -> random.Random:
    """The generator of format-1 records (before secret chance): verifying old records."""
    return random.Random(f"bluff-arena:{seed}")
