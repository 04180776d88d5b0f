"""Forging match records in tests: rewrite events and recompute every digest and hash.

What a dishonest operator with the record API could do: the result passes
:func:`referee.replay.verify` unless the verifier can re-draw the chance outcomes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from referee.games import get_game
from referee.games.base import GameError
from referee.record import MatchRecord, RecordedEvent, observation_digest, state_digest
from referee.wire import get_codec


def reforged(record: MatchRecord, events: Sequence[RecordedEvent]) -> MatchRecord:
    """``record`` with ``events``, their state and observation digests recomputed, sealed."""
    game = get_game(record.game)
    codec = get_codec(record.game)
    state = game.new_game(game.parse_rules(record.rules), record.num_seats)
    out = []
    for event in events:
        if event.seat is None:
            state = game.apply_chance(state, tuple(event.outcome or ()))
            out.append(replace(event, state=state_digest(state)))
        else:
            obs = observation_digest(codec.observation_bytes(game.observe(state, event.seat)))
            state = game.apply_action(state, event.seat, codec.action_from_json(event.action or {}))
            out.append(replace(event, obs=obs, state=state_digest(state)))
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
