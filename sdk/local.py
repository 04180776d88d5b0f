"""Play a match in-process, with no gRPC: for bot authors' tests and benchmarks.

Chance is drawn exactly as the referee draws it: from ``seed`` (so a seed deals
the same match here as in ``arena match --seed``), from ``chance_key``, or — when
neither is given — from a fresh secret.

For training and experiments where only speed matters, ``fast_chance=True`` draws
from :class:`referee.gamekit.fast.FastChance` seeded with ``seed`` instead: the same
seed gives the same match every time, but not the match ``arena match --seed``
deals, and anyone can predict it. It is opt-in; the default is the referee's stream.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from referee.core.catalogue import get_game
from referee.core.chance import chance_stream
from referee.core.driver import MatchDriver
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.gamekit.base import CHANCE, ChanceSource, Outcome
from referee.gamekit.fast import FastChance
from sdk.bot import Bot, MatchInfo, MatchResult, SeatResult

BotFactory = Callable[[], Bot[Any, Any]]
Policy = Callable[[Any], Any]
"""A plain callable seat: the engine's typed observation in, the engine's action out."""


@dataclass(frozen=True, slots=True)
class LocalMatch:
    outcome: Outcome
    events: tuple[Event, ...]


def play_local(
    game_name: str,
    bots: Sequence[BotFactory],
    *,
    seed: int | None = None,
    rules: Mapping[str, str] | None = None,
    match_id: str | None = None,
    chance_key: bytes | None = None,
    fast_chance: bool = False,
) -> LocalMatch:
    """Play one match between fresh instances of ``bots`` (one per seat).

    An illegal action raises the engine's error: locally there is no referee
    to forfeit the bot, and a bot author wants the traceback. ``fast_chance``: draw
    chance from :class:`~referee.gamekit.fast.FastChance` (seeded with ``seed``, fresh
    when ``None``), not the referee's keyed stream (see the module docstring).
    """
    game = get_game(game_name)
    parsed = game.parse_rules(dict(rules or {}))
    num_seats = len(bots)
    rng: ChanceSource
    if fast_chance:
        if chance_key is not None:
            raise ValueError("fast_chance draws from seed, not from a chance key")
        rng = FastChance(seed)
    else:
        rng = chance_stream(seed=seed, key=chance_key)
    if not match_id:
        match_id = f"local-{seed}" if seed is not None else f"local-{uuid.uuid4().hex[:12]}"
    players = [factory() for factory in bots]
    for seat, bot in enumerate(players):
        bot.start(
            MatchInfo(
                match_id=match_id,
                game=game_name,
                rules=parsed,
                seat=seat,
                num_seats=num_seats,
                raw_rules=game.format_rules(parsed),
            )
        )
    driver = MatchDriver(game, parsed, num_seats)
    events: list[Event] = []
    while (actor := driver.to_act()) is not None:
        event: Event
        if actor == CHANCE:
            event = ChanceEvent(driver.draw(rng))
            driver.apply_chance(event.outcome)
        else:
            decision = driver.decision()
            action = players[actor].act(decision.view)
            event = ActionEvent(actor, action)
            driver.act(decision, action)
        events.append(event)
    state = driver.state
    outcome = game.outcome(state)
    results = tuple(
        SeatResult(seat=seat, place=place, score=score, fault=None)
        for seat, (place, score) in enumerate(zip(outcome.places, outcome.scores, strict=True))
    )
    for seat, bot in enumerate(players):
        bot.end(MatchResult("completed", results, game.observe(state, seat)))
    return LocalMatch(outcome, tuple(events))


class _PolicyBot(Bot[Any, Any]):
    """Adapts a plain ``observation -> action`` callable to the :class:`Bot` contract."""

    game = ""

    def __init__(self, policy: Policy) -> None:
        super().__init__()
        self._policy = policy

    def act(self, observation: Any) -> Any:
        return self._policy(observation)


def play_callables(
    game_name: str,
    policies: Sequence[Policy],
    *,
    seed: int | None = None,
    rules: Mapping[str, str] | None = None,
    match_id: str | None = None,
    chance_key: bytes | None = None,
    fast_chance: bool = False,
) -> LocalMatch:
    """Play one match with plain callables as seats (one per seat), no gRPC.

    Each callable gets the same typed observation a served bot gets in
    :meth:`Bot.act` and returns an engine action; the match runs through
    :func:`play_local` (so the same :class:`~referee.core.driver.MatchDriver`, the same
    chance stream for ``seed`` and the same legality checks). A callable may keep
    state between calls (a closure or an object with ``__call__``).
    """
    return play_local(
        game_name,
        [partial(_PolicyBot, policy) for policy in policies],
        seed=seed,
        rules=rules,
        match_id=match_id,
        chance_key=chance_key,
        fast_chance=fast_chance,
    )
