"""The example bots the benchmarks play, found through the game catalogue's rosters
(their classes: ``league.execution.counters.bot_class``)."""

from __future__ import annotations

from referee.core.catalogue import Roster, get_entry


class NoRosterError(ValueError):
    """The game has no example bots in the catalogue (or not the kind asked for)."""


def roster(game: str) -> Roster:
    """The catalogue roster of ``game``; :class:`NoRosterError` if it has none."""
    found = get_entry(game).roster
    if found is None:
        raise NoRosterError(f"game {game!r} has no example bots")
    return found
