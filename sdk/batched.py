"""Batched engines for training: N games stepped at once in numpy (the ``rl`` extra).

The SDK's view of :mod:`referee.batched` (``docs/training.md`` describes the API).
Importing it loads numpy; nothing else in the SDK imports it, so bots start without.

Liar's Dice
    :class:`LiarsDiceBatch` (rules, seats) with ``reset(seeds)``, ``step(state,
    actions)``, ``observe(state, seat)``, ``random_actions(state, rng)``;
    :class:`BatchState` (``current_player``, ``legal_action_mask``, ``rewards``,
    ``terminated``, ...); :class:`ObsLayout`; :func:`make`;
    :class:`UnsupportedRulesError` for a rule option it does not play.
"""

from __future__ import annotations

from referee.batched.liars_dice import (
    BatchState,
    LiarsDiceBatch,
    ObsLayout,
    UnsupportedRulesError,
    make,
)

__all__ = ["BatchState", "LiarsDiceBatch", "ObsLayout", "UnsupportedRulesError", "make"]
