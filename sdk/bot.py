"""The class a bot author subclasses."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from referee.core.mixed_move import Mixed as Mixed

ObsT = TypeVar("ObsT")
ActionT = TypeVar("ActionT")


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What the referee says when a match starts. Nothing in it is private."""

    match_id: str
    game: str
    rules: Any
    """The game's typed rules (e.g. ``referee.games.liars_dice.engine.Rules``)."""
    seat: int
    num_seats: int
    raw_rules: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    place: int
    score: float
    fault: str | None
    """Fault name (``"timeout"``, ``"crash"``, ...) or ``None``."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """What the referee says when the match ends."""

    reason: str
    """``"completed"``, ``"forfeit"`` or ``"aborted"``."""
    results: tuple[SeatResult, ...]
    observation: Any
    """This seat's final observation: what the rules reveal at the end."""


class Bot(ABC, Generic[ObsT, ActionT]):
    """Subclass this, set ``game``, implement :meth:`act`, then call ``sdk.run``.

    The SDK makes one instance per match (so instance attributes are per-match
    state) and calls :meth:`start`, then :meth:`act` once per turn, then :meth:`end`.
    ``self.rng`` is a generator seeded from the match id and seat, so a bot that
    draws only from it plays the same match the same way every time.
    """

    game: ClassVar[str]
    """Registry name of the game this bot plays, e.g. ``"liars_dice"``."""
    name: ClassVar[str | None] = None
    """Display name; defaults to the class name."""

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.match: MatchInfo | None = None

    def start(self, match: MatchInfo) -> None:
        """Called once when the match starts. Override to prepare; call super()."""
        self.match = match
        self.rng = random.Random(f"{match.match_id}:{match.seat}")

    @abstractmethod
    def act(self, observation: ObsT) -> ActionT | Mixed:
        """Return this seat's action for the observation (its turn), or a mixed move:
        ``Mixed({action: probability, ...})`` over legal actions, summing to 1; the
        referee then draws the action played from it with its own chance (the
        probabilities are never shown to another seat). A bad mixed move (a negative
        probability, a bad sum, an illegal action with weight) is the fault
        ``bad_probabilities``."""

    def policy(self, observation: ObsT) -> Mapping[ActionT, float] | None:
        """Optional: this seat's action probabilities at ``observation``, or ``None``.

        ``arena exploit`` asks a bot loaded in-process (``--in-process``), or a bot
        process asked with ``--ask-policy`` (``TurnRequest.want_policy``, answered in
        ``TurnResponse.policy``; never in a match), for its exact policy here instead
        of sampling ``act``; probabilities of the legal actions, summing to 1 (missing
        actions count 0). ``None`` (the default) means "not offered": the bot is then
        sampled through ``act``. What it states is self-reported, and reported so.
        """
        return None

    def end(self, result: MatchResult) -> None:
        """Called once when the match ends. Override to learn from it."""
