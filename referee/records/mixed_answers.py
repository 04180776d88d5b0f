"""A seat's mixed moves as its author keeps them: JSON, and lines a person reads.

The referee hands each seat's mixed moves (:class:`referee.core.mixed.MixedAnswer`:
the turn, the salt of the public commitment, the probabilities) to whoever ran the
match (``run_match(..., mixed=...)``). They are the seat's author's alone, like the
bot's output: never part of the record. This module gives them a JSON form, for a
league's database and the pipe between a league runner and its referee workers, and
the text their author reads (``arena league logs``, the server's author-only log
page).

The JSON form of one seat's answers is a list, one object per mixed move::

    {"turn": 7, "salt": "<32 hex digits>",
     "actions": [<action>, ...], "probabilities": [0.25, 0.75]}

Actions in the protobuf JSON mapping of ``arena.v1.Action``, as in a record
(``Codec.action_to_json``); probabilities as JSON numbers, which Python writes as the
shortest decimal that reads back as the same double (``repr``), so they round-trip
bit for bit and the commitment still checks. Reading checks the shape and values
(:class:`MixedAnswersError`); whether the answers fit a record is
:func:`referee.records.replay.verify`'s business.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.catalogue import get_codec, get_game
from referee.core.chance import key_from_seed
from referee.core.digests import canonical
from referee.core.mixed import Distribution, MixedAnswer, mixed_key, problems_with
from referee.gamekit.base import GameError
from referee.records.record import MatchRecord


class MixedAnswersError(ValueError):
    """Stored or sent mixed moves that do not read back (the text says where and why)."""


def answers_to_json(game: str, answers: Sequence[MixedAnswer]) -> list[dict[str, Any]]:
    """One seat's ``answers`` (a match of ``game``) in their JSON form."""
    codec = get_codec(game)
    return [
        {
            "turn": answer.turn,
            "salt": answer.salt.hex(),
            "actions": [codec.action_to_json(a) for a in answer.distribution.actions],
            "probabilities": [float(p) for p in answer.distribution.probabilities],
        }
        for answer in answers
    ]


def answers_from_json(game: str, data: object) -> list[MixedAnswer]:
    """One seat's answers back from :func:`answers_to_json`'s form;
    :class:`MixedAnswersError` for anything else."""
    if not isinstance(data, list):
        raise MixedAnswersError(f"expected a list of mixed moves, got {type(data).__name__}")
    try:
        codec = get_codec(game)
    except GameError as error:
        raise MixedAnswersError(str(error)) from None
    answers = []
    for number, item in enumerate(data, start=1):
        where = f"mixed move {number}"
        if not isinstance(item, dict) or set(item) != {"turn", "salt", "actions", "probabilities"}:
            raise MixedAnswersError(f"{where}: expected turn, salt, actions and probabilities")
        turn, salt, actions, probabilities = (
            item["turn"],
            item["salt"],
            item["actions"],
            item["probabilities"],
        )
        if type(turn) is not int or turn < 0:
            raise MixedAnswersError(f"{where}: turn {turn!r} is not a turn number")
        try:
            salt_bytes = bytes.fromhex(salt) if isinstance(salt, str) else None
        except ValueError:
            salt_bytes = None
        if not salt_bytes:
            raise MixedAnswersError(f"{where}: the salt is not hexadecimal bytes")
        if (
            not isinstance(actions, list)
            or not isinstance(probabilities, list)
            or len(actions) != len(probabilities)
            or not actions
        ):
            raise MixedAnswersError(f"{where}: expected as many actions as probabilities")
        if not all(_probability(p) for p in probabilities):
            raise MixedAnswersError(f"{where}: a probability is not a number in (0, 1]")
        try:
            decoded = tuple(codec.action_from_json(a) for a in actions)
        except (GameError, ValueError, TypeError, KeyError, AttributeError) as error:
            raise MixedAnswersError(f"{where}: not an action of {game}: {error}") from None
        distribution = Distribution(decoded, tuple(float(p) for p in probabilities))
        answers.append(MixedAnswer(turn, salt_bytes, distribution))
    return answers


