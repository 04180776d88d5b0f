"""Cockroach Poker's luck baseline (:mod:`referee.gamekit.luck_baseline`): a constant, no
correction. The game's only chance event is the first deal, which a duplicate pair (the
same deal played from both seats) already cancels; nothing is fitted, so there is no
``baseline.json`` here and the luck term's coefficient is 1.
"""

from __future__ import annotations

from referee.gamekit.luck_baseline import ConstantBaseline

BASELINE = ConstantBaseline()
"""The game's baseline (its registration's ``baseline``)."""
