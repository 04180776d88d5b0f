"""The random bots' move: every legal action equally likely, as a mixed move.

A mixed move lets the referee draw the action (and lets luck adjustment and
``arena exploit`` read the probabilities). Where a seat has more than
:data:`MIXED_LIMIT` legal actions (Liar's Poker's announcements number in the
thousands), listing them all would cost more on the wire and in the referee than
the draw is worth: the bot then draws one itself, with the same probabilities.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final, TypeVar

from sdk import Mixed

ActionT = TypeVar("ActionT")

MIXED_LIMIT: Final = 256
"""The most legal actions a random bot lists in a mixed move."""


def uniform(actions: Sequence[ActionT], rng: random.Random) -> ActionT | Mixed:
    """Each of ``actions`` with probability ``1 / len(actions)``: a mixed move, or one
    action drawn with ``rng`` when there are more than :data:`MIXED_LIMIT`."""
    if len(actions) > MIXED_LIMIT:
        return rng.choice(actions)
    return Mixed(dict.fromkeys(actions, 1 / len(actions)))
