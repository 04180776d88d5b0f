"""Play a saved strategy table: one action per information set.

``arena exploit`` saves the best response it computes as such a table (JSON):

    {"format": 1, "game": "liars_dice", "rules": {"dice_per_player": "1", ...},
     "seats": {"0": {"<infoset key>": <action index>, ...}, "1": {...}}}

An information set's key is :func:`infoset_key` of the seat's observation, and the
action index counts in the game's ``legal_actions(observation)`` order, so the table
holds no game-specific encoding and one generic bot (``example_bots/table_bot.py``)
plays any table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from referee.analysis.best_response import infoset_key
from referee.core.catalogue import get_game

TABLE_FORMAT: Final = 1
"""Version of the table's JSON layout."""


class StrategyTableError(Exception):
    """A table that cannot be read, or an observation it has no entry for."""


@dataclass(frozen=True, slots=True)
class StrategyTable:
    """A deterministic strategy: per seat, information-set key -> action index."""

    game: str
    rules: Mapping[str, str]
    seats: Mapping[int, Mapping[str, int]]

    @classmethod
    def load(cls, path: Path) -> StrategyTable:
        """Read a table written by :meth:`dump`; :class:`StrategyTableError` if it is not one."""
        try:
            data = json.loads(path.read_text())
            if data.get("format") != TABLE_FORMAT:
                raise StrategyTableError(f"{path}: format {data.get('format')!r}, expected 1")
            return cls(
                game=str(data["game"]),
                rules={str(k): str(v) for k, v in data["rules"].items()},
                seats={int(seat): dict(table) for seat, table in data["seats"].items()},
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise StrategyTableError(f"{path}: not a strategy table: {error}") from None

    def dump(self, path: Path) -> None:
        """Write the table as JSON (keys sorted, so equal tables are equal files)."""
        data = {
            "format": TABLE_FORMAT,
            "game": self.game,
            "rules": dict(self.rules),
            "seats": {str(seat): dict(table) for seat, table in self.seats.items()},
        }
        path.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")

    def action(self, seat: int, observation: Any) -> Any:
        """The table's action for ``seat`` at ``observation``."""
        key = infoset_key(observation)
        try:
            index = self.seats[seat][key]
        except KeyError:
            raise StrategyTableError(
                f"no entry for seat {seat} at {observation!r} (key {key});"
                " was the table made for these rules?"
            ) from None
        legal = list(get_game(self.game).legal_actions(observation))
        if not 0 <= index < len(legal):
            raise StrategyTableError(f"entry {key} names action {index} of {len(legal)} legal")
        return legal[index]
