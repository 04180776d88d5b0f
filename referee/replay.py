"""Replaying match records: verification, per-seat message streams, step views.

Everything here re-simulates the match with the current engine from the record's
(game, rules, seed, events); nothing trusts the record's own story.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from arena.v1 import bot_pb2
from referee import messages
from referee.faults import FaultKind
from referee.games import get_game
from referee.games.base import CHANCE, GameError, Outcome, draw_chance, forfeit
from referee.games.events import ActionEvent, apply_event, describe_event, match_rng
from referee.record import (
    MatchRecord,
    RecordError,
    chain_problems,
    observation_digest,
    state_digest,
)
from referee.wire import get_codec

DECISION_FAULTS = frozenset(
    {
        FaultKind.TIMEOUT,
        FaultKind.CRASH,
        FaultKind.STALL,
        FaultKind.ILLEGAL_ACTION,
        FaultKind.MALFORMED_MESSAGE,
    }
)
"""Faults that happen on a seat's turn, after its TurnRequest was sent."""


def replay_states(record: MatchRecord) -> list[Any]:
    """The engine state before the first event and after every event."""
    game = get_game(record.game)
    state = game.new_game(game.parse_rules(record.rules), record.num_seats)
    states = [state]
    for event in record.engine_events():
        state = apply_event(game, state, event)
        states.append(state)
    return states


# ---------------------------------------------------------------------------
# Verification


def verify(record: MatchRecord) -> list[str]:
    """Problems found, first differing part first; an empty list means verified.

    Checks the hash chain, then re-simulates: every chance outcome must be what
    the seed draws, every action must be legal for the seat whose turn it was,
    the observation each acting seat was sent and the state after each event must
    match their digests, and the outcome must follow from the final state.
    """
    problems = chain_problems(record)
    if problems:
        return problems
    try:
        game = get_game(record.game)
        rules = game.parse_rules(record.rules)
        state = game.new_game(rules, record.num_seats)
    except GameError as error:
        return [f"header: {error}"]
    codec = get_codec(record.game)
    rng = match_rng(record.seed)
    turn = 0
    for index, event in enumerate(record.events, start=1):
        where = f"event {index}"
        actor = game.to_act(state)
        if event.seat is None:
            if actor != CHANCE:
                return [f"{where}: a chance outcome, but {_who(actor)} was to act"]
            expected = draw_chance(game.chance_request(state), rng)
            if tuple(event.outcome or ()) != expected:
                return [
                    f"{where}: chance outcome {list(event.outcome or ())} is not what seed"
                    f" {record.seed} draws ({list(expected)})"
                ]
            state = game.apply_chance(state, expected)
        else:
            if actor != event.seat:
                return [f"{where}: seat {event.seat} acted, but {_who(actor)} was to act"]
            turn += 1
            if event.turn != turn:
                return [f"{where}: answers turn {event.turn}, expected turn {turn}"]
            sent = codec.observation_bytes(game.observe(state, actor))
            if event.obs != observation_digest(sent):
                return [f"{where}: the observation seat {actor} was sent differs from the engine's"]
            try:
                action = codec.action_from_json(event.action or {})
                state = game.apply_action(state, actor, action)
            except GameError as error:
                return [f"{where}: action {event.action} is not legal here: {error}"]
        if event.state != state_digest(state):
            return [f"{where}: the state after it differs from the recorded one"]
    faulted = {fault.seat for fault in record.faults}
    for fault in record.faults:
        if fault.at_event != len(record.events):
            return [
                f"fault of seat {fault.seat}: at event {fault.at_event}, but the match"
                f" stopped after event {len(record.events)}"
            ]
    if record.reason == "completed":
        if record.faults or not game.is_terminal(state):
            return ["outcome: recorded as completed, but the game is not over"]
        expected_outcome = game.outcome(state)
    elif record.reason == "forfeit":
        if not faulted:
            return ["outcome: recorded as a forfeit without a fault"]
        expected_outcome = forfeit(game.standings(state), faulted)
    elif record.reason == "aborted":
        # The referee's engine failed on the next action: nobody's fault, and the
        # places are the standings when it stopped (informative; nobody is rated).
        if record.faults:
            return ["outcome: recorded as aborted, but a seat faulted"]
        expected_outcome = game.standings(state)
    else:
        return [f"outcome: reason {record.reason!r} cannot be verified"]
    if expected_outcome != Outcome(record.places, record.scores):
        return [
            f"outcome: places {list(record.places)} scores {list(record.scores)} differ from"
            f" the replay's {list(expected_outcome.places)} {list(expected_outcome.scores)}"
        ]
    return []


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
    if not 0 <= seat < record.num_seats:
        raise RecordError(f"seat {seat} is not in this {record.num_seats}-seat match")
    game = get_game(record.game)
    codec = get_codec(record.game)
    info = record.seats[seat]
    sent: list[bot_pb2.PlayRequest] = []
    if info.start_sent:
        sent.append(
            messages.match_start(
                match_id=record.match_id,
                game=record.game,
                rules=record.rules,
                seat=seat,
                num_seats=record.num_seats,
            )
        )
    if not info.ready:
        return sent
    states = replay_states(record)
    turn = 0
    for event, before in zip(record.events, states, strict=False):
        if event.seat is None:
            continue
        turn += 1
        if event.seat == seat:
            sent.append(_turn(codec, game, before, seat, turn, record.time_limit_ms))
    final = states[-1]
    # The seat to act was sent its turn if the match stopped on a decision fault
    # (its own, or another seat's message sent before it was asked for) or on an
    # engine failure (its answer could not be applied).
    asked = any(f.kind in DECISION_FAULTS for f in record.faults)
    if (asked or record.reason == "aborted") and game.to_act(final) == seat:
        sent.append(_turn(codec, game, final, seat, turn + 1, record.time_limit_ms))
    sent.append(
        messages.match_end(
            reason=record.reason,
            outcome=record.outcome,
            faults={f.seat: f.kind for f in record.faults},
            observation=codec.encode_observation(game.observe(final, seat)),
        )
    )
    return sent


def _turn(
    codec: Any, game: Any, state: Any, seat: int, turn: int, time_limit_ms: int
) -> bot_pb2.PlayRequest:
    return messages.turn_request(
        turn=turn,
        observation=codec.encode_observation(game.observe(state, seat)),
        time_limit_ms=time_limit_ms,
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


def replay_steps(record: MatchRecord) -> list[ReplayStep]:
    game = get_game(record.game)
    codec = get_codec(record.game)
    states = replay_states(record)
    engine_events = record.engine_events()
    steps = []
    for index, state in enumerate(states):
        if index == 0:
            text, actor = "", None
        else:
            event = engine_events[index - 1]
            text = describe_event(game, states[index - 1], event)
            actor = event.seat if isinstance(event, ActionEvent) else None
        next_actor = game.to_act(state)
        steps.append(
            ReplayStep(
                index=index,
                event=text,
                actor=actor,
                to_act="over" if next_actor is None else _who(next_actor),
                observations=tuple(
                    _observation_json(codec, game.observe(state, seat))
                    for seat in range(record.num_seats)
                ),
            )
        )
    return steps


def _observation_json(codec: Any, observation: Any) -> dict[str, Any]:
    message: bot_pb2.Observation = codec.encode_observation(observation)
    game_field = message.WhichOneof("game")
    inner = getattr(message, game_field) if game_field else message
    data: dict[str, Any] = json_format.MessageToDict(
        inner, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return data
