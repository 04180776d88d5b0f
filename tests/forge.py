"""Forging match records in tests: rewrite events and recompute every digest and hash.

What a dishonest operator with the record API could do: the result passes
:func:`referee.replay.verify` unless the verifier can re-draw the chance outcomes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from referee.games.base import GameError
from referee.games.events import ActionEvent
from referee.record import MatchRecord, RecordedEvent
from referee.replay import record_driver
from referee.wire import get_codec


def reforged(record: MatchRecord, events: Sequence[RecordedEvent]) -> MatchRecord:
    """``record`` with ``events``, their state and observation digests recomputed, sealed."""
    codec = get_codec(record.game)
    driver = record_driver(record, digests=True)
    out = []
    for event in events:
        if event.seat is None:
            out.append(replace(event, state=driver.apply_chance(tuple(event.outcome or ()))))
        else:
            action = codec.action_from_json(event.action or {})
            decision = driver.decision_for(ActionEvent(event.seat, action))
            state = driver.act(decision, action)
            out.append(replace(event, obs=decision.digest, state=state))
    return replace(record, events=tuple(out)).sealed()


def swap_two_dice(record: MatchRecord) -> tuple[MatchRecord, int]:
    """A consistent forgery: the first two dice of some chance event swapped (both are
    seat 0's, so the game runs the same way). Returns it and the event number (1-based)."""
    for index, event in enumerate(record.events):
        outcome = list(event.outcome or ())
        if event.seat is not None or len(outcome) < 2 or outcome[0] == outcome[1]:
            continue
        outcome[0], outcome[1] = outcome[1], outcome[0]
        events = list(record.events)
        events[index] = replace(event, outcome=tuple(outcome))
        try:
            return reforged(record, events), index + 1
        except GameError:
            continue
    raise AssertionError(f"no chance event of {record.match_id} can be forged by a swap")
