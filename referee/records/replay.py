"""Replaying match records: verification, per-seat message streams, step views.

Everything here re-simulates the match with the current engine from the record's
(game, rules, events) — and its seed, for a reproducible match; nothing trusts the
record's own story.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from google.protobuf import json_format

from arena.v1 import bot_pb2
from referee.core import messages
from referee.core.catalogue import get_codec, get_game
from referee.core.chance import ChanceStream
from referee.core.digests import state_digester
from referee.core.driver import Decision, MatchDriver
from referee.core.events import ActionEvent, describe_event
from referee.core.faults import FaultKind
from referee.core.mixed import MixedAnswer
from referee.core.playout import legacy_match_rng, match_rng
from referee.core.protocol import MIXED_PROTOCOL, NONCE_PROTOCOL, READABLE_PROTOCOLS
from referee.gamekit.base import CHANCE, ChanceSource, Game, GameError, Outcome, forfeit
from referee.records.mixed_answers import mixed_problems
from referee.records.record import MatchRecord, RecordedEvent, RecordError, chain_problems
from referee.records.transcript import event_text

DECISION_FAULTS = frozenset(
    {
        FaultKind.TIMEOUT,
        FaultKind.CRASH,
        FaultKind.STALL,
        FaultKind.ILLEGAL_ACTION,
        FaultKind.MALFORMED_MESSAGE,
        FaultKind.BAD_PROBABILITIES,
        FaultKind.RESIGNED,  # a person resigns when asked for a move
    }
)
"""Faults that happen on a seat's turn, after its TurnRequest was sent."""


def replay_states(record: MatchRecord) -> list[Any]:
    """The engine state before the first event and after every event."""
    driver = record_driver(record)
    states = [driver.state]
    for event in record.engine_events():
        driver.apply(event)
        states.append(driver.state)
    return states


def record_driver(record: MatchRecord, *, digests: bool = False) -> MatchDriver:
    """A driver for ``record``'s match: its seats' delta choices, its digest format
    (``digests``: digest every state, as the record's format does)."""
    game = get_game(record.game)
    return MatchDriver(
        game,
        game.parse_rules(record.rules),
        record.num_seats,
        codec=get_codec(record.game),
        deltas=[info.deltas for info in record.seats],
        digest=state_digester(record.format) if digests else None,
    )


# ---------------------------------------------------------------------------
# Verification


def verify(
    record: MatchRecord,
    *,
    chance_key: bytes | None = None,
    header: bool = True,
    mixed: Mapping[int, Sequence[MixedAnswer]] | None = None,
) -> list[str]:
    """Problems found, first differing part first; an empty list means verified.

    Checks the hash chain, then every field for type and consistency
    (:func:`field_problems`: a re-sealed chain proves nothing about who wrote the
    record), then re-simulates: every chance outcome must be what ``chance_key``
    draws if one is given (a league's revealed deal key), else what the record's
    seed draws if it has one, else merely a legal outcome of its chance request (a
    secret-key match: the key is not in the record); every action must be legal
    for the seat whose turn it was, the observation each acting seat was sent and
    the state after each event must match their digests, a fault on a turn must
    belong to the seat whose turn it was, and the outcome must follow from the
    final state. ``header=False``: a public copy, its header's own hash unchecked
    (:func:`referee.records.record.chain_problems`).

    ``mixed``: seats' mixed moves as their authors hold them (``run_match``'s
    ``mixed``). Each must match its event's public commitment, and the action drawn
    must be what the chance key (or the seed) draws from it; without a key, it must
    at least have had weight. A seat named here must have an answer for every
    mixed event of its own.
    """
    problems = chain_problems(record, header=header)
    if problems:
        return problems
    try:
        game = get_game(record.game)
        rules = game.parse_rules(record.rules)
        driver = record_driver(record, digests=True)
    except GameError as error:
        return [f"header: {error}"]
    problems = field_problems(record, game.format_rules(rules))
    if problems:
        return problems
    problems = _event_problems(record, driver, chance_key)
    if not problems and mixed is not None:
        problems = mixed_problems(record, chance_key, mixed)
    if problems:
        return problems
    return _outcome_problems(record, game, driver.state)


