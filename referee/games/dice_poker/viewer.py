"""Every number the viewer draws of a Dice Poker table, computed by the engine.

Registered as the game's ``ViewerSpec.facts`` (the page carries it as
``step.facts[seat]``, a browser game as ``board.facts``) and ``ViewerSpec.public``
(the table as a spectator may see it). ``viewer.js`` in this folder draws these
numbers and adds none of its own: a total the page summed itself left the upper
bonus out (issue 43).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from referee.games.dice_poker.engine import (
    DICE_POKER,
    EXTRA_POKER_BONUS,
    MAX_ROLLS,
    NUM_TURNS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    Line,
    Observation,
    Phase,
    Rules,
    Score,
    Scorecard,
    State,
    is_joker,
    score_options,
)


def _card(card: Scorecard, inclusive: bool) -> dict[str, Any]:
    return {
        "lines": [card.get(line) for line in Line],
        "upper": card.upper_total,
        "upper_bonus": card.upper_bonus(inclusive),
        "extra_pokers": card.extra_pokers,
        "extra_bonus": EXTRA_POKER_BONUS * card.extra_pokers,
        "total": card.total(inclusive),
    }


def _state(observation: Observation) -> State:
    """The engine state an observation shows (everything in Dice Poker is public)."""
    return State(
        rules=Rules(upper_bonus_inclusive=observation.upper_bonus_inclusive),
        phase=observation.phase,
        cards=observation.cards,
        current=observation.current,
        turn=observation.turn,
        dice=observation.dice,
        rolls=observation.rolls,
        pending=observation.reroll_positions,
    )


def score_choices(observation: Observation) -> dict[str, dict[str, int]]:
    """Per line the dice may be written into now (by line name): the points the line
    gets and the total the seat to move would have after it, the upper bonus and an
    extra-Poker bonus included (the engine's own move applied). Empty unless a seat
    is choosing."""
    seat = observation.current
    if observation.phase is not Phase.CHOOSE or seat is None or not observation.dice:
        return {}
    state = _state(observation)
    inclusive = observation.upper_bonus_inclusive
    before = observation.cards[seat].total(inclusive)
    out = {}
    for line, points in score_options(observation.cards[seat], observation.dice).items():
        after = DICE_POKER.transition(state, seat, Score(line)).cards[seat].total(inclusive)
        out[line.name] = {"points": points, "total": after, "gain": after - before}
    return out


def board_facts(observation: Observation) -> dict[str, Any]:
    """Every number the table and the scorecards show: per seat each line's points
    (in card order, :class:`Line`; ``None``: still open), the upper lines' sum, the
    upper bonus, the extra-Poker bonuses and the total (the engine's
    :meth:`Scorecard.total`, which the result uses); the round and the rolls; and
    what each line the dice may go into would score (:func:`score_choices`)."""
    inclusive = observation.upper_bonus_inclusive
    seat = observation.current
    joker = (
        seat is not None
        and observation.phase is Phase.CHOOSE
        and is_joker(observation.cards[seat], observation.dice)
    )
    return {
        "cards": [_card(card, inclusive) for card in observation.cards],
        "choices": score_choices(observation),
        "joker": joker,
        "turn": observation.turn,
        "turns": NUM_TURNS,
        "rolls": observation.rolls,
        "max_rolls": MAX_ROLLS,
        "upper_bonus": UPPER_BONUS,
        "upper_threshold": UPPER_BONUS_THRESHOLD,
        "upper_inclusive": inclusive,
    }


def public_view(observation: Observation) -> Observation:
    """The table as someone at no seat sees it: all of it (nothing is hidden), told
    as seat 0's observation so that it is the same whichever seat it came from."""
    return dataclasses.replace(observation, seat=0)
