"""Honest records of matches whose seats answered with mixed moves, made in process.

:func:`mixed_record` plays Liar's Dice with no bot processes: chance from the
match's chance key, each seat's turn a mixed move (awkward probabilities: thirds,
tenths, tiny weights) drawn as the referee draws it (:func:`referee.core.mixed.draw`
under the key's mixed key) and committed with a fresh salt. Returns the sealed record
and each seat's :class:`~referee.core.mixed.MixedAnswer` list, as ``run_match(...,
mixed=...)`` fills it; :func:`referee.records.replay.verify` passes on both.
"""

from __future__ import annotations

import random
from typing import Any

from referee.core.catalogue import get_codec, get_game
from referee.core.chance import ChanceStream
from referee.core.mixed import MixedAnswer, checked, commit, draw, mixed_key, new_salt
from referee.core.protocol import MIXED_PROTOCOL
from referee.gamekit.base import CHANCE, draw_chance
from referee.records.record import MatchRecord, RecordedEvent, SeatInfo
from tests.forge import reforged


def mixed_record(
    chance_key: bytes, *, match_id: str = "m", seed: int = 1
) -> tuple[MatchRecord, dict[int, list[MixedAnswer]]]:
    game = get_game("liars_dice")
    codec = get_codec("liars_dice")
    rules = game.parse_rules({"dice_per_player": "2"})
    chance = ChanceStream(chance_key)
    key = mixed_key(chance_key)
    weights = random.Random(seed)
    state = game.new_game(rules, 2)
    events: list[RecordedEvent] = []
    answers: dict[int, list[MixedAnswer]] = {}
    turn = 0
    while (actor := game.to_act(state)) is not None:
        if actor == CHANCE:
            drawn = draw_chance(game.chance_request(state), chance)
            state = game.apply_chance(state, drawn)
            events.append(RecordedEvent(seat=None, outcome=drawn, at_ms=float(len(events))))
            continue
        turn += 1
        legal = list(game.legal_actions(game.observe(state, actor)))
        stated: dict[Any, float] = {}
        for action in weights.sample(legal, min(len(legal), 4)):
            stated[action] = weights.choice((1 / 3, 0.1, 1e-9, 2 / 7, 0.5))
        total = sum(stated.values())
        distribution = checked(((a, p / total) for a, p in stated.items()), legal)
        salt = new_salt()
        action = draw(distribution, key, turn)
        answers.setdefault(actor, []).append(MixedAnswer(turn, salt, distribution))
        state = game.apply_action(state, actor, action)
        events.append(
            RecordedEvent(
                seat=actor,
                action=codec.action_to_json(action),
                turn=turn,
                elapsed_ms=0.5,
                at_ms=float(len(events)),
                mixed=commit(salt, distribution),
            )
        )
    outcome = game.outcome(state)
    record = MatchRecord(
        match_id=match_id,
        game="liars_dice",
        rules=game.format_rules(rules),
        num_seats=2,
        seed=None,
        seats=tuple(SeatInfo(seat=s, bot="ab"[s], protocol=MIXED_PROTOCOL) for s in (0, 1)),
        events=(),
        time_limit_ms=2000,
        protocol_version=MIXED_PROTOCOL,
        nonces=tuple(f"n{number}" for number in range(1, turn + 1)),
        duration_ms=float(len(events)),
        faults=(),
        reason="completed",
        places=outcome.places,
        scores=outcome.scores,
    )
    return reforged(record, events), answers