def _event_problems(
    record: MatchRecord, driver: MatchDriver, chance_key: bytes | None
) -> list[str]:
    """Re-simulate every event with ``driver``: the first one that does not fit."""
    codec = get_codec(record.game)
    rng, source = _expected_chance(record, chance_key)
    for index, event in enumerate(record.events, start=1):
        where = f"event {index}"
        actor = driver.to_act()
        if event.seat is None:
            if actor != CHANCE:
                return [f"{where}: a chance outcome, but {_who(actor)} was to act"]
            outcome = tuple(event.outcome or ())
            if rng is not None:
                expected = driver.draw(rng)
                if outcome != expected:
                    return [
                        f"{where}: chance outcome {list(outcome)} is not what"
                        f" {source} draws ({list(expected)})"
                    ]
            try:
                digest = driver.apply_chance(outcome)
            except GameError as error:
                return [f"{where}: not a legal chance outcome: {error}"]
        else:
            if actor != event.seat:
                return [f"{where}: seat {event.seat} acted, but {_who(actor)} was to act"]
            decision = driver.decision()
            if event.turn != decision.turn:
                return [f"{where}: answers turn {event.turn}, expected turn {decision.turn}"]
            nonce = record.nonce_of(decision.turn)
            if bool(nonce) != _nonced(record, actor):
                return [
                    f"{where}: turn {decision.turn} has {'a' if nonce else 'no'} nonce,"
                    f" but seat {actor} spoke protocol {record.seats[actor].protocol}"
                ]
            if event.obs != decision.digest:
                return [f"{where}: the observation seat {actor} was sent differs from the engine's"]
            try:
                digest = driver.act(decision, codec.action_from_json(event.action or {}))
            except GameError as error:
                return [f"{where}: action {event.action} is not legal here: {error}"]
        if event.state != digest:
            return [f"{where}: the state after it differs from the recorded one"]
    return []


def _outcome_problems(record: MatchRecord, game: Game[Any, Any, Any, Any], state: Any) -> list[str]:
    """The faults and the outcome checked against the final ``state`` of the replay."""
    faulted = {fault.seat for fault in record.faults}
    for fault in record.faults:
        if fault.at_event != len(record.events):
            return [
                f"fault of seat {fault.seat}: at event {fault.at_event}, but the match"
                f" stopped after event {len(record.events)}"
            ]
    final_actor = game.to_act(state)
    for fault in record.faults:
        # A malformed message may come from any seat: one that answers before it
        # was asked is faulted at once, while another seat is to act.
        if fault.kind is FaultKind.MALFORMED_MESSAGE:
            continue
        if fault.kind in DECISION_FAULTS and final_actor != fault.seat:
            return [
                f"fault of seat {fault.seat}: {fault.kind.value} is a fault on its turn,"
                f" but {_who(final_actor)} was to act after event {len(record.events)}"
            ]
    if record.reason == "completed":
        if record.faults or not game.is_terminal(state):
            return ["outcome: recorded as completed, but the game is not over"]
        expected_outcome = game.outcome(state)
    elif record.reason == "forfeit":
        if not faulted:
            return ["outcome: recorded as a forfeit without a fault"]
        if game.is_terminal(state):
            return ["outcome: recorded as a forfeit, but the game was over"]
        expected_outcome = forfeit(game.standings(state), faulted)
    elif record.reason == "aborted":
        # The referee's engine failed on the next action: nobody's fault, and the
        # places are the standings when it stopped (informative; nobody is rated).
        if record.faults:
            return ["outcome: recorded as aborted, but a seat faulted"]
        if game.is_terminal(state):
            return ["outcome: recorded as aborted, but the game was over"]
        if not record.meta.get("error"):
            return ["outcome: recorded as aborted without the referee's error"]
        expected_outcome = game.standings(state)
    else:
        return [f"outcome: reason {record.reason!r} cannot be verified"]
    if expected_outcome != Outcome(record.places, record.scores):
        return [
            f"outcome: places {list(record.places)} scores {list(record.scores)} differ from"
            f" the replay's {list(expected_outcome.places)} {list(expected_outcome.scores)}"
        ]
    return []


