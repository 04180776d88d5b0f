"""What spectators of a browser game see: its public text and table, a round behind.

``/watch/KEY`` (:mod:`league.server.human_games` serves it) shows a game a person plays
against a bot as anyone at no seat would see it: the engine's text for a viewer
holding no seat (:func:`referee.records.transcript.public_entries`) and the table drawn
from the public view of the state (``ViewerSpec.public``), always at least one finished
round behind (:func:`delayed`). Both are built as the game's events come
(:func:`seen`, the match's ``on_event``), so answering a spectator takes the same
time whatever the held-back rounds hold.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from league.server.human_tables import SEATS, WebGame
from referee.core.catalogue import get_codec, get_entry, get_game, load
from referee.core.events import ActionEvent, Event, apply_event
from referee.records.replay import observation_json
from referee.records.transcript import (
    HIDDEN_CHANCE,
    OUTCOME_MARK,
    PRIVATE_OUTCOME,
    PublicEntry,
    event_text,
    outcome_text,
)

log = logging.getLogger("arena.server.watch")


def delayed(entries: list[PublicEntry], over: bool) -> list[PublicEntry]:
    """What a spectator may see of ``entries``: all once the match is over; before,
    only through the end of the round before the last finished one, so the feed is
    always at least one full round behind the table (a round ends where something
    is settled: a challenge, a reveal, a score, a card taken)."""
    if over:
        return entries
    ends = [index for index, entry in enumerate(entries) if entry.settles]
    return entries[: ends[-2] + 1] if len(ends) >= 2 else []


@dataclass
class Watched:
    """What spectators of a game may see, kept up to date as its events come
    (:func:`seen`), so that a feed request does the same work whatever happened since
    the last one: it only returns :attr:`feed` (building the text of every event at
    each request took longer the more moves the held-back rounds held, a clock a
    spectator could read)."""

    state: Any
    """The engine state after every event so far."""
    entries: list[PublicEntry] = field(default_factory=list)
    """Every event so far as someone at no seat reads it (what
    :func:`referee.records.transcript.public_entries` gives, one event at a time)."""
    shown: int = -1
    """How many of the events the feed shows (the delayed ones)."""
    over: bool = False
    feed: dict[str, Any] = field(default_factory=dict)
    """The text and table of the first :attr:`shown` events."""

    def add(self, game: WebGame, event: Event) -> None:
        """Read ``event`` as a viewer at no seat does (the engine's text for a viewer
        holding no seat; an outcome only when every seat reads it alike)."""
        engine = get_game(game.game)
        before = self.state
        text = event_text(engine, before, event, SEATS)
        after = apply_event(engine, before, event)
        number = len(self.entries) + 1
        lines = [f"{number:4d}  {HIDDEN_CHANCE if text is None else text}"]
        settles = False
        if isinstance(event, ActionEvent):
            read = {
                outcome_text(
                    engine, engine.observe(before, s), engine.observe(after, s), event.seat
                )
                for s in range(SEATS)
            }
            settles = read != {None}
            if settles:
                said = read.pop() if len(read) == 1 else PRIVATE_OUTCOME
                lines.append(f"{OUTCOME_MARK}{said}")
        self.entries.append(PublicEntry(tuple(lines), settles))
        self.state = after

    def refresh(self, game: WebGame) -> None:
        """Rebuild :attr:`feed` when what it may show changed (a round settled, the game
        ended): the delayed lines and the public table after the last of them."""
        over = game.done
        shown = delayed(self.entries, over)
        if len(shown) == self.shown and over == self.over:
            return
        self.shown, self.over = len(shown), over
        self.feed = {
            "lines": [line for entry in shown for line in entry.lines],
            "board": public_board(game, game.events[: len(shown)]),
        }


def watched(game: WebGame) -> Watched:
    """The spectators' view of ``game`` (made at its first use)."""
    if game.watched is None:
        engine = get_game(game.game)
        game.watched = Watched(engine.new_game(engine.default_rules(), SEATS))
        for event in game.events:
            game.watched.add(game, event)
        game.watched.refresh(game)
    found: Watched = game.watched
    return found


def seen(game: WebGame, event: Event) -> None:
    """An event of ``game`` as it happens (``on_event``): kept for its player's story
    and read for its spectators at once, not when they ask."""
    game.events.append(event)
    try:
        if game.watched is None:  # first use, or after a failure: built from every
            watched(game)  # event so far, this one included
        else:
            game.watched.add(game, event)
            game.watched.refresh(game)
    except Exception as error:  # never the match's concern: its spectators' feed fails
        game.watched = None
        log.error("the spectators' feed of %s failed", game.token, exc_info=error)


def spectator_feed(game: WebGame) -> dict[str, Any]:
    """The public, delayed view of ``game`` (``GET /watch/KEY/feed``): its text and
    its table.

    Nothing in it changes when a seat moves within the held-back rounds: the lines
    are the delayed ones only, the table is drawn from the public view of the state
    after the last of them (:func:`public_board`), and no count of what is held back
    is given (a live count told a spectator the moment each move was made). Both are
    built as the events come (:class:`Watched`), so answering takes the same time
    whatever the held-back rounds hold."""
    view = watched(game)
    over = view.over
    return {
        "state": "over" if over else "running",
        **view.feed,
        "replay": f"/matches/{game.match.key}" if over and game.match else None,
    }


def public_board(game: WebGame, events: Sequence[Event]) -> dict[str, Any] | None:
    """The table after ``events`` as someone at no seat sees it, for the game's
    renderer: the public view of the state (``ViewerSpec.public``: no cup, no hand,
    no card's kind a seat alone knows; the same whichever seat it is read from) and
    the engine's numbers for it. None for a game without a public table."""
    spec = get_entry(game.game).viewer
    if spec.renderer is None or spec.public is None:
        return None
    engine = get_game(game.game)
    codec = get_codec(game.game)
    public = load(spec.public)
    state = engine.new_game(engine.default_rules(), SEATS)
    before = None
    for event in events:
        before, state = state, apply_event(engine, state, event)
    view = public(engine.observe(state, 0))
    return {
        "renderer": spec.renderer,
        "obs": observation_json(codec, view),
        "prev": observation_json(codec, public(engine.observe(before, 0))) if before else None,
        "facts": load(spec.facts)(view) if spec.facts else None,
        "seats": [
            {"seat": s, "bot": game.player if s == game.seat else game.bot} for s in range(SEATS)
        ],
    }
