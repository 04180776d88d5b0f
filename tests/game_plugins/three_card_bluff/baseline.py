"""Three-Card Bluff's luck baseline: a game outside the platform brings its own, the way
a built-in game does (its registration's ``baseline``; :mod:`referee.gamekit.luck_baseline`).

The value of a seat's card is a table over (seat, card) in ``baseline.json`` beside this
module, set by hand for the tests (a real game fits its own); the expectation is exact,
each card being equally likely.
"""

from __future__ import annotations

import math
from typing import Any

from referee.gamekit.base import ChanceOutcome, ChanceRequest
from referee.gamekit.luck_baseline import Key, Sampler, TableBaseline
from tests.game_plugins.three_card_bluff.engine import RANKS


class ThreeCardBluffBaseline(TableBaseline):
    game = "three_card_bluff"
    data = f"{__package__}:baseline.json"

    def key(self, state: Any, outcome: ChanceOutcome, seat: int) -> Key | None:
        return (seat, outcome[seat])

    def expected(self, state: Any, request: ChanceRequest, seat: int, sample: Sampler) -> float:
        return math.fsum(self.lookup((seat, card)) for card in RANKS) / len(RANKS)


BASELINE = ThreeCardBluffBaseline()
"""The game's baseline (its registration's ``baseline``)."""
