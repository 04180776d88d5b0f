"""A league match's luck, computed once: when its result is stored.

Both seats' luck in a finished two-seat match (:func:`referee.analysis.luck.luck`: the
chance terms under the game's baseline, and the action terms of every turn a seat
answered with a mixed move, whose probabilities the league keeps for the seat's author,
:mod:`league.store.mixed_moves`) is kept on the match's seat rows (``match_seat.luck``,
migration 0011). :func:`league.store.leagues.record_result` stores it with the result;
the standings' luck column and ``arena sprt --luck-adjusted``
(:mod:`league.store.luck_standings`) read it, so showing them costs a query, not a
replay of every match. A match stored before it is computed there once, on first read.

The salt of sampled expectations is the match's id, as before. The value is the one of
the baseline (and its fitted coefficient) in use when the result was stored: refitting a
game's baseline changes the luck of matches stored afterwards, not the stored ones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from league.store.models import SeatRow
from referee.analysis.luck import LuckError, luck
from referee.core.catalogue import get_game
from referee.core.events import ActionEvent, Event
from referee.core.mixed import MixedAnswer
from referee.gamekit.base import GameError
from referee.records.record import MatchRecord, RecordError

ERROR_CHARS = 500
"""Most characters of :attr:`MatchLuck.error` kept (``match_seat.luck_error``)."""


@dataclass(frozen=True, slots=True)
class MatchLuck:
    """Both seats' luck in a two-seat match, or why it cannot be computed."""

    seats: tuple[float, float] | None
    """Seat 0's and seat 1's luck; None: not computable (:attr:`error`)."""
    error: str = ""


def policy_events(
    record: MatchRecord, mixed: Mapping[int, Sequence[MixedAnswer]] | None = None
) -> list[Event]:
    """The record's events as engine values, each action the referee drew from a seat's
    mixed move carrying that move's probabilities (``ActionEvent.policy``: luck's action
    terms). An action gets them when its seat has an answer for its turn in ``mixed``
    and the record commits to a mixed move there; every other action has none."""
    by_turn = {
        (seat, answer.turn): answer.distribution
        for seat, answers in (mixed or {}).items()
        for answer in answers
    }
    events = record.engine_events()
    if not by_turn:
        return events
    out: list[Event] = []
    for recorded, event in zip(record.events, events, strict=True):
        if isinstance(event, ActionEvent) and recorded.mixed is not None:
            policy = by_turn.get((event.seat, recorded.turn or 0))
            if policy is not None:
                event = ActionEvent(event.seat, event.action, policy=policy)
        out.append(event)
    return out


def match_luck(
    record: MatchRecord, mixed: Mapping[int, Sequence[MixedAnswer]] | None = None
) -> MatchLuck | None:
    """Both seats' luck in ``record`` with the seats' mixed moves ``mixed`` (salt: the
    match's id); None for a match that has none (another seat count, or aborted)."""
    if record.num_seats != 2 or record.reason == "aborted":
        return None
    try:
        rules = get_game(record.game).parse_rules(record.rules)
        first, second = luck(
            record.game, rules, 2, policy_events(record, mixed), salt=record.match_id.encode()
        )
    except (LuckError, GameError, RecordError) as error:
        return MatchLuck(None, str(error)[:ERROR_CHARS] or type(error).__name__)
    if not (math.isfinite(first) and math.isfinite(second)):
        return MatchLuck(None, f"{record.game}: the luck is not finite ({first}, {second})")
    return MatchLuck((first, second))


def keep_luck(seats: Sequence[SeatRow], found: MatchLuck) -> None:
    """Set ``found`` on the match's seat rows (the caller adds and commits them)."""
    for seat in seats:
        if found.seats is None or seat.seat not in (0, 1):
            seat.luck, seat.luck_error = None, found.error[:ERROR_CHARS] or "no luck"
        else:
            seat.luck, seat.luck_error = found.seats[seat.seat], ""
