"""Tampering with any field of a real record is caught even with the chain re-sealed.

The hash chain only proves that nobody changed a record after it was sealed;
whoever writes a record can seal anything. So every case below changes one field
of a genuine record (played over gRPC by real bot processes), recomputes the
whole chain with ``sealed()`` so the chain is intact, and requires ``verify`` to
name the event or field that no longer makes sense.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
import trio

from referee.core.faults import FaultKind
from referee.records.record import MatchRecord, RecordedEvent, chain_problems
from referee.records.replay import verify
from referee.runtime.match import Limits, MatchSpec, run_match
from referee.runtime.process import BotSpec
from tests.e2e.conftest import misbehaving, module_bot

pytestmark = pytest.mark.e2e


def _play(bots: tuple[BotSpec, ...], seed: int, **rules: str) -> MatchRecord:
    spec = MatchSpec("liars_dice", bots, seed=seed, rules=rules)
    return trio.run(run_match, spec, Limits(startup_s=15.0))


@pytest.fixture(scope="module")
def records() -> dict[str, MatchRecord]:
    random_bot = module_bot("example_bots.liars_dice_random")
    never_starts = BotSpec(name="no-start", command=(sys.executable, "-c", "raise SystemExit(1)"))
    found = {
        "completed": _play((random_bot, module_bot("example_bots.liars_dice_probability")), 8),
        "forfeit": _play((random_bot, misbehaving("illegal", after=2)), 4, roll_off="false"),
        "startup": _play((random_bot, never_starts), 5),
    }
    assert found["completed"].reason == "completed"
    assert all(seat.deltas for seat in found["completed"].seats)  # SDK bots ask for deltas
    assert [f.kind for f in found["forfeit"].faults] == [FaultKind.ILLEGAL_ACTION]
    assert [f.kind for f in found["startup"].faults] == [FaultKind.STARTUP]
    for record in found.values():
        assert verify(record) == [], record
    return found


def _actions(record: MatchRecord) -> list[int]:
    return [i for i, e in enumerate(record.events) if e.seat is not None]


def _chances(record: MatchRecord) -> list[int]:
    return [i for i, e in enumerate(record.events) if e.seat is None]


def _event(record: MatchRecord, index: int, **changes: Any) -> MatchRecord:
    events = list(record.events)
    events[index] = replace(events[index], **changes)
    return replace(record, events=tuple(events))


def _action(record: MatchRecord, nth: int = 1, **changes: Any) -> MatchRecord:
    return _event(record, _actions(record)[nth], **changes)


def _chance(record: MatchRecord, nth: int = 1, **changes: Any) -> MatchRecord:
    return _event(record, _chances(record)[nth], **changes)


def _where_action(record: MatchRecord, nth: int = 1) -> str:
    return f"event {_actions(record)[nth] + 1}:"


def _where_chance(record: MatchRecord, nth: int = 1) -> str:
    return f"event {_chances(record)[nth] + 1}:"


def _other_seat(event: RecordedEvent) -> int:
    assert event.seat is not None
    return 1 - event.seat


def _swap_at(record: MatchRecord) -> MatchRecord:
    i = _actions(record)[1]
    earlier = record.events[i - 1].at_ms
    assert earlier is not None
    return _event(record, i, at_ms=earlier - 1.0)


def _fault(record: MatchRecord, **changes: Any) -> MatchRecord:
    return replace(record, faults=(replace(record.faults[0], **changes),))


def _seat(record: MatchRecord, index: int, **changes: Any) -> MatchRecord:
    seats = list(record.seats)
    seats[index] = replace(seats[index], **changes)
    return replace(record, seats=tuple(seats))


Tamper = Callable[[MatchRecord], MatchRecord]
Where = Callable[[MatchRecord], str]

# (id, which record, tamper, what the first problem must name)
CASES: list[tuple[str, str, Tamper, Where | str]] = [
    # -- actions ---------------------------------------------------------------
    ("obs digest", "completed", lambda r: _action(r, obs="0123456789abcdef"), _where_action),
    ("obs not a digest", "completed", lambda r: _action(r, obs="nope"), _where_action),
    ("obs missing", "completed", lambda r: _action(r, obs=None), _where_action),
    (
        "turn number",
        "completed",
        lambda r: _action(r, turn=(r.events[_actions(r)[1]].turn or 0) + 1),
        _where_action,
    ),
    ("turn not an int", "completed", lambda r: _action(r, turn="2"), _where_action),
    (
        "acting seat",
        "completed",
        lambda r: _action(r, seat=_other_seat(r.events[_actions(r)[1]])),
        _where_action,
    ),
    ("seat out of range", "completed", lambda r: _action(r, seat=7), _where_action),
    ("elapsed negative", "completed", lambda r: _action(r, elapsed_ms=-1.0), _where_action),
    ("elapsed not a number", "completed", lambda r: _action(r, elapsed_ms="3"), _where_action),
    ("elapsed missing", "completed", lambda r: _action(r, elapsed_ms=None), _where_action),
    (
        "elapsed longer than the gap",
        "completed",
        lambda r: _action(r, elapsed_ms=10_000_000.0),
        _where_action,
    ),
    ("at not monotonic", "completed", _swap_at, _where_action),
    ("at not a number", "completed", lambda r: _action(r, at_ms="12.5"), _where_action),
    ("at missing", "completed", lambda r: _action(r, at_ms=None), _where_action),
    ("at infinite", "completed", lambda r: _action(r, at_ms=float("inf")), _where_action),
    ("action with an outcome", "completed", lambda r: _action(r, outcome=(1, 2)), _where_action),
    ("action missing", "completed", lambda r: _action(r, action=None), _where_action),
    ("state digest", "completed", lambda r: _action(r, state="0123456789abcdef"), _where_action),
    # -- chance events ------------------------------------------------------------
    ("chance with a turn", "completed", lambda r: _chance(r, turn=1), _where_chance),
    (
        "chance with an obs",
        "completed",
        lambda r: _chance(r, obs="0123456789abcdef"),
        _where_chance,
    ),
    ("chance with elapsed", "completed", lambda r: _chance(r, elapsed_ms=1.0), _where_chance),
    (
        "chance with an action",
        "completed",
        lambda r: _chance(r, action={"liars_dice": {}}),
        _where_chance,
    ),
    ("chance at missing", "completed", lambda r: _chance(r, at_ms=None), _where_chance),
    (
        "chance state digest",
        "completed",
        lambda r: _chance(r, state="fedcba9876543210"),
        _where_chance,
    ),
    # -- header ----------------------------------------------------------------------
    ("protocol version", "completed", lambda r: replace(r, protocol_version=9), "protocol_version"),
    (
        "deltas flag dropped",
        "completed",
        lambda r: _seat(r, 0, deltas=False),
        "the observation seat 0 was sent differs",
    ),
    ("deltas in format 2", "completed", lambda r: replace(r, format=2), "format 2"),
    ("deltas with protocol 1", "completed", lambda r: replace(r, protocol_version=1), "protocol 1"),
    # -- protocol 3: seat protocols and nonces ------------------------------------------
    ("seat protocol above the record's", "completed", lambda r: _seat(r, 0, protocol=5), "seat 0"),
    ("seat protocol in format 3", "completed", lambda r: replace(r, format=3), "format 3"),
    ("nonces dropped", "completed", lambda r: replace(r, nonces=()), "has no nonce"),
    (
        "a nonce too many",
        "completed",
        lambda r: replace(r, nonces=(*r.nonces, "x", "y")),
        "nonces for",
    ),
    (
        "a nonce that is not a token",
        "completed",
        lambda r: replace(r, nonces=("a b",) * len(r.nonces)),
        "URL-safe",
    ),
    (
        "protocol 3 seat marked protocol 2",
        "completed",
        lambda r: _seat(r, 1, protocol=2),  # seat 1 answers with one action
        "has a nonce, but seat 1 spoke protocol 2",
    ),
    # -- protocol 4: mixed moves (seat 0, the random bot, answers mixed) ----------------
    (
        "mixed moves of a seat marked protocol 3",
        "completed",
        lambda r: _seat(r, 0, protocol=3),
        "a seat of protocol 4",
    ),
    (
        "a mixed commitment that is not 64 hex digits",
        "completed",
        lambda r: _event(r, next(i for i, e in enumerate(r.events) if e.mixed), mixed="ab"),
        "is not a commitment",
    ),
    (
        "a mixed commitment in format 5",
        "completed",
        lambda r: replace(r, format=5),
        "format 6",
    ),
    (
        "bot_match_id in format 3",
        "startup",
        lambda r: replace(r, format=3, seats=tuple(replace(i, protocol=0) for i in r.seats)),
        "bot_match_id",
    ),
    ("num_seats vs seats", "completed", lambda r: replace(r, num_seats=3), "header:"),
    ("seats list shorter", "completed", lambda r: replace(r, seats=r.seats[:1]), "num_seats"),
    ("seat index in seats", "completed", lambda r: _seat(r, 1, seat=0), "seats[1]"),
    ("ready without MatchStart", "completed", lambda r: _seat(r, 1, start_sent=False), "seat 1"),
    ("not ready without a fault", "completed", lambda r: _seat(r, 1, ready=False), "seat 1"),
    ("time limit", "completed", lambda r: replace(r, time_limit_ms=0), "time_limit_ms"),
    (
        "rules not canonical",
        "completed",
        lambda r: replace(r, rules={k: v for k, v in r.rules.items() if k != "wild_face"}),
        "rules",
    ),
    ("started_at", "completed", lambda r: replace(r, started_at="yesterday"), "started_at"),
    # -- outcome ---------------------------------------------------------------------
    (
        "places",
        "completed",
        lambda r: replace(r, places=tuple(reversed(r.places))),
        "outcome: places",
    ),
    ("scores", "completed", lambda r: replace(r, scores=(9.0, *r.scores[1:])), "outcome: places"),
    ("places length", "completed", lambda r: replace(r, places=(*r.places, 3)), "outcome:"),
    (
        "duration before last event",
        "completed",
        lambda r: replace(r, duration_ms=0.5),
        "duration_ms",
    ),
    (
        "reason forfeit without fault",
        "completed",
        lambda r: replace(r, reason="forfeit"),
        "outcome: reason",
    ),
    (
        "reason unknown",
        "completed",
        lambda r: replace(r, reason="draw"),  # type: ignore[arg-type]
        "outcome: reason",
    ),
    ("reason aborted", "completed", lambda r: replace(r, reason="aborted"), "outcome"),
    # -- faults ----------------------------------------------------------------------
    (
        "fault position",
        "forfeit",
        lambda r: _fault(r, at_event=r.faults[0].at_event - 1),
        "fault of seat 1: at event",
    ),
    ("fault seat", "forfeit", lambda r: _fault(r, seat=0), "fault of seat 0"),
    ("fault seat out of range", "forfeit", lambda r: _fault(r, seat=4), "fault of seat 4"),
    (
        "decision fault as startup",
        "forfeit",
        lambda r: _fault(r, kind=FaultKind.STARTUP),
        "fault of seat 1",
    ),
    (
        "fault kind timeout still on its turn",
        "forfeit",
        lambda r: replace(_fault(r, kind=FaultKind.TIMEOUT), reason="completed"),
        "outcome",
    ),
    ("forfeit called completed", "forfeit", lambda r: replace(r, reason="completed"), "outcome"),
    (
        "second fault",
        "forfeit",
        lambda r: replace(r, faults=(*r.faults, replace(r.faults[0], seat=0))),
        "fault of seat",
    ),
    (
        "startup fault as timeout",
        "startup",
        lambda r: _fault(r, kind=FaultKind.TIMEOUT),
        "fault of seat 1",
    ),
    ("startup fault moved", "startup", lambda r: _fault(r, at_event=1), "fault of seat 1"),
    ("startup fault on the ready seat", "startup", lambda r: _fault(r, seat=0), "fault of seat"),
    (
        "startup record marked ready",
        "startup",
        lambda r: _seat(r, 1, ready=True, start_sent=True),
        "fault of seat 1",
    ),
]


@pytest.mark.parametrize(
    ("which", "tamper", "where"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_resealed_tampered_field_is_rejected(
    records: dict[str, MatchRecord], which: str, tamper: Tamper, where: Where | str
) -> None:
    record = records[which]
    tampered = tamper(record)
    assert tampered != record, "the tamper changed nothing"
    resealed = tampered.sealed()
    assert chain_problems(resealed) == []  # only semantic checks can catch it
    problems = verify(resealed)
    assert problems, "verify accepted a tampered record"
    expected = where if isinstance(where, str) else where(record)
    assert expected in problems[0], problems


def test_an_unchanged_resealed_record_still_verifies(records: dict[str, MatchRecord]) -> None:
    """Guard: re-sealing by itself is not what the cases above catch."""
    for record in records.values():
        assert verify(record.sealed()) == []
        assert verify(MatchRecord.from_json(record.sealed().to_json())) == []
