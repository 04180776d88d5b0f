"""Human-readable transcripts of match records: omniscient, or as one seat read them.

Every line's text comes from the engine (:meth:`~referee.gamekit.base.Game.describe_action`,
:meth:`~referee.gamekit.base.Game.describe_chance`): with a ``viewer`` seat, another
seat's secret (Liar's Poker discards, re-rolled positions, other cups) is left out
by the engine itself, exactly as in the replay viewer's seat view.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from enum import Enum
from typing import Any

from referee.core.catalogue import get_game
from referee.core.events import ActionEvent, Event, apply_event, describe_event
from referee.gamekit.base import Game
from referee.records.record import MatchRecord, RecordError

HIDDEN_CHANCE = "chance (hidden)"
"""The line for a chance outcome the viewing seat sees nothing of."""
OUTCOME_MARK = "      => "
"""The start of a line saying what the event above it led to (:func:`outcome_text`)."""


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
    """One line per event (and one more for what a challenge, pass or score led to),
    then faults: omniscient (chance outcomes in full), or as seat ``viewer`` read the
    match."""
    lines = [line for entry in event_entries(record, viewer) for line in entry]
    names = {seat.seat: seat.bot for seat in record.seats}
    for fault in record.faults:
        who = f"seat {fault.seat} [{names.get(fault.seat, '?')}]"
        lines.append(f"fault: {who} {fault.kind.value}: {fault.message}")
    return lines


def event_entries(record: MatchRecord, viewer: int | None = None) -> list[list[str]]:
    """Per event of ``record``: its line, then the line saying what it led to
    (:func:`outcome_text`), if anything was settled."""
    game = get_game(record.game)
    state = game.new_game(game.parse_rules(record.rules), record.num_seats)
    names = {seat.seat: seat.bot for seat in record.seats}
    entries: list[list[str]] = []
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
        entry = [f"{index:4d}  {HIDDEN_CHANCE if text is None else text}{took}"]
        after = apply_event(game, state, event)
        if isinstance(event, ActionEvent):
            if viewer is None:
                outcome = outcome_text(game, state, after, event.seat)
            else:
                seen = (game.observe(state, viewer), game.observe(after, viewer))
                outcome = outcome_text(game, *seen, event.seat)
            if outcome is not None:
                entry.append(f"{OUTCOME_MARK}{outcome}")
        entries.append(entry)
        state = after
    return entries


PRIVATE_OUTCOME = "(what this settled is not public)"
"""A public line's place for an outcome the seats read differently (a card taken
face down, known to its passer only)."""


@dataclasses.dataclass(frozen=True, slots=True)
class PublicEntry:
    """One event as someone at no seat may read it, and whether it settled a round."""

    lines: tuple[str, ...]
    settles: bool
    """Something was settled (a challenge, a reveal, a score, a card taken): the end
    of a round, for a spectator's delay."""


def public_entries(
    game: Game[Any, Any, Any, Any], rules: Any, num_seats: int, events: Sequence[Event]
) -> list[PublicEntry]:
    """``events`` as a spectator may read them: actions and chance as the engine
    describes them to a viewer who holds no seat (``viewer=num_seats``: no cup, no
    hand, only counts), and an outcome only when every seat reads it alike (else
    :data:`PRIVATE_OUTCOME`)."""
    public = num_seats
    state = game.new_game(rules, num_seats)
    entries: list[PublicEntry] = []
    for index, event in enumerate(events, start=1):
        text = event_text(game, state, event, public)
        after = apply_event(game, state, event)
        lines = [f"{index:4d}  {HIDDEN_CHANCE if text is None else text}"]
        settles = False
        if isinstance(event, ActionEvent):
            read = {
                outcome_text(game, game.observe(state, seat), game.observe(after, seat), event.seat)
                for seat in range(num_seats)
            }
            settles = read != {None}
            if settles:
                said = read.pop() if len(read) == 1 else PRIVATE_OUTCOME
                lines.append(f"{OUTCOME_MARK}{said}")
        entries.append(PublicEntry(tuple(lines), settles))
        state = after
    return entries


def seat_transcript(record: MatchRecord, seat: int, message_pages: Sequence[str]) -> list[str]:
    """The pages of ``arena replay --seat N``: the messages ``seat`` was sent
    (``message_pages``, one per message of :func:`referee.records.replay.seat_messages`, in
    order), with every event between them as that seat read it.

    The messages are the MatchStart (if it was sent), one TurnRequest before each of
    the seat's own actions, perhaps one more for the turn the match stopped on, and
    the MatchEnd; the event lines go between them in that order.
    """
    if not 0 <= seat < record.num_seats:
        raise RecordError(f"seat {seat} is not in this {record.num_seats}-seat match")
    info = record.seats[seat]
    entries = event_entries(record, viewer=seat)
    pages = list(message_pages)
    out: list[str] = []
    taken = 0
    if info.start_sent and pages:
        out.append(pages[0])
        taken = 1
    for recorded, entry in zip(record.events, entries, strict=True):
        if info.ready and recorded.seat == seat and taken < len(pages):
            out.append(pages[taken])
            taken += 1
        out.append("\n".join(entry))
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


