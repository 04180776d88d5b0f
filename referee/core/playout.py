"""Random playouts and the chance of reproducible matches.

A random playout steps a :class:`~referee.core.driver.MatchDriver` exactly as a
live match does (same turn numbers, same observations, same legality checks), with
uniformly random legal actions: the engine tests and the benchmarks use it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.core.chance import ChanceStream, key_from_seed
from referee.core.driver import MatchDriver
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.gamekit.base import CHANCE, Game, GameError


@dataclass(frozen=True, slots=True)
class Playout:
    """A finished playout: every event, and every state from the initial one on."""

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
    (:func:`referee.core.chance.chance_stream`).
    """
    return ChanceStream(key_from_seed(seed))


def legacy_match_rng(seed: int) -> random.Random:
    """The generator of format-1 records (before secret chance): verifying old records."""
    return random.Random(f"bluff-arena:{seed}")
