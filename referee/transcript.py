"""Human-readable, omniscient transcripts of match records."""

from __future__ import annotations

from referee.core.catalogue import get_game
from referee.core.events import ActionEvent, apply_event, describe_event
from referee.record import MatchRecord


def transcript_lines(record: MatchRecord) -> list[str]:
    """One line per event (chance outcomes shown in full), then faults."""
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
        lines.append(f"{index:4d}  {describe_event(game, state, event, who=who)}{took}")
        state = apply_event(game, state, event)
    for fault in record.faults:
        who = f"seat {fault.seat} [{names.get(fault.seat, '?')}]"
        lines.append(f"fault: {who} {fault.kind.value}: {fault.message}")
    return lines


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