def _probability(value: object) -> bool:
    return (
        type(value) in (int, float)
        and math.isfinite(value)  # type: ignore[arg-type]
        and 0.0 < value <= 1.0  # type: ignore[operator]
    )


def seats_to_json(game: str, answers: Mapping[int, Sequence[MixedAnswer]]) -> dict[str, Any]:
    """Every seat's answers: ``{"<seat>": [mixed move, ...]}`` (seats with none left out)."""
    return {str(seat): answers_to_json(game, listed) for seat, listed in answers.items() if listed}


def seats_from_json(game: str, data: object) -> dict[int, list[MixedAnswer]]:
    """:func:`seats_to_json`'s form back; :class:`MixedAnswersError` for anything else."""
    if not isinstance(data, dict):
        raise MixedAnswersError(f"expected seats' mixed moves, got {type(data).__name__}")
    seats: dict[int, list[MixedAnswer]] = {}
    for seat, listed in data.items():
        if not (isinstance(seat, str) and seat.isascii() and seat.isdigit()):
            raise MixedAnswersError(f"{seat!r} is not a seat number")
        try:
            seats[int(seat)] = answers_from_json(game, listed)
        except MixedAnswersError as error:
            raise MixedAnswersError(f"seat {seat}: {error}") from None
    return seats


def answer_lines(record: MatchRecord, seat: int, answers: Sequence[MixedAnswer]) -> list[str]:
    """One line per mixed move of ``seat`` in ``record``, for the seat's author:
    ``turn 7: bid 3 x 4s 0.25, challenge 0.75; drawn: bid 3 x 4s``. Probabilities to
    six significant digits (``arena league verify`` checks the exact ones); the action
    drawn is the record's (its event of that turn)."""
    game = get_game(record.game)
    codec = get_codec(record.game)
    drawn = {
        event.turn: event.action
        for event in record.events
        if event.seat == seat and event.action is not None
    }

    def text(action: Any) -> str:
        return game.describe_action(action, viewer=seat, actor=seat)

    lines = []
    for answer in answers:
        entries = ", ".join(
            f"{text(action)} {p:.6g}"
            for action, p in zip(
                answer.distribution.actions, answer.distribution.probabilities, strict=True
            )
        )
        played = drawn.get(answer.turn)
        if played is None:
            outcome = "no action of this turn in the record"
        else:
            action = codec.action_from_json(played)
            weighted = any(canonical(a) == canonical(action) for a in answer.distribution.actions)
            outcome = f"drawn: {text(action)}" + ("" if weighted else " (not one of them!)")
        lines.append(f"turn {answer.turn}: {entries}; {outcome}")
    return lines


def mixed_problems(
    record: MatchRecord, chance_key: bytes | None, answers: Mapping[int, Sequence[MixedAnswer]]
) -> list[str]:
    """The authors' mixed moves against the record's commitments and draws
    (:func:`referee.records.replay.verify`'s ``mixed``): the first problem found."""
    if chance_key is not None:
        key: bytes | None = mixed_key(chance_key)
    elif record.seed is not None and record.format >= 2:
        key = mixed_key(key_from_seed(record.seed))
    else:
        key = None
    codec = get_codec(record.game)
    by_turn = {(seat, answer.turn): answer for seat, listed in answers.items() for answer in listed}
    used: set[tuple[int, int]] = set()
    for index, event in enumerate(record.events, start=1):
        if event.seat is None or event.seat not in answers:
            continue
        found = by_turn.get((event.seat, event.turn or 0))
        if event.mixed is None:
            if found is not None:
                return [f"event {index}: a mixed move of turn {event.turn}, but no commitment"]
            continue
        if found is None:
            return [
                f"event {index}: seat {event.seat}'s mixed move of turn {event.turn} is missing"
            ]
        used.add((event.seat, found.turn))
        drawn = codec.action_from_json(event.action or {})
        problems = problems_with(found, event.mixed, drawn, key)
        if problems:
            return [f"event {index}: {problem}" for problem in problems]
    extra = sorted(set(by_turn) - used)
    if extra:
        seat, turn = extra[0]
        return [f"seat {seat}: a mixed move of turn {turn} answers no event of the record"]
    return []
