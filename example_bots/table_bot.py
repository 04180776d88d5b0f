"""Play a saved strategy table (``arena exploit --save``): any game, any seat.

    python -m example_bots.table_bot --table br.json

The table names its game; the bot plays that game, looking every observation up
(:mod:`sdk.strategy_table`). An observation the table lacks is the table's fault,
not a reason to guess: the bot raises, and the referee records its fault.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sdk import Bot, run
from sdk.strategy_table import StrategyTable, StrategyTableError


def table_bot(table: StrategyTable) -> type[Bot[Any, Any]]:
    """A bot class for ``table``'s game that plays ``table``."""

    class TableBot(Bot[Any, Any]):
        game = table.game
        name = "table"

        def act(self, observation: Any) -> Any:
            assert self.match is not None
            return table.action(self.match.seat, observation)

    return TableBot


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Play a strategy table.", add_help=False)
    parser.add_argument("--table", type=Path, required=True, help="the table (JSON)")
    known, rest = parser.parse_known_args(argv)
    try:
        table = StrategyTable.load(known.table)
    except StrategyTableError as error:
        sys.exit(f"error: {error}")
    run(table_bot(table), rest)


if __name__ == "__main__":
    main()
