"""The errors the game engines raise (re-exported by :mod:`referee.gamekit.base`).

A module of their own, with nothing else in it: the CLI catches them in every command,
and importing the engines' base classes (their dataclasses) costs every ``arena`` start
milliseconds it does not need for ``--help``.
"""

from __future__ import annotations

__all__ = [
    "ChanceError",
    "GameError",
    "IllegalActionError",
    "MalformedActionError",
    "NotAMove",
    "RulesError",
]


class GameError(Exception):
    """Base of every error raised by the game engines."""


class RulesError(GameError):
    """A rule option or a seat count that the game does not accept."""


class MalformedActionError(GameError):
    """Not an action of this game at all (wrong type, value out of range)."""


class IllegalActionError(GameError):
    """A well-formed action that the rules do not allow at this moment."""


class ChanceError(GameError):
    """A chance outcome that does not fit the request (or no chance is due)."""


class NotAMove(GameError, ValueError):
    """Text a person typed that is not a legal move now (:meth:`Game.parse_move
    <referee.gamekit.base.Game.parse_move>`). The message says what was read (when it
    was a move at all) and what is expected instead: it is shown to the person as it
    is."""
