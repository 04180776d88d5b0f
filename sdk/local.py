"""Play a match in-process, with no gRPC: for bot authors' tests and benchmarks.

Chance is drawn exactly as the referee draws it: from ``seed`` (so a seed deals
the same match here as in ``arena match --seed``), from ``chance_key``, or — when
neither is given — from a fresh secret.

For training and experiments where only speed matters, ``fast_chance=True`` draws
from :class:`referee.gamekit.fast_chance.FastChance` seeded with ``seed`` instead: the same
seed gives the same match every time, but not the match ``arena match --seed``
deals, and anyone can predict it. It is opt-in; the default is the referee's stream.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from referee.core.catalogue import get_game
from referee.core.chance import ChanceStream, key_from_seed, new_secret
from referee.core.driver import MatchDriver
from referee.core.events import ActionEvent, ChanceEvent, Event
from referee.core.mixed import mixed_key
from referee.gamekit.base import CHANCE, ChanceSource, Game, Outcome
from referee.gamekit.fast import maker
from referee.gamekit.fast_chance import FastChance
from sdk.bot import Bot, MatchInfo, MatchResult, SeatResult

BotFactory = Callable[[], Bot[Any, Any]]
Policy = Callable[[Any], Any]
"""A plain callable seat: the engine's typed observation in, the engine's action out."""


@dataclass(frozen=True, slots=True)
class LocalMatch:
    outcome: Outcome
    events: tuple[Event, ...]


_action_event: Final = maker(ActionEvent)
_chance_event: Final = maker(ChanceEvent)
_RULES: dict[tuple[Any, ...], tuple[Any, dict[str, str]]] = {}
"""Parsed and formatted rules by (engine, option text): a training loop plays the same
rules thousands of times (rules are immutable, so one parse serves every match)."""


def _rules(
    game: Game[Any, Any, Any, Any], raw: Mapping[str, str] | None
) -> tuple[Any, dict[str, str]]:
    """``game.parse_rules(raw)`` and its :meth:`~Game.format_rules`, remembered."""
    raw = raw or {}
    try:  # the values' types too: True == 1, but a rule may take one and refuse the other
        key = (game, tuple(raw.items()), tuple(map(type, raw.values())))
        found = _RULES.get(key)
    except TypeError:  # an unhashable value: parse it (and let parse_rules judge it)
        parsed = game.parse_rules(dict(raw))
        return parsed, game.format_rules(parsed)
    if found is None:
        parsed = game.parse_rules(dict(raw))
        found = (parsed, game.format_rules(parsed))
        if len(_RULES) >= 256:
            _RULES.clear()
        _RULES[key] = found
    return found


def _chance_source(
    seed: int | None, chance_key: bytes | None, fast: bool
) -> tuple[ChanceSource, bytes]:
    """Where the match's chance comes from, and the key of its mixed draws (from the
    match's chance key, as the referee's: :func:`referee.core.mixed.mixed_key`)."""
    if fast and chance_key is not None:
        raise ValueError("fast_chance draws from seed, not from a chance key")
    if chance_key is not None:
        key = chance_key
    elif seed is not None:
        key = key_from_seed(seed)
    else:
        key = new_secret()
    return (FastChance(seed) if fast else ChanceStream(key)), mixed_key(key)


def _play(
    game: Game[Any, Any, Any, Any],
    rules: Any,
    seats: Sequence[Policy],
    sources: tuple[ChanceSource, bytes],
) -> tuple[MatchDriver, list[Event]]:
    """Step one match: chance from ``rng``, seat ``i``'s action from ``seats[i]`` (a
    mixed move's drawn with the mixed key, its distribution kept in the event)."""
    rng, key = sources
    driver = MatchDriver(game, rules, len(seats))
    driver.mixed_key = key
    events: list[Event] = []
    append, to_act, play_turn = events.append, game.to_act, driver.play_turn
    while (actor := to_act(driver.state)) is not None:
        if actor == CHANCE:
            outcome = driver.draw(rng)
            append(_chance_event(outcome))
            driver.apply_chance(outcome)
        else:
            append(_action_event(actor, play_turn(actor, seats[actor]), driver.last_policy))
    return driver, events


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
    chance from :class:`~referee.gamekit.fast_chance.FastChance` (seeded with ``seed``, fresh
    when ``None``), not the referee's keyed stream (see the module docstring).
    """
    game = get_game(game_name)
    parsed, formatted = _rules(game, rules)
    num_seats = len(bots)
    sources = _chance_source(seed, chance_key, fast_chance)
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
                raw_rules=dict(formatted),
            )
        )
    driver, events = _play(game, parsed, [bot.act for bot in players], sources)
    state = driver.state
    outcome = game.outcome(state)
    results = tuple(
        SeatResult(seat=seat, place=place, score=score, fault=None)
        for seat, (place, score) in enumerate(zip(outcome.places, outcome.scores, strict=True))
    )
    for seat, bot in enumerate(players):
        bot.end(MatchResult("completed", results, game.observe(state, seat)))
    return LocalMatch(outcome, tuple(events))


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
    :meth:`Bot.act` and returns an engine action; the match runs the loop of
    :func:`play_local` (so the same :class:`~referee.core.driver.MatchDriver`, the same
    chance stream for ``seed`` and the same legality checks). A callable may keep
    state between calls (a closure or an object with ``__call__``). ``match_id`` is
    accepted for symmetry with :func:`play_local`; a callable never sees it.
    """
    game = get_game(game_name)
    parsed, _ = _rules(game, rules)
    sources = _chance_source(seed, chance_key, fast_chance)
    driver, events = _play(game, parsed, policies, sources)
    return LocalMatch(game.outcome(driver.state), tuple(events))
