"""The league's base error: every league error names the bad input in its message."""

from __future__ import annotations


class LeagueError(Exception):
    """Base of the league errors; messages name the bad input."""