def _nonced(record: MatchRecord, seat: int) -> bool:
    """Whether ``seat``'s TurnRequests carried a nonce (it spoke protocol 3)."""
    return record.seats[seat].protocol >= NONCE_PROTOCOL


def _expected_chance(
    record: MatchRecord, chance_key: bytes | None
) -> tuple[ChanceSource | None, str]:
    """The stream the record's chance outcomes must equal (None: only check legality)."""
    if chance_key is not None:
        return ChanceStream(chance_key), "the chance key"
    if record.seed is None:
        return None, ""
    if record.format == 1:
        return legacy_match_rng(record.seed), f"seed {record.seed}"
    return match_rng(record.seed), f"seed {record.seed}"


_DIGEST = re.compile(r"[0-9a-f]{16}")
_COMMITMENT = re.compile(r"[0-9a-f]{64}")
_NONCE = re.compile(r"[A-Za-z0-9_-]{0,64}")
_CLOCK_SLACK_MS = 0.01
"""Rounding slack between ``elapsed_ms`` and ``at_ms`` (both rounded to 0.001 ms)."""


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def field_problems(record: MatchRecord, canonical_rules: dict[str, str]) -> list[str]:
    """Every field checked for type and consistency, before any re-simulation.

    The hash chain only proves the record was not changed after it was sealed; a
    record written (or re-sealed) by someone else must still make sense field by
    field: header against seats, every event's fields for its kind, monotonic
    times, faults where faults can happen, and a reason that fits the faults.
    """
    problems = _header_field_problems(record, canonical_rules)
    if problems:
        return problems
    previous_at = 0.0
    for index, event in enumerate(record.events, start=1):
        problems = _event_field_problems(record, f"event {index}", event, previous_at)
        if problems:
            return problems
        previous_at = float(event.at_ms)  # type: ignore[arg-type]
    if not _is_number(record.duration_ms) or record.duration_ms < previous_at:
        problems.append(
            f"outcome: duration_ms {record.duration_ms!r} ends before the last event"
            f" ({previous_at})"
        )
    problems.extend(_fault_field_problems(record))
    return problems