# ---------------------------------------------------------------------------
# What a challenge, a pass or a score led to


def outcome_text(game: Game[Any, Any, Any, Any], before: Any, after: Any, seat: int) -> str | None:
    """What an action of ``seat`` led to: who challenged, what was revealed, who lost
    a die, a chip or a penalty, who took which card and what it was, what a score was
    worth. None when nothing was settled (a bid, a pass, a re-roll).

    ``before`` and ``after`` are the engine states around the action (the omniscient
    view) or one seat's observations of them (that seat's view: it then says no more
    than the observations did, e.g. a believed Cockroach Poker card stays unnamed).
    The text is the game's own (:meth:`referee.gamekit.base.Game.describe_outcome`,
    read from its record of finished rounds: Liar's Dice ``history``, Liar's Poker
    ``results``, Liar's Poker Dice ``rounds``, Cockroach Poker ``history``, Dice
    Poker ``cards``); a game that does not override it gets no outcome lines.
    """
    return game.describe_outcome(before, after, seat)


# ---------------------------------------------------------------------------
# What one seat was sent, readably


_PUBLIC_RECORDS = frozenset(
    {"rules", "seat", "num_seats", "history", "results", "rounds", "roll_offs", "roll_off"}
)
"""Observation fields left out of a page: the rules and seats (in the header) and the
records of finished rounds (each already told as an outcome line of the transcript)."""
_LINE_LIMIT = 240


def message_pages(record: MatchRecord, exchange: Sequence[tuple[Any, Any]]) -> list[str]:
    """One readable page per message a seat was sent (``exchange``: the messages of
    :func:`referee.records.replay.seat_exchange` with the observation each carried)."""
    game = get_game(record.game)
    pages = []
    for number, (message, view) in enumerate(exchange, start=1):
        kind = message.WhichOneof("kind")
        if kind == "start":
            start = message.start
            head = f"MatchStart: you are seat {start.seat} of {start.num_seats}"
            body = [f"  match {start.match_id}, {start.game}, protocol {start.protocol_version}"]
        elif kind == "turn":
            turn = message.turn
            head = f"your turn (turn {turn.turn}, time limit {turn.time_limit_ms} ms)"
            body = observation_lines(game, view)
        else:
            results = ", ".join(
                f"seat {r.seat} place {r.place} score {r.score:g}"
                + (f" fault {_enum_name(r, 'fault')}" if r.fault else "")
                for r in message.end.results
            )
            head = f"MatchEnd ({record.reason}): {results}"
            body = ["  final observation:", *observation_lines(game, view)]
        pages.append("\n".join([f"--- message {number}: {head} ---", *body]))
    return pages


def _enum_name(message: Any, name: str) -> str:
    field = message.DESCRIPTOR.fields_by_name[name]
    value = field.enum_type.values_by_number.get(getattr(message, name))
    return value.name.lower().removeprefix("fault_") if value is not None else "?"


def observation_lines(game: Game[Any, Any, Any, Any], view: Any) -> list[str]:
    """An engine observation as ``  field: value`` lines (see :data:`_PUBLIC_RECORDS`)."""
    if view is None:
        return []
    if not dataclasses.is_dataclass(view):
        return [f"  {_value_text(view)}"]
    lines = []
    for field in dataclasses.fields(view):
        if field.name in _PUBLIC_RECORDS:
            continue
        text = f"  {field.name.replace('_', ' ')}: {_value_text(getattr(view, field.name))}"
        lines.append(text if len(text) <= _LINE_LIMIT else text[: _LINE_LIMIT - 1] + "…")
    return lines


def _value_text(value: Any) -> str:
    """A compact text of an observation value: dice as ``1 4 5``, enums by name,
    cards and hands by their own text, other records as ``name=value``."""
    if value is None:
        return "-"
    if isinstance(value, Enum):
        label = getattr(value, "label", None)
        return str(label if isinstance(label, str) else value.value)
    if isinstance(value, bool | int | float | str):
        return str(value)
    if isinstance(value, tuple | list):
        if not value:
            return "-"
        texts = [_value_text(v) for v in value]
        return ("; " if any(" " in text for text in texts) else " ").join(texts)
    if dataclasses.is_dataclass(value) and "__str__" not in type(value).__dict__:
        parts = (
            f"{f.name}={_value_text(getattr(value, f.name))}" for f in dataclasses.fields(value)
        )
        return "(" + ", ".join(parts) + ")"
    return str(value)
