"""Human-readable transcripts of match records: omniscient, or as one seat read them.

Every line's text comes from the engine (:meth:`~referee.games.base.Game.describe_action`,
:meth:`~referee.games.base.Game.describe_chance`): with a ``viewer`` seat, another
seat's secret (Liar's Poker discards, re-rolled positions, other cups) is left out
by the engine itself, exactly as in the replay viewer's seat view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.core.catalogue import get_game
from referee.core.events import ActionEvent, Event, apply_event, describe_event
from referee.games.base import Game
from referee.record import MatchRecord, RecordError

HIDDEN_CHANCE = "chance (hidden)"
"""The line for a chance outcome the viewing seat sees nothing of."""


def event_text(
    game: Game[Any, Any, Any, Any],
    before: Any,
    event: Event,
    viewer: int | None = None,
    *,
    who: str | None = None,
) -> str | None:
    """One event as seat ``viewer`` may read it: ``seat N: <action>`` or ``chance: <outcome>``.

    ``viewer=None`` is the omniscient line (:func:`~referee.games.events.describe_event`);
    ``None`` is returned for a chance outcome the seat sees nothing of. ``who``
    replaces ``seat N``.
    """
    if viewer is None:
        return describe_event(game, before, event, who=who)
    if isinstance(event, ActionEvent):
        text = game.describe_action(event.action, viewer=viewer, actor=event.seat)
        return f"{who or f'seat {event.seat}'}: {text}"
    seen = game.describe_chance(before, event.outcome, viewer=viewer)
    return None if seen is None else f"chance: {seen}"


def transcript_lines(record: MatchRecord, viewer: int | None = None) -> list[str]:
    """One line per event, then faults: omniscient (chance outcomes in full), or as
    seat ``viewer`` read the match."""
    game = get_game(record.game)
    state = game.new_game(game.parse_rules(record.rules), record.num_seats)
    names = {seat.seat: seat.bot for seat in record.seats}
    lines: list[str] = []
    for index, (recorded, event) in enumerate(
        zip(record.events, record.engine_events(), strict=True), start=1
    ):
        who = None
        took = ""
        if isinstance(event, ActionEvent):
            who = f"seat {event.seat} [{names.get(event.seat, '?')}]"
            if recorded.elapsed_ms is not None:
                took = f"  ({recorded.elapsed_ms:.1f} ms)"
        text = event_text(game, state, event, viewer, who=who)
        lines.append(f"{index:4d}  {HIDDEN_CHANCE if text is None else text}{took}")
        state = apply_event(game, state, event)
    for fault in record.faults:
        who = f"seat {fault.seat} [{names.get(fault.seat, '?')}]"
        lines.append(f"fault: {who} {fault.kind.value}: {fault.message}")
    return lines


def seat_transcript(record: MatchRecord, seat: int, message_pages: Sequence[str]) -> list[str]:
    """The pages of ``arena replay --seat N``: the messages ``seat`` was sent
    (``message_pages``, one per message of :func:`referee.replay.seat_messages`, in
    order), with every event between them as that seat read it.

    The messages are the MatchStart (if it was sent), one TurnRequest before each of
    the seat's own actions, perhaps one more for the turn the match stopped on, and
    the MatchEnd; the event lines go between them in that order.
    """
    if not 0 <= seat < record.num_seats:
        raise RecordError(f"seat {seat} is not in this {record.num_seats}-seat match")
    info = record.seats[seat]
    lines = transcript_lines(record, viewer=seat)[: len(record.events)]
    pages = list(message_pages)
    out: list[str] = []
    taken = 0
    if info.start_sent and pages:
        out.append(pages[0])
        taken = 1
    for recorded, line in zip(record.events, lines, strict=True):
        if info.ready and recorded.seat == seat and taken < len(pages):
            out.append(pages[taken])
            taken += 1
        out.append(line)
    out.extend(pages[taken:])
    return out


def result_lines(record: MatchRecord) -> list[str]:
    """The result table: place, seat, bot, score, fault; best first."""
    order = sorted(range(record.num_seats), key=lambda s: (record.places[s], s))
    lines = [f"{'place':>5}  {'seat':>4}  {'bot':<28} {'score':>8}  fault"]
    for seat in order:
        fault = record.fault_of(seat)
        lines.append(
            f"{record.places[seat]:>5}  {seat:>4}  {record.seats[seat].bot:<28}"
            f" {record.scores[seat]:>8g}  {fault.kind.value if fault else '-'}"
        )
    if record.reason == "aborted":
        lines.append(
            "aborted by a referee error (no seat at fault; the places above do not count):"
            f" {record.meta.get('error', 'no error recorded')}"
        )
    return lines