def _header_field_problems(record: MatchRecord, canonical_rules: dict[str, str]) -> list[str]:
    """The header and seat fields (see :func:`field_problems`)."""
    problems: list[str] = []
    header = "header"
    if record.protocol_version not in READABLE_PROTOCOLS:
        problems.append(
            f"{header}: protocol_version {record.protocol_version!r}, but this referee"
            f" reads {', '.join(map(str, READABLE_PROTOCOLS))}"
        )
    if record.rules != canonical_rules:
        problems.append(f"{header}: rules {record.rules} are not the canonical {canonical_rules}")
    if record.seed is not None and not _is_int(record.seed):
        problems.append(f"{header}: seed {record.seed!r} is not an integer or null")
    if not _is_int(record.time_limit_ms) or record.time_limit_ms <= 0:
        problems.append(f"{header}: time_limit_ms {record.time_limit_ms!r} is not positive")
    if not _is_int(record.num_seats) or record.num_seats != len(record.seats):
        problems.append(
            f"{header}: num_seats {record.num_seats!r}, but {len(record.seats)} seats listed"
        )
    for index, info in enumerate(record.seats):
        if info.seat != index:
            problems.append(f"{header}: seats[{index}] says it is seat {info.seat!r}")
        if info.ready and not info.start_sent:
            problems.append(f"{header}: seat {index} is ready but was never sent MatchStart")
        if info.deltas and (not info.ready or record.format < 3 or record.protocol_version < 2):
            problems.append(
                f"{header}: seat {index} took observation deltas, which needs a ready seat,"
                f" record format 3 and protocol 2 (format {record.format},"
                f" protocol {record.protocol_version})"
            )
        if not _is_int(info.protocol) or not 0 <= info.protocol <= record.protocol_version:
            problems.append(
                f"{header}: seat {index} spoke protocol {info.protocol!r}, not one of"
                f" 1..{record.protocol_version} (the record's protocol_version)"
            )
        elif info.protocol and (record.format < 4 or not info.start_sent):
            problems.append(
                f"{header}: seat {index} has a protocol ({info.protocol}), which needs record"
                f" format 4 and a seat that was sent MatchStart (format {record.format})"
            )
    if record.bot_match_id and record.format < 4:
        problems.append(f"{header}: bot_match_id needs record format 4 (format {record.format})")
    if record.nonces:
        actions = sum(1 for event in record.events if event.seat is not None)
        if record.format < 4 or record.protocol_version < NONCE_PROTOCOL:
            problems.append(
                f"outcome: nonces need record format 4 and protocol {NONCE_PROTOCOL}"
                f" (format {record.format}, protocol {record.protocol_version})"
            )
        elif len(record.nonces) not in (actions, actions + 1):
            problems.append(
                f"outcome: {len(record.nonces)} nonces for {actions} answered TurnRequests"
                " (one per request sent)"
            )
        elif not all(isinstance(n, str) and _NONCE.fullmatch(n) for n in record.nonces):
            problems.append("outcome: a nonce that is not up to 64 URL-safe characters")
    if record.started_at:
        try:
            datetime.fromisoformat(record.started_at)
        except (TypeError, ValueError):
            problems.append(f"{header}: started_at {record.started_at!r} is not ISO 8601")
    return problems


def _event_field_problems(
    record: MatchRecord, where: str, event: RecordedEvent, previous_at: float
) -> list[str]:
    """One event's fields for its kind, and its time after ``previous_at``."""
    problems: list[str] = []
    if event.seat is None:
        if event.outcome is None or not all(_is_int(v) for v in event.outcome):
            problems.append(f"{where}: a chance event without a list of integers as outcome")
        for name in ("action", "elapsed_ms", "turn", "obs", "mixed"):
            if getattr(event, name) is not None:
                problems.append(f"{where}: a chance event has a {name} field")
    else:
        if not _is_int(event.seat) or not 0 <= event.seat < record.num_seats:
            problems.append(f"{where}: seat {event.seat!r} is not a seat of this match")
        if event.outcome is not None:
            problems.append(f"{where}: an action event has an outcome field")
        if not isinstance(event.action, dict):
            problems.append(f"{where}: an action event without an action")
        if not _is_int(event.turn):
            problems.append(f"{where}: turn {event.turn!r} is not an integer")
        if not isinstance(event.obs, str) or not _DIGEST.fullmatch(event.obs):
            problems.append(f"{where}: obs {event.obs!r} is not an observation digest")
        if not _is_number(event.elapsed_ms) or event.elapsed_ms < 0:  # type: ignore[operator]
            problems.append(f"{where}: elapsed_ms {event.elapsed_ms!r} is not a duration")
        if event.mixed is not None:
            if not isinstance(event.mixed, str) or not _COMMITMENT.fullmatch(event.mixed):
                problems.append(f"{where}: mixed {event.mixed!r} is not a commitment")
            elif record.format < 6 or (
                _is_int(event.seat)
                and 0 <= event.seat < len(record.seats)
                and record.seats[event.seat].protocol < MIXED_PROTOCOL
            ):
                problems.append(
                    f"{where}: a mixed move needs record format 6 and a seat of protocol"
                    f" {MIXED_PROTOCOL} (format {record.format})"
                )
    if not _is_number(event.at_ms) or event.at_ms < 0:  # type: ignore[operator]
        problems.append(f"{where}: at_ms {event.at_ms!r} is not a time")
    elif event.at_ms < previous_at:  # type: ignore[operator]
        problems.append(
            f"{where}: at_ms {event.at_ms} is before the previous event's {previous_at}"
        )
    elif (
        event.seat is not None
        and _is_number(event.elapsed_ms)
        and event.elapsed_ms > event.at_ms - previous_at + _CLOCK_SLACK_MS  # type: ignore[operator]
    ):
        problems.append(
            f"{where}: elapsed_ms {event.elapsed_ms} is longer than the"
            f" {event.at_ms - previous_at:.3f} ms since the previous event"  # type: ignore[operator]
        )
    if not isinstance(event.state, str) or not _DIGEST.fullmatch(event.state):
        problems.append(f"{where}: state {event.state!r} is not a state digest")
    return problems


