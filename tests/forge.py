"""Forging match records in tests: rewrite events and recompute every digest and hash.

What a dishonest operator with the record API could do: the result passes
:func:`referee.records.replay.verify` unless the verifier can re-draw the chance outcomes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from referee.core.catalogue import get_codec, get_game
from referee.core.driver import MatchDriver
from referee.core.events import ActionEvent, Event
from referee.gamekit.base import GameError, forfeit
from referee.records.record import MatchRecord, RecordedEvent, RecordedFault, SeatInfo
from referee.records.replay import record_driver


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
    """A consistent forgery: two different dice of some chance event swapped, such that
    the match still replays (a swap within one seat's dice leaves the game as it was).
    Returns it and the event number (1-based).

    Every pair of every chance event is tried, so a deal whose first two dice happen
    to be equal (or to belong to different seats) does not leave nothing to forge."""
    for index, event in enumerate(record.events):
        outcome = list(event.outcome or ())
        if event.seat is not None:
            continue
        for first in range(len(outcome)):
            for second in range(first + 1, len(outcome)):
                if outcome[first] == outcome[second]:
                    continue
                swapped = list(outcome)
                swapped[first], swapped[second] = swapped[second], swapped[first]
                events = list(record.events)
                events[index] = replace(event, outcome=tuple(swapped))
                try:
                    return reforged(record, events), index + 1
                except GameError:
                    continue
    raise AssertionError(f"no chance event of {record.match_id} can be forged by a swap")


def record_of(
    game: str,
    rules: dict[str, str],
    events: Sequence[Event],
    *,
    match_id: str = "m",
    bots: Sequence[str] = ("a", "b"),
    reason: Literal["completed", "forfeit", "aborted"] = "completed",
    faults: tuple[RecordedFault, ...] = (),
    meta: dict[str, Any] | None = None,
) -> MatchRecord:
    """A sealed, verifiable record of ``events`` played in-process (one ms apart); the
    outcome is the engine's (its standings for a match that did not finish)."""
    engine = get_game(game)
    codec = get_codec(game)
    driver = MatchDriver(engine, engine.parse_rules(rules), len(bots))
    recorded = []
    turn = 0
    for index, event in enumerate(events):
        driver.apply(event)
        if isinstance(event, ActionEvent):
            turn += 1
            recorded.append(
                RecordedEvent(
                    seat=event.seat,
                    action=codec.action_to_json(event.action),
                    turn=turn,
                    elapsed_ms=0.5,
                    at_ms=float(index + 1),
                )
            )
        else:
            recorded.append(RecordedEvent(seat=None, outcome=event.outcome, at_ms=float(index + 1)))
    if reason == "completed":
        outcome = engine.outcome(driver.state)
    elif reason == "forfeit":
        outcome = forfeit(engine.standings(driver.state), {f.seat for f in faults})
    else:
        outcome = engine.standings(driver.state)
    record = MatchRecord(
        match_id=match_id,
        game=game,
        rules=engine.format_rules(engine.parse_rules(rules)),
        num_seats=len(bots),
        seed=None,
        seats=tuple(SeatInfo(seat=seat, bot=bot) for seat, bot in enumerate(bots)),
        events=(),
        faults=faults,
        reason=reason,
        places=outcome.places,
        scores=outcome.scores,
        time_limit_ms=2000,
        duration_ms=float(len(events) + 1),
        meta=meta or {},
    )
    return reforged(record, recorded)