def _fault_field_problems(record: MatchRecord) -> list[str]:
    """The faults, the readiness of seats and the reason and outcome sizes."""
    problems: list[str] = []
    seen: set[int] = set()
    for fault in record.faults:
        where = f"fault of seat {fault.seat}"
        if not _is_int(fault.seat) or not 0 <= fault.seat < record.num_seats:
            problems.append(f"{where}: not a seat of this match")
            continue
        if fault.seat in seen:
            problems.append(f"{where}: the seat has two faults")
        seen.add(fault.seat)
        if not isinstance(fault.kind, FaultKind):
            problems.append(f"{where}: kind {fault.kind!r} is not a fault kind")
        elif fault.kind is FaultKind.STARTUP:
            if fault.at_event != 0 or record.seats[fault.seat].ready:
                problems.append(
                    f"{where}: a startup fault, but the seat was ready"
                    f" (at event {fault.at_event!r})"
                )
        elif fault.kind in DECISION_FAULTS and (
            not record.seats[fault.seat].ready or len(record.faults) != 1
        ):
            problems.append(
                f"{where}: {fault.kind.value} happens on a turn of a ready seat,"
                " alone (the match stops at the first one)"
            )
        if not _is_int(fault.at_event):
            problems.append(f"{where}: at_event {fault.at_event!r} is not an integer")
    for info in record.seats:
        if not info.ready and not any(
            f.seat == info.seat and f.kind is FaultKind.STARTUP for f in record.faults
        ):
            problems.append(f"fault of seat {info.seat}: not ready, but no startup fault")
    if record.reason not in ("completed", "forfeit", "aborted"):
        problems.append(f"outcome: reason {record.reason!r} is not a match end")
    elif (record.reason == "forfeit") != bool(record.faults):
        problems.append(f"outcome: reason {record.reason!r} with {len(record.faults)} fault(s)")
    if len(record.places) != record.num_seats or len(record.scores) != record.num_seats:
        problems.append(
            f"outcome: {len(record.places)} places and {len(record.scores)} scores"
            f" for {record.num_seats} seats"
        )
    return problems


def _who(actor: int | None) -> str:
    if actor is None:
        return "nobody (the game was over)"
    if actor == CHANCE:
        return "chance"
    return f"seat {actor}"


# ---------------------------------------------------------------------------
# What one seat was sent


def seat_messages(record: MatchRecord, seat: int) -> list[bot_pb2.PlayRequest]:
    """Every message the referee sent to ``seat``, regenerated from the record."""
    return [message for message, _ in seat_exchange(record, seat)]


def seat_exchange(record: MatchRecord, seat: int) -> list[tuple[bot_pb2.PlayRequest, Any]]:
    """Every message the referee sent to ``seat`` with the engine observation it
    carried: None for MatchStart, the seat's view for a TurnRequest (whole, even
    when the message was a delta), its final observation for MatchEnd."""
    if not 0 <= seat < record.num_seats:
        raise RecordError(f"seat {seat} is not in this {record.num_seats}-seat match")
    info = record.seats[seat]
    sent: list[tuple[bot_pb2.PlayRequest, Any]] = []
    if info.start_sent:
        start = messages.match_start(
            match_id=record.sent_match_id,
            game=record.game,
            rules=record.rules,
            seat=seat,
            num_seats=record.num_seats,
            protocol_version=record.protocol_version,
        )
        sent.append((start, None))
    if not info.ready:
        return sent
    driver = record_driver(record)
    for event in record.engine_events():
        if isinstance(event, ActionEvent):
            decision = driver.decision_for(event)
            if event.seat == seat:
                sent.append((_turn(decision, record), decision.view))
            driver.act(decision, event.action)
        else:
            driver.apply_chance(event.outcome)
    # The seat to act was sent its turn if the match stopped on a decision fault
    # (its own, or another seat's message sent before it was asked for) or on an
    # engine failure (its answer could not be applied).
    asked = any(f.kind in DECISION_FAULTS for f in record.faults)
    if (asked or record.reason == "aborted") and driver.to_act() == seat:
        decision = driver.decision()
        sent.append((_turn(decision, record), decision.view))
    end = messages.match_end(
        reason=record.reason,
        outcome=record.outcome,
        faults={f.seat: f.kind for f in record.faults},
        observation=driver.final_observation(seat),
    )
    sent.append((end, driver.game.observe(driver.state, seat)))
    return sent


def _turn(decision: Decision, record: MatchRecord) -> bot_pb2.PlayRequest:
    assert decision.message is not None
    return messages.turn_request(
        turn=decision.turn,
        observation=decision.message,
        time_limit_ms=record.time_limit_ms,
        nonce=record.nonce_of(decision.turn),
    )


# ---------------------------------------------------------------------------
# Step-by-step views (transcripts, the HTML viewer)


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The match after ``index`` events (0 = before the first event)."""

    index: int
    event: str
    """What happened in this step, omniscient (empty for step 0)."""
    actor: int | None
    """The seat that acted in this step; None for chance and step 0."""
    to_act: str
    """Who acts next: ``seat N``, ``chance`` or ``over``."""
    observations: tuple[dict[str, Any], ...]
    """Each seat's observation after this step (protobuf JSON of the game's message)."""
    seen: tuple[str | None, ...] = ()
    """What happened in this step as each seat may read it, by seat (the engine's
    per-seat text; ``None`` where the seat sees nothing of a chance outcome; empty
    texts for step 0)."""
    state: Any = field(default=None, compare=False, repr=False)
    """The omniscient engine state after this step (for views computed from it)."""


def replay_steps(record: MatchRecord) -> list[ReplayStep]:
    """Every step of the match: the omniscient text, each seat's text (the engine's
    per-seat description) and each seat's observation after it."""
    game = get_game(record.game)
    codec = get_codec(record.game)
    states = replay_states(record)
    engine_events = record.engine_events()
    seats = range(record.num_seats)
    steps = []
    seen: tuple[str | None, ...]
    for index, state in enumerate(states):
        if index == 0:
            text, actor, seen = "", None, tuple("" for _ in seats)
        else:
            event, before = engine_events[index - 1], states[index - 1]
            text = describe_event(game, before, event)
            actor = event.seat if isinstance(event, ActionEvent) else None
            seen = tuple(event_text(game, before, event, seat) for seat in seats)
        next_actor = game.to_act(state)
        steps.append(
            ReplayStep(
                index=index,
                event=text,
                actor=actor,
                to_act="over" if next_actor is None else _who(next_actor),
                observations=tuple(
                    _observation_json(codec, game.observe(state, seat)) for seat in seats
                ),
                seen=seen,
                state=state,
            )
        )
    return steps


def observation_json(codec: Any, observation: Any) -> dict[str, Any]:
    """One seat's observation as the replay viewer's renderers read it: the game's
    protobuf message as JSON, field names as in the ``.proto``."""
    return _observation_json(codec, observation)


def _observation_json(codec: Any, observation: Any) -> dict[str, Any]:
    message: bot_pb2.Observation = codec.encode_observation(observation)
    game_field = message.WhichOneof("game")
    inner = getattr(message, game_field) if game_field else message
    data: dict[str, Any] = json_format.MessageToDict(
        inner, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return data
